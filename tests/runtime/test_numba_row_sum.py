"""A float sum over the last axis folded into the elementwise loop feeding it
(kernels_row_sum.py): the same bits as the interpreter and NumPy (a C-contiguous
intermediate's rows are summed pairwise by both), broadcasting, keepdims, a rank-1 sum
to a scalar, float32, non-contiguous operands and NaN. One program holds every case."""

from __future__ import annotations

import numpy as np
import pytest

import graphc as gc
from graphc.core.interpreter import run_graph
from graphc.runtime.cpu import kernels_row_sum, numba_cpu

pytestmark = pytest.mark.usefixtures("eager_compile")


def sums(xp, pts, cent, v, m32):
    d = pts[:, None, :] - cent[None, :, :]
    return (xp.sum(d * d, axis=-1),                       # k-means: broadcast operands
            xp.sum(xp.abs(pts.T - 1.5), axis=1, keepdims=True),   # transposed operand
            xp.sum(v * 3.0 + 1.0),                        # rank 1: a scalar
            xp.sum(xp.sqrt(m32) * m32, axis=-1),          # float32 (NaN from sqrt(-1))
            xp.sum(v[:130] * 0.5 - 1.0, axis=0))          # > 128: pairwise halving


def test_row_sums_fold_and_keep_numpys_bits():
    rng = np.random.default_rng(3)
    args = (rng.standard_normal((50, 8)), rng.standard_normal((7, 8)),
            rng.standard_normal(300), rng.standard_normal((4, 5)).astype(np.float32))
    f = gc.function(lambda *a: sums(gc.numpy, *a))
    graph = f.get_concrete_function(*args).optimized_graph
    ex = numba_cpu.executor_for(graph)
    assert ex.backend == "numba", ex.explain()
    src = ex.program.source
    # every sum folded: rows of more than 128 through a row buffer and the helper, rows
    # of 8 to 128 as one leaf of NumPy's tree written inline, the 5-value rows one by one
    assert src.count("H.pairwise_sum(_row") == 2 and "_acc" in src
    assert src.count("_pw0_ = ") == 2
    got = ex([np.asarray(a) for a in args])
    with pytest.warns(RuntimeWarning, match="invalid value"):  # sqrt(-x), as NumPy's
        ref = run_graph(graph, [np.asarray(a) for a in args])
    with np.errstate(invalid="ignore"):
        want = sums(np, *args)
    for k, (g, r, w) in enumerate(zip(got, ref, want, strict=True)):
        assert np.asarray(g).dtype == w.dtype and np.shape(g) == np.shape(w)
        if k == 1:  # NumPy keeps pts.T's F order for the intermediate and adds its
            # columns in order; the compiled intermediate is C order, summed pairwise
            # (docs/runtime.md: float sums over such layouts differ in the last bits)
            np.testing.assert_allclose(g, r, rtol=1e-14)
            np.testing.assert_allclose(g, w, rtol=1e-14)
            continue
        np.testing.assert_array_equal(g, r)
        np.testing.assert_array_equal(g, w)


def test_a_sum_whose_intermediate_is_also_read_is_not_folded():
    f = gc.function(lambda x: (gc.numpy.sum(x * 2.0, axis=-1), x * 2.0))
    x = np.arange(6.0).reshape(2, 3)
    ex = numba_cpu.executor_for(f.get_concrete_function(x).optimized_graph)
    assert "_row" not in ex.program.source
    s, y = f(x)
    np.testing.assert_array_equal(s.numpy(), (x * 2).sum(-1))


def short(xp, x, y):
    a, b = x * 2.0 - 0.5, y * 3.0
    return (xp.sum(a, axis=-1), a,                 # read twice: not folded
            xp.mean(b, axis=(1, 2)), b,            # a 2x3 trailing run, float32 mean
            xp.sum(x, axis=-1, keepdims=True))     # an argument: no loop to fold into


