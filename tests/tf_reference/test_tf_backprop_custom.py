"""TensorFlow's ``eager/backprop_test.py``: the custom-gradient cases of ``BackpropTest``,
``JacobianTest`` and ``BatchJacobianTest``, ported to graphc (see
tests/tf_reference/README.md). Expected values are worked out by hand in each test.
"""

from __future__ import annotations

import numpy as np
import pytest
from tfref import value

import graphc as gc
import graphc.numpy as gnp


# -------------------------------------------------------------------- custom gradients
def test_custom_gradient_returning_too_few_gradients_raises():
    @gc.custom_gradient
    def identity(x):
        return x, lambda _: []          # wrong: one gradient is due

    x = gc.Variable(1.0)
    with gc.GradientTape() as tape:
        y = identity(x)
    with pytest.raises(ValueError, match="identity"):
        tape.gradient(y, [x])


def test_error_raised_by_grad_fn_propagates():
    @gc.custom_gradient
    def f(x):
        def grad(_):
            raise RuntimeError("from grad_fn")
        return x, grad

    x = gc.constant(1.0)
    with gc.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    with pytest.raises(RuntimeError, match="from grad_fn"):
        tape.gradient(y, x)


def test_tape_inside_a_custom_gradient_body():
    @gc.custom_gradient
    def f(x):
        with gc.GradientTape() as tape:
            tape.watch(x)
            sq = x * x
        return tape.gradient(sq, x), lambda dy: [2 * dy]

    assert float(f(gc.constant(1.0))) == 2.0


def test_custom_gradient_of_a_variable_argument():
    @gc.custom_gradient
    def my_square(x):
        def grad(dr):
            return 2 * dr * x + 1
        return gnp.square(x), grad

    x = gc.Variable(3.0)
    with gc.GradientTape() as tape:
        y = my_square(x)
    assert tape.watched_variables() == (x,)
    assert float(tape.gradient(y, x)) == 7.0        # 2 * 3 + 1


def test_training_loop_with_a_custom_gradient():
    @gc.custom_gradient
    def my_mul(x, y):
        return x * y, lambda dr: [dr * y, dr * x]

    x = gc.Variable(2.0)
    losses = []
    for _ in range(5):
        with gc.GradientTape() as tape:
            loss = my_mul(2.0, x.read_value())
        losses.append(float(loss))
        x.assign_sub(0.25 * tape.gradient(loss, x))
    assert losses == [4.0, 3.0, 2.0, 1.0, 0.0]


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
def test_custom_gradient_identity_and_square(traced):
    @gc.custom_gradient
    def twice(x):
        return x, lambda dy: [2 * dy]

    @gc.custom_gradient
    def square(x):
        return x * x, lambda dy: [4 * dy]

    def grads(c):
        with gc.GradientTape(persistent=True) as tape:
            tape.watch(c)
            a, b = twice(c), square(c)
        return tape.gradient(a, c), tape.gradient(b, c)

    run = gc.function(grads) if traced else grads
    assert [float(g) for g in run(gc.constant(1.0))] == [2.0, 4.0]


def test_second_order_overridden_by_a_nested_custom_gradient():
    @gc.custom_gradient
    def f(x):
        def first_order_grad(dz):
            @gc.custom_gradient
            def first_order_custom(unused_x):
                return gc.constant(-1.1), lambda ddz: -2.1 * ddz
            return dz * first_order_custom(x)
        return x + 10.0, first_order_grad

    c = gc.constant(1.0)
    with gc.GradientTape() as outer:
        outer.watch(c)
        with gc.GradientTape() as inner:
            inner.watch(c)
            d = f(c) ** 4.0
        dd = inner.gradient(d, c)
        np.testing.assert_allclose(value(dd), 4.0 * 11.0 ** 3 * -1.1, rtol=1e-6)
    # d/dc of 4 f^3 * g(c) with f' = -1.1 (the first rule) and g' = -2.1 (the nested one)
    want = 3.0 * 4.0 * 11.0 ** 2 * -1.1 * -1.1 + 4.0 * 11.0 ** 3 * -2.1
    np.testing.assert_allclose(value(outer.gradient(dd, c)), want, rtol=1e-6)


def test_custom_gradient_of_a_gradient_and_its_transpose():
    @gc.custom_gradient
    def f(x):
        def g(dz):
            @gc.custom_gradient
            def first_order(unused_x, unused_dz):
                return gc.constant(2.1), lambda unused_ddz: (gc.constant(2.2),
                                                             gc.constant(3.1))
            return first_order(x, dz)
        return 2.0 * gc.constant(float(x)), g      # the value only: no path to x

    with gc.GradientTape(persistent=True) as outer:
        with gc.GradientTape() as inner:
            c = gc.constant(1.0)
            outer.watch(c)
            inner.watch(c)
            seed = gnp.ones([])
            outer.watch(seed)
            out = f(c)
            assert float(out) == 2.0
        gc_ = inner.gradient(out, c, output_gradients=seed)
        assert float(gc_) == pytest.approx(2.1)
    assert float(outer.gradient(gc_, c)) == pytest.approx(2.2)
    assert float(outer.gradient(gc_, seed)) == pytest.approx(3.1)


