"""The Numba tests' shared set-up.

* ``eager_compile``: programs compile on the first call (``eager``), into one private
  cache directory per test session (``tempfile.mkdtemp``, mode 0700, deleted when the
  session ends), so tests that compile the same program share the compile. A test
  module opts in with ``pytestmark = pytest.mark.usefixtures("eager_compile")``.
* lazy compiles stay in the test process's compile thread (``settings.worker`` off),
  so no test starts a compile worker process it did not ask for
  (test_compile_worker.py turns it on).
* ``compiled_only``: a compiled program that raises fails the test instead of being
  answered by the interpreter.
* ``run_program``: the cache tests' tiny program run in a fresh interpreter (Numba's
  disk cache only shows across processes) against a given cache directory.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap

import numpy as np
import pytest

from graphc.runtime.cpu import numba_cpu


@pytest.fixture(scope="session")
def session_cache_dir():
    """A private cache directory for this test session, removed at its end."""
    path = tempfile.mkdtemp(prefix="graphc-test-cache-")
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(autouse=True)
def _no_compile_worker(monkeypatch):
    monkeypatch.setattr(numba_cpu.settings, "worker", False)


@pytest.fixture(scope="module")
def eager_compile(session_cache_dir):
    mp = pytest.MonkeyPatch()
    mp.setenv("GRAPHC_CACHE_DIR", session_cache_dir)
    mp.setattr(numba_cpu.settings, "mode", "eager")
    yield
    mp.undo()


def _no_rerun(graph, arrays):
    raise AssertionError("the compiled program raised; the call went to the interpreter")


@pytest.fixture
def compiled_only(monkeypatch):
    """A compiled program that raises fails the test, where a call would otherwise be
    answered by the interpreter (``runners``: any exception reruns the graph there), so
    a wrong shape or index in generated code cannot hide behind a right answer."""
    from graphc.runtime.cpu import runners

    monkeypatch.setattr(runners, "run_graph", _no_rerun)


PROGRAM = """
import json, os, sys, warnings
import numpy as np
from graphc.core import registry
from graphc.runtime.cpu import numba_cpu
from graphc.ir.graph import Aval
from graphc.core.trace import TraceContext

caught = []
warnings.showwarning = lambda m, c, *a, **k: caught.append(f"{c.__name__}: {m}")
warnings.simplefilter("always")
numba_cpu.settings.mode = "eager"
#PRELUDE
with TraceContext("cached") as ctx:
    x = ctx.new_input(Aval((4,), np.dtype(np.float32)))
    two = ctx.constant(np.asarray(2.0, np.float32))
    (y,) = ctx.add_node(registry.get("multiply"), (x, two), {}, (x.aval,))
    (z,) = ctx.add_node(registry.get("exp"), (y,), {}, (x.aval,))
    graph = ctx.finish([z])
ex = numba_cpu.executor_for(graph, strict=True)  # jit_compile=True: never falls back
out = ex([np.arange(4, dtype=np.float32)])[0]
print(json.dumps({"backend": ex.backend, "origin": ex.origin, "out": out.tolist(),
                  "path": ex.path, "key": ex.key, "warnings": caught,
                  "numba_read": getattr(sys, "numba_read", None),
                  "native_read": getattr(sys, "native_read", None),
                  "scipy_linalg": "scipy.linalg" in sys.modules}))
"""

# Put in a program's prelude: records in sys.numba_read the Numba cache files that
# Numba opened to unpickle (its index and data files), and in sys.native_read the
# programs linked from their machine code (native.py), to prove what was loaded.
RECORD_NUMBA_READS = """
from graphc.runtime.cpu import native as _native
sys.native_read = []
_native_load = _native.load
def _load_native(directory, key, *args):
    program = _native_load(directory, key, *args)
    if program is not None:
        sys.native_read.append(key)
    return program
_native.load = _load_native
import numba.core.caching as _caching
sys.numba_read = []
_index, _data = _caching.IndexDataCacheFile._load_index, _caching.IndexDataCacheFile._load_data
def _load_index(self):
    if os.path.exists(self._index_path):
        sys.numba_read.append(os.path.basename(self._index_path))
    return _index(self)
def _load_data(self, name):
    sys.numba_read.append(name)
    return _data(self, name)
_caching.IndexDataCacheFile._load_index = _load_index
_caching.IndexDataCacheFile._load_data = _load_data
"""

EXPECTED = np.exp(np.arange(4, dtype=np.float32) * np.float32(2)).tolist()


def run_programs(cache_dir, n=1, prelude="", returncode=0):
    """Run PROGRAM (``prelude`` first) in ``n`` processes at once, with
    ``GRAPHC_CACHE_DIR=cache_dir``; their reports (None for a process that exited with
    the expected non-zero ``returncode``)."""
    env = dict(os.environ, GRAPHC_CACHE_DIR=str(cache_dir))
    code = PROGRAM.replace("#PRELUDE", textwrap.dedent(prelude))
    procs = [subprocess.Popen([sys.executable, "-c", code], env=env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for _ in range(n)]
    reports = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == returncode, err[-3000:]
        reports.append(json.loads(out.strip().splitlines()[-1]) if returncode == 0 else None)
    return reports


def run_program(cache_dir, prelude="", returncode=0):
    """One process of :func:`run_programs`; its report."""
    return run_programs(cache_dir, 1, prelude, returncode)[0]


def check(report, origin):
    """The program ran compiled, from ``origin``, with the right numbers."""
    assert report["backend"] == "numba"
    assert report["origin"] == origin, report
    np.testing.assert_allclose(report["out"], EXPECTED, rtol=1e-6)


@pytest.fixture
def cache_program():
    """``(run_program, check, RECORD_NUMBA_READS)`` for the cache tests."""
    return run_program, check, RECORD_NUMBA_READS


@pytest.fixture
def cache_programs():
    """:func:`run_programs`: several processes at once."""
    return run_programs
