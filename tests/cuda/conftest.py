"""The CUDA tests run under Numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``).

The variable must be set before numba.cuda is first imported: this conftest sets it when
pytest collects tests/cuda (before any test runs), and updates Numba's config when Numba
itself was already imported by other tests. The PTX tests run without it, in a child
process (tests/cuda/test_ptx_kernels.py).

On a machine with a GPU, ``NUMBA_ENABLE_CUDASIM=0 python -m pytest tests/cuda`` runs the
same tests on the real device instead (launches with the default grid); the tests that
check the simulator itself (test_shared_memory_races.py) are skipped then, with a reason.
"""

import os
import sys

import pytest

from graphc.runtime.cuda import codegen

REAL_GPU = os.environ.get("NUMBA_ENABLE_CUDASIM") == "0"

if not REAL_GPU:
    os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
    if "numba.core.config" in sys.modules:
        sys.modules["numba.core.config"].ENABLE_CUDASIM = True
    # The simulator runs blocks one after another with a Python thread per CUDA thread:
    # at most 2 blocks per launch (grid-stride loops cover the rest) keeps these tests
    # fast and still runs every kernel with more than one block.
    codegen.settings.max_grid = 2


@pytest.fixture(autouse=True)
def _fast_thread_switches():
    """The simulator's threads meet at every ``cuda.syncthreads()``; with Python's default
    5 ms switch interval each meeting waits for a busy thread's slice to run out (a
    reduction launch took 0.19 s, 0.008 s at 10 us). Restored after each test."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    yield
    sys.setswitchinterval(before)


# a misordered suite (numba.cuda imported before the simulator was chosen): say so loudly
if "numba.cuda" in sys.modules and not REAL_GPU:  # pragma: no cover
    from numba.core import config

    assert config.ENABLE_CUDASIM, (
        "numba.cuda was imported without the simulator before tests/cuda was collected; "
        "run these tests with NUMBA_ENABLE_CUDASIM=1")
