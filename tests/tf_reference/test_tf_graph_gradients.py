"""TensorFlow's ``ops/gradients_test.py`` (``GradientsTest``, ``FunctionGradientsTest``,
``StopGradientTest``, ``HessianVectorProductTest``) ported to ``gc.gradients`` inside a
``gc.function`` (see tests/tf_reference/README.md). Expected values are worked out by
hand, or by comparing two graphc computations that must agree.
"""

from __future__ import annotations

import numpy as np
import pytest
from tfref import central_difference, value

import graphc as gc
import graphc.numpy as gnp


def _floats(grads):
    return [None if g is None else float(g) for g in grads]


def test_boundary_stop_and_continue():
    @gc.function
    def grads(c):
        x = gc.identity(c)
        z = (x + 1.0) + 1.0
        y = c * 2.0
        return gc.gradients(z, [x]), gc.gradients(y * 3.0, [c, y])

    stop, cont = grads(gc.constant(1.0))
    assert _floats(stop) == [1.0]
    assert _floats(cont) == [6.0, 3.0]


def test_many_uses_add_up():
    @gc.function
    def grads(x):
        y = x * 2.0
        z = y + y + y + y + y + y + y + y + y + y
        return gc.gradients(z, [x, y], aggregation_method="add_n")

    assert _floats(grads(gc.constant(1.0))) == [20.0, 10.0]


def test_dependent_ys():
    @gc.function
    def grads(x):
        y = gnp.square(x)
        y2 = gnp.square(gnp.square(y))
        return (gc.gradients([y, y2], x)[0], gc.gradients(y + y2, x)[0],
                gc.gradients([gc.identity(y), gc.identity(y2)], x)[0])

    # d(x^2 + x^8)/dx = 2x + 8x^7 at x = 3
    assert _floats(grads(gc.constant(3.0))) == [2 * 3.0 + 8 * 3.0 ** 7] * 3


def test_partial_derivatives():
    @gc.function
    def grads(x):
        y = 2 * x
        z = x + y
        return gc.gradients(z, [x, y]), gc.gradients(z, [x, y], stop_gradients=[x, y])

    total, partial = grads(gc.constant(1.0))
    assert _floats(total) == [3.0, 1.0]
    assert _floats(partial) == [1.0, 1.0]


def _chain(rng, stopped=""):
    """Four 3x3 values, each a sum of random matrices times earlier ones; the names in
    ``stopped`` wrapped in gc.stop_gradient."""
    def of(*xs):
        total = gnp.asarray(rng.random((3, 3)))
        for x in xs:
            total = total + gnp.asarray(rng.random((3, 3))) @ x
        return total

    values = {}
    for name, deps in (("a", ""), ("b", "a"), ("c", "ab"), ("d", "bc")):
        v = of(*[values[d] for d in deps])
        values[name] = gc.stop_gradient(v) if name in stopped else v
    return values


SUBSETS = ["", "a", "b", "c", "ab", "bc", "ac", "abc", "abcd"]


@pytest.mark.parametrize("held", SUBSETS)
def test_stop_gradients_argument_matches_stop_gradient_ops(held):
    seed = 7

    @gc.function
    def both():
        plain = _chain(np.random.default_rng(seed))
        stopped = _chain(np.random.default_rng(seed), held)
        out = []
        for wrt in SUBSETS[1:]:
            by_ops = gc.gradients(stopped["d"], [stopped[v] for v in wrt],
                                  unconnected_gradients="zero")
            by_arg = gc.gradients(plain["d"], [plain[v] for v in wrt],
                                  stop_gradients=[plain[v] for v in held],
                                  unconnected_gradients="zero")
            out.append((by_ops, by_arg))
        return out

    for by_ops, by_arg in both():
        for a, b in zip(by_ops, by_arg):
            np.testing.assert_allclose(value(a), value(b), rtol=1e-12)


