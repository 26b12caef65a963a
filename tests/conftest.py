"""Suite-wide settings.

* Semantics are tested on the NumPy interpreter; the Numba tests in tests/runtime switch
  compilation on themselves (``numba_cpu.settings.mode = "eager"``), so no test starts
  background compiles it did not ask for.
* ``GRAPHC_CHECK=1``: the IR verifier runs after every optimization pass of every graph.
"""

import os

from graphc.runtime.cpu import numba_cpu


def pytest_configure(config):
    numba_cpu.settings.mode = "off"
    os.environ["GRAPHC_CHECK"] = "1"
