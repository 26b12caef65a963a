"""TensorFlow 2.21's ``eager/polymorphic_function/gradients_test.py`` ported: gradients of
and inside ``gc.function`` (tapes outside and inside, ``gc.gradients`` inside, higher
orders, nested functions, variables, ``None`` results, keyword arguments).

TensorFlow's TF1-era helpers (``implicit_grad``, ``gradients_function``) become a
``GradientTape``; graph-mode cases become ``gc.gradients`` inside a ``gc.function``
(tests/tf_reference/README.md lists what is skipped and why). The deeply nested cases
are in ``test_tf_function_gradients_nested.py``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from tfref import tensorflow, value

import graphc as gc

# d^k cos / dx^k for k = 0..4, at a point, by hand
COS_DERIVATIVES = [math.cos, lambda x: -math.sin(x), lambda x: -math.cos(x), math.sin,
                   math.cos]


def _close(got, want):
    assert np.allclose(value(got), want, rtol=1e-5, atol=1e-6), (value(got), want)


# ------------------------------------------------------------ higher orders, symbolic
@pytest.mark.filterwarnings("ignore::graphc.errors.RetracingWarning")  # order: a new trace
def test_symbolic_higher_order_through_a_nested_closure():
    @gc.function
    def f(x, order):
        y = gc.function(lambda: gc.cos(x))()
        for _ in range(order):
            (y,) = gc.gradients(y, [x])
        return y

    for order, want in enumerate(COS_DERIVATIVES):
        _close(f(gc.constant(1.0), order), want(1.0))


@pytest.mark.filterwarnings("ignore::graphc.errors.RetracingWarning")
@pytest.mark.parametrize("persistent", [True, False])
def test_symbolic_higher_order_under_an_unused_tape(persistent):
    @gc.function
    def f(x, order):
        with gc.GradientTape(persistent=persistent) as tape:
            tape.watch(x)
            y = gc.function(lambda: gc.cos(x))()
        tape_dy = tape.gradient(y, x)
        for _ in range(order):
            (y,) = gc.gradients(y, [x])
        y1 = y
        if order > 0:
            y1 = tape_dy
            for _ in range(order - 1):
                (y1,) = gc.gradients(y1, [x])
        return y, y1

    for order, want in enumerate(COS_DERIVATIVES):
        y, y1 = f(gc.constant(1.0), order)
        _close(y, want(1.0))
        _close(y1, want(1.0))


# ------------------------------------------------------------- higher orders, tapes
def _tape_grad(fn):
    def grad(primal):
        with gc.GradientTape() as tape:
            tape.watch(primal)
            out = fn(primal)
        return tape.gradient(out, primal)
    return grad


def test_iterated_gradients_of_nested_functions():
    f = gc.function(lambda x: gc.cos(x))
    traced = gc.function(f)
    one = gc.constant(1.0)
    for want in COS_DERIVATIVES:
        _close(f(one), want(1.0))
        _close(traced(one), want(1.0))
        _close(gc.function(f)(one), want(1.0))
        f = _tape_grad(f)
        traced = gc.function(_tape_grad(traced))


def test_iterated_gradients_with_respect_to_a_variable():
    v = gc.Variable(2.0)

    def grad(fn):
        def g():
            with gc.GradientTape() as tape:
                out = fn()
            (d,) = tape.gradient(out, tape.watched_variables())
            return d
        return g

    f = gc.function(lambda: gc.cos(v))
    for want in COS_DERIVATIVES:
        _close(f(), want(2.0))
        _close(gc.function(f)(), want(2.0))
        f = grad(f)


def test_iterated_gradients_on_one_persistent_tape():
    f = gc.function(lambda z: gc.cos(z))
    with gc.GradientTape(persistent=True) as tape:
        start = gc.constant(1.0)
        tape.watch(start)
        x = f(start)
        for want in COS_DERIVATIVES:
            _close(x, want(1.0))
            x = tape.gradient(x, start)


def test_higher_order_of_a_variable_on_one_persistent_tape():
    v = gc.Variable(1.0)
    f = gc.function(lambda: gc.cos(v))
    with gc.GradientTape(persistent=True) as tape:
        x = f()
        for want in COS_DERIVATIVES:
            _close(x, want(1.0))
            (x,) = tape.gradient(x, tape.watched_variables())


def test_gradient_of_a_gradient_by_its_output_gradients():
    f = gc.function(lambda z: gc.cos(z))
    x = gc.constant(1.0)
    with gc.GradientTape() as t:
        t.watch(x)
        y = f(x)
    with gc.GradientTape() as tt:
        dy = gc.constant(2.0)
        tt.watch(dy)
        g = t.gradient(y, x, output_gradients=dy)
    _close(g, -2.0 * math.sin(1.0))                  # dy * -sin(x)
    _close(tt.gradient(g, dy), -math.sin(1.0))       # g is linear in dy


# ------------------------------------------------------------------- tapes, variables
def test_tape_inside_a_function_with_a_variable():
    v = gc.Variable(1.0)

    @gc.function
    def step():
        with gc.GradientTape() as tape:
            y = v * v
        return tape.gradient(y, tape.watched_variables())[0]

    _close(step(), 2.0)                               # 2 v
    cf = step.get_concrete_function()
    assert cf.output_dtypes == gc.float32
    assert tuple(cf.output_shapes) == ()
    _close(cf(), 2.0)


def test_graph_gradients_of_a_variable():
    v = gc.Variable([1.0, 2.0])

    @gc.function
    def grad():
        (g,) = gc.gradients(2.0 * v, v)
        return g

    assert value(grad()).tolist() == [2.0, 2.0] and tuple(grad().shape) == (2,)


def test_a_function_is_differentiable_again_and_again():
    v = gc.Variable(1.0)
    f = gc.function(lambda: v * v)
    for _ in range(2):                                # v watched again each time
        with gc.GradientTape() as tape:
            y = f()
        assert tape.watched_variables() == (v,)
        _close(tape.gradient(y, v), 2.0)


def test_a_variable_read_but_unused_has_no_gradient():
    v = gc.Variable(1.0)

    @gc.function
    def grads(x, v):
        v.read_value()
        return gc.gradients(x * x, [x, v])

    dx, dv = grads(gc.constant(1.0), v)
    _close(dx, 2.0)
    assert dv is None


def test_gradient_of_a_variable_added_in_a_function():
    three = gc.Variable(3.0)
    f = gc.function(lambda x: gc.add(x, three))
    with gc.GradientTape() as tape:
        y = f(gc.constant(1.0))
    assert tape.watched_variables() == (three,)
    _close(tape.gradient(y, three), 1.0)


def test_gradient_of_a_gathered_variable_equals_the_eager_one():
    v = gc.Variable([0.0, 1.0, 2.0])

    def sum_gather():
        return gc.reduce_sum(gc.gather(v, [1, 2]))

    grads = []
    for fn in (sum_gather, gc.function(sum_gather)):
        with gc.GradientTape() as tape:
            y = fn()
        grads.append(value(tape.gradient(y, v)).tolist())
    assert grads == [[0.0, 1.0, 1.0]] * 2


def test_graph_gradient_of_gather_nd_is_dense():
    @gc.function
    def grad(c):
        return gc.gradients(gc.function(lambda x: gc.gather_nd(x, [[0]]))(c), c)[0]

    assert value(grad(gc.constant([[2.0]]))).tolist() == [[1.0]]


# ------------------------------------------------------------------ control flow
def test_tape_through_a_cond_in_a_function():
    f = gc.function(lambda x: gc.cond(x > 0.5, lambda: 2 * x, lambda: 3 * x))
    with gc.GradientTape() as t:
        x = gc.constant(1.0)
        t.watch(x)
        y = f(x)
    _close(t.gradient(y, x), 2.0)


def test_tape_through_a_loop_in_a_function():
    f = gc.function(lambda x: gc.while_loop(lambda _, i: i < 2,
                                            lambda x, i: (2 * x, i + 1), [x, 0])[0])
    with gc.GradientTape() as t:
        x = gc.constant(1.0)
        t.watch(x)
        y = f(x)
    _close(t.gradient(y, x), 4.0)                     # y = 4 x


def test_graph_gradient_through_a_loop_closing_over_an_argument():
    @gc.function
    def dx(x):
        n = gc.constant(2.0)
        (out,) = gc.while_loop(lambda n: n < 10, lambda n: (n * x,), [n],
                               shape_invariants=[gc.TensorShape(None)])
        return gc.gradients(out, [x])[0]

    _close(dx(gc.constant(2.0)), 24.0)                # 2 x^3 (three trips): 6 x^2


# ---------------------------------------------------- gradients taken inside functions
@pytest.mark.parametrize("inner", ["nested_function", "square"])
def test_tape_inside_a_function(inner):
    fn = gc.function(lambda x: gc.add(x, x)) if inner == "nested_function" else \
        (lambda y: y * y)

    @gc.function
    def g(x):
        with gc.GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
        return tape.gradient(y, x)

    _close(g(gc.constant(1.0)), 2.0)                  # 2, or 2 x at 1
    _close(g(x=gc.constant(1.0)), 2.0)


@pytest.mark.parametrize("arg", [1.0, "tensor"])
def test_same_value_for_two_arguments_has_a_gradient_per_argument(arg):
    @gc.function
    def g(x):
        a, b = gc.identity(x), gc.identity(x)         # two arguments of multiply
        with gc.GradientTape() as tape:
            tape.watch([a, b])
            y = gc.multiply(a, b)
        return tape.gradient(y, [a, b])

    got = g(gc.constant(1.0) if arg == "tensor" else arg)
    assert [float(d) for d in got] == [1.0, 1.0]


def test_gradient_of_a_traced_matmul_with_keyword_arguments():
    matmul = gc.function(gc.matmul)
    t = gc.constant([[1.0, 2.0], [3.0, 4.0]])
    with gc.GradientTape(persistent=True) as tape:
        tape.watch(t)
        outs = [matmul(t, t, transpose_a=True), matmul(t, b=t, transpose_a=True),
                matmul(b=t, a=t, transpose_a=True), matmul(a=t, b=t, transpose_a=True)]
    # d sum(t^T t) / dt = t (ones + ones^T)... element [i, j] = 2 * sum of row i of t
    for out in outs:
        assert value(tape.gradient(out, t)).tolist() == [[6, 6], [14, 14]]


def test_gradients_tensorflow():
    tf = tensorflow()

    @tf.function
    def f(x, order):
        y = tf.function(lambda: tf.cos(x))()
        for _ in range(order):
            (y,) = tf.gradients(y, [x])
        return y

    for order, want in enumerate(COS_DERIVATIVES):
        assert np.isclose(float(f(tf.constant(1.0), order)), want(1.0), atol=1e-6)

    @tf.function
    def dx(x):
        out = tf.while_loop(lambda n: n < 10, lambda n: n * x, [tf.constant(2.0)],
                            [tf.TensorShape(None)])
        return tf.gradients(out, [x])[0]

    assert float(dx(tf.constant(2.0))) == 24.0
