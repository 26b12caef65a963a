"""gc.gradients: TF1-style gradients of the graph being traced, by hand and against
central differences; the eager error."""

from __future__ import annotations

import numpy as np
import pytest
from test_tape import central_difference  # tests/autodiff is on sys.path

import graphc as gc
import graphc.numpy as gnp


def model(x, a):
    scale = gnp.exp(gnp.sum(x, axis=1, keepdims=True) * 0.1)
    return gnp.sum(gnp.tanh(x @ a) * scale) + gnp.sum(x ** 3)


def test_matches_finite_differences():
    rng = np.random.default_rng(3)
    x0, a0 = rng.normal(size=(4, 3)), rng.normal(size=(3, 2))

    @gc.function
    def grads(x, a):
        return gc.gradients(model(x, a), [x, a])

    gx, ga = grads(x0, a0)
    want_x = central_difference(lambda v: float(model(gnp.asarray(v), gnp.asarray(a0))), x0)
    want_a = central_difference(lambda v: float(model(gnp.asarray(x0), gnp.asarray(v))), a0)
    np.testing.assert_allclose(gx.numpy(), want_x, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(ga.numpy(), want_a, rtol=1e-6, atol=1e-7)


def test_several_ys_grad_ys_and_unconnected():
    @gc.function
    def f(x, u):
        y1 = x * x
        y2 = 3.0 * x
        g = gc.gradients([y1, y2], [x, u], grad_ys=[gnp.asarray([1.0, 10.0]), None])
        z = gc.gradients(y1, u, unconnected_gradients="zero")
        return g[0], g[1] is None, z[0]

    gx, u_is_none, zu = f(gnp.asarray([1.0, 2.0]), gnp.asarray(5.0))
    np.testing.assert_array_equal(gx.numpy(), [2.0 + 3.0, 40.0 + 3.0])
    assert bool(u_is_none) and float(zu) == 0.0


def test_variables_as_xs():
    v = gc.Variable([1.0, -2.0])

    @gc.function
    def f(x):
        y = gnp.sum(v * x) + gnp.sum(v * v)
        return gc.gradients(y, v)[0]

    np.testing.assert_array_equal(f(gnp.asarray([3.0, 4.0])).numpy(), [5.0, 0.0])


def test_custom_gradient_is_used_inside_gc_gradients():
    @gc.custom_gradient
    def double_grad(x):
        return x * x, lambda dy: dy * 100.0

    @gc.function
    def f(x):
        return gc.gradients(double_grad(x) + x, x)[0]

    assert float(f(gc.constant(2.0))) == 101.0


def test_only_the_path_between_xs_and_ys_is_differentiated():
    @gc.custom_gradient
    def must_not_be_differentiated(c):
        def grad_fn(dy):
            raise AssertionError("differentiated an op off the path from xs to ys")
        return c * 2.0, grad_fn

    @gc.function
    def f(x):
        before = must_not_be_differentiated(gnp.asarray([3.0, 1.0]))   # not on the path
        y = x * 2.0 + gnp.sum(before)
        return gc.gradients(y, x)[0]

    assert float(f(gc.constant(1.0))) == 2.0


def test_compiles_with_the_forward_pass():
    @gc.function
    def f(x):
        y = gnp.sum(gnp.sin(x) * x)
        return y, gc.gradients(y, x)[0]

    x0 = np.linspace(-1, 1, 5)
    y, g = f(x0)
    np.testing.assert_allclose(g.numpy(), np.cos(x0) * x0 + np.sin(x0), rtol=1e-12)
    ops = {n.op.name for n in f.get_concrete_function(x0).graph.nodes}
    assert "cos" in ops   # the backward nodes are in the traced graph


def test_eager_call_points_to_gradient_tape():
    with pytest.raises(RuntimeError, match="GradientTape"):
        gc.gradients(gc.constant(1.0), gc.constant(1.0))


def test_grad_ys_count_must_match():
    @gc.function
    def f(x):
        return gc.gradients([x * 2.0], [x], grad_ys=[None, None])

    with pytest.raises(ValueError, match="grad_ys has 2"):
        f(gc.constant(1.0))
