"""A max/min over all axes folded into the elementwise loop that feeds it
(kernels_max_fold.fused_reduction): the same bits as the interpreter, NaNs included."""

from __future__ import annotations

import numpy as np
import pytest

import graphc as gc
from graphc.core.interpreter import run_graph
from graphc.runtime.cpu import numba_cpu

pytestmark = pytest.mark.usefixtures("eager_compile")


def _newton_error(x, a):
    return gc.reduce_max(gc.abs(x * x - a))


def _spread(x, a):
    return gc.reduce_min(x * 2.0 - a), gc.reduce_max(x + a)


def _int_min(i, j):
    return gc.reduce_min(i * 3 + j)  # int8: wraps as NumPy does


def _used_twice(x, a):
    y = gc.abs(x - a) * 2.0
    return gc.reduce_max(y), y


def _compiled(fn, *args):
    graph = gc.function(fn).get_concrete_function(*args).optimized_graph
    ex = numba_cpu.executor_for(graph)
    assert ex.backend == "numba", ex.explain()
    return graph, ex


def _same_bits(got, want):
    """Equal bits (so -0.0 is not 0.0), except that any NaN equals any NaN: NumPy's own
    max returns the first NaN element from its scalar loop but a positive NaN from its
    SIMD loop (37 float64 values with one -NaN: +NaN), so the sign is not part of it."""
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape
        if g.dtype.kind == "f" and np.isnan(w).all():
            assert np.isnan(g).all(), (g, w)
        else:
            assert g.tobytes() == w.tobytes(), (g, w)


def _floats(n, dtype, rng):
    return (rng.standard_normal(n) * 3).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_max_min_fold_in_the_loop(dtype):
    rng = np.random.default_rng(5)
    x, a = _floats(37, dtype, rng), _floats(37, dtype, rng)
    for fn in (_newton_error, _spread):
        graph, ex = _compiled(fn, x, a)
        assert "H.float_key" in ex.program.source
        # x + a alone is one op, not a fused node: its max folds into its loop all the same
        assert "H.famax" not in ex.program.source
        cases = [(x, a)]
        neg_nan = np.array(np.nan, dtype)
        neg_nan = -neg_nan  # a NaN with the sign bit
        for at, special in ((5, [np.inf]), (0, [-np.inf] * 37), (5, [-0.0, 0.0]),
                            (5, [neg_nan]), (30, [np.nan, neg_nan])):
            xs = x.copy()
            xs[at:at + len(special)] = special
            cases.append((xs, a))
        for args in cases:
            with np.errstate(all="ignore"):
                _same_bits(ex(list(args)), run_graph(graph, list(args)))


def test_int_min_folds_with_wraparound():
    rng = np.random.default_rng(6)
    i, j = (rng.integers(-128, 128, 50).astype(np.int8) for _ in range(2))
    graph, ex = _compiled(_int_min, i, j)
    assert "np.int8(127)" in ex.program.source  # the fold starts at int8's max
    _same_bits(ex([i, j]), run_graph(graph, [i, j]))


def test_not_fused_when_the_elementwise_result_is_used_elsewhere():
    rng = np.random.default_rng(7)
    x, a = _floats(20, np.float64, rng), _floats(20, np.float64, rng)
    graph, ex = _compiled(_used_twice, x, a)
    assert "H.famax" in ex.program.source and "H.float_key" not in ex.program.source
    _same_bits(ex([x, a]), run_graph(graph, [x, a]))
