"""TensorFlow's ``kernel_tests/control_flow/cond_v2_test.py``, continued (see
``test_tf_cond_v2.py`` and tests/tf_reference/README.md): branches returning variables,
iterated gradients of ``cond`` and ``switch_case``, structured results, a cond writing a
TensorArray inside a loop, custom gradients in a branch, ``CaseTest``, and the
TensorFlow-side witness.
"""

from __future__ import annotations

import numpy as np
import pytest
from tfref import central_difference, tensorflow, value

import graphc as gc


# --------------------------------------------------------------------------- variables
def test_cond_values_in_function():
    @gc.function
    def f():
        gc.cond(gc.constant(True), lambda: gc.zeros([]), lambda: gc.ones([]))
        first = gc.cond(gc.constant(False), lambda: gc.zeros([]), lambda: gc.ones([]))

        @gc.function
        def three():
            return gc.constant(3.0)

        return first, gc.cond(gc.constant(True), three, lambda: gc.constant(4.0))

    assert [float(value(t)) for t in f()] == [1.0, 3.0]


@pytest.mark.parametrize("false_branch_is_function", [False, True])
def test_branches_returning_variables(false_branch_is_function):
    v1, v2 = gc.Variable(2.0), gc.Variable(4.0)

    def update_v1():
        v1.assign(v1)
        return v1  # a variable: the cond gives its value

    def update_v2():
        v2.assign(v2)
        return v2

    @gc.function
    def f():
        zero = gc.constant(0.0)
        gc.cond(gc.constant(True), update_v1, lambda: zero)
        c2 = gc.cond(gc.constant(False), lambda: zero, update_v1)
        gc.cond(gc.constant(True), update_v2, lambda: zero)
        last = gc.function(update_v2) if false_branch_is_function else (lambda: v2)
        c4 = gc.cond(gc.constant(False), lambda: zero, last)
        return c2, c4, gc.cond(gc.constant(False), lambda: gc.constant(5.0),
                               lambda: gc.constant(6.0))

    assert [float(value(t)) for t in f()] == [2.0, 4.0, 6.0]


def test_tape_gradient_of_variable_through_cond():
    v = gc.Variable(2.0)

    @gc.function
    def f():
        with gc.GradientTape() as tape:
            c = gc.cond(gc.constant(True), lambda: gc.pow(v, 3), lambda: v)
        return tape.gradient(c, v)

    assert value(f()) == 12.0  # 3 v^2


# --------------------------------------------------------------------------- iterated
def _grad(f):
    def g(primal):
        with gc.GradientTape() as tape:
            tape.watch(primal)
            out = f(primal)
        return tape.gradient(out, primal)

    return g


def _cos_by_cond(x):
    return gc.cond(gc.constant(True), lambda: gc.cos(gc.identity(x)),
                   lambda: gc.sin(gc.identity(x)))


def _cos_by_case(x):
    return gc.switch_case(gc.constant(1), [lambda: gc.sin(gc.identity(x)),
                                           lambda: gc.cos(gc.identity(x))])


@pytest.mark.parametrize("func", [_cos_by_cond, _cos_by_case], ids=["cond", "case"])
def test_iterated_gradients(func):
    f, one = func, gc.constant(1.0)
    got = []
    for _ in range(5):
        got.append(float(gc.function(f)(one)))
        f = _grad(f)
    # cos, -sin, -cos, sin, cos at 1
    expected = [np.cos(1.0), -np.sin(1.0), -np.cos(1.0), np.sin(1.0), np.cos(1.0)]
    assert got == pytest.approx(expected, rel=1e-6)


# --------------------------------------------------------------------------- structures
def test_structured_outputs():
    x, y = gc.constant(1.0), gc.constant(3.0)

    @gc.function
    def f():
        return gc.cond(gc.constant(False), lambda: ((x * y,), y), lambda: ((x,), y * 3.0))

    (a,), b = f()
    assert value(a) == 1.0 and value(b) == 9.0


def test_output_structures_mismatch_raises_type_error():
    x, y = gc.constant(1.0), gc.constant(3.0)

    @gc.function
    def f():
        return gc.cond(gc.constant(False), lambda: (x * y, y), lambda: ((x,), y * 3.0))

    with pytest.raises(TypeError, match=r"tuple of 2 \(t, t\) but the false_fn returns "
                                        r"a tuple of 2 \(\(t,\), t\)"):
        f()


