"""``gc.math``'s compositions (graphc/math_tf.py, graphc/math.py) against NumPy by hand
and TensorFlow's documented values: the ``*_no_nan`` arithmetic, reductions, cumulative
sums, selection, permutations, polynomials; eager, traced, one compiled program,
gradients through the compositions, errors."""

from __future__ import annotations

import numpy as np
import pytest

import graphc as gc

m = gc.math


def _both(fn, *args):
    return [np.asarray(fn(*args).numpy()),
            np.asarray(gc.function(fn, backend="numpy")(*args).numpy())]


def test_no_nan_arithmetic():
    x, y = np.array([1.0, np.nan, np.inf, 6.0]), np.array([0.0, 0.0, 0.0, 3.0])
    for got in _both(m.divide_no_nan, x, y):
        np.testing.assert_array_equal(got, [0.0, 0.0, 0.0, 2.0])
    for got in _both(m.multiply_no_nan, x, y):
        np.testing.assert_array_equal(got, [0.0, 0.0, 0.0, 18.0])
    np.testing.assert_array_equal(m.reciprocal_no_nan(np.array([0.0, 4.0])).numpy(), [0, 0.25])
    with pytest.raises(TypeError, match="float or complex"):
        m.reciprocal_no_nan(np.array([1, 2]))
    np.testing.assert_array_equal(m.squared_difference(np.array([1, 5]), 2).numpy(), [1, 9])
    np.testing.assert_array_equal(m.scalar_mul(2.0, np.array([1.0, 3.0])).numpy(), [2, 6])


def test_gradient_of_divide_no_nan_is_finite():
    x, y = gc.constant(np.array([1.0, 2.0])), gc.constant(np.array([0.0, 4.0]))
    with gc.GradientTape() as tape:
        tape.watch([x, y])
        z = m.divide_no_nan(x, y)
    gx, gy = tape.gradient(z, [x, y])
    np.testing.assert_array_equal(gx.numpy(), [0.0, 0.25])
    np.testing.assert_array_equal(gy.numpy(), [0.0, -2.0 / 16])


def test_reductions():
    a = np.array([[1.0, 2.0, 4.0], [3.0, -1.0, 0.5]])
    for axis in (None, 0, 1, [0, 1]):
        ax = tuple(axis) if isinstance(axis, list) else axis
        np.testing.assert_allclose(m.reduce_variance(a, axis).numpy(), a.var(axis=ax))
        np.testing.assert_allclose(m.reduce_std(a, axis, keepdims=True).numpy(),
                                   a.std(axis=ax, keepdims=True))
        np.testing.assert_allclose(m.reduce_euclidean_norm(a, axis).numpy(),
                                   np.sqrt((a * a).sum(axis=ax)))
        np.testing.assert_allclose(m.reduce_logsumexp(a, axis).numpy(),
                                   np.log(np.exp(a).sum(axis=ax)), rtol=1e-14)
    assert m.reduce_euclidean_norm(np.array([3, 4], np.int32)).numpy() == 5
    assert m.reduce_logsumexp(np.array([-np.inf, -np.inf])).numpy() == -np.inf
    assert m.reduce_logsumexp(np.array([1000.0, 1000.0])).numpy() == 1000 + np.log(2)
    c = m.count_nonzero(np.array([[0, 1], [2, 0]]), axis=0)
    assert c.dtype == np.int64 and c.numpy().tolist() == [1, 1]
    with pytest.raises(TypeError, match="float or complex"):
        m.reduce_variance(np.array([1, 2]))


def test_cumulative():
    x = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 4.0]])
    np.testing.assert_allclose(m.cumsum(x, axis=1, exclusive=True).numpy(),
                               [[0, 1, 3], [0, 0.5, -0.5]])
    np.testing.assert_allclose(m.cumsum(x, axis=1, reverse=True).numpy(),
                               np.cumsum(x[:, ::-1], axis=1)[:, ::-1])
    np.testing.assert_allclose(m.cumprod(x, axis=0, exclusive=True, reverse=True).numpy(),
                               [[0.5, -1.0, 4.0], [1, 1, 1]])
    for axis in (0, 1):
        np.testing.assert_allclose(m.cumulative_logsumexp(x, axis=axis).numpy(),
                                   np.logaddexp.accumulate(x, axis=axis), rtol=1e-14)
    got = m.cumulative_logsumexp(x, axis=1, exclusive=True, reverse=True).numpy()
    want = np.log(np.cumsum(np.exp(x[:, ::-1]), axis=1))[:, ::-1]
    np.testing.assert_allclose(got[:, :-1], want[:, 1:], rtol=1e-14)
    assert (got[:, -1] == -np.inf).all()
    f32 = m.cumulative_logsumexp(np.array([1.0, 2.0], np.float32))
    assert f32.dtype == np.float32


