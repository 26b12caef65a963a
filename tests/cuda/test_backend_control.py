"""Control flow on the CUDA backend (simulator): cond on a device scalar, switch_case,
tensor while loops (zero, one and many trips), nesting; compared with the interpreter."""

from __future__ import annotations

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.core.interpreter import run_graph
from graphc.runtime import cuda


def digits(n):
    """Decimal digits of ``n`` counted, and odd ones summed: a while with an if inside."""
    count = gnp.zeros((), np.int64)
    odd = gnp.zeros((), np.int64)
    while n > 0:
        d = n % 10
        if d % 2 == 1:
            odd += d
        n = n // 10
        count += 1
    return count, odd


def branchy(x, k):
    if gnp.sum(x) > 0:
        y = x * 2.0
    else:
        y = -x
    z = gc.switch_case(k, [lambda: y + 1.0, lambda: y * y, lambda: gnp.exp(y)])
    return z, gnp.max(z, axis=0)


def loop_matmul(x, w, n):
    i = gnp.zeros((), np.int32)
    while i < n:
        x = gnp.tanh(gnp.matmul(x, w))
        i += 1
    return x


X = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
W = np.linspace(-0.5, 0.5, 9, dtype=np.float32).reshape(3, 3)
EXAMPLES = [
    (digits, (np.array(9071, np.int64),), [(np.array(0, np.int64),), (np.array(5, np.int64),)]),
    (branchy, (X, np.array(0, np.int32)),
     [(-X, np.array(1, np.int32)), (X, np.array(2, np.int32)), (X, np.array(9, np.int32))]),
    (loop_matmul, (X, W, np.array(3, np.int32)), [(X, W, np.array(0, np.int32))]),
]


def _graph(fn, args):
    return gc.function(fn).get_concrete_function(*args).optimized_graph


def graphs():
    alias = (loop_alias, (X[0], np.array(0, np.int32)), [])
    return [(_graph(fn, args), args) for fn, args, _more in [*EXAMPLES, alias]]


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e[0].__name__)
def test_control_flow_matches_the_interpreter(example):
    fn, args, more = example
    graph = _graph(fn, args)
    ex = cuda.executor_for(graph, strict=True)
    assert ex.backend == "cuda"
    assert "synchronizations) in the program: " in ex.explain()
    for inputs in [args, *more]:
        want = run_graph(graph, list(inputs))
        got = ex([cuda.to_device(np.asarray(a)) for a in inputs])
        for g, w in zip(got, want):
            g = cuda.to_host(g)
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_allclose(g, w, rtol=2e-6)


def loop_alias(x, n):
    y = x * 2.0
    i = gnp.zeros((), np.int32)
    while i < n:
        y = y + 1.0
        i += 1
    z = gnp.flip(x)  # must not take y's first buffer: with 0 trips the loop returns it
    return y + z


def test_loop_results_keep_their_buffers():
    x = np.linspace(-1, 1, 6, dtype=np.float32)
    graph = _graph(loop_alias, (x, np.array(0, np.int32)))
    ex = cuda.executor_for(graph, strict=True)
    for n in (0, 2):
        args = [x, np.array(n, np.int32)]
        np.testing.assert_allclose(cuda.to_host(ex(args)[0]), run_graph(graph, args)[0],
                                   rtol=2e-6)
