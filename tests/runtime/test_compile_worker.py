"""Lazy compiles in a worker process (graphc/runtime/cpu/compile_worker.py): the worker writes
the program into the disk cache, the caller loads it from there; a script's second run
finds it on disk and runs compiled from its first call; a worker that cannot help
leaves the compile to the caller's thread."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest

from graphc.core import registry
from graphc.core.interpreter import run_graph
from graphc.core.trace import TraceContext
from graphc.ir.graph import Aval
from graphc.runtime.cpu import cache, compile_worker, numba_cpu

F32 = np.dtype(np.float32)


def _graph(k: float):
    with TraceContext("worker") as ctx:
        x = ctx.new_input(Aval((5,), F32))
        c = ctx.constant(np.asarray(k, np.float32))
        (y,) = ctx.add_node(registry.get("multiply"), (x, c), {}, (x.aval,))
        (z,) = ctx.add_node(registry.get("tanh"), (y,), {}, (x.aval,))
        return ctx.finish([z])


@pytest.fixture
def lazy(monkeypatch, tmp_path):
    monkeypatch.setenv("GRAPHC_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setattr(numba_cpu.settings, "mode", "lazy")
    monkeypatch.setattr(numba_cpu.settings, "worker", True)
    monkeypatch.setattr(cache, "_memory", type(cache._memory)())  # nothing compiled yet
    return tmp_path


def _hot(ex, x, want):
    for _ in range(3):  # the interpreter answers while the program compiles elsewhere
        np.testing.assert_array_equal(ex([x])[0], want)
    assert ex.wait(timeout=240), ex.reasons
    np.testing.assert_allclose(ex([x])[0], want, rtol=4e-7, atol=0)


def test_worker_process_compiles_into_the_cache_and_the_caller_loads_it(lazy):
    graph = _graph(0.75)
    x = np.linspace(-3, 3, 5, dtype=np.float32)
    want = run_graph(graph, [x])[0]
    ex = numba_cpu.executor_for(graph)
    _hot(ex, x, want)
    assert ex._job is not None and ex._job.ok, ex._job.error  # the worker built it ...
    assert ex.origin == "disk" and numba_cpu._on_disk(ex.key)  # ... this process loaded it
    worker = compile_worker._worker
    assert worker is not None and worker.alive() and worker.proc.pid != os.getpid()


def test_the_waiting_thread_imports_blas_for_a_matmul_program(lazy, monkeypatch):
    """The first compiled call of a program with np.dot would import scipy.linalg (0.2-0.3
    s): the thread waiting for the worker imports it instead."""
    from graphc.runtime.cpu import numba_start

    asked = []
    prewarm = numba_start.prewarm
    monkeypatch.setattr(numba_start, "prewarm", lambda blas=False, **kw: (
        asked.append(blas), prewarm(blas, **kw)))
    with TraceContext("worker_mm") as ctx:
        a = ctx.new_input(Aval((3, 4), F32))
        b = ctx.new_input(Aval((4, 2), F32))
        (y,) = ctx.add_node(registry.get("matmul"), (a, b), {}, (Aval((3, 2), F32),))
        graph = ctx.finish([y])
    xs = [np.arange(12, dtype=np.float32).reshape(3, 4), np.ones((4, 2), np.float32)]
    ex = numba_cpu.executor_for(graph)
    assert "H.dot(" in ex.program.source
    for _ in range(3):
        np.testing.assert_array_equal(ex(xs)[0], xs[0] @ xs[1])
    assert ex.wait(timeout=240) and ex.origin == "disk", (ex.reasons, ex._job.error)
    assert asked == [True] and "scipy.linalg.cython_blas" in sys.modules
    np.testing.assert_array_equal(ex(xs)[0], xs[0] @ xs[1])


def test_a_worker_that_cannot_help_leaves_the_compile_to_the_thread(lazy, monkeypatch):
    def refuse(key, source, signature):
        job = compile_worker.Job(key)
        job.finish(False, "no worker today")
        return job

    monkeypatch.setattr(compile_worker, "submit", refuse)
    graph = _graph(1.25)
    x = np.linspace(-3, 3, 5, dtype=np.float32)
    ex = numba_cpu.executor_for(graph)
    _hot(ex, x, run_graph(graph, [x])[0])
    assert ex.origin == "compiled" and not ex.reasons


def test_worker_refuses_a_program_keyed_by_another_version(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHC_CACHE_DIR", str(tmp_path))  # the worker code sets it
    reply = compile_worker._compile_one({"key": "0" * 32, "source": "x = 1\n",
                                         "signature": [], "cache_dir": str(tmp_path)})
    assert reply == {"key": "0" * 32, "ok": False,
                     "error": "version mismatch with the parent"}


SCRIPT = """
import json, sys
import numpy as np
import graphc as gc
from graphc.runtime.cpu import compile_worker
f = gc.function(lambda x: gc.numpy.tanh(x * 0.5) - 1.0)
x = np.linspace(-2, 2, 7).astype(np.float32)
outs = [f(x).numpy().tolist() for _ in range(3)]
ex = f.get_concrete_function(x).runtime
w = compile_worker._worker
print(json.dumps({"backend": ex.backend, "origin": ex.origin, "outs": outs,
                  "interpreted": ex.calls,
                  "pid": w.proc.pid if w is not None else None}))
"""


def test_a_short_script_run_twice_runs_compiled_on_its_second_run(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env.update(GRAPHC_CACHE_DIR=str(tmp_path), GRAPHC_JIT="lazy",
               PYTHONPATH=os.pathsep.join([os.getcwd(), env.get("PYTHONPATH", "")]))

    def run():
        res = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                             text=True, timeout=300, check=False)
        assert res.returncode == 0, res.stderr[-3000:]
        return json.loads(res.stdout.strip().splitlines()[-1])

    first = run()
    assert first["backend"] == "numpy" and first["pid"]  # 3 calls: interpreted, then exit
    deadline = time.monotonic() + 240  # the worker outlives the script to finish it
    while time.monotonic() < deadline:
        try:
            os.kill(first["pid"], 0)
        except OSError:
            break
        time.sleep(0.05)
    second = run()
    assert second["backend"] == "numba" and second["origin"] == "disk", second
    assert second["interpreted"] == 0  # loaded at the first call: every call compiled
    want = np.tanh(np.linspace(-2, 2, 7).astype(np.float32) * np.float32(0.5)) - 1
    np.testing.assert_allclose(second["outs"], [want] * 3, rtol=4e-7, atol=1e-7)
    np.testing.assert_allclose(first["outs"], second["outs"], rtol=4e-7, atol=1e-7)
