"""One trace serves every variable argument of a dtype and shape; a trace made with the
same variable for two parameters must not serve a call with two different ones (it
applied both parameters' updates to the first variable). Each result is checked against
the same function run eagerly."""

import numpy as np
import pytest

import graphc as gc


def _body(a, b):
    a.assign_add(1.0)
    b.assign_add(10.0)
    return a.read_value() + b.read_value()


def _eager(order):
    """The expected (result, values) of running ``_body`` on each call of ``order``."""
    gc.config.run_functions_eagerly(True)
    try:
        return _calls(gc.function(_body), order)
    finally:
        gc.config.run_functions_eagerly(False)


def _calls(fn, order):
    v, a, b = (gc.Variable(np.float32(0.0)) for _ in range(3))
    args = {"vv": (v, v), "ab": (a, b), "ba": (b, a), "aa": (a, a)}
    out = []
    for name in order:
        r = fn(*args[name])
        out.append((float(r), float(v.numpy()), float(a.numpy()), float(b.numpy())))
    return out


@pytest.mark.parametrize("order", [("vv", "ab", "ba", "vv"), ("ab", "vv", "aa", "ba")])
def test_aliased_trace_is_not_reused_for_distinct_variables(order):
    fn = gc.function(_body)
    assert _calls(fn, order) == _eager(order)


def test_aliased_then_distinct_inside_a_tape_and_a_trace():
    fn = gc.function(_body)
    v, a, b = (gc.Variable(np.float32(0.0)) for _ in range(3))
    fn(v, v)
    with gc.GradientTape():
        fn(a, b)
    assert (float(a.numpy()), float(b.numpy())) == (1.0, 10.0)

    @gc.function
    def outer(x, y):
        return fn(x, y)

    outer(a, b)
    assert (float(a.numpy()), float(b.numpy())) == (2.0, 20.0)
