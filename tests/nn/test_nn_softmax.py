"""gc.nn's softmax family and cross-entropy losses against NumPy written here: values
(large logits included), axes, JAX's ``where``/``b``/``return_sign``, float16 computed in
float32, gradients against finite differences, and TensorFlow's errors."""

import numpy as np
import pytest
from nn_helpers import check_grad, same, traced

import graphc as gc

RNG = np.random.default_rng(0)
L = RNG.standard_normal((3, 5)) * 3


def np_log_softmax(x, axis=-1):
    m = x.max(axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis, keepdims=True))


@pytest.mark.parametrize("axis", [None, -1, 0, 1])
def test_softmax_and_log_softmax(axis):
    ax = -1 if axis is None else axis
    same(gc.nn.log_softmax(L, axis=axis), np_log_softmax(L, ax), rtol=1e-13)
    same(gc.nn.softmax(L, axis=axis), np.exp(np_log_softmax(L, ax)), rtol=1e-13)
    same(traced(gc.nn.softmax, L, axis=axis), np.exp(np_log_softmax(L, ax)), rtol=1e-13)


def test_softmax_large_logits_and_float16():
    x = np.array([1000.0, 1001.0, -np.inf])
    same(gc.nn.softmax(x), [1 / (1 + np.e), np.e / (1 + np.e), 0.0], rtol=1e-14)
    same(gc.nn.log_softmax(x), [-np.log1p(np.e), -np.log1p(1 / np.e), -np.inf], rtol=1e-14)
    h = gc.nn.softmax(np.array([1.0, 2.0], np.float16))
    assert h.dtype == np.float16
    with pytest.raises(gc.errors.InvalidArgumentError, match=">= 1 dimension"):
        gc.nn.softmax(np.float32(1.0))


def test_softmax_where_jax():
    mask = np.array([[True, False, True, True, False]] * 3)
    mask[2] = False
    got = gc.nn.softmax(L, where=mask).numpy()
    want = np.where(mask, np.exp(L), 0)
    want = np.where(mask, want / np.maximum(want.sum(-1, keepdims=True), 1e-300), 0)
    same(got, want, rtol=1e-13)
    ls = gc.nn.log_softmax(L, where=mask).numpy()
    same(np.where(mask, ls, 0), np.where(mask, np.log(np.where(mask, want, 1)), 0), rtol=1e-12)
    assert np.all(ls[~mask] == -np.inf)


def test_logsumexp_logmeanexp_standardize():
    same(gc.nn.logsumexp(L), np.log(np.exp(L).sum()), rtol=1e-14)
    same(gc.nn.logsumexp(L, axis=1, keepdims=True),
         np.log(np.exp(L).sum(1, keepdims=True)), rtol=1e-14)
    same(gc.nn.logsumexp(np.array([1000.0, 1000.0])), 1000 + np.log(2), rtol=1e-15)
    same(gc.nn.logsumexp(np.array([-np.inf, -np.inf])), -np.inf)
    b = np.array([2.0, -1.0, 0.5])
    a = np.array([0.3, 1.2, -0.4])
    s = (b * np.exp(a)).sum()
    v, sign = gc.nn.logsumexp(a, b=b, return_sign=True)
    same(v, np.log(abs(s)), rtol=1e-14)
    same(sign, np.sign(s))
    with np.errstate(invalid="ignore"):
        assert np.isnan(gc.nn.logsumexp(a, b=-np.abs(b)).numpy())
    m = np.array([True, False, True])
    same(gc.nn.logsumexp(a, where=m), np.log(np.exp(a[m]).sum()), rtol=1e-14)
    same(gc.nn.logmeanexp(L, axis=0), np.log(np.exp(L).mean(0)), rtol=1e-13)
    same(gc.nn.logmeanexp(a, where=m), np.log(np.exp(a[m]).mean()), rtol=1e-14)
    mu, var = L.mean(-1, keepdims=True), (L * L).mean(-1, keepdims=True) - L.mean(
        -1, keepdims=True) ** 2
    same(gc.nn.standardize(L), (L - mu) / np.sqrt(var + 1e-5), rtol=1e-12)
    same(gc.nn.standardize(L, axis=0, epsilon=0.0), (L - L.mean(0)) / L.std(0), rtol=1e-12)


