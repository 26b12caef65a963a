"""Parallel elementwise loops (``numba.prange`` above ``loops.parallel_settings.min_size``)
give the same bits as the serial loops and the interpreter."""

from __future__ import annotations

import numpy as np
import pytest
from test_numba_backend import CACHE_DIR, build, check, compare, floats

from graphc.runtime import loops, numba_cpu

F32, I32 = np.dtype(np.float32), np.dtype(np.int32)


@pytest.fixture(autouse=True, scope="module")
def _eager_compile():
    mp = pytest.MonkeyPatch()
    mp.setenv("GRAPHC_CACHE_DIR", CACHE_DIR)
    mp.setattr(numba_cpu.settings, "mode", "eager")
    yield
    mp.undo()


def _graph():
    def body(g, x, i):
        s = g.sigmoid(g.add(g.multiply(x, np.asarray(2.0, F32)), np.asarray(0.5, F32)))
        return [("sigmoid", s), ("where", g.where(g.less(x, s), x, s)),
                ("int", g.floor_divide(g.multiply(i, i), np.asarray(7, I32))),
                ("sum", g.sum(s, axis=1))]

    return build("par", [((64, 33), F32), ((64, 33), I32)], body)


def test_parallel_loops_agree_with_serial(monkeypatch):
    graph, labels = _graph()
    x = floats((64, 33), F32)
    i = np.random.default_rng(2).integers(-2**20, 2**20, (64, 33), dtype=np.int32)
    tol = {"where": 4, "sum": 4}  # derived from sigmoid: vmath vs NumPy, a few ULP
    serial = check(graph, labels, [x, i], tol)
    assert "prange" not in serial.program.source
    monkeypatch.setattr(loops.parallel_settings, "min_size", 1024)  # 64 * 33 = 2112
    parallel = check(graph, labels, [x, i], tol)
    assert "numba.prange" in parallel.program.source and "parallel=" in parallel.program.source
    compare(parallel([x, i]), serial([x, i]), labels)
