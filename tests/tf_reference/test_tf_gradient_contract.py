"""Gradient results TensorFlow 2.21 users rely on, where graphc used to differ (issue 29):
a custom gradient applied twice under ``gc.gradients``, a persistent tape recording its
own gradient calls, the gradient of a variable by itself, ``gc.gradients`` with respect
to a captured tensor, and ``stop_gradients``.

Each graphc test states its expectation from the math (by hand or central differences);
the ``*_tensorflow`` tests run the same cases on TensorFlow when it is installed.
"""

from __future__ import annotations

import numpy as np
import pytest
from tfref import central_difference, tensorflow, value

import graphc as gc
import graphc.numpy as gnp


# --------------------------------------------------------------------------------------
# 1. a custom-gradient identity applied twice: each application scales the cotangent by 3
@gc.custom_gradient
def triple_grad(x):
    def grad_fn(dy):
        return 3 * dy
    return x, grad_fn          # the result *is* the input (an identity)


@gc.custom_gradient
def triple_grad_copy(x):
    def grad_fn(dy):
        return 3 * dy
    return x * 1.0, grad_fn    # the result is a new value


@pytest.mark.parametrize("fn", [triple_grad, triple_grad_copy], ids=["same", "copy"])
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_nested_custom_gradient_with_graph_gradients(fn, depth):
    @gc.function
    def grad(x):
        y = x
        for _ in range(depth):
            y = fn(y)
        return gc.gradients(y, x)[0]

    # chain rule through `depth` rules each multiplying by 3
    assert float(grad(gc.constant(2.0))) == 3.0 ** depth


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
def test_nested_custom_gradient_with_a_tape(traced):
    def grad(x):
        with gc.GradientTape() as tape:
            tape.watch(x)
            y = triple_grad(triple_grad(x))
        return tape.gradient(y, x)

    run = gc.function(grad) if traced else grad
    assert float(run(gc.constant(2.0))) == 9.0


def test_custom_gradient_result_as_a_source_is_not_counted_twice():
    @gc.function
    def grads(x):
        mid = triple_grad(x)
        y = triple_grad(mid) * 2.0
        return gc.gradients(y, [x, mid])

    gx, gmid = grads(gc.constant(1.0))
    # d y / d mid = 2 * 3; d y / d x = 2 * 3 * 3
    assert (float(gx), float(gmid)) == (18.0, 6.0)


def test_nested_custom_gradient_tensorflow():
    tf = tensorflow()

    @tf.custom_gradient
    def f(x):
        return x, lambda dy: 3 * dy

    @tf.function
    def grad(x):
        return tf.gradients(f(f(x)), x)[0]

    assert float(grad(tf.constant(2.0))) == 9.0


# --------------------------------------------------------------------------------------
# 3. a persistent tape records the gradients computed inside its context
def _derivatives(x):
    with gc.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x ** 3
        d1 = tape.gradient(y, x)
        d2 = tape.gradient(d1, x)
        d3 = tape.gradient(d2, x)
    return d1, d2, d3


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
def test_persistent_tape_differentiates_its_own_gradients(traced):
    run = gc.function(_derivatives) if traced else _derivatives
    d1, d2, d3 = run(gc.constant(3.0))
    # 3x^2, 6x, 6 at x = 3
    assert (float(d1), float(d2), float(d3)) == (27.0, 18.0, 6.0)


def test_persistent_tape_outside_its_context_records_nothing_new():
    x = gc.constant(3.0)
    with gc.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x ** 3
    d1 = tape.gradient(y, x)
    assert float(d1) == 27.0
    assert tape.gradient(d1, x) is None    # computed after the context: not recorded


def test_persistent_tape_second_derivative_matches_finite_differences():
    x0 = np.array([0.3, -1.2, 2.0])

    def first(v):
        x = gnp.asarray(v)
        with gc.GradientTape() as tape:
            tape.watch(x)
            y = gnp.sum(gnp.sin(x) * x)
        return tape.gradient(y, x)

    with gc.GradientTape(persistent=True) as tape:
        x = gnp.asarray(x0)
        tape.watch(x)
        y = gnp.sum(gnp.sin(x) * x)
        g = tape.gradient(y, x)
        hvp = tape.gradient(gnp.sum(g), x)   # row sums of the (diagonal) Hessian
    want = central_difference(lambda v: float(gnp.sum(first(v))), x0)
    np.testing.assert_allclose(value(hvp), want, rtol=1e-6, atol=1e-6)


