"""GradientTape.jacobian and batch_jacobian: shapes, values against central
differences, unconnected sources, persistence, eager and in gc.function; the batched
pullback (gc.vectorized_map over one-hot seeds) against the per-row passes, one set of
backward nodes in a gc.function whatever the target's size, and the per-row fallback
with a VectorizationWarning when an op of the backward pass has no batching rule."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.core import registry
from graphc.transforms import jacobian as jac_mod

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


# ---------------------------------------------------------------- batched pullback
RNG = np.random.default_rng(3)
W = RNG.standard_normal((4, 5))


def mlp(x):
    return gnp.tanh(x @ W) * gnp.sum(x * x, axis=-1, keepdims=True)


def _np_mlp(x):
    return mlp(gnp.asarray(x)).numpy()


def _strict():
    """Any VectorizationWarning fails the test: the batched path must have been used."""
    ctx = warnings.catch_warnings()
    ctx.__enter__()
    warnings.simplefilter("error", gc.errors.VectorizationWarning)
    return ctx


@pytest.mark.parametrize("mode", ["eager", "traced"])
def test_batched_jacobian_equals_per_row_passes_and_finite_differences(mode):
    x0 = RNG.standard_normal((3, 4))

    def both(x):
        with gc.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = mlp(x)
        batched = tape.jacobian(y, x)
        seeds = np.eye(15).reshape((15, 3, 5))
        (rows,) = jac_mod._per_row(tape, y, [x], seeds)
        return batched, gnp.reshape(rows, (3, 5, 3, 4))

    ctx = _strict()
    try:
        got, old = both(gnp.asarray(x0)) if mode == "eager" else gc.function(both)(x0)
    finally:
        ctx.__exit__(None, None, None)
    assert got.shape == (3, 5, 3, 4)
    np.testing.assert_allclose(got.numpy(), old.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got.numpy(), numeric_jacobian(_np_mlp, x0), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("mode", ["eager", "traced"])
def test_batched_batch_jacobian_with_a_variable_in_the_model(mode):
    v = gc.Variable(RNG.standard_normal(5))
    x0 = RNG.standard_normal((6, 4))

    def bjac(x):
        with gc.GradientTape() as tape:
            tape.watch(x)
            y = gnp.sin(x @ W + v) * 2.0
        return tape.batch_jacobian(y, x)

    ctx = _strict()
    try:
        got = bjac(gnp.asarray(x0)) if mode == "eager" else gc.function(bjac)(x0)
    finally:
        ctx.__exit__(None, None, None)
    f = lambda r: np.sin(r @ W + v.numpy()) * 2.0  # noqa: E731
    want = np.stack([numeric_jacobian(f, row) for row in x0])
    assert got.shape == (6, 5, 4)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6, atol=1e-8)


def test_traced_jacobian_graph_does_not_grow_with_the_target():
    def size(n):
        def jac(x):
            with gc.GradientTape() as tape:
                tape.watch(x)
                y = gnp.tanh(x) * gnp.sum(x)
            return tape.jacobian(y, x)
        graph = gc.function(jac).get_concrete_function(gc.TensorSpec([n], gc.float64)).graph
        return len(graph.nodes)

    assert size(32) == size(4)


@pytest.mark.parametrize("mode", ["eager", "traced"])
def test_refused_batching_warns_and_falls_back_to_one_pass_per_row(mode, monkeypatch):
    monkeypatch.setattr(registry.get("matmul"), "batch", None)
    x0 = RNG.standard_normal((2, 4))

    def jac(x):
        with gc.GradientTape() as tape:
            tape.watch(x)
            y = mlp(x)
        return tape.jacobian(y, x)

    with pytest.warns(gc.errors.VectorizationWarning, match="matmul.*per row"):
        got = jac(gnp.asarray(x0)) if mode == "eager" else gc.function(jac)(x0)
    np.testing.assert_allclose(got.numpy(), numeric_jacobian(_np_mlp, x0), rtol=1e-6, atol=1e-8)


def test_jacobian_of_a_gradient_is_the_hessian_batched():
    x0 = RNG.standard_normal(4)
    with gc.GradientTape() as outer:
        x = gnp.asarray(x0)
        outer.watch(x)
        with gc.GradientTape() as inner:
            inner.watch(x)
            y = gnp.sum(gnp.tanh(x @ W))
        g = inner.gradient(y, x)
    ctx = _strict()
    try:
        h = outer.jacobian(g, x)
    finally:
        ctx.__exit__(None, None, None)
    grad = lambda r: ((1 - np.tanh(r @ W) ** 2) @ W.T)  # noqa: E731
    np.testing.assert_allclose(h.numpy(), numeric_jacobian(grad, x0), rtol=1e-6, atol=1e-8)


def test_an_outer_tape_differentiates_through_the_jacobian():
    x = gnp.asarray(np.array([0.3, 0.5, -0.2]))
    with gc.GradientTape() as outer:
        outer.watch(x)
        with gc.GradientTape() as inner:
            inner.watch(x)
            y = x ** 3
        total = gnp.sum(inner.jacobian(y, x))   # sum of 3 x_i^2
    np.testing.assert_allclose(outer.gradient(total, x).numpy(), 6 * x.numpy())
