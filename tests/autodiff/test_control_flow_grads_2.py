"""Gradients through control flow, part 2: ``gc.Variable``s read *inside* a tensor
``if``/loop (the reads live in the branch's or body's subgraph, so the control-flow rule
returns their cotangents and the tape adds them to the variable's), and the TensorArray
ops' gradient rules used inside a traced loop; each checked against central finite
differences (float64), eagerly (Python control flow, unrolled), through converted code
run eagerly, and inside ``gc.function``."""

from __future__ import annotations

import numpy as np
import pytest
from test_control_flow_grads import central_difference

import graphc as gc
import graphc.numpy as gnp

X = np.array([0.3, 0.7, -0.2])
V0 = np.array([0.9, -0.4, 1.1])


# --------------------------------------------------------------------------- programs
# Each reads the variable ``v`` (a module global, as a model's weights would be) only
# inside a branch or loop body; ``x`` and ``n``/``limit`` are arguments.
def in_branch(v, x, n):
    if gnp.sum(x) > 0:
        y = gnp.sin(x) * v
    else:
        y = x * 2.0
    return gnp.sum(y * v)  # a read outside too: both add


def in_for_body(v, x, n):
    for i in gc.range(n):
        x = gnp.sin(x * v) + 0.1 * gc.cast(i, gc.float64)
    return gnp.sum(x * x)


def in_while_body(v, x, limit):
    while gnp.sum(x) < limit:  # data-dependent trip count
        x = x * 1.3 + v * v
    return gnp.sum(x)


def cond_in_loop(v, x, n):
    for _ in gc.range(n):
        if gnp.sum(x) > 1.0:
            x = x * 0.5 + v
        else:
            x = x * v + 0.3
    return gnp.sum(x * x)


def only_the_variable(v, x, n):  # the loop depends on the tape only through v
    y = gnp.ones(3) * 0.5
    for _ in gc.range(n):
        y = gnp.tanh(y * v)
    return gnp.sum(y)


def switch_reads(v, x, n):
    y = gc.switch_case(gc.cast(n, gc.int32), [lambda: x * v, lambda: gnp.exp(v) + x,
                                               lambda: x - v * v])
    return gnp.sum(y * y)


CASES = {
    "in_branch+": (in_branch, X, 2),
    "in_branch-": (in_branch, -X - 0.5, 2),
    "in_for_body": (in_for_body, X, 3),
    "in_for_body_zero_trips": (in_for_body, X, 0),
    "in_while_body": (in_while_body, X + 1.0, 9.0),
    "in_while_body_no_trips": (in_while_body, X + 1.0, -1.0),
    "cond_in_loop": (cond_in_loop, X + 0.4, 4),
    "only_the_variable": (only_the_variable, X, 3),
    "switch0": (switch_reads, X, 0),
    "switch1": (switch_reads, X, 1),
    "switch2": (switch_reads, X, 2),
}


def gradient_fn(program, v):
    """``(x, n) -> [d/dx, d/dv]`` of ``program`` on a tape."""
    def grads(x, n):
        with gc.GradientTape() as tape:
            tape.watch(x)
            loss = program(v, x, n)
        return tape.gradient(loss, [x, v], unconnected_gradients="zero")
    return grads


def numeric(program, x, n):
    def f(xv, vv):
        return float(program(gc.constant(vv), gc.constant(xv), gc.constant(n)))
    return [central_difference(f, [x, V0], at) for at in (0, 1)]


@pytest.mark.parametrize("name", sorted(CASES))
def test_variable_read_inside_control_flow(name):
    program, x, n = CASES[name]
    v = gc.Variable(V0, name="v")
    n = np.int64(n) if isinstance(n, int) else np.float64(n)
    want = numeric(program, x, n)
    args = (gc.constant(x), gc.constant(n))
    eager = gradient_fn(program, v)(*args)
    converted = gradient_fn(gc.autograph.to_graph(program), v)(*args)
    traced = gc.function(gradient_fn(program, v), backend="numpy")(*args)
    for how, got in (("eager", eager), ("converted", converted), ("traced", traced)):
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.numpy(), w, rtol=1e-6, atol=1e-7, err_msg=how)