@pytest.mark.parametrize("mode", ["eager", "function"])
def test_cond_writing_tensor_array_in_loop(mode):
    def f():
        x = gc.range(-5, 5)
        # no element shape: the loop's first write gives the TensorArray its buffer
        output = gc.TensorArray(dtype=gc.int32, size=x.shape[0])

        def body(i, output):
            output = gc.cond(x[i] > 0, lambda: output.write(i, x[i] ** 2),
                             lambda: output.write(i, x[i]))
            return i + 1, output

        _, output = gc.while_loop(lambda i, arr: i < x.shape[0], body,
                                  loop_vars=(gc.constant(0), output))
        return output.stack()

    out = f() if mode == "eager" else gc.function(f)()
    assert value(out).tolist() == [-5, -4, -3, -2, -1, 0, 1, 4, 9, 16]


def test_same_value_in_both_branches():
    x = gc.constant(1.0)
    f = gc.function(lambda c: gc.cond(c, lambda: x + 1, lambda: x + 1))
    assert value(f(gc.constant(True))) == value(f(gc.constant(False))) == 2.0


# --------------------------------------------------------------------------- custom gradients
@pytest.mark.parametrize("how", ["tape", "gradients"])
def test_custom_gradient_in_branch_is_its_rule(how):
    @gc.custom_gradient
    def log1pexp(x):
        e = gc.exp(x)

        def grad(dy):
            return dy * (1 - 1 / (1 + e))  # e: made by the forward call, in the branch

        return gc.math.log(1 + e), grad

    @gc.custom_gradient
    def doubled(x):
        return x * 2.0, lambda dy: dy * 3.0  # not the body's gradient 2

    def branches(p, x):
        return gc.cond(p, lambda: log1pexp(x), lambda: doubled(x))

    @gc.function
    def f(p, x):
        if how == "gradients":
            return gc.gradients(branches(p, x), x)[0]
        with gc.GradientTape() as tape:
            tape.watch(x)
            r = branches(p, x)
        return tape.gradient(r, x)

    x0 = np.float64(0.5)
    numeric = central_difference(lambda t: np.log1p(np.exp(t)), x0)
    assert float(f(gc.constant(True), gc.constant(x0))) == pytest.approx(float(numeric))
    assert float(f(gc.constant(False), gc.constant(x0))) == 3.0


# --------------------------------------------------------------------------- CaseTest
def test_case_with_print(capsys):
    @gc.function
    def f():
        x = gc.constant(1)

        def first():
            gc.print("1")
            return x

        return gc.switch_case(gc.constant(0), [first, lambda: x + 1])

    assert value(f()) == 1
    assert capsys.readouterr().out == "1\n"


def test_stateless_case():
    x = gc.constant(1)
    f = gc.function(lambda i: gc.switch_case(i, [lambda: x + 1, lambda: x + 2]))
    assert value(f(gc.constant(0))) == 2 and value(f(gc.constant(1))) == 3


# --------------------------------------------------------------------------- witness
def test_cond_v2_cases_tensorflow():
    tf = tensorflow()

    @tf.function
    def basic(p, x, y):
        r = tf.cond(p, lambda: x * 2.0, lambda: y * 3.0)
        return r, tf.gradients(r, [x, y])

    r, g = basic(tf.constant([[False]]), tf.constant(1.0), tf.constant(2.0))
    assert float(r) == 6.0 and [float(t) for t in g] == [0.0, 3.0]

    v = tf.Variable(2.0)

    @tf.function
    def var_branch():
        with tf.GradientTape() as tape:
            c = tf.cond(tf.constant(True), lambda: tf.pow(v, 3), lambda: v)
        return c, tape.gradient(c, v)

    assert [float(t) for t in var_branch()] == [8.0, 12.0]

    @tf.function
    def custom(p, x):
        @tf.custom_gradient
        def doubled(x):
            return x * 2.0, lambda dy: dy * 3.0

        return tf.gradients(tf.cond(p, lambda: doubled(x), lambda: x), x)[0]

    assert float(custom(tf.constant(True), tf.constant(0.5))) == 3.0

    @tf.function
    def mismatch():
        return tf.cond(tf.constant(False), lambda: (v * 1.0, v), lambda: ((v,), v * 3.0))

    with pytest.raises(TypeError):
        mismatch()