def test_unconnected_gradients():
    @gc.function
    def grads(x, y):
        return (gc.gradients([y], [x]), gc.gradients([y], [x], unconnected_gradients="zero"),
                gc.gradients([x * 3.0], [x], unconnected_gradients="zero"))

    none, zero, connected = grads(gnp.ones((2, 2)), gnp.full((3, 1), 3.0))
    assert none == [None]
    np.testing.assert_array_equal(value(zero[0]), np.zeros((2, 2)))
    np.testing.assert_array_equal(value(connected[0]), np.full((2, 2), 3.0))


def test_unknown_unconnected_gradients_value():
    @gc.function
    def grads(x):
        return gc.gradients([x * 1.0], [x], unconnected_gradients="nonsense")

    with pytest.raises(ValueError, match="nonsense"):
        grads(gc.constant(1.0))


@pytest.mark.parametrize("mode", ["none", "zero"])
def test_unconnected_output_of_a_multi_output_op(mode):
    @gc.function
    def grads(a, b):
        c, d = gc.identity_n([a, b])
        return (gc.gradients(gc.identity(c), d, unconnected_gradients=mode)[0],
                gc.gradients(gc.stop_gradient(c) + d, c, unconnected_gradients=mode)[0])

    through_c, stopped_c = grads(gc.constant(1.0), gc.constant(1.0))
    for g in (through_c, stopped_c):
        assert (g is None) if mode == "none" else float(g) == 0.0


def test_variable_gradients():
    var = gc.Variable(100.0)
    var64 = gc.Variable(np.float64(100.0))

    @gc.function
    def grads():
        dummy = gc.constant(0.0)
        return (gc.gradients(var.read_value(), var)[0],
                gc.gradients(dummy, var64, unconnected_gradients="zero")[0],
                gc.gradients(var * 2.0, var)[0])

    read, default, captured = grads()
    assert float(read) == 1.0
    assert default.dtype == np.float64 and float(default) == 0.0
    assert float(captured) == 2.0


def test_gradient_of_stop_gradient_is_none():
    @gc.function
    def grads(inp):
        return gc.gradients(gc.stop_gradient(inp), inp)[0]

    assert grads(gnp.ones((100, 32))) is None


def test_gradient_through_nested_function_calls():
    f = gc.function(lambda x, b: x * x + b)

    @gc.function
    def grads(x, b1, b2):
        return gc.gradients(f(f(x, b1), b2), [x, b1])

    # y = (x^2 + b1)^2 + b2: dy/dx = 4x (x^2 + b1) = 40, dy/db1 = 2 (x^2 + b1) = 10
    got = grads(gc.constant([2.0]), gc.constant([1.0]), gc.constant([1.0]))
    assert [value(g).tolist() for g in got] == [[40.0], [10.0]]


def test_gradient_with_respect_to_captured_values():
    x1, x2 = gc.constant(1.0), gc.constant(2.0)
    x3 = x1 * x2

    @gc.function
    def grads():
        outer1 = gc.identity(x1)
        return gc.gradients([gc.identity(outer1), gc.identity(x2), gc.identity(x3), x1],
                            [x1, x2])

    # x1: through the identities (1) and as a y itself (1); x2: through its identity.
    # x3 was computed eagerly before the function, so it is a constant here (in
    # TensorFlow's graph mode x3 = x1 * x2 is in the graph and adds 2.0 and 1.0)
    assert _floats(grads()) == [2.0, 1.0]


def test_hessian_vector_product():
    rng = np.random.default_rng(3)
    mat, v, x0 = rng.standard_normal((4, 4)), rng.standard_normal((4, 1)), \
        rng.standard_normal((4, 1))

    @gc.function
    def hvp(x):
        g = gc.gradients(gnp.transpose(x) @ (gnp.asarray(mat) @ x), x)[0]
        return gc.gradients(g, x, grad_ys=gnp.asarray(v))[0]

    np.testing.assert_allclose(value(hvp(x0)), (mat + mat.T) @ v, rtol=1e-10)

    def grad_dot_v(xv):
        return float(((mat + mat.T) @ xv).ravel() @ v.ravel())

    want = central_difference(grad_dot_v, x0)
    np.testing.assert_allclose(value(hvp(x0)), want, rtol=1e-6)