def test_branch_not_taken_adds_nothing_and_one_trace_serves_both():
    v = gc.Variable(V0, name="v")
    f = gc.function(gradient_fn(in_branch, v), backend="numpy")
    for x in (X, -X - 0.5):
        got = f(gc.constant(x), gc.constant(np.int64(0)))
        want = numeric(in_branch, x, np.int64(0))
        np.testing.assert_allclose(got[1].numpy(), want[1], rtol=1e-6, atol=1e-7)
    assert f.experimental_get_tracing_count() == 1


def test_persistent_tape_and_two_variables_read_in_one_body():
    a = gc.Variable(np.array([0.5, 1.5]), name="a")
    b = gc.Variable(np.array([0.2, -0.3]), name="b")

    def grads(x, n):
        with gc.GradientTape(persistent=True) as tape:
            for _ in gc.range(n):
                x = x * a + b * b
            loss = gnp.sum(x)
        return tape.gradient(loss, a), tape.gradient(loss, [a, b])

    x, n = np.array([1.0, 2.0]), 3
    # x_n = x a^n + b^2 (a^(n-1) + ... + 1): closed forms of both gradients
    ga = x * n * a.numpy() ** (n - 1) + b.numpy() ** 2 * sum(
        k * a.numpy() ** (k - 1) for k in range(1, n))
    gb = 2 * b.numpy() * sum(a.numpy() ** k for k in range(n))
    for fn in (grads, gc.function(grads, backend="numpy")):
        first, (again, got_b) = fn(gc.constant(x), gc.constant(np.int64(n)))
        for got, want in ((first, ga), (again, ga), (got_b, gb)):
            np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)


# --------------------------------------------------------------------------- TensorArray
def ta_loop(x, w, n):
    """A traced loop writing a TensorArray (its buffer is a loop variable): the loop's
    gradient differentiates tensor_array_write and tensor_array_stack."""
    ta = gc.TensorArray(gc.float64, size=n)
    for i in gc.range(n):
        x = gnp.sin(x) * w
        ta = ta.write(i, x * gc.cast(i + 1, gc.float64))
    out = ta.stack()
    return gnp.sum(out * out) + gnp.sum(ta.read(n - 1))


@pytest.mark.parametrize("n", [1, 4])
def test_gradient_through_a_tensor_array_written_in_a_loop(n):
    def grads(x, w, n):
        with gc.GradientTape() as tape:
            tape.watch([x, w])
            loss = ta_loop(x, w, n)
        return tape.gradient(loss, [x, w])

    args = (X, V0, np.int64(n))
    want = [central_difference(lambda *a: float(ta_loop(*[gc.constant(b) for b in a])),
                               args, at) for at in (0, 1)]
    for fn in (grads, gc.function(grads, backend="numpy")):
        for g, w in zip(fn(*[gc.constant(a) for a in args]), want):
            np.testing.assert_allclose(g.numpy(), w, rtol=1e-6, atol=1e-7)


# --------------------------------------------------------------------------- gc.gradients
@pytest.mark.parametrize("name", sorted(CASES))
def test_gc_gradients_sees_variable_reads_inside_control_flow(name):
    """``gc.gradients(loss, [x, v])`` has no tape: it finds the reads of ``v`` in the
    branches and bodies of the traced graph itself."""
    program, x, n = CASES[name]
    v = gc.Variable(V0, name="v")
    n = np.int64(n) if isinstance(n, int) else np.float64(n)

    @gc.function(backend="numpy")
    def grads(x, n):
        return gc.gradients(program(v, x, n), [x, v], unconnected_gradients="zero")

    for g, w in zip(grads(gc.constant(x), gc.constant(n)), numeric(program, x, n)):
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-6, atol=1e-7)
