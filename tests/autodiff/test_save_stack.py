"""The saving loop of a ``while_loop`` gradient pushes onto a stack it owns
(``graphc/ops/save_stack.py``): in place while there is room, doubling otherwise. Its
buffer must grow correctly past many doublings, the number of growths must be
logarithmic in the trip count (counted by the interpreter's debug counter), and the
compiled program must write in place (checked on its source) and stay native."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.core.interpreter import run_graph
from graphc.ops import save_stack
from graphc.runtime.cpu import numba_cpu


def program(y, w, n):
    acc = gnp.zeros_like(y)
    for _ in gc.range(n):
        acc = acc + y * w
        y = gnp.sin(y) * w + 0.1
    return gnp.sum(y * y) + gnp.sum(acc)


def gradient(y, w, n):
    with gc.GradientTape() as tape:
        tape.watch([y, w])
        loss = program(y, w, n)
    return tape.gradient(loss, [y, w])


Y = np.array([0.3, -0.5, 0.8])
W = np.array([0.9, -0.6, 0.7])


@pytest.fixture
def capacity_one(monkeypatch):
    monkeypatch.setattr(save_stack, "INITIAL_CAPACITY", 1)


def graph_of(fn, n=3):
    args = [gc.constant(Y), gc.constant(W), gc.constant(np.int64(n))]
    return gc.function(fn).get_concrete_function(*args).optimized_graph


def pushes(graph, name="save_stack_push"):
    loops = [nd for nd in graph.nodes if nd.op.name == "while_loop"]
    return [nd for loop in loops for nd in loop.attrs["body"].nodes if nd.op.name == name]


def finite_differences(n, eps=1e-6):
    def f(y, w):
        return run_graph(graph_of(program), [y, w, np.int64(n)])[0]
    out = []
    for k, x in enumerate((Y, W)):
        g = np.zeros_like(x)
        for i in range(x.size):
            d = np.zeros_like(x)
            d[i] = eps
            args_p = [Y, W]
            args_m = [Y, W]
            args_p[k], args_m[k] = x + d, x - d
            g[i] = (f(*args_p) - f(*args_m)) / (2 * eps)
        out.append(g)
    return out


@pytest.mark.parametrize("n", [0, 1, 2, 3, 100])
def test_stack_grows_past_many_doublings_and_matches_finite_differences(capacity_one, n):
    graph = graph_of(gradient)
    got = run_graph(graph, [Y, W, np.int64(n)])
    for g, want in zip(got, finite_differences(n)):
        np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-7)


def test_growths_are_logarithmic_in_the_trip_count(capacity_one):
    graph = graph_of(gradient)
    stacks = len(pushes(graph))  # the optimizer drops the stacks no backward step reads
    assert stacks >= 1
    for n in (1, 100, 1000):
        before = save_stack.GROWTHS[0]
        run_graph(graph, [Y, W, np.int64(n)])
        grown = save_stack.GROWTHS[0] - before
        # 0 -> 1 -> 2 -> 4 -> ... -> the first power of two >= n
        assert grown == stacks * (math.ceil(math.log2(n)) + 1), (n, grown)


def test_push_writes_in_place_and_copies_only_when_growing():
    buf = save_stack.PUSH.ref(np.zeros((0, 2)), np.int64(0), np.ones(2), initial=2)
    assert buf.shape == (2, 2)
    same = save_stack.PUSH.ref(buf, np.int64(1), np.full(2, 2.0), initial=2)
    assert same is buf  # in place: the loop owns it
    grown = save_stack.PUSH.ref(buf, np.int64(2), np.full(2, 3.0), initial=2)
    assert grown is not buf and grown.shape == (4, 2)
    np.testing.assert_array_equal(grown[:3], [[1, 1], [2, 2], [3, 3]])
    with pytest.raises(ValueError, match="changes across iterations"):
        save_stack.PUSH.ref(grown, np.int64(3), np.ones(3), initial=2)


def test_compiled_saving_loop_is_native_and_writes_in_place(capacity_one, monkeypatch):
    monkeypatch.setattr(numba_cpu.settings, "mode", "eager")
    graph = graph_of(gradient)
    with warnings.catch_warnings():
        warnings.simplefilter("error", numba_cpu.FallbackWarning)
        ex = numba_cpu.executor_for(graph)
    assert ex.backend == "numba", ex.explain()
    for n in (0, 5, 100):
        want = run_graph(graph, [Y, W, np.int64(n)])
        for g, w in zip(ex([Y, W, np.int64(n)]), want):
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
    # the saving loop pushes; no functional (copying) write is left in it
    assert pushes(graph)
    assert not pushes(graph, "tensor_array_write")
