"""gc.clip_by_*, saturate_cast, complex, einsum, tensordot, norm, linspace, add_n,
argmin, cumsum, reduce_logsumexp, scalar_mul, truncatediv/mod, sort, argsort,
searchsorted, unique*, approx_top_k, histogram_fixed_width* and the tf.math aliases."""

from __future__ import annotations

import numpy as np
import pytest
from tf_api_helpers import both, check_both, compiled, numeric_grad, same, tape_grad

import graphc as gc
from graphc import tf_api

A = np.array([[3.0, 4.0], [-1.0, 2.0]], np.float32)


def test_math_aliases_are_gc_math_objects():
    for name, fallback in tf_api.TF_MATH_NAMES.items():
        got = getattr(gc, name)
        assert got is getattr(gc.math, name, fallback), name
    x = np.array([0.25, 0.5], np.float32)
    for name, ref in [("acos", np.arccos), ("asinh", np.arcsinh), ("atanh", np.arctanh),
                      ("cosh", np.cosh), ("sinh", np.sinh), ("floor", np.floor),
                      ("square", np.square), ("sign", np.sign), ("sigmoid",
                                                                 lambda v: 1 / (1 + np.exp(-v)))]:
        check_both(getattr(gc, name), [x], ref(x).astype(np.float32))
    same(gc.round(np.array([0.5, 1.5, 2.5], np.float32)), np.array([0.0, 2.0, 2.0], np.float32))
    same(gc.acos(0.5), np.float32(np.arccos(np.float32(0.5))))  # a Python float is float32


def test_clipping():
    check_both(lambda t: gc.clip_by_value(t, -0.5, 2.5), [A], np.clip(A, -0.5, 2.5))
    same(gc.clip_by_value(np.array([1, 9], np.int32), 2, 5), np.array([2, 5], np.int32))
    norm = np.sqrt((A ** 2).sum())
    check_both(lambda t: gc.clip_by_norm(t, 1.0), [A], A / norm)
    rows = np.sqrt((A ** 2).sum(1, keepdims=True))
    check_both(lambda t: gc.clip_by_norm(t, 2.0, axes=[1]), [A], A * 2 / np.maximum(rows, 2))
    same(gc.clip_by_norm(np.zeros(2, np.float32), 1.0), np.zeros(2, np.float32))
    b = np.array([1.0], np.float32)
    g = np.sqrt((A ** 2).sum() + 1)
    for got in both(lambda x, y: gc.clip_by_global_norm([x, None, y], 2.0), A, b):
        same(got[0][0], A * 2 / g)
        assert got[0][1] is None
        same(got[1], np.float32(g))
    out, n = gc.clip_by_global_norm([A], 2.0, use_norm=np.float32(np.inf))
    assert np.isnan(out[0].numpy()).all() and np.isinf(n.numpy())


def test_casts_and_complex():
    same(gc.saturate_cast(np.array([1e10, -1e10, 3.7], np.float32), gc.int32),
         np.array([2147483520, -2147483648, 3], np.int32))
    same(gc.saturate_cast(np.array([300, -5, 7], np.int32), gc.uint8),
         np.array([255, 0, 7], np.uint8))
    same(gc.saturate_cast(np.array([1e300], np.float64), gc.float32),
         np.array([np.finfo(np.float32).max], np.float32))
    check_both(gc.complex, [A, -A], (A - 1j * A).astype(np.complex64))
    with pytest.raises(TypeError):
        gc.complex(A, A.astype(np.float64))


def test_products_norms_linspace():
    check_both(lambda x: gc.einsum("ij,jk->ik", x, x), [A], A @ A)
    check_both(lambda x: gc.einsum("ij->", x), [A], np.float32(A.sum()))
    check_both(lambda x: gc.tensordot(x, x, 1), [A], A @ A)
    check_both(lambda x: gc.tensordot(x, x, [[0], [1]]), [A], np.tensordot(A, A, (0, 1)))
    with pytest.raises(ValueError):
        gc.tensordot(A, A, -1)
    check_both(gc.norm, [A], np.float32(np.sqrt((A ** 2).sum())))
    same(gc.norm(A, ord=1), np.float32(np.abs(A).sum()))  # axis=None: one vector
    same(gc.norm(A, ord=1, axis=[0, 1]), np.float32(np.linalg.norm(A, 1)))
    same(gc.norm(A, ord=np.inf, axis=1, keepdims=True), np.abs(A).max(1, keepdims=True))
    same(gc.norm(A, ord=3, axis=0), (np.abs(A) ** 3).sum(0) ** (1 / 3))
    same(gc.norm(A.astype(np.complex64)), np.float32(np.sqrt((A ** 2).sum())))
    for bad in [dict(ord="fro"), dict(ord=0), dict(ord=3, axis=[0, 1])]:
        with pytest.raises(ValueError):
            gc.norm(A, **bad)
    check_both(lambda: gc.linspace(0.0, 1.0, 5), [], np.linspace(0, 1, 5, dtype=np.float32))
    same(gc.linspace([0.0, 1.0], [1.0, 3.0], 3, axis=1),
         np.linspace([0.0, 1.0], [1.0, 3.0], 3, axis=1).astype(np.float32))
    same(gc.linspace(1, 10, 3), np.array([1.0, 5.5, 10.0]))
    same(gc.linspace(2.0, 3.0, 1), np.array([2.0], np.float32))


