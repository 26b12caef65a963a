"""@gc.custom_gradient and the py_function gradient: eagerly and in gc.function, with
keyword arguments and variables, checked by hand and against central differences."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp


@gc.custom_gradient
def log1pexp(x):
    """Numerically stable softplus gradient: the body's own gradient would overflow."""
    e = gnp.exp(x)

    def grad_fn(dy):
        return dy * (1.0 - 1.0 / (1.0 + e))
    return gnp.log(1.0 + e), grad_fn


@gc.custom_gradient
def scaled_product(x, y, scale=2.0):
    def grad_fn(dz):
        return dz * y * 10.0, dz * x * 100.0   # deliberately not the true gradient
    return x * y * scale, grad_fn


def _grad(fn, *xs, **kw):
    with gc.GradientTape() as tape:
        tape.watch(list(xs))
        out = fn(*xs, **kw)
    return tape.gradient(out, list(xs))


@pytest.mark.parametrize("mode", ["eager", "traced"])
def test_custom_rule_replaces_the_body_gradient(mode):
    x = gc.constant(100.0)

    def run(x):
        return _grad(log1pexp, x)[0]

    g = run(x) if mode == "eager" else gc.function(run)(x)
    assert float(g) == 1.0   # the body's own gradient, e / (1 + e), is nan here
    x = gc.constant(0.5)
    g = run(x) if mode == "eager" else gc.function(run)(x)
    assert float(g) == pytest.approx(1 / (1 + np.exp(-0.5)), rel=1e-6)


@pytest.mark.parametrize("mode", ["eager", "traced"])
@pytest.mark.parametrize("call", ["positional", "keyword", "mixed"])
def test_keyword_arguments_keep_the_custom_gradient(mode, call):
    x, y = gc.constant(3.0), gc.constant(5.0)

    def run(x, y):
        with gc.GradientTape() as tape:
            tape.watch([x, y])
            if call == "positional":
                z = scaled_product(x, y)
            elif call == "keyword":
                z = scaled_product(y=y, x=x)
            else:
                z = scaled_product(x, y=y)
        return tape.gradient(z, [x, y])

    gx, gy = run(x, y) if mode == "eager" else gc.function(run)(x, y)
    assert (float(gx), float(gy)) == (50.0, 300.0)


def test_forward_value_and_python_number_arguments():
    x, y = gc.constant(3.0), gc.constant(5.0)
    assert float(scaled_product(x, y, scale=3.0)) == 45.0
    gx, gy = _grad(lambda a, b: scaled_product(a, b, 4.0), x, y)
    assert (float(gx), float(gy)) == (50.0, 300.0)


@pytest.mark.parametrize("mode", ["eager", "traced"])
def test_variables_read_in_the_body_get_variable_grads(mode):
    v = gc.Variable([1.0, 2.0])

    @gc.custom_gradient
    def linear(x):
        def grad_fn(dy, variables=None):
            assert variables == [v]
            return dy * v * 2.0, [dy * x * 3.0]
        return x * v, grad_fn

    x = gnp.asarray([4.0, 5.0])

    def run(x):
        with gc.GradientTape() as tape:
            tape.watch(x)
            y = gnp.sum(linear(x))
        return tape.gradient(y, [x, v])

    gx, gv = run(x) if mode == "eager" else gc.function(run)(x)
    np.testing.assert_array_equal(gx.numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(gv.numpy(), [12.0, 15.0])


def test_variables_without_a_variables_keyword_raise():
    v = gc.Variable(2.0)

    @gc.custom_gradient
    def uses_v(x):
        return x * v, lambda dy: dy

    with pytest.raises(TypeError, match="'variables'"):
        uses_v(gc.constant(1.0))


def test_wrong_number_of_gradients_raises():
    @gc.custom_gradient
    def two_inputs(x, y):
        return x * y, lambda dz: dz   # one gradient for two inputs

    x, y = gc.constant(1.0), gc.constant(2.0)
    with gc.GradientTape() as tape:
        tape.watch([x, y])
        z = two_inputs(x, y)
    with pytest.raises(ValueError, match=r"returned 1 gradient.*2 tensor input"):
        tape.gradient(z, [x, y])


def test_bad_return_value_raises():
    @gc.custom_gradient
    def no_grad_fn(x):
        return x

    with pytest.raises(TypeError, match=r"must return \(y, grad_fn\)"):
        no_grad_fn(gc.constant(1.0))


def test_second_order_through_custom_gradient():
    @gc.custom_gradient
    def cube(x):
        def grad_fn(dy):
            return dy * 3.0 * x * x
        return x * x * x, grad_fn

    x = gc.constant(2.0)
    with gc.GradientTape() as outer:
        outer.watch(x)
        with gc.GradientTape() as inner:
            inner.watch(x)
            y = cube(x)
        dy = inner.gradient(y, x)
    assert float(dy) == 12.0 and float(outer.gradient(dy, x)) == 12.0


# ------------------------------------------------------------------ py_function


def _py_poly(x, w):
    return gnp.sum(gnp.sin(x) * w) + gnp.sum(x * x)


def _py_grads(x, w):
    with gc.GradientTape() as tape:
        tape.watch([x, w])
        y = gc.py_function(_py_poly, [x, w], gc.float64) * 2.0
    return tape.gradient(y, [x, w])


@pytest.mark.parametrize("mode", ["eager", "traced"])
def test_py_function_gradient_matches_by_hand(mode):
    x0 = np.array([0.3, -1.2, 2.0])
    w0 = np.array([1.5, 0.5, -2.0])
    x, w = gnp.asarray(x0), gnp.asarray(w0)
    if mode == "traced":
        with warnings.catch_warnings():   # py_function runs on the interpreter
            warnings.simplefilter("ignore", gc.errors.FallbackWarning)
            gx, gw = gc.function(_py_grads)(x, w)
    else:
        gx, gw = _py_grads(x, w)
    np.testing.assert_allclose(gx.numpy(), 2 * (np.cos(x0) * w0 + 2 * x0), rtol=1e-12)
    np.testing.assert_allclose(gw.numpy(), 2 * np.sin(x0), rtol=1e-12)


def test_py_function_gradient_is_a_py_function_node_in_the_graph():
    x = gnp.asarray([1.0, 2.0])
    w = gnp.asarray([3.0, 4.0])
    fn = gc.function(_py_grads)
    graph = fn.get_concrete_function(x, w).graph
    calls = [n.attrs["name"] for n in graph.nodes if n.op.name == "py_function"]
    assert calls == ["_py_poly", "_py_poly_grad"]


def test_py_function_integer_inputs_and_numpy_function_give_none():
    x = gnp.asarray([1.0, 2.0])
    n = gnp.asarray([3, 4])
    with gc.GradientTape(persistent=True) as tape:
        tape.watch([x, n])
        y = gc.py_function(lambda a, b: a * gc.cast(b, gc.float64), [x, n], gc.float64)
        z = gc.numpy_function(lambda a: a * 2.0, [x], gc.float64)
    gx, gn = tape.gradient(y, [x, n])
    np.testing.assert_array_equal(gx.numpy(), [3.0, 4.0])
    assert gn is None
    assert tape.gradient(z, x) is None
