"""The Numba tests' shared set-up: programs compile on the first call (``eager``), into
one cache directory shared by every run of the suite, so only the first run pays for the
compiles (the cache tests in test_numba_cache.py use fresh directories of their own).

A test module opts in with ``pytestmark = pytest.mark.usefixtures("eager_compile")``.
"""

from __future__ import annotations

import os
import tempfile

import pytest

from graphc.runtime import numba_cpu

CACHE_DIR = os.path.join(tempfile.gettempdir(), f"graphc-test-cache-{os.getuid()}")


@pytest.fixture(scope="module")
def eager_compile():
    mp = pytest.MonkeyPatch()
    mp.setenv("GRAPHC_CACHE_DIR", CACHE_DIR)
    mp.setattr(numba_cpu.settings, "mode", "eager")
    yield
    mp.undo()