def test_tf_math_names():
    check_both(lambda x: gc.add_n([x, x, x]), [A], 3 * A)
    with pytest.raises(ValueError):
        gc.add_n([A, A[0]])
    check_both(gc.argmin, [A], np.argmin(A, 0))
    same(gc.argmin(A, 1, output_type=gc.int32), np.argmin(A, 1).astype(np.int32))
    v = np.array([1, 2, 3, 4], np.int32)
    check_both(lambda x: gc.cumsum(x, exclusive=True, reverse=True), [v],
               np.array([9, 7, 4, 0], np.int32))
    same(gc.cumsum(A, 1, exclusive=True), np.concatenate([np.zeros((2, 1), np.float32),
                                                          A[:, :1]], 1))
    check_both(lambda x: gc.reduce_logsumexp(x, 1), [A],
               np.log(np.exp(A.astype(np.float64)).sum(1)).astype(np.float32))
    same(gc.reduce_logsumexp(np.array([-np.inf, -np.inf], np.float32)), np.float32(-np.inf))
    same(gc.scalar_mul(2, A), 2 * A)
    with pytest.raises(ValueError):
        gc.scalar_mul(A, A)
    x, y = np.array([7, -7, 7, -7], np.int32), np.array([2, 2, -2, -2], np.int32)
    check_both(gc.truncatediv, [x, y], np.array([3, -3, -3, 3], np.int32))
    check_both(gc.truncatemod, [x, y], np.fmod(x, y))
    same(gc.truncatediv(np.float32(7), np.float32(2)), np.float32(3.5))
    with pytest.raises(gc.errors.InvalidArgumentError, match="division by zero"):
        gc.truncatediv(x, np.zeros(4, np.int32))
    same(gc.realdiv(A, 2.0), A / 2)


def test_order_and_sets():
    v = np.array([[3, 1, 3, 2], [0, 5, 5, -1]], np.int32)
    check_both(lambda x: gc.sort(x, direction="DESCENDING"), [v], -np.sort(-v))
    check_both(gc.argsort, [v], np.argsort(v, kind="stable").astype(np.int32))
    want = np.array([[0, 2, 3, 1], [1, 2, 0, 3]], np.int32)  # ties in index order
    check_both(lambda x: gc.argsort(x, direction="DESCENDING"), [v], want)
    with pytest.raises(ValueError):
        gc.sort(v, direction="UP")
    seq = np.array([[1, 3, 5], [2, 4, 6]], np.float32)
    vals = np.array([[3, 6], [1, 7]], np.float32)
    for side in ("left", "right"):
        want = np.stack([np.searchsorted(s, q, side) for s, q in zip(seq, vals)]).astype(np.int32)
        check_both(lambda s, q, side=side: gc.searchsorted(s, q, side=side), [seq, vals], want)
    same(gc.searchsorted(seq[0], vals[0], out_type=gc.int64), np.searchsorted(seq[0], vals[0]))
    x = np.array([1, 1, 2, 4, 4, 4, 7, 8, 8], np.int32)
    for got in both(gc.unique_with_counts, x):
        same(list(got), [np.array([1, 2, 4, 7, 8], np.int32),
                         np.array([0, 0, 1, 2, 2, 2, 3, 4, 4], np.int32),
                         np.array([2, 1, 3, 1, 2], np.int32)])
    y, idx = gc.unique(np.array([3.0, np.nan, 1.0, 3.0, np.nan], np.float32), out_idx=gc.int64)
    np.testing.assert_array_equal(y.numpy(), [3.0, np.nan, 1.0, np.nan])
    same(idx, np.array([0, 1, 2, 0, 3]))
    with pytest.raises(gc.errors.InvalidArgumentError):
        gc.unique(v)
    vals_, idx_ = gc.approx_top_k(np.array([1.0, 5.0, 3.0, 5.0], np.float32), 2)
    same(vals_, np.array([5.0, 5.0], np.float32))
    same(idx_, np.array([1, 3], np.int32))


def test_histograms():
    v = np.array([-1.0, 0.0, 1.5, 2.0, 5.0, 15], np.float32)
    check_both(lambda x: gc.histogram_fixed_width(x, [0.0, 5.0], nbins=5), [v],
               np.array([2, 1, 1, 0, 2], np.int32))
    check_both(lambda x: gc.histogram_fixed_width_bins(x, [0.0, 5.0], nbins=5), [v],
               np.array([0, 0, 1, 2, 4, 4], np.int32))
    with pytest.raises(gc.errors.InvalidArgumentError):
        gc.histogram_fixed_width(v, [0.0, 5.0], nbins=0)


def test_gradients():
    x = np.array([[0.5, -1.5], [2.0, 0.25]])
    for fn, ref in [
        (lambda t: gc.clip_by_norm(t, 1.0), lambda v: v / np.sqrt((v ** 2).sum())),
        (lambda t: gc.reduce_logsumexp(t, 1), lambda v: np.log(np.exp(v).sum(1))),
        (lambda t: gc.cumsum(t, 1, exclusive=True, reverse=True) ** 2,
         lambda v: np.flip(np.cumsum(np.flip(v, 1), 1) - np.flip(v, 1), 1) ** 2),
        (lambda t: gc.norm(t, ord=3, axis=1), lambda v: (np.abs(v) ** 3).sum(1) ** (1 / 3))]:
        np.testing.assert_allclose(tape_grad(fn, x), numeric_grad(lambda v: ref(v).sum(), x),
                                   rtol=1e-5, atol=1e-7)


def test_compiled(monkeypatch, tmp_path):
    def fn(x):
        return (gc.clip_by_value(x, -0.5, 2.5), gc.cumsum(x, 1, reverse=True),
                gc.linspace(0.0, 1.0, 4), gc.add_n([x, x]), gc.einsum("ij,jk->ik", x, x))

    got = compiled(monkeypatch, tmp_path, fn, A)
    same(list(got), [np.clip(A, -0.5, 2.5), np.flip(np.cumsum(np.flip(A, 1), 1), 1),
                     np.linspace(0, 1, 4, dtype=np.float32), 2 * A, A @ A])
