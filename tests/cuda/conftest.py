"""The CUDA tests run under Numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``).

The variable must be set before numba.cuda is first imported: this conftest sets it when
pytest collects tests/cuda (before any test runs), and updates Numba's config when Numba
itself was already imported by other tests. The PTX tests run without it, in a child
process (tests/cuda/test_ptx_kernels.py).
"""

import os
import sys

import pytest

from graphc.runtime.cuda import codegen

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
if "numba.core.config" in sys.modules:
    sys.modules["numba.core.config"].ENABLE_CUDASIM = True
# The simulator runs blocks one after another with a Python thread per CUDA thread: at
# most 2 blocks per launch (grid-stride loops cover the rest) keeps these tests fast and
# still runs every kernel with more than one block.
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


if "numba.cuda" in sys.modules:  # pragma: no cover - a misordered suite, say so loudly
    from numba.core import config

    assert config.ENABLE_CUDASIM, (
        "numba.cuda was imported without the simulator before tests/cuda was collected; "
        "run these tests with NUMBA_ENABLE_CUDASIM=1")