def test_custom_gradient_variables_gradient_through_a_jacobian():
    class Quadratic:
        def __init__(self):
            self.a, self.b, self.c = gc.Variable(1.0), gc.Variable(2.0), gc.Variable(3.0)

        def __call__(self, x):
            return self.a * x * x + self.b * x + self.c

    q = Quadratic()
    x = gc.constant([1.0, 2.0, 3.0])

    @gc.custom_gradient
    def call():
        y = q(x)

        def grad(dy, variables=None):
            with gc.GradientTape(persistent=True) as tape:
                tape.watch(variables)
                y = q(x)
            return (), [2 * gnp.sum(dy * tape.jacobian(y, v)) for v in variables]

        return y, grad

    with gc.GradientTape(persistent=True) as tape:
        tape.watch([q.a, q.b, q.c])
        y = call()
    assert tape.gradient(y, x) is None
    # twice the summed Jacobian of a x^2 + b x + c by (a, b, c): 2 * (14, 6, 3)
    assert [float(g) for g in tape.gradient(y, [q.a, q.b, q.c])] == [28.0, 12.0, 6.0]


# -------------------------------------------------------------------------- Jacobians
@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
def test_jacobian(traced):
    def jac():
        with gc.GradientTape() as tape:
            x, y = gc.constant([1.0, 2.0]), gc.constant([3.0, 4.0])
            tape.watch([x, y])
            z = x * x * y
        return tape.jacobian(z, [x, y])

    run = gc.function(jac) if traced else jac
    jx, jy = run()
    np.testing.assert_array_equal(value(jx), np.diag([6.0, 16.0]))     # 2 x y
    np.testing.assert_array_equal(value(jy), np.diag([1.0, 4.0]))      # x^2


def test_nested_jacobian():
    x = gnp.ones((10, 2))
    with gc.GradientTape() as outer:
        outer.watch(x)
        with gc.GradientTape() as inner:
            inner.watch(x)
            y = gnp.sum(gnp.square(x))
        dy_x = inner.jacobian(y, x)
    np.testing.assert_array_equal(value(outer.batch_jacobian(dy_x, x)),
                                  [[[2.0, 0.0], [0.0, 2.0]]] * 10)


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
def test_batch_jacobian(traced):
    def jac():
        with gc.GradientTape() as tape:
            x = gc.constant([[1.0, 2.0], [3.0, 4.0]])
            y = gc.constant([[3.0, 4.0], [5.0, 6.0]])
            tape.watch(x)
            z = x * x * y
        return tape.batch_jacobian(z, x)

    run = gc.function(jac) if traced else jac
    np.testing.assert_array_equal(value(run()), [np.diag([6.0, 16.0]),
                                                 np.diag([30.0, 48.0])])


def test_batch_jacobian_parallel_iterations_change_nothing():
    with gc.GradientTape(persistent=True) as tape:
        x = gc.constant([[1.0, 2.0], [3.0, 4.0]])
        tape.watch(x)
        y = x @ gc.constant([[1.0, 2, 3, 4], [5, 6, 7, 8]])
    a = tape.batch_jacobian(y, x, parallel_iterations=2)
    b = tape.batch_jacobian(y, x, parallel_iterations=3)
    np.testing.assert_array_equal(value(a), value(b))
    np.testing.assert_array_equal(value(a)[0], [[1.0, 5.0], [2.0, 6.0], [3.0, 7.0],
                                                [4.0, 8.0]])


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
def test_batch_jacobian_degenerate_shape(traced):
    def jac(x):
        with gc.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = x ** 2
        return tape.batch_jacobian(y, x)

    run = gc.function(jac) if traced else jac
    assert tuple(run(gnp.zeros([1, 0], dtype=np.float32)).shape) == (1, 0, 0)


def test_batch_jacobian_batch_sizes_must_match():
    x = gc.constant(np.ones((2, 3), np.float32))
    with gc.GradientTape() as tape:
        tape.watch(x)
        y = gc.concat([x, x], axis=0)
    with pytest.raises(ValueError, match="batch dimension"):
        tape.batch_jacobian(y, x)           # batch sizes 4 and 2


def _rank_one_cases():
    x = gc.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    with gc.GradientTape(persistent=True) as tape:
        tape.watch(x)
        flat = gnp.sum(x * x, axis=1)
    return tape, x, flat


def test_batch_jacobian_of_rank_one_values_raises():
    # TensorFlow refuses a rank-1 target or source (a scalar per example); issue 29,
    # part 2 made graphc refuse it too (it used to return the values below)
    tape, x, flat = _rank_one_cases()
    with pytest.raises(ValueError, match="rank 2 or more"):
        tape.batch_jacobian(flat, x)
    with pytest.raises(ValueError, match="rank 2 or more"):
        tape.batch_jacobian(x, flat)


def test_batch_jacobian_of_one_column_per_example():
    x = gc.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    with gc.GradientTape() as tape:
        tape.watch(x)
        column = gnp.sum(x * x, axis=1, keepdims=True)   # the supported spelling: (b, 1)
    # example b of sum(x[b]^2) by x[b]: 2 x[b]
    np.testing.assert_array_equal(value(tape.batch_jacobian(column, x)),
                                  2 * np.arange(6).reshape(2, 1, 3))