def test_persistent_tape_tensorflow():
    tf = tensorflow()
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x ** 3
        d1 = tape.gradient(y, x)
        d2 = tape.gradient(d1, x)
    assert (float(d1), float(d2)) == (27.0, 18.0)


# --------------------------------------------------------------------------------------
# 4b. the gradient of a variable with respect to itself is ones
def test_variable_gradient_by_itself():
    w = gc.Variable([1.0, -2.0, 5.0])
    with gc.GradientTape() as tape:
        pass                       # nothing read: the target is the variable itself
    np.testing.assert_array_equal(value(tape.gradient(w, w)), np.ones(3, np.float32))

    with gc.GradientTape(persistent=True) as tape:
        y = w * w
    np.testing.assert_array_equal(value(tape.gradient(w, w, output_gradients=[
        gnp.asarray([1.0, 2.0, 3.0], dtype=np.float32)])), [1.0, 2.0, 3.0])
    # the variable and a value computed from it: d(w + w^2)/dw = 1 + 2w
    np.testing.assert_array_equal(value(tape.gradient([w, y], w)), [3.0, -3.0, 11.0])


def test_variable_gradient_by_itself_in_graph_gradients():
    v = gc.Variable(3.0)

    @gc.function
    def grads():
        return gc.gradients(v, v)[0], gc.gradients(v * v, v)[0]

    assert [float(g) for g in grads()] == [1.0, 6.0]


def test_variable_gradient_by_itself_tensorflow():
    tf = tensorflow()
    w = tf.Variable([1.0, -2.0, 5.0])
    with tf.GradientTape() as tape:
        pass
    np.testing.assert_array_equal(tape.gradient(w, w).numpy(), np.ones(3, np.float32))


# --------------------------------------------------------------------------------------
# 5. gc.gradients: a captured tensor as a source; stop_gradients
def test_graph_gradients_with_respect_to_a_captured_tensor():
    c = gc.constant(2.0)

    @gc.function
    def grad(x):
        y = x * c + c * c          # c is captured: three uses in the graph
        return gc.gradients(y, c)[0]

    x0 = 3.0
    got = float(grad(gc.constant(x0)))
    want = central_difference(lambda cv: x0 * cv + cv * cv, 2.0)
    assert got == 7.0              # x + 2c
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_graph_gradients_captured_tensor_not_used_is_unconnected():
    c = gc.constant([1.0, 2.0])

    @gc.function
    def grad(x):
        return gc.gradients(x * 2.0, c), gc.gradients(x * 2.0, c, unconnected_gradients="zero")

    none, zero = grad(gc.constant(1.0))
    assert none == [None]
    np.testing.assert_array_equal(value(zero[0]), [0.0, 0.0])


def test_graph_gradients_stop_gradients():
    @gc.function
    def grads(x):
        a = x * 2.0
        b = a * 3.0 + x * 5.0
        return (gc.gradients(b, x, stop_gradients=[a]),
                gc.gradients(b, [x, a], stop_gradients=a),
                gc.gradients(b, x))

    held, both, free = grads(gc.constant(1.0))
    # a held constant: only the direct path counts (5); a itself still gets d b / d a = 3
    assert float(held[0]) == 5.0
    assert [float(g) for g in both] == [5.0, 3.0]
    assert float(free[0]) == 11.0   # 2 * 3 + 5


def test_graph_gradients_stop_gradients_makes_a_source_unconnected():
    @gc.function
    def grads(x):
        a = x * 2.0
        return gc.gradients(a * 3.0, x, stop_gradients=[a], unconnected_gradients="zero")

    assert float(grads(gc.constant(1.0))[0]) == 0.0


def test_graph_gradients_tensorflow():
    tf = tensorflow()
    c = tf.constant(2.0)

    @tf.function
    def grads(x):
        a = x * 2.0
        b = a * 3.0 + x * 5.0
        return (tf.gradients(x * c + c * c, c)[0], tf.gradients(b, x, stop_gradients=[a])[0],
                tf.gradients(b, [x, a], stop_gradients=[a])[1])

    assert [float(g) for g in grads(tf.constant(3.0))] == [7.0, 5.0, 3.0]
