"""A float sum over axes before the last one folded into the loop feeding it
(graphc/runtime/cpu/kernels_axis_sum.py): N-body's ``sum(d * inv[:, :, None], axis=1)``
and its kin give the unfused program's bits and NumPy's (0 + the first element of each
sum, the rest added in C order: a sum of -0.0s is +0.0), with broadcasting operands,
keepdims, a block of two axes, float32, a group's other result stored beside, and a plain
elementwise producer."""

from __future__ import annotations

import numpy as np
import pytest

import graphc as gc
from graphc.core.interpreter import run_graph
from graphc.runtime.cpu import codegen, numba_cpu

pytestmark = pytest.mark.usefixtures("eager_compile")


def sums(xp, pos, m, x, y32):
    d = pos[None, :, :] - pos[:, None, :]
    inv = m[None, :] / (xp.sum(d * d, axis=-1) + 0.01)
    e = xp.exp(y32) * 2.0
    return (xp.sum(d * inv[:, :, None], axis=1),           # N-body: a plain multiply
            xp.sum(xp.abs(x) * -1.5 + 0.25, axis=0),       # columns of a matrix
            xp.sum(x[:, None, :] * x[None, :, :], axis=(0, 1), keepdims=True),  # a block
            xp.sum(e, axis=1), e,                          # float32; e also stored
            xp.sum(x * 0.0 - 0.0, axis=0))                 # -0.0 sums stay -0.0


def test_middle_axis_sums_fold_into_their_loop_with_numpys_bits(monkeypatch):
    rng = np.random.default_rng(8)
    args = (rng.standard_normal((6, 3)), rng.random(6) + 0.5, rng.standard_normal((5, 4)),
            rng.standard_normal((3, 4, 2)).astype(np.float32))
    graph = gc.function(lambda *a: sums(gc.numpy, *a)).get_concrete_function(
        *args).optimized_graph
    ex = numba_cpu.executor_for(graph)
    assert ex.backend == "numba", ex.explain()
    assert ex.program.source.count("_sum") >= 5  # every sum above folded into its loop
    got = ex(list(args))
    ref = run_graph(graph, list(args))
    want = sums(np, *args)
    # unfolded, as the reductions' own kernels add them: the same bits
    monkeypatch.setattr(codegen, "FOLDS", codegen.FOLDS[:2])
    unfolded = numba_cpu.Executor(graph)
    assert "_sum" not in unfolded.program.source
    for g, r, w, u in zip(got, ref, want, unfolded(list(args)), strict=True):
        assert np.asarray(g).dtype == w.dtype and np.shape(g) == w.shape
        np.testing.assert_array_equal(g, u)
        np.testing.assert_array_equal(np.signbit(g), np.signbit(u))
        if w.dtype == np.float32:  # vmath's exp: within its ulp of NumPy's
            np.testing.assert_allclose(g, r, rtol=1e-6)
            continue
        np.testing.assert_array_equal(g, r)
        np.testing.assert_array_equal(g, w)
        np.testing.assert_array_equal(np.signbit(g), np.signbit(w))


def test_a_sum_of_negative_zeros_is_positive_zero_as_numpys():
    # was -0.0: the unfused kernel stored each sum's first element instead of adding it
    # to 0 (NumPy's identity), so 1 / sum gave -inf where NumPy gives +inf
    z2, z3 = np.full((3, 4), -0.0), np.full((2, 3, 4), -0.0)
    f = gc.function(lambda a, b: (gc.numpy.sum(a, axis=0), gc.numpy.mean(b, axis=1),
                                  gc.numpy.sum(b.astype(np.float32), axis=(0, 1)),
                                  gc.numpy.prod(a, axis=0), gc.numpy.max(b, axis=0)))
    ex = numba_cpu.executor_for(f.get_concrete_function(z2, z3).optimized_graph)
    assert ex.backend == "numba", ex.explain()
    want = (np.sum(z2, axis=0), np.mean(z3, axis=1),
            np.sum(z3.astype(np.float32), axis=(0, 1)), np.prod(z2, axis=0),
            np.max(z3, axis=0))
    for g, w in zip(ex([z2, z3]), want, strict=True):
        assert np.asarray(g).dtype == w.dtype
        np.testing.assert_array_equal(np.signbit(g), np.signbit(w))  # +0, +0, +0, +0, -0