def test_softmax_gradients():
    check_grad(gc.nn.softmax, L[:2, :3])
    check_grad(gc.nn.log_softmax, L[:2, :3])
    check_grad(lambda x: gc.nn.logsumexp(x, axis=1), L[:2, :3])


# --------------------------------------------------------------------------- losses
def test_softmax_cross_entropy():
    labels = np.abs(RNG.standard_normal((3, 5)))
    labels /= labels.sum(-1, keepdims=True)
    want = -(labels * np_log_softmax(L)).sum(-1)
    same(gc.nn.softmax_cross_entropy_with_logits(labels, L), want, rtol=1e-13)
    same(gc.nn.softmax_cross_entropy_with_logits(labels.T, L.T, axis=0), want, rtol=1e-13)
    check_grad(lambda x: gc.nn.softmax_cross_entropy_with_logits(labels, x), L)
    check_grad(lambda y: gc.nn.softmax_cross_entropy_with_logits(y, L), labels)


def test_sparse_softmax_cross_entropy():
    y = np.array([4, 0, 2])
    want = -np_log_softmax(L)[np.arange(3), y]
    same(gc.nn.sparse_softmax_cross_entropy_with_logits(y, L), want, rtol=1e-13)
    same(traced(gc.nn.sparse_softmax_cross_entropy_with_logits, y, L), want, rtol=1e-13)
    check_grad(lambda x: gc.nn.sparse_softmax_cross_entropy_with_logits(y, x), L)
    with pytest.raises(gc.errors.InvalidArgumentError, match="label value of 5"):
        gc.nn.sparse_softmax_cross_entropy_with_logits(np.array([5, 0, 0]), L)
    got = gc.function(gc.nn.sparse_softmax_cross_entropy_with_logits)(np.array([5, 0, -1]), L)
    assert np.isnan(got.numpy()[[0, 2]]).all() and np.isfinite(got.numpy()[1])
    with pytest.raises(ValueError, match="Rank mismatch"):
        gc.nn.sparse_softmax_cross_entropy_with_logits(np.zeros((3, 1), int), L)
    with pytest.raises(TypeError, match="integers"):
        gc.nn.sparse_softmax_cross_entropy_with_logits(np.zeros(3), L)


def test_sigmoid_and_weighted_cross_entropy():
    x = np.array([[-50.0, -1.0, 0.0], [0.5, 3.0, 60.0]])
    z = np.array([[0.0, 1.0, 0.3], [1.0, 0.0, 0.7]])
    sig = 1 / (1 + np.exp(-x))
    with np.errstate(divide="ignore"):
        want = -(z * np.log(sig) + (1 - z) * np.log1p(-sig))
    want[1, 2] = 60 - 60 * 0.7 + np.log1p(np.exp(-60))
    same(gc.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x), want, rtol=1e-12)
    q = 2.5
    wce = (1 - z) * x + (1 + (q - 1) * z) * (np.log1p(np.exp(-np.abs(x))) + np.maximum(-x, 0))
    same(gc.nn.weighted_cross_entropy_with_logits(z, x, q), wce, rtol=1e-13)
    with pytest.raises(ValueError, match="same shape"):
        gc.nn.sigmoid_cross_entropy_with_logits(labels=z[:1], logits=x)
    with pytest.raises(ValueError, match="must be provided"):
        gc.nn.sigmoid_cross_entropy_with_logits(logits=x)
    check_grad(lambda t: gc.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=t), x / 10)


def test_log_poisson_loss():
    t = np.array([0.0, 0.5, 1.0, 2.0, 7.0])
    c = np.array([0.1, -0.3, 0.2, 1.0, 2.0])
    base = np.exp(c) - c * t
    same(gc.nn.log_poisson_loss(t, c), base, rtol=1e-14)
    with np.errstate(divide="ignore", invalid="ignore"):
        st = t * np.log(t) - t + 0.5 * np.log(2 * np.pi * t)
    full = base + np.where((t >= 0) & (t <= 1), 0, st)
    with np.errstate(divide="ignore", invalid="ignore"):
        same(gc.nn.log_poisson_loss(t, c, compute_full_loss=True), full, rtol=1e-14)
