"""Gradients through control flow on the Numba backend: the backward ``cond``,
``switch_case`` and ``while_loop`` nodes (and the saving forward loop, whose buffers grow
with the trip count) compile natively, with no fallback to Python, and agree with the
reference interpreter and with the eager (unrolled) tape."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.core.interpreter import run_graph
from graphc.runtime.cpu import numba_cpu

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "autodiff"))
from test_control_flow_grads import (  # noqa: E402
    W,
    X,
    cond_in_loop,
    for_range,
    gradient_fn,
    switch,
    while_data_dependent,
)

pytestmark = pytest.mark.usefixtures("eager_compile")


def every_gradient(x, w, limit, n, k):
    """Four programs' gradients in one function (one compile)."""
    out = []
    out += gradient_fn(while_data_dependent)(x, w, limit)
    out += gradient_fn(for_range)(x, w, n)
    out += gradient_fn(cond_in_loop)(x, w)
    out += gradient_fn(switch)(x, w, k)
    return out


def compiled(fn, args):
    concrete = gc.function(fn).get_concrete_function(*args)
    graph = concrete.optimized_graph
    with warnings.catch_warnings():
        warnings.simplefilter("error", numba_cpu.FallbackWarning)
        ex = numba_cpu.executor_for(graph)
    assert ex.backend == "numba", ex.explain()
    return graph, ex


@pytest.mark.parametrize("limit,n,k", [(8.0, 4, 1), (90.0, 0, 2), (-1.0, 7, 0)])
def test_control_flow_gradients_compile_natively(limit, n, k):
    args = [gc.constant(X + 1.0), gc.constant(W * 0.3), gc.constant(np.float64(limit)),
            gc.constant(np.int64(n)), gc.constant(np.int32(k))]
    graph, ex = compiled(every_gradient, args)
    arrays = [a.numpy() for a in args]
    got = ex(list(arrays))
    want = run_graph(graph, list(arrays))
    eager = every_gradient(*args)
    assert len(got) == len(want) == len(eager) == 8
    for g, w, e in zip(got, want, eager):
        assert g.dtype == np.float64 and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(g, e.numpy(), rtol=1e-12, atol=1e-12)


def test_float32_loop_gradient_with_unknown_dims_compiles():
    """A loop variable whose shape is only known at run time (``f32[?]``): the saving
    loop's buffer takes its element shape from the first value written."""
    def grads(x, w, n):
        with gc.GradientTape() as tape:
            tape.watch([x, w])
            y = x
            for _ in gc.range(n):
                y = gnp.tanh(y * w) + y
            loss = gnp.sum(y * y)
        return tape.gradient(loss, [x, w], unconnected_gradients="zero")

    f = gc.function(grads, input_signature=[gc.TensorSpec([None], gc.float32),
                                            gc.TensorSpec([None], gc.float32),
                                            gc.TensorSpec([], gc.int64)])
    concrete = f.get_concrete_function()
    with warnings.catch_warnings():
        warnings.simplefilter("error", numba_cpu.FallbackWarning)
        ex = numba_cpu.executor_for(concrete.optimized_graph)
    assert ex.backend == "numba", ex.explain()
    x = np.linspace(-1.0, 1.0, 5).astype(np.float32)
    w = np.linspace(0.5, 1.5, 5).astype(np.float32)
    for n in (0, 1, 6):
        args = [x, w, np.int64(n)]
        got = ex(list(args))
        want = grads(*[gc.constant(a) for a in args])
        for g, e in zip(got, want):
            assert g.dtype == np.float32
            np.testing.assert_allclose(g, e.numpy(), rtol=2e-5, atol=1e-5)


def test_variable_read_inside_a_loop_and_a_branch_compiles():
    """The variable's cotangent from reads inside a loop body and a branch: extra
    outputs of the backward loop and cond, compiled natively."""
    v = gc.Variable(np.array([0.9, -0.4, 1.1]), name="v")

    def grads(x, n):
        with gc.GradientTape() as tape:
            tape.watch(x)
            y = x
            for _ in gc.range(n):
                if gnp.sum(y) > 1.0:
                    y = y * 0.5 + v
                else:
                    y = gnp.sin(y * v) + 0.3
            loss = gnp.sum(y * y)
        return tape.gradient(loss, [x, v], unconnected_gradients="zero")

    for n in (0, 5):
        args = [gc.constant(X + 0.4), gc.constant(np.int64(n))]
        graph, ex = compiled(grads, args)
        arrays = [a.numpy() for a in args]
        got = ex(list(arrays))
        eager = grads(*args)  # Python loop on an eager tape
        for g, w, e in zip(got, run_graph(graph, list(arrays)), eager):
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(g, e.numpy(), rtol=1e-12, atol=1e-12)
        assert (np.abs(got[1]).sum() > 0) == (n > 0)


def test_second_derivative_through_loops_compiles(monkeypatch):
    """The outer gradient of a loop gradient (it differentiates the saving loop's pushes
    and the backward loop's reads) compiles natively and matches the interpreter, past
    many stack doublings and with no trips."""
    from test_second_derivative_loops import for_loop, second
    from test_second_derivative_loops import while_loop as while_program

    from graphc.ops import save_stack

    monkeypatch.setattr(save_stack, "INITIAL_CAPACITY", 1)

    def both(x, w, n, limit):
        return [*second(for_loop)(x, w, n), *second(while_program)(x, w, limit)]

    args = [gc.constant(X), gc.constant(W), gc.constant(np.int64(3)),
            gc.constant(np.float64(5.0))]
    graph, ex = compiled(both, args)
    for n, limit in ((0, -1.0), (3, 5.0), (40, 12.0)):
        arrays = [args[0].numpy(), args[1].numpy(), np.int64(n), np.float64(limit)]
        want = run_graph(graph, list(arrays))
        for g, w in zip(ex(list(arrays)), want):
            np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)
