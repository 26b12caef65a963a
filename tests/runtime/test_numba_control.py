"""Native control flow in the Numba backend: ``cond``, ``switch_case`` and ``while_loop``
compile to ``if``/``elif``/``while`` inside the one program (graphc.runtime.cpu.kernels_control)
and agree with the interpreter exactly (ints) or to the documented float tolerance.

Every form goes into one of two ``gc.function``s (each compile costs 0.5-2 s here): the two
seed workloads (Collatz, Newton) and one function holding every other form, nested.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_numba_backend import check

import graphc as gc
import graphc.numpy as gnp

RNG = np.random.default_rng(1)


pytestmark = pytest.mark.usefixtures("eager_compile")


def seeds(n, a):
    """Collatz steps of ``n`` (a scalar while with a cond inside) and Newton's square
    root of the vector ``a`` (a vector while until max|x*x - a| < 1e-6)."""
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    x = a
    while gnp.max(gnp.abs(x * x - a)) >= 1e-6:
        x = 0.5 * (x + a / x)
    return steps, x


def forms(x, k, n):
    """Every other form, nested: x f32[5, 4], k int32 scalar, n int64 scalar."""
    # cond with array results; the false branch gives a transposed view (copied)
    if gnp.sum(x) > 0.0:
        y = gnp.transpose(x) * 2.0
    else:
        y = gnp.transpose(x)
    # switch_case, an out-of-range index runs the last branch
    s = gc.switch_case(k, [lambda: x + 1.0, lambda: x * 2.0, lambda: x - 3.0])
    # a while inside a while with a cond inside, int64 accumulation
    i = k * 0
    acc = n * 0
    while i < k + 3:
        j = k * 0
        while j < i:
            if (i + j) % 2 == 0:
                acc += n * i * j
            else:
                acc -= j
            j += 1
        i += 1
    # a loop variable whose shape changes (relaxed to f32[None])
    v = gnp.sum(x, axis=0)
    c = k * 0
    while c < 3:
        v = gnp.concatenate([v, v * 0.5])
        c += 1
    # swapped loop variables (Fibonacci) and maximum_iterations
    fa, fb, t = gc.while_loop(lambda a, b, t: t < 50, lambda a, b, t: (b, a + b, t + 1),
                              [n * 0, n * 0 + 1, k * 0])
    capped = gc.while_loop(lambda q: q < 1e30, lambda q: q * 3.0, [gnp.sum(x) + 100.0],
                           maximum_iterations=5)
    return y, s, acc, v, fa, fb, t, capped


def _graph(fn, *args):
    return gc.function(fn).get_concrete_function(*[gc.constant(a) for a in args]).optimized_graph


def test_seed_workloads_compile():
    a = RNG.uniform(1.0, 100.0, 1000)
    graph = _graph(seeds, np.asarray(27, np.int64), a)
    assert {n.op.name for n in graph.nodes} >= {"while_loop"}
    ex = check(graph, ["steps", "x"], [np.asarray(27, np.int64), a])
    for n in (1, 6, 837799):
        out = ex([np.asarray(n, np.int64), a])
        assert out[0].dtype == np.int64 and out[0].shape == ()
        assert int(out[0]) == {1: 0, 6: 8, 837799: 524}[n]
    np.testing.assert_allclose(out[1], np.sqrt(a), rtol=1e-8)


@pytest.mark.parametrize("k", [0, 1, 2, 7])
def test_every_form_nested(k):
    x = RNG.standard_normal((5, 4)).astype(np.float32)
    args = [x, np.asarray(k, np.int32), np.asarray(3, np.int64)]
    graph = _graph(forms, *args)
    ops = {n.op.name for n in graph.nodes}
    assert {"cond", "switch_case", "while_loop"} <= ops, ops
    check(graph, ["y", "s", "acc", "v", "fa", "fb", "t", "capped"], args)
    # the other branch of the first cond
    args[0] = -np.abs(x)
    check(graph, ["y", "s", "acc", "v", "fa", "fb", "t", "capped"], args)
