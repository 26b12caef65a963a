"""gc.nn's moments, normalization, l2 and loss-scaling names against NumPy written here,
eagerly and traced, with float16 computed in float32 and TensorFlow's errors."""

import numpy as np
import pytest
from nn_helpers import check_grad, same, traced

import graphc as gc

RNG = np.random.default_rng(2)
X = RNG.standard_normal((2, 3, 4))


def test_moments():
    m, v = gc.nn.moments(X, axes=[0, 2])
    same(m, X.mean((0, 2)), rtol=1e-14)
    same(v, X.var((0, 2)), rtol=1e-13)
    m, v = traced(gc.nn.moments, X, axes=[1], keepdims=True)
    same(m, X.mean(1, keepdims=True), rtol=1e-14)
    same(v, X.var(1, keepdims=True), rtol=1e-13)
    m16, v16 = gc.nn.moments(X.astype(np.float16), axes=[0, 1, 2])
    assert m16.dtype == v16.dtype == np.float16
    check_grad(lambda x: gc.nn.moments(x, [1])[1], X[:, :, :2])


def test_weighted_moments():
    w = RNG.uniform(0.5, 2.0, (1, 3, 1))
    m, v = gc.nn.weighted_moments(X, axes=[1], frequency_weights=w)
    wb = np.broadcast_to(w, X.shape)
    wm = (wb * X).sum(1) / wb.sum(1)
    same(m, wm, rtol=1e-14)
    same(v, (wb * (X - wm[:, None]) ** 2).sum(1) / wb.sum(1), rtol=1e-13)
    m, _ = gc.nn.weighted_moments(X, [0, 1, 2], 2.0, keepdims=True)
    same(m, X.mean(keepdims=True), rtol=1e-14)


def test_sufficient_statistics_and_normalize_moments():
    c, s1, s2, sh = gc.nn.sufficient_statistics(X, [0, 2])
    same(c, np.float64(8.0))
    same(s1, X.sum((0, 2)), rtol=1e-14)
    same(s2, (X * X).sum((0, 2)), rtol=1e-14)
    assert sh is None
    c, s1, s2, sh = gc.nn.sufficient_statistics(X, [0, 2], shift=0.5, keepdims=True)
    same(s1, (X - 0.5).sum((0, 2), keepdims=True), rtol=1e-13)
    mean, var = gc.nn.normalize_moments(c, s1, s2, sh)
    same(mean, X.mean((0, 2), keepdims=True), rtol=1e-13)
    same(var, X.var((0, 2), keepdims=True), rtol=1e-12)
    mean, var = gc.nn.normalize_moments(*gc.nn.sufficient_statistics(X, [1])[:3], None)
    same(var, X.var(1), rtol=1e-12)


def test_batch_normalization():
    mean, var = X.mean((0, 1)), X.var((0, 1))
    off, scale = np.array([0.1, 0.2, 0.3, 0.4]), np.array([1.0, 2.0, 0.5, 3.0])
    want = scale * (X - mean) / np.sqrt(var + 1e-3) + off
    same(gc.nn.batch_normalization(X, mean, var, off, scale, 1e-3), want, rtol=1e-12)
    same(gc.nn.batch_normalization(X, mean, var, None, None, 1e-3),
         (X - mean) / np.sqrt(var + 1e-3), rtol=1e-12)
    same(gc.nn.batch_norm_with_global_normalization(X, mean, var, off, scale, 1e-3, True),
         want, rtol=1e-12)
    same(gc.nn.batch_norm_with_global_normalization(X, mean, var, off, scale, 1e-3, False),
         (X - mean) / np.sqrt(var + 1e-3) + off, rtol=1e-12)


def test_l2_names_and_lrn():
    same(gc.nn.l2_loss(X), (X ** 2).sum() / 2, rtol=1e-14)
    assert gc.nn.l2_loss(X.astype(np.float32)).dtype == np.float32
    same(gc.nn.l2_normalize(X, axis=1), X / np.sqrt((X ** 2).sum(1, keepdims=True)),
         rtol=1e-14)
    same(gc.nn.l2_normalize(X), X / np.sqrt((X ** 2).sum()), rtol=1e-14)
    same(gc.nn.l2_normalize(np.zeros(3)), np.zeros(3))
    same(gc.nn.l2_normalize(X, dim=[0, 2]), X / np.sqrt((X ** 2).sum((0, 2), keepdims=True)),
         rtol=1e-14)
    x = RNG.standard_normal((2, 2, 3, 7))
    r, bias, alpha, beta = 2, 1.5, 0.3, 0.75
    sq = np.zeros_like(x)
    for d in range(7):
        sq[..., d] = (x[..., max(0, d - r):d + r + 1] ** 2).sum(-1)
    want = x / (bias + alpha * sq) ** beta
    same(gc.nn.local_response_normalization(x, r, bias, alpha, beta), want, rtol=1e-13)
    same(gc.nn.lrn(x, 6), x / (1 + (x ** 2).sum(-1, keepdims=True)) ** 0.5, rtol=1e-13)
    with pytest.raises(ValueError, match="4-D"):
        gc.nn.lrn(x[0])


def test_loss_scaling_and_zero_fraction():
    loss = np.array([1.0, 2.0, 3.0, 6.0], np.float32)
    same(gc.nn.compute_average_loss(loss), np.float32(3.0))
    same(gc.nn.compute_average_loss(loss, global_batch_size=8), np.float32(1.5))
    same(gc.nn.compute_average_loss(loss, sample_weight=[1.0, 0.0, 1.0, 0.5]),
         np.float32(7.0 / 4))
    same(gc.nn.compute_average_loss(np.ones((2, 3))), 3.0)
    with pytest.raises(ValueError, match="at least rank 1"):
        gc.nn.compute_average_loss(np.float32(1.0))
    with pytest.raises(ValueError, match="positive"):
        gc.nn.compute_average_loss(loss, global_batch_size=0)
    same(gc.nn.scale_regularization_loss([1.0, 2.5]), np.float32(3.5))
    z = gc.nn.zero_fraction(np.array([[0, 1, 0], [2, 0, 3]]))
    assert z.dtype == np.float32
    same(z, np.float32(0.5))
    same(traced(gc.nn.zero_fraction, np.array([0.0, 1.0])), np.float32(0.5))