def test_short_rows_are_added_inline_with_numpys_bits():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((40, 3))
    y = rng.standard_normal((6, 2, 3)).astype(np.float32)
    graph = gc.function(lambda x, y: short(gc.numpy, x, y)).get_concrete_function(
        x, y).optimized_graph
    ex = numba_cpu.executor_for(graph)
    assert ex.backend == "numba", ex.explain()
    assert "pairwise_sum" not in ex.program.source  # every row is shorter than 8
    got = ex([x, y])
    for g, r, w in zip(got, run_graph(graph, [x, y]), short(np, x, y), strict=True):
        assert np.asarray(g).dtype == w.dtype
        np.testing.assert_array_equal(g, r)
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("n", [8, 13, 40, 128])
def test_folded_rows_up_to_128_are_one_inline_leaf_with_numpys_bits(n):
    x = np.random.default_rng(n).standard_normal((6, n)) * 10.0 ** np.arange(n)
    x[0] = 0.0  # a row of -0.0 below: NumPy's sum is +0.0 (each leaf starts at 0 + a[0])
    f = gc.function(lambda x: gc.numpy.sum(gc.numpy.abs(x) * -2.0, axis=-1))
    ex = numba_cpu.executor_for(f.get_concrete_function(x).optimized_graph)
    assert ex.backend == "numba", ex.explain()
    src = ex.program.source
    assert "pairwise_sum" not in src and "_pw0_ = " in src  # no helper call per row
    s = ex([x])
    s = s[0] if isinstance(s, list | tuple) else s
    want = np.sum(np.abs(x) * -2.0, axis=-1)
    np.testing.assert_array_equal(s, want)
    np.testing.assert_array_equal(np.signbit(s), np.signbit(want))


def pairs(xp, p, q):
    d = p[None, :, :] - q[:, None, :]          # one fused group, two results:
    return xp.sum(d * d, axis=-1), d * 0.5      # d * d summed, d * 0.5 stored


@pytest.mark.parametrize("n", [3, 20])  # a short row added inline; a leaf through a buffer
def test_a_group_with_another_result_folds_its_summed_one_and_stores_the_other(n):
    rng = np.random.default_rng(n)
    p, q = rng.standard_normal((5, n)), rng.standard_normal((4, n))
    graph = gc.function(lambda p, q: pairs(gc.numpy, p, q)).get_concrete_function(
        p, q).optimized_graph
    fused = [nd for nd in graph.nodes if nd.op.name == "fused_elementwise"]
    assert len(fused) == 1 and len(fused[0].outputs) == 2
    ex = numba_cpu.executor_for(graph)
    assert ex.backend == "numba", ex.explain()
    src = ex.program.source  # folded: an accumulator in the loop, no sum of a stored array
    assert "_acc" in src and "pairwise_sum" not in src
    got = ex([p, q])
    for g, r, w in zip(got, run_graph(graph, [p, q]), pairs(np, p, q), strict=True):
        assert np.asarray(g).dtype == w.dtype and np.shape(g) == w.shape
        np.testing.assert_array_equal(g, r)
        np.testing.assert_array_equal(g, w)


def shared(xp, x, y):
    """Softmax-shaped: the summed values are also divided by their row sums."""
    e = (x - xp.max(x, axis=-1, keepdims=True)) * 2.0
    f = xp.abs(y) + 0.25
    return e / xp.sum(e, axis=-1, keepdims=True), f / xp.sum(f, axis=-1, keepdims=True)


def test_long_rows_read_again_are_summed_where_they_are_stored():
    """Rows of ``SHARED_MIN`` values or more: the loop stores each row and sums it in
    place (one leaf inline for 70 values, the helper on the stored row for 130), the
    max read once per row; the bits of the interpreter and of NumPy."""
    rng = np.random.default_rng(7)
    x, y = rng.standard_normal((2, 3, 70)), rng.standard_normal((5, 130)).astype(np.float32)
    assert kernels_row_sum.SHARED_MIN <= 70
    graph = gc.function(lambda x, y: shared(gc.numpy, x, y)).get_concrete_function(
        x, y).optimized_graph
    ex = numba_cpu.executor_for(graph)
    assert ex.backend == "numba", ex.explain()
    src = ex.program.source
    assert src.count("_pw0_ = ") == 1 and src.count("H.pairwise_sum(_row") == 1
    assert "np.broadcast_to" not in src  # the row max: one scalar per row
    got, ref, want = ex([x, y]), run_graph(graph, [x, y]), shared(np, x, y)
    for g, r, w in zip(got, ref, want, strict=True):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, r)
        np.testing.assert_array_equal(g, w)
