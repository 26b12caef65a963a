"""Suite-wide settings.

* Semantics are tested on the NumPy interpreter; the Numba tests in tests/runtime switch
  compilation on themselves (``numba_cpu.settings.mode = "eager"``), so no test starts
  background compiles it did not ask for.
* ``GRAPHC_CHECK=1``: the IR verifier runs after every optimization pass of every graph.
* Hypothesis runs derandomized (profile ``graphc``: the same generated examples on every
  run, so a suite result does not depend on luck); ``GRAPHC_HYPOTHESIS=explore`` draws
  fresh random examples instead, to hunt for new failures locally.
"""

import os

from hypothesis import settings

from graphc.runtime.cpu import numba_cpu

settings.register_profile("graphc", derandomize=True, deadline=None)
settings.register_profile("explore", deadline=None)
settings.load_profile("explore" if os.environ.get("GRAPHC_HYPOTHESIS") == "explore"
                      else "graphc")


def pytest_configure(config):
    numba_cpu.settings.mode = "off"
    os.environ["GRAPHC_CHECK"] = "1"
