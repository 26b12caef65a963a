"""GradientTape.jacobian and batch_jacobian: shapes, values against central
differences, unconnected sources, persistence, eager and in gc.function."""

from __future__ import annotations

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp

A = np.array([[0.5, -1.0, 2.0], [1.5, 0.3, -0.7]])


def fn(x):
    """(2, 2) output of a (3,) or (b, 3) input: a matvec through tanh, times a sum."""
    return gnp.tanh(x @ A.T) * gnp.sum(x * x, axis=-1, keepdims=True)


def numeric_jacobian(f, x, eps=1e-6):
    x = np.array(x, np.float64)
    y = np.asarray(f(x))
    out = np.zeros(y.shape + x.shape)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        out[(...,) + i] = (np.asarray(f(up)) - np.asarray(f(down))) / (2 * eps)
    return out


def _np_fn(x):
    return fn(gnp.asarray(x)).numpy()


@pytest.mark.parametrize("mode", ["eager", "traced"])
def test_jacobian_matches_finite_differences(mode):
    x0 = np.array([[0.2, -0.4, 0.9], [1.1, 0.3, -0.5]])

    def jac(x):
        with gc.GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
        return tape.jacobian(y, x)

    got = jac(gnp.asarray(x0)) if mode == "eager" else gc.function(jac)(x0)
    assert got.shape == (2, 2, 2, 3)
    np.testing.assert_allclose(got.numpy(), numeric_jacobian(_np_fn, x0), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("mode", ["eager", "traced"])
def test_batch_jacobian_matches_finite_differences(mode):
    x0 = np.array([[0.2, -0.4, 0.9], [1.1, 0.3, -0.5], [-0.6, 0.8, 0.1], [0.0, 1.0, 2.0]])

    def bjac(x):
        with gc.GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
        return tape.batch_jacobian(y, x)

    got = bjac(gnp.asarray(x0)) if mode == "eager" else gc.function(bjac)(x0)
    assert got.shape == (4, 2, 3)
    want = np.stack([numeric_jacobian(_np_fn, row) for row in x0])
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6, atol=1e-8)


def test_nest_of_sources_and_variables():
    v = gc.Variable([1.0, 2.0])
    x = gnp.asarray([3.0, 4.0, 5.0])
    with gc.GradientTape() as tape:
        tape.watch(x)
        y = gnp.sum(x) * v          # y[i] = sum(x) * v[i]
    jx, jv = tape.jacobian(y, [x, v])
    np.testing.assert_array_equal(jx.numpy(), [[1.0] * 3, [2.0] * 3])
    np.testing.assert_array_equal(jv.numpy(), np.diag([12.0, 12.0]))


def test_unconnected_sources():
    x, u = gnp.asarray([1.0, 2.0]), gnp.asarray([3.0, 4.0, 5.0])
    with gc.GradientTape(persistent=True) as tape:
        tape.watch([x, u])
        y = x * 2.0
    jx, ju = tape.jacobian(y, [x, u])
    np.testing.assert_array_equal(jx.numpy(), np.diag([2.0, 2.0]))
    assert ju is None
    zu = tape.jacobian(y, u, unconnected_gradients="zero")
    assert zu.shape == (2, 3) and not zu.numpy().any()
    assert tape.batch_jacobian(gnp.reshape(y, (2, 1)), gnp.reshape(u[:2], (2, 1))) is None


def test_non_persistent_tape_allows_one_jacobian():
    x = gnp.asarray([1.0, 2.0])
    with gc.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    np.testing.assert_array_equal(tape.jacobian(y, x).numpy(), np.diag([2.0, 4.0]))
    with pytest.raises(RuntimeError, match="persistent=True"):
        tape.jacobian(y, x)


def test_hessian_with_nested_tapes():
    x = gnp.asarray([0.5, -1.0])
    with gc.GradientTape() as outer:
        outer.watch(x)
        with gc.GradientTape() as inner:
            inner.watch(x)
            y = gnp.sum(x ** 3)
        g = inner.gradient(y, x)
    h = outer.jacobian(g, x)
    np.testing.assert_allclose(h.numpy(), np.diag(6 * x.numpy()))


def test_batch_jacobian_needs_a_shared_batch_dimension():
    x = gnp.ones((3, 2))
    with gc.GradientTape() as tape:
        tape.watch(x)
        y = gnp.sum(x, axis=0)
    with pytest.raises(ValueError, match="batch dimension 0"):
        tape.batch_jacobian(y, x)