def test_top_k_in_top_k():
    x = np.array([[1.0, 3.0, 3.0, 2.0], [5.0, -1.0, 0.0, 7.0]])
    for traced in (False, True):
        fn = gc.function(m.top_k, backend="numpy") if traced else m.top_k
        v, i = fn(x, k=2)
        np.testing.assert_array_equal(v.numpy(), [[3, 3], [7, 5]])
        np.testing.assert_array_equal(i.numpy(), [[1, 2], [3, 0]])  # ties: lower index first
        assert i.dtype == np.int32
    assert m.top_k(x, 1, index_type=np.int64)[1].dtype == np.int64
    with pytest.raises(gc.errors.InvalidArgumentError, match="k=5"):
        m.top_k(x, 5)
    pred = np.array([[0.1, 0.8, 0.8], [0.9, 0.05, 0.05], [np.nan, 1.0, 0.0]])
    got = m.in_top_k(np.array([2, 1, 0]), pred, 1).numpy()
    np.testing.assert_array_equal(got, [True, False, False])  # ties count; NaN is False
    np.testing.assert_array_equal(m.in_top_k(np.array([1, 1, 5]), pred, 2).numpy(),
                                  [True, True, False])  # out of range: False
    v, i = m.approx_max_k(np.array([1.0, 4.0, 2.0]), 2)
    assert v.numpy().tolist() == [4, 2] and i.numpy().tolist() == [1, 2]
    v, i = m.approx_min_k(np.array([1.0, 4.0, 2.0]), 2)
    assert v.numpy().tolist() == [1, 2]


def test_permutations_and_order():
    p = np.array([3, 0, 2, 1], np.int32)
    got = m.invert_permutation(p)
    assert got.dtype == np.int32 and got.numpy().tolist() == [1, 3, 2, 0]
    with pytest.raises(gc.errors.InvalidArgumentError, match="not a permutation"):
        m.invert_permutation(np.array([0, 0], np.int32))
    assert bool(m.is_non_decreasing(np.array([[1, 1], [2, 3]])).numpy())
    assert not bool(m.is_strictly_increasing(np.array([1, 1, 2])).numpy())
    assert bool(m.is_strictly_increasing(np.array([5])).numpy())
    np.testing.assert_array_equal(m.argmin(np.array([[3, 1], [0, 5]])).numpy(), [1, 0])
    assert m.argmin(np.array([3, 1]), output_type=np.int32).dtype == np.int32
    np.testing.assert_array_equal(m.argmax(np.array([[3, 1], [0, 5]]), axis=1).numpy(), [0, 1])


def test_polyval_add_n_angle_parts():
    x = np.array([0.5, 2.0])
    np.testing.assert_allclose(m.polyval([2.0, -1.0, 3.0], x).numpy(), np.polyval([2, -1, 3], x))
    np.testing.assert_array_equal(m.polyval([], x).numpy(), [0, 0])
    np.testing.assert_array_equal(m.add_n([x, x, 2 * x]).numpy(), 4 * x)
    assert m.accumulate_n([x]).numpy().tolist() == x.tolist()
    with pytest.raises(ValueError, match="non-empty"):
        m.add_n([])
    with pytest.raises(TypeError, match="same dtype"):
        m.add_n([x, x.astype(np.float32)])
    np.testing.assert_allclose(m.angle(np.array([-1.0, 2.0, 0.0])).numpy(), [np.pi, 0, 0])
    z = np.array([1 + 2j, -3j])
    np.testing.assert_allclose(m.angle(z).numpy(), np.angle(z))
    np.testing.assert_array_equal(m.conj(z).numpy(), np.conj(z))
    np.testing.assert_array_equal(m.real(z).numpy(), z.real)
    np.testing.assert_array_equal(m.imag(z).numpy(), z.imag)
    np.testing.assert_array_equal(m.imag(x).numpy(), [0, 0])


def test_compositions_compile():
    @gc.function(jit_compile=True)
    def f(x, y):
        return (m.divide_no_nan(x, y), m.reduce_logsumexp(x, axis=1),
                m.reduce_std(x), m.squared_difference(x, y))

    x = np.array([[1.0, 2.0], [3.0, 0.5]])
    y = np.array([[0.0, 4.0], [2.0, 1.0]])
    a, b, c, d = f(x, y)
    np.testing.assert_allclose(a.numpy(), [[0.0, 0.5], [1.5, 0.5]])
    np.testing.assert_allclose(b.numpy(), np.log(np.exp(x).sum(1)), rtol=1e-14)
    np.testing.assert_allclose(c.numpy(), x.std(), rtol=1e-14)
    np.testing.assert_allclose(d.numpy(), (x - y) ** 2)
