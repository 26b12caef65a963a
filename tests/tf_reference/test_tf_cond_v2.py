"""TensorFlow's ``kernel_tests/control_flow/cond_v2_test.py`` (``CondV2Test``,
``CaseTest``) ported to ``gc.cond`` / ``gc.switch_case`` (see tests/tf_reference/README.md).
TensorFlow's graph-mode cases fed the predicate through a placeholder; here it is an
argument of a ``gc.function``, and ``gc.gradients`` takes the gradients inside it. The
expected values are worked out by hand (the comment shows the arithmetic).
"""

from __future__ import annotations

import numpy as np
import pytest
from tfref import value

import graphc as gc

PREDS = [True, False, [[True]], [[False]]]  # a (1, 1) predicate is taken as its element


def _vals(ts):
    return [None if t is None else float(value(t)) for t in ts]


@gc.function
def _basic(p, x, y):
    r = gc.cond(p, lambda: x * 2.0, lambda: y * 3.0)
    return r, gc.gradients(r, [x]), gc.gradients(r, [x, y]), gc.gradients(r, [y])


@pytest.mark.parametrize("pred", PREDS, ids=str)
def test_basic(pred):
    r, gx, gxy, gy = _basic(gc.constant(pred), gc.constant(1.0), gc.constant(2.0))
    taken = bool(np.asarray(pred))
    # x * 2 = 2 (d/dx 2) or y * 3 = 6 (d/dy 3); the other gradient is 0: the untaken
    # branch's gradient gives zeros for it, as in TensorFlow
    assert value(r) == (2.0 if taken else 6.0)
    assert _vals(gxy) == ([2.0, 0.0] if taken else [0.0, 3.0])
    assert _vals(gx) == _vals(gxy)[:1] and _vals(gy) == _vals(gxy)[1:]


def test_branches_returning_none():
    @gc.function
    def f(p):
        a = gc.cond(p, lambda: (gc.constant([1.0]), None), lambda: (gc.constant([2.0]), None))
        b = gc.cond(p, lambda: (None, None, None, gc.constant([1.0])),
                    lambda: (None, None, None, gc.constant([2.0])))
        return a, b

    a, b = f(gc.constant(True))
    assert value(a[0]).tolist() == [1.0] and a[1] is None
    assert b[:3] == (None, None, None) and value(b[3]).tolist() == [1.0]


@pytest.mark.parametrize("rows", [2, 3])
def test_function_branches_variable_gradient(rows):
    v = gc.Variable([[1.0, 1.0], [1.0, 1.0]])

    @gc.function(input_signature=[gc.TensorSpec([None, 2], gc.float32),
                                  gc.TensorSpec([], gc.float32)])
    def call(x, c):
        @gc.function
        def true_fn():
            return gc.einsum("ab,bc->ac", x, v)

        @gc.function
        def false_fn():
            return x

        return gc.cond(c > 0, true_fn, false_fn)

    with gc.GradientTape() as tape:
        y = call(gc.ones([rows, 2]), gc.constant(1.0))
    # d sum(x @ v) / d v[b, c] = sum_a x[a, b] = rows
    assert value(tape.gradient(y, v)).tolist() == [[float(rows)] * 2] * 2


@pytest.mark.parametrize("pred", [True, False])
def test_multiple_outputs(pred):
    @gc.function
    def f(p, x, y):
        r = gc.cond(p, lambda: (x * y, y), lambda: (x, y * 3.0))
        return r, gc.gradients(r, [x, y])

    r, g = f(gc.constant(pred), gc.constant(1.0), gc.constant(3.0))
    if pred:  # (xy, y) = (3, 3); d/dx: y = 3; d/dy: x + 1 = 2
        assert _vals(r) == [3.0, 3.0] and _vals(g) == [3.0, 2.0]
    else:  # (x, 3y) = (1, 9); d/dx 1, d/dy 3
        assert _vals(r) == [1.0, 9.0] and _vals(g) == [1.0, 3.0]


@pytest.mark.parametrize("pred", [True, False])
def test_python_number_branch(pred):
    @gc.function
    def f(p, x, y):
        r = gc.cond(p, lambda: x * y * 2.0, lambda: 2.0)
        return r, gc.gradients(r, [x, y])

    r, g = f(gc.constant(pred), gc.constant(1.0), gc.constant(2.0))
    # 2xy = 4, gradients (2y, 2x) = (4, 2); or the number 2, no gradient
    assert value(r) == (4.0 if pred else 2.0)
    assert _vals(g) == ([4.0, 2.0] if pred else [0.0, 0.0])


