"""A staged loop's state made in the buffer of the state two iterations back
(``runtime/cpu/loop_reuse.py``): the compiled loop agrees exactly with the interpreter
for 0 to 5 iterations, where a state is carried on in another slot too (a swap, one
buffer in two slots), where the state changes shape, for a ``concatenate`` state and a two-output
loop; the plan reuses what it may and no more."""

from __future__ import annotations

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.core.interpreter import run_graph
from graphc.runtime.cpu import loop_reuse, numba_cpu

pytestmark = pytest.mark.usefixtures("eager_compile")


def newton(a, n):
    x, lo = a, gnp.zeros_like(a)
    for _ in range(n):
        x = 0.5 * (x + a / x)                    # a fresh state: reused
        lo = gnp.where(x * x > a, lo, x) + 0.0   # two states of one fused loop
    return x, lo


def swap(a, n):
    x, y = a, a * 2.0
    for _ in range(n):
        # x's old buffer lives on in y, read reversed: writing x there would be wrong
        x, y = x * 0.5 + gnp.flip(y, 0), x
    return x, y


def kept(a, n):
    x, y = a, a
    for _ in range(n):
        x = x * 1.5 - 0.25
        y = x                                    # one new buffer in two slots: not reused
    return x + y


def stencil(u, n):
    for _ in range(n):
        u = gnp.concatenate([u[:1], 0.5 * (u[2:] + u[:-2]), u[-1:]])
    return u


def growing(u, n):
    for _ in range(n):
        u = gnp.concatenate([u, u[:1] * 2.0])    # of unknown length: np.concatenate
    return u


CASES = {"newton": (newton, [0, 1]), "swap": (swap, []), "kept": (kept, []),
         "stencil": (stencil, [0]), "growing": (growing, [0])}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("n", [0, 1, 2, 5])
def test_reused_states_agree_with_the_interpreter(compiled_only, name, n):
    fn, reused = CASES[name]
    a = np.linspace(1.0, 3.0, 12)
    sig = [gc.TensorSpec([None] if name == "growing" else [12], gc.float64),
           gc.TensorSpec([], gc.int64)]
    graph = gc.function(fn, input_signature=sig).get_concrete_function().optimized_graph
    ex = numba_cpu.executor_for(graph)
    assert ex.backend == "numba", ex.explain()
    (loop,) = [node for node in graph.nodes if node.op.name == "while_loop"]
    slots = [k - 1 for k in loop_reuse.slots(loop.attrs["body"], ())]  # 0: the counter
    assert slots == reused
    assert ("_spare" in ex.program.source) == (bool(reused) and name != "growing")
    args = [a, np.asarray(n, np.int64)]
    for _ in range(2):  # a second call starts from empty spares again
        got, want = ex(args), run_graph(graph, args)
        for g, w in zip(got, want, strict=True):
            assert g.shape == w.shape
            np.testing.assert_array_equal(g, w)
