"""Second derivatives through a tensor loop inside a ``gc.function``: the outer gradient
differentiates the first gradient's saving loop (``save_stack_push`` has a rule; the
outer saving loop does not stack the growing stacks, ``control/grad.py`` ``_saving_loop``) and
its backward loop (TensorArray reads). Checked against central finite differences of
the traced first derivative, for a counted ``for`` and a data-dependent ``while``, with
zero, one and many trips, in place and past many stack doublings."""

from __future__ import annotations

import numpy as np
import pytest
from test_control_flow_grads import central_difference

import graphc as gc
import graphc.numpy as gnp
from graphc.ops import save_stack

X = np.array([0.3, 0.7, -0.2])
W = np.array([0.9, -0.4, 1.1])


def for_loop(x, w, n):
    y = x
    for _ in gc.range(n):
        y = gnp.sin(y) * w
    return gnp.sum(y * y)


def while_loop(x, w, limit):
    y = x
    while gnp.sum(y) < limit:  # the trip count depends on x and w
        y = y * 1.2 + gnp.tanh(y * w) + 0.05
    return gnp.sum(y * w)


def first(program):
    def grads(x, w, n):
        with gc.GradientTape() as tape:
            tape.watch([x, w])
            loss = program(x, w, n)
        return tape.gradient(loss, [x, w], unconnected_gradients="zero")
    return grads


def scalar(gx, gw):  # a scalar of the first derivative: every entry of both matters
    return gnp.sum(gx * gx * np.array([1.0, 2.0, 3.0])) + gnp.sum(gw * gx)


def second(program):
    def grads(x, w, n):
        with gc.GradientTape() as tape:
            tape.watch([x, w])
            s = scalar(*first(program)(x, w, n))
        return tape.gradient(s, [x, w], unconnected_gradients="zero")
    return grads


def check(program, x, n, rtol=1e-5):
    def args(xv, wv):
        return gc.constant(xv), gc.constant(wv), gc.constant(n)

    f1 = gc.function(first(program), backend="numpy")

    def s(xv, wv):
        return float(scalar(*f1(*args(xv, wv))))

    got = gc.function(second(program), backend="numpy")(*args(x, W))
    for at, g in enumerate(got):
        want = central_difference(s, [x, W], at)
        np.testing.assert_allclose(g.numpy(), want, rtol=rtol, atol=1e-6,
                                   err_msg=f"d/d{'xw'[at]}")


@pytest.mark.parametrize("n", [0, 1, 5])
def test_for_loop(n):
    check(for_loop, X, np.int64(n))


def test_for_loop_past_many_doublings(monkeypatch):
    monkeypatch.setattr(save_stack, "INITIAL_CAPACITY", 1)
    check(for_loop, X, np.int64(37))


@pytest.mark.parametrize("limit", [-1.0, 2.0, 9.0])  # no trips, one, several
def test_data_dependent_while(limit):
    check(while_loop, X + 0.1, np.float64(limit))


def test_matches_eager_second_derivative():
    """Eagerly the loop is Python (unrolled on the tape): the same numbers."""
    args = (gc.constant(X), gc.constant(W), gc.constant(np.int64(4)))
    eager = second(for_loop)(*args)
    traced = gc.function(second(for_loop), backend="numpy")(*args)
    for e, t in zip(eager, traced):
        np.testing.assert_allclose(t.numpy(), e.numpy(), rtol=1e-12)