def test_no_inputs():
    f = gc.function(lambda p: gc.cond(p, lambda: gc.constant(1.0), lambda: gc.constant(2.0)))
    assert value(f(gc.constant(True))) == 1.0 and value(f(gc.constant(False))) == 2.0


def _in_functions(depth, fn):
    """``fn`` called through ``depth`` nested ``gc.function``s."""
    for _ in range(depth):
        fn = gc.function(fn)
    return fn


@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize("pred", [True, False])
def test_functions_in_branch(depth, pred):
    @gc.function
    def f(p, x, y):
        r = gc.cond(p, lambda: _in_functions(depth, lambda: x * y * 2.0)(), lambda: 2.0)
        return r, gc.gradients(r, [x, y]), gc.gradients(r, [x]), gc.gradients(r, [y])

    r, gxy, gx, gy = f(gc.constant(pred), gc.constant(1.0), gc.constant(2.0))
    assert value(r) == (4.0 if pred else 2.0)
    assert _vals(gxy) == ([4.0, 2.0] if pred else [0.0, 0.0])
    assert _vals(gx) + _vals(gy) == _vals(gxy)


@pytest.mark.parametrize("outer", [True, False])
@pytest.mark.parametrize("inner", [True, False])
def test_nested_cond_both_branches(outer, inner):
    @gc.function
    def f(po, pi, x, y):
        r = gc.cond(po, lambda: gc.cond(pi, lambda: x + y, lambda: x * x),
                    lambda: gc.cond(pi, lambda: x - y, lambda: y * y))
        return r, gc.gradients(r, [x, y])

    r, g = f(gc.constant(outer), gc.constant(inner), gc.constant(1.0), gc.constant(2.0))
    expected = {(True, True): (3.0, [1.0, 1.0]),     # x + y
                (True, False): (1.0, [2.0, 0.0]),    # x^2: 2x
                (False, True): (-1.0, [1.0, -1.0]),  # x - y
                (False, False): (4.0, [0.0, 4.0])}   # y^2: 2y
    assert (float(value(r)), _vals(g)) == expected[outer, inner]


@pytest.mark.parametrize("p1", [True, False])
@pytest.mark.parametrize("p2", [True, False])
@pytest.mark.parametrize("p0", [True, False])
def test_double_nested_cond(p0, p1, p2):
    @gc.function
    def f(p0, p1, p2, x, y):
        def false_fn():
            def false_true_fn():
                return gc.cond(p1, lambda: x * y * 2.0, lambda: x * 10.0)

            return gc.cond(p2, false_true_fn, lambda: x * 5.0)

        r = gc.cond(p0, lambda: 2.0, false_fn)
        return r, gc.gradients(r, [x, y])

    r, g = f(*[gc.constant(p) for p in (p0, p1, p2)], gc.constant(1.0), gc.constant(2.0))
    if p0:
        expected = (2.0, [0.0, 0.0])
    elif not p2:
        expected = (5.0, [5.0, 0.0])     # 5x
    elif p1:
        expected = (4.0, [4.0, 2.0])     # 2xy
    else:
        expected = (10.0, [10.0, 0.0])   # 10x
    assert (float(value(r)), _vals(g)) == expected


@pytest.mark.parametrize("nesting", [0, 1, 2], ids=["same_function", "nested_1",
                                                    "nested_2"])
@pytest.mark.parametrize("outer,inner,expected", [
    (True, True, [0.0, 0.0]), (True, False, [0.0, 0.0]),
    (False, True, [4.0, 2.0]),   # 2xy: (2y, 2x)
    (False, False, [5.0, 0.0]),  # 5x
])
def test_gradient_from_inside_function(nesting, outer, inner, expected):
    @gc.function
    def f(po, pi, x, y):
        c = gc.cond(po, lambda: 2.0,
                    lambda: gc.cond(pi, lambda: x * y * 2.0, lambda: x * 5.0))
        return _in_functions(nesting, lambda: gc.gradients(c, [x, y]))()

    g = f(gc.constant(outer), gc.constant(inner), gc.constant(1.0), gc.constant(2.0))
    assert _vals(g) == expected


@pytest.mark.parametrize("pred", [True, False])
def test_second_derivative(pred):
    @gc.function
    def f(p, x):
        r = gc.cond(p, lambda: gc.pow(x, 3), lambda: x)
        g = gc.gradients(r, [x])
        return g, gc.gradients(g, [x])

    g, gg = f(gc.constant(pred), gc.constant(3.0))
    # x^3: 3x^2 = 27, 6x = 18; x: 1, 0
    assert _vals(g) + _vals(gg) == ([27.0, 18.0] if pred else [1.0, 0.0])
