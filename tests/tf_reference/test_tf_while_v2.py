"""TensorFlow's ``kernel_tests/control_flow/while_v2_test.py`` (``WhileV2Test``) ported to
``gc.while_loop`` (see tests/tf_reference/README.md): values, first and higher-order
gradients (``gc.gradients`` inside a ``gc.function``, or a ``GradientTape``), nested loops,
TensorArray loop variables, ``maximum_iterations``, custom gradients in the body. The
expected values are worked out by hand (the comment shows the arithmetic) or by central
differences of the same graphc function. The shape, variable and TensorFlow-witness cases
are in ``test_tf_while_v2_more.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from tfref import central_difference, value

import graphc as gc


def _loop_and_grad(x, cond, body, **kw):
    r = gc.while_loop(cond, body, [x], **kw)
    return r, gc.gradients(r, [x])


@gc.function
def _square_until_8(x):
    return _loop_and_grad(x, lambda v: v < 8.0, lambda v: v * v)


@gc.function
def _square_with_identities(x):
    def body(v):
        v = gc.identity(v)
        v = gc.identity(v)
        return v * v

    return _loop_and_grad(x, lambda v: v < 8.0, body)


@pytest.mark.parametrize("fn", [_square_until_8, _square_with_identities],
                         ids=["plain", "identity_nodes_in_body"])
def test_single_loop_var(fn):
    r, g = fn(gc.constant(2.0))
    # 2 -> 4 -> 16 = x^4; d/dx = 4 x^3 = 32. A one-element list comes back as a list.
    assert isinstance(r, list) and value(r[0]) == 16.0
    assert [value(t) for t in g] == [32.0]


def test_back_prop_false_stops_the_gradient():
    @gc.function
    def f(x):
        return _loop_and_grad(x, lambda v: v < 8.0, lambda v: v * v, back_prop=False)

    r, g = f(gc.constant(2.0))
    assert value(r[0]) == 16.0 and g == [None]


def test_back_prop_false_eager_tape():
    x = gc.constant(2.0)
    with gc.GradientTape() as tape:
        tape.watch(x)
        r = gc.while_loop(lambda v: v < 8.0, lambda v: v * v, [x], back_prop=False)
    assert value(r[0]) == 16.0 and tape.gradient(r, x) is None


def test_result_keeps_the_structure_of_loop_vars():
    @gc.function
    def f(x):
        as_list = gc.while_loop(lambda v: v < 8.0, lambda v: v * v, [x])
        as_tuple = gc.while_loop(lambda v: v < 8.0, lambda v: v * v, (x,))
        bare = gc.while_loop(lambda v: v < 8.0, lambda v: v * v, x)
        return as_list, as_tuple, bare

    as_list, as_tuple, bare = f(gc.constant(2.0))
    assert isinstance(as_list, list) and len(as_list) == 1
    assert isinstance(as_tuple, tuple) and len(as_tuple) == 1
    assert value(as_list[0]) == value(as_tuple[0]) == value(bare) == 16.0


def test_loop_var_dtype_change_raises_type_error():
    @gc.function
    def f():
        x = gc.constant(1.0, gc.float32)
        return gc.while_loop(lambda x: x < 10, lambda x: gc.cast(x, gc.float16) + 1, [x])

    with pytest.raises(TypeError, match="float32 before the loop but float16"):
        f()


def test_multiple_loop_vars_basic():
    @gc.function
    def f(x, y):
        # while x < 45: x = x * y
        ret = gc.while_loop(lambda v, _: v < 45.0, lambda v, w: (v * w, w), [x, y])
        return ret, gc.gradients(ret, [x])

    ret, g = f(gc.constant(5.0), gc.constant(3.0))
    # 5 -> 15 -> 45 = x y^2; d/dx = y^2 = 9 (ret[1] = y does not depend on x)
    assert [value(t) for t in ret] == [45.0, 3.0] and value(g[0]) == 9.0


@pytest.mark.parametrize("mode", ["function", "eager"])
def test_one_element_predicate(mode):
    # x is [[5.]], so `v < 45.` is a (1, 1) predicate: taken as its one element.
    def f(x, y):
        return gc.while_loop(lambda v, _: v < 45.0, lambda v, w: (v * w, w), [x, y])

    run = gc.function(f) if mode == "function" else f
    ret = run(gc.constant([[5.0]]), gc.constant(3.0))
    assert value(ret[0]).tolist() == [[45.0]] and value(ret[1]) == 3.0


def test_multiple_loop_vars():
    @gc.function
    def f(x, y):
        # while x < 45: x, y = x * y, x + y
        ret = gc.while_loop(lambda v, _: v < 45.0, lambda v, w: (v * w, v + w), [x, y])
        grads = [gc.gradients(t, [s])[0] for s in (x, y) for t in (ret[0], ret[1], ret)]
        return ret, grads

    ret, grads = f(gc.constant(5.0), gc.constant(3.0))
    # (5, 3) -> (15, 8) -> (120, 23): ret = [y x^2 + x y^2, x y + x + y]
    assert [value(t) for t in ret] == [120.0, 23.0]
    # d/dx: 2xy + y^2 = 39, y + 1 = 4, sum 43; d/dy: 2xy + x^2 = 55, x + 1 = 6, sum 61
    assert [float(value(g)) for g in grads] == [39.0, 4.0, 43.0, 55.0, 6.0, 61.0]


@pytest.mark.parametrize("mode", ["function", "eager"])
def test_gradient_tape(mode):
    def f(x):
        with gc.GradientTape() as tape:
            tape.watch(x)
            ret = gc.while_loop(lambda v: v < 4.0, lambda v: v * v, [x])  # x^2
        return tape.gradient(ret, x)

    run = gc.function(f) if mode == "function" else f
    assert value(run(gc.constant(2.0))) == 4.0  # 2x


def test_chained_loops_second_derivative():
    @gc.function
    def f(x):
        r1 = gc.while_loop(lambda v: v < 4.0, lambda v: v * v, [x])  # x^2
        r2 = gc.while_loop(lambda v: v < 16.0, lambda v: v * v, r1)  # x^4
        g = gc.gradients(r2, [x])[0]
        return g, gc.gradients(g, [x])[0]

    g, gg = f(gc.constant(2.0))
    assert value(g) == 32.0 and value(gg) == 48.0  # 4x^3, 12x^2


def test_two_loops_on_one_input_tape():
    @gc.function
    def f(x):
        with gc.GradientTape() as tape:
            tape.watch(x)
            r1 = gc.while_loop(lambda v: v < 4.0, lambda v: v * v, [x])  # x^2
            r2 = gc.while_loop(lambda v: v < 16.0, lambda v: v * v, [x])  # x^4
            loss = r1[0] + r2[0]
        return r1[0], r2[0], tape.gradient(loss, x)

    r1, r2, g = f(gc.constant(2.0))
    assert (value(r1), value(r2), value(g)) == (4.0, 16.0, 36.0)  # 2x + 4x^3 = 4 + 32


def test_double_derivative():
    @gc.function
    def f(x):
        ret = gc.while_loop(lambda v: v < 8.0, lambda v: v**2, [x])  # x^4
        g = gc.gradients(ret, [x])[0]
        return ret[0], g, gc.gradients(g, [x])[0]

    assert [float(value(t)) for t in f(gc.constant(2.0))] == [16.0, 32.0, 48.0]


def test_maximum_iterations_with_loop_invariant():
    @gc.function
    def f(v):
        r = gc.while_loop(lambda _: True, lambda x: v * x, [1.0], maximum_iterations=5)
        return r[0], gc.gradients(r, v)[0]

    r, g = f(gc.constant(5.0))
    assert value(r) == 3125.0 and value(g) == 3125.0  # v^5 = 3125; 5 v^4 = 3125


def test_maximum_iterations_one_ignores_the_input():
    @gc.function
    def f(x):
        return gc.while_loop(lambda i: True, lambda _: gc.constant(10), [x],
                             maximum_iterations=1)

    assert value(f(gc.constant(0))[0]) == 10


@pytest.mark.parametrize("where", ["cond", "body"])
def test_capture_external_tensor(where):
    @gc.function
    def f(x, y):
        if where == "cond":  # v + 1 < 9: 2 -> 6 -> 18 = 9x
            return _loop_and_grad(x, lambda v: v + y < 9.0, lambda v: v * 3.0)
        return _loop_and_grad(x, lambda v: v < 8.0, lambda v: v * y)  # 2 -> 6 -> 18

    r, g = f(gc.constant(2.0), gc.constant(1.0 if where == "cond" else 3.0))
    assert value(r[0]) == 18.0 and value(g[0]) == 9.0


def test_tensor_array_loop_variable():
    @gc.function
    def f(x):
        ta = gc.TensorArray(gc.float32, size=0, dynamic_size=True, element_shape=[])

        def body(v, ta):
            ta = ta.write(ta.size(), v)
            ta = ta.write(ta.size(), gc.constant(100.0))
            return v**2.0, ta

        ret = gc.while_loop(lambda v, _: v < 5.0, body, [x, ta])
        return ret[0], ret[1].stack(), gc.gradients(ret[0], x)[0]

    r, stacked, g = f(gc.constant(2.0))
    assert value(r) == 16.0 and value(g) == 32.0  # x^4, 4x^3
    assert value(stacked).tolist() == [2.0, 100.0, 4.0, 100.0]


def test_map_fn_gradient():
    @gc.function
    def f(param, y0):
        r = gc.map_fn(lambda x: gc.multiply(x, param), y0)
        return r, gc.gradients(r, param)[0]

    r, g = f(gc.constant(2.0), gc.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]))
    assert value(r).tolist() == [2.0, 4.0, 6.0, 8.0, 10.0, 12.0]
    assert value(g) == 21.0  # 1 + 2 + ... + 6


@pytest.mark.parametrize("inner_as_function", [False, True])
def test_nested_while(inner_as_function):
    # sum of powers n^0 + n^1 + ... + n^m, each power by an inner loop
    @gc.function
    def f(n, m):
        def inner_body(c, v):
            return c - 1.0, v * n

        inner = gc.function(inner_body) if inner_as_function else inner_body

        def body(i, total):
            power = gc.while_loop(lambda c, _: c > 0, inner, [i, gc.constant(1.0)])[1]
            return i - 1.0, total + power

        r = gc.while_loop(lambda i, _: i >= 0, body, [m, gc.constant(0.0)])[1]
        return r, gc.gradients(r, [n])[0]

    r, g = f(gc.constant(3.0), gc.constant(5.0))
    # 1 + 3 + 9 + 27 + 81 + 243 = 364; d/dn = 1 + 2*3 + 3*9 + 4*27 + 5*81 = 547
    assert value(r) == 364.0 and value(g) == 547.0


def test_gradient_through_function_called_in_body():
    @gc.function
    def f(x):
        def body(i):
            @gc.function
            def twice():
                return i * 2

            return twice()

        y = gc.while_loop(lambda i: i < 5.0, body, [x])  # 1 -> 2 -> 4 -> 8 = 8x
        return gc.gradients(y, x)[0]

    assert value(f(gc.constant(1.0))) == 8.0


def test_gather_of_loop_result_gradient():
    @gc.function
    def f(x):
        ret = gc.while_loop(lambda _: True, lambda v: v * v, [x], maximum_iterations=2)
        return gc.gradients(gc.gather(ret[0], [0]), [x])[0]  # x^4 -> 4 x^3

    assert value(f(gc.constant([2.0]))).tolist() == [32.0]


def test_counter_loop():
    assert value(gc.function(lambda c: gc.while_loop(lambda i: i < 2, lambda i: i + 1, [c]))(
        gc.constant(0))[0]) == 2


# --------------------------------------------------------------------------- iterated
def _grad(f):
    def g(primal):
        with gc.GradientTape() as tape:
            tape.watch(primal)
            out = f(primal)
        return tape.gradient(out, primal)

    return g


def _check_iterated_gradients(func):
    """Each of three orders of tape gradients of ``func`` at 1.0 equals the central
    difference of the order below, and the third one its own (float64 throughout)."""
    f = func
    for _ in range(3):
        fn = gc.function(f)
        expected = central_difference(lambda x, fn=fn: float(fn(gc.constant(x))), 1.0, 1e-5)
        f = _grad(f)
        assert float(gc.function(f)(gc.constant(np.float64(1.0)))) == pytest.approx(
            float(expected), rel=1e-5)


def test_iterated_gradients():
    def func(x):
        _, z = gc.while_loop(lambda i, _: i < 2, lambda i, y: (i + 1, gc.cos(y)), [0, x])
        return z  # cos(cos(x))

    _check_iterated_gradients(func)


def test_iterated_gradients_with_tensor_array():
    def func(x):
        ta = gc.TensorArray(gc.float64, size=0, dynamic_size=True, element_shape=[])

        def body(i, y, ta):
            return i + 1, gc.cos(y), ta.write(i, y)

        _, z, ta = gc.while_loop(lambda i, _, h: i < 2, body, [0, x, ta])
        return z + gc.reduce_sum(ta.stack())  # cos(cos x) + x + cos x

    _check_iterated_gradients(func)
