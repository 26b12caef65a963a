"""The cache over a process's life: a bounded in-memory table, one compile worker
thread, ``clear()`` that deletes only graphc's files, and a retry after Ctrl-C cut the
first ``import numba`` short."""

from __future__ import annotations

import os
import threading
import time
import warnings

import numpy as np
import pytest

import graphc as gc
from graphc.core import registry
from graphc.core.trace import TraceContext
from graphc.errors import FallbackWarning
from graphc.ir.graph import Aval
from graphc.runtime.cpu import cache, compile_queue, numba_cpu

F32 = np.dtype(np.float32)


def _graph(name="lifecycle"):
    with TraceContext(name) as ctx:
        x = ctx.new_input(Aval((4,), F32))
        one = ctx.constant(np.asarray(1.0, np.float32))
        (y,) = ctx.add_node(registry.get("add"), (x, one), {}, (x.aval,))
        (z,) = ctx.add_node(registry.get("multiply"), (y, x), {}, (x.aval,))
        return ctx.finish([z])


def test_memory_table_keeps_the_most_recently_used(monkeypatch):
    monkeypatch.setattr(cache.settings, "max_programs", 3)
    monkeypatch.setattr(cache, "_memory", type(cache._memory)())
    for k in "abcd":
        cache.remember(k, (k, None))
    assert cache.lookup("a") is None and len(cache._memory) == 3
    assert cache.lookup("b") == ("b", None)  # now the most recent: "c" goes next
    cache.remember("e", ("e", None))
    assert [k for k in "bcde" if cache.lookup(k)] == ["b", "d", "e"]
    assert cache.info()["in_memory"] == 3


def test_clear_caches_drops_the_memory_table(monkeypatch):
    monkeypatch.setattr(cache, "_memory", type(cache._memory)())
    cache.remember("k", ("program", None))
    gc.clear_caches()
    assert cache.lookup("k") is None


def test_compiles_run_on_one_worker_thread(monkeypatch):
    running, most, names = [0], [0], set()
    lock = threading.Lock()

    def slow_failing_compile(program, key=None):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
            names.add(threading.current_thread().name)
        time.sleep(0.02)
        with lock:
            running[0] -= 1
        raise RuntimeError("no compiler today")

    monkeypatch.setattr(numba_cpu.settings, "mode", "lazy")
    monkeypatch.setattr(numba_cpu, "compile_program", slow_failing_compile)
    monkeypatch.setattr(cache, "_memory", type(cache._memory)())
    graph = _graph()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FallbackWarning)
        executors = [numba_cpu.executor_for(graph) for _ in range(20)]
        before = threading.active_count()
        for ex in executors:
            ex._start_compile()
        assert threading.active_count() <= before + 1
        assert not any(ex.wait(timeout=30) for ex in executors)
    assert most[0] == 1 and names == {"graphc-compile"}
    assert all("no compiler today" in ex.reasons[0] and len(ex.reasons) == 1
               for ex in executors)


def test_compile_now_while_queued_behind_others(monkeypatch, session_cache_dir):
    monkeypatch.setenv("GRAPHC_CACHE_DIR", session_cache_dir)
    monkeypatch.setattr(numba_cpu.settings, "mode", "lazy")
    monkeypatch.setattr(cache, "_memory", type(cache._memory)())  # not compiled yet
    release = threading.Event()
    compile_queue.submit(lambda: release.wait(60))  # the worker is busy elsewhere
    try:
        ex = numba_cpu.executor_for(_graph("queued"))
        ex._start_compile()
        assert not ex.wait(timeout=0.05)  # still queued
        assert ex.compile_now() and ex.backend == "numba"
    finally:
        release.set()
    assert ex.wait(timeout=30) and not ex.reasons
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(ex([x])[0], (x + 1) * x)


def test_clear_deletes_only_graphcs_files(tmp_path, monkeypatch, cache_program):
    run, check, _ = cache_program
    check(run(tmp_path), "compiled")
    monkeypatch.setenv("GRAPHC_CACHE_DIR", str(tmp_path))
    tag = cache.directory()
    foreign = [os.path.join(cache.root(), "README"),
               os.path.join(cache.root(), "other-tool", "data.bin"),
               os.path.join(tag, "notes.txt"),
               os.path.join(tag, "__pycache__", "helpers.cpython-311.pyc")]
    for path in foreign:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write("not graphc's")
    empty_tag = os.path.join(cache.root(), "py0-old-version")
    os.makedirs(os.path.join(empty_tag, "__pycache__"))
    assert cache.info()["programs"] == 1
    cache.clear()
    left = sorted(os.path.join(b, n) for b, _d, ns in os.walk(tmp_path) for n in ns)
    assert left == sorted(foreign)
    assert not os.path.exists(empty_tag) and cache.info()["programs"] == 0


CTRL_C_IN_IMPORT = """
import importlib.abc
class _CtrlC(importlib.abc.MetaPathFinder):
    fired = False
    def find_spec(self, name, path, target=None):
        if name == "numba.core.typing.templates" and not _CtrlC.fired:
            _CtrlC.fired = True
            raise KeyboardInterrupt  # the user pressed Ctrl-C inside `import numba`
sys.meta_path.insert(0, _CtrlC())
_executor_for = numba_cpu.executor_for
def _interrupted_once(graph, **kw):
    try:
        _executor_for(graph, **kw)
    except KeyboardInterrupt:
        pass
    else:
        raise AssertionError("the import was not interrupted")
    return _executor_for(graph, **kw)  # the user tries again
numba_cpu.executor_for = _interrupted_once
"""


def test_ctrl_c_during_numba_import_can_be_retried(tmp_path, cache_program):
    run, check, _ = cache_program
    check(run(tmp_path, prelude=CTRL_C_IN_IMPORT), "compiled")


@pytest.fixture(autouse=True)
def _no_stray_queue():
    yield
    deadline = time.monotonic() + 30
    while compile_queue.pending() and time.monotonic() < deadline:
        time.sleep(0.01)
