"""Gradients through control flow (``cond``, ``switch_case``, ``while_loop``): AutoGraph
``if``/``while``/``for`` on tensors and the functional forms, checked against central
finite differences (float64) and against the same program unrolled in Python on an eager
tape, eagerly, through converted code run eagerly, and inside ``gc.function``."""

from __future__ import annotations

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp

RNG = np.random.default_rng(13)


# --------------------------------------------------------------------------- programs
def if_tensor(x, w):
    if gnp.sum(x) > 0:
        y = gnp.sin(x) * w
    else:
        y = x * x * w
    return gnp.sum(y)


def nested_ifs(x, w):
    if gnp.sum(x) > 0:
        if gnp.sum(w) > 0:
            y = gnp.exp(x * w)
        else:
            y = x / (1.0 + w * w)
    else:
        y = gnp.tanh(x) * w
    return gnp.sum(y * y)


def cond_captures(x, w):
    s = gnp.sum(x * w)  # captured by both branches, as are x and w
    y = gc.cond(s > 0, lambda: (x * s, w), lambda: (x - w, s * w))
    return gnp.sum(y[0] * y[1])


def switch(x, w, k):
    y = gc.switch_case(k, [lambda: x * w, lambda: gnp.exp(x) + w, lambda: x - w * w])
    return gnp.sum(y * x)


def while_data_dependent(x, w, limit):
    while gnp.sum(x) < limit:  # the trip count depends on x
        x = x * 1.5 + w * w
    return gnp.sum(x * x)


def for_range(x, w, n):
    acc = gnp.zeros_like(x)
    for i in gc.range(n):
        acc = acc + x * w
        x = gnp.sin(x) + 0.1 * gc.cast(i, gc.float64)
    return gnp.sum(acc)


def loop_in_cond(x, w):
    if gnp.sum(x) > 0:
        for _ in gc.range(3):
            x = gnp.sin(x) * w
    else:
        x = x * w
    return gnp.sum(x)


def cond_in_loop(x, w):
    i = 0
    while i < 4:
        if gnp.sum(x) > 1.0:
            x = x * 0.5 + w
        else:
            x = x * x + w
        i += 1
    return gnp.sum(x)


def functional_while(x, w):
    _, y = gc.while_loop(lambda i, y: gnp.sum(y * y) < 20.0,
                         lambda i, y: (i + 1, y * w + 0.5), [0, x])
    return gnp.sum(y)


X = np.array([0.3, 0.7, -0.2])
W = np.array([0.9, -0.4, 1.1])
CASES = {
    "if_tensor+": (if_tensor, (X, W)),
    "if_tensor-": (if_tensor, (-X - 0.5, W)),
    "nested_ifs++": (nested_ifs, (X, W)),
    "nested_ifs+-": (nested_ifs, (X, -W)),
    "nested_ifs-": (nested_ifs, (-X - 0.5, W)),
    "cond_captures+": (cond_captures, (X, W)),
    "cond_captures-": (cond_captures, (X, -W - 1.0)),
    "switch0": (switch, (X, W, np.int32(0))),
    "switch1": (switch, (X, W, np.int32(1))),
    "switch_out_of_range": (switch, (X, W, np.int32(7))),
    "while_few": (while_data_dependent, (X + 1.0, W, np.float64(8.0))),
    "while_many": (while_data_dependent, (X + 1.0, W * 0.1, np.float64(90.0))),
    "while_none": (while_data_dependent, (X + 1.0, W, np.float64(-1.0))),
    "for_range": (for_range, (X, W, np.int64(4))),
    "for_range_zero": (for_range, (X, W, np.int64(0))),
    "loop_in_cond+": (loop_in_cond, (X, W)),
    "loop_in_cond-": (loop_in_cond, (-X - 0.5, W)),
    "cond_in_loop": (cond_in_loop, (X, W)),
    "functional_while": (functional_while, (X, np.array([1.3, 1.2, 1.4]))),
}


def gradient_fn(program):
    """``(x, w, *rest) -> [d program / dx, d program / dw]`` with a tape (zeros for
    an unconnected source: a loop that runs zero times uses ``w`` in no op)."""
    def grads(x, w, *rest):
        with gc.GradientTape() as tape:
            tape.watch([x, w])
            loss = program(x, w, *rest)
        return tape.gradient(loss, [x, w], unconnected_gradients="zero")
    return grads


def central_difference(f, args, at, eps=1e-6):
    args = [np.array(a) for a in args]
    out = np.zeros_like(args[at])
    for i in np.ndindex(out.shape):
        up = [a.copy() for a in args]
        down = [a.copy() for a in args]
        up[at][i] += eps
        down[at][i] -= eps
        out[i] = (f(*up) - f(*down)) / (2 * eps)
    return out


