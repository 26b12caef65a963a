"""The CUDA tests run under Numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``).

The variable must be set before numba.cuda is first imported: this conftest sets it when
pytest collects tests/cuda (before any test runs), and updates Numba's config when Numba
itself was already imported by other tests. The PTX tests run without it, in a child
process (tests/cuda/test_ptx_kernels.py).
"""

import os
import sys

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
if "numba.core.config" in sys.modules:
    sys.modules["numba.core.config"].ENABLE_CUDASIM = True
if "numba.cuda" in sys.modules:  # pragma: no cover - a misordered suite, say so loudly
    from numba.core import config

    assert config.ENABLE_CUDASIM, (
        "numba.cuda was imported without the simulator before tests/cuda was collected; "
        "run these tests with NUMBA_ENABLE_CUDASIM=1")