def numeric(program, args):
    """The program's value on NumPy-backed eager tensors (Python control flow)."""
    def f(*a):
        return float(program(*[gc.constant(v) for v in a]))
    return [central_difference(f, args, at) for at in (0, 1)]


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients_match_finite_differences_and_unrolled_tape(name):
    program, args = CASES[name]
    tensors = [gc.constant(a) for a in args]
    unrolled = [g.numpy() for g in gradient_fn(program)(*tensors)]  # Python loops, eager
    want = numeric(program, args)
    for u, w in zip(unrolled, want):
        np.testing.assert_allclose(u, w, rtol=1e-5, atol=1e-6)
    converted = gradient_fn(gc.autograph.to_graph(program))(*tensors)  # converted, eager
    traced = gc.function(gradient_fn(program), backend="numpy")(*tensors)
    for g in (converted, traced):
        for got, u in zip(g, unrolled):
            assert got.dtype == np.float64
            np.testing.assert_allclose(got.numpy(), u, rtol=1e-12, atol=1e-12)


def test_traced_gradient_stages_control_flow_for_the_backward_pass():
    program, args = CASES["while_few"]
    graph = gc.function(gradient_fn(program), backend="numpy").get_concrete_function(
        *[gc.constant(a) for a in args]).graph
    loops = [n for n in graph.nodes if n.op.name == "while_loop"]
    assert len(loops) == 3  # the forward loop, the saving loop, the backward loop
    program, args = CASES["if_tensor+"]
    graph = gc.function(gradient_fn(program), backend="numpy").get_concrete_function(
        *[gc.constant(a) for a in args]).graph
    assert sum(n.op.name == "cond" for n in graph.nodes) == 2


def test_one_trace_serves_every_trip_count():
    f = gc.function(gradient_fn(while_data_dependent), backend="numpy")
    for limit in (-1.0, 5.0, 30.0, 400.0):
        args = (X + 1.0, W * 0.3, np.float64(limit))
        got = f(*[gc.constant(a) for a in args])
        want = gradient_fn(while_data_dependent)(*[gc.constant(a) for a in args])
        for g, u in zip(got, want):
            np.testing.assert_allclose(g.numpy(), u.numpy(), rtol=1e-12)
    assert f.experimental_get_tracing_count() == 1


def test_float32_and_integer_loop_variables():
    def program(x, n):
        k = n * 0
        while k < n:
            x = x * gc.cast(k + 1, gc.float32)
            k += 1
        return gnp.sum(x)

    x, n = gc.constant(np.float32([0.5, 2.0])), gc.constant(np.int64(3))

    def grads(x, n):
        with gc.GradientTape() as tape:
            tape.watch([x, n])
            y = program(x, n)
        return tape.gradient(y, [x, n])

    gx, gn = gc.function(grads, backend="numpy")(x, n)
    assert gn is None and gx.dtype == np.float32
    np.testing.assert_allclose(gx.numpy(), [6.0, 6.0])


def test_second_derivative_through_cond():
    def second(x):
        with gc.GradientTape() as outer:
            outer.watch(x)
            with gc.GradientTape() as inner:
                inner.watch(x)
                y = gc.cond(gnp.sum(x) > 0, lambda: gnp.sum(x ** 3), lambda: gnp.sum(x))
            g = inner.gradient(y, x)
            s = gnp.sum(g * g)
        return outer.gradient(s, x)

    x = gc.constant(X)
    want = 36.0 * X ** 3  # s = sum(9 x^4)
    np.testing.assert_allclose(second(x).numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(gc.function(second, backend="numpy")(x).numpy(), want,
                               rtol=1e-12)


# --------------------------------------------------------------------------- errors
@pytest.fixture
def sin_without_rule(monkeypatch):
    """``sin`` as an op that lacks a gradient rule, for this test only."""
    from graphc.ops.elementwise import SIN

    monkeypatch.setattr(SIN, "grad", None)


@pytest.mark.usefixtures("sin_without_rule")
def test_op_without_rule_inside_a_branch_names_the_op_and_line():

    def program(x):
        with gc.GradientTape() as tape:
            tape.watch(x)
            if gnp.sum(x) > 0:
                y = gnp.sin(x)  # the line the error names
            else:
                y = x
            loss = gnp.sum(y)
        return tape.gradient(loss, x)

    with pytest.raises(LookupError, match=r"'sin'.*test_control_flow_grads.py:\d+"):
        gc.function(program, backend="numpy")(gc.constant(X))


@pytest.mark.usefixtures("sin_without_rule")
def test_op_without_rule_inside_a_loop_body_names_the_op():

    def program(x, n):
        with gc.GradientTape() as tape:
            tape.watch(x)
            for _ in gc.range(n):
                x = gnp.sin(x) + 1.0
            loss = gnp.sum(x)
        return tape.gradient(loss, x)

    with pytest.raises(LookupError, match="'sin' has no gradient rule"):
        gc.function(program, backend="numpy")(gc.constant(X), gc.constant(np.int64(2)))
