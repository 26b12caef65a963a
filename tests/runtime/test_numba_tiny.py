"""Tiny arrays kept as scalars in compiled code (graphc/runtime/cpu/tiny.py): a vector of
a few elements built by ``stack`` and worked on elementwise is one scalar per element,
read back by ``v[i]``, stored into an array only where a reader needs one (a matmul, the
program's result); a loop's state of that kind is carried in scalar variables
(``tiny.carried``). Every case gives the interpreter's bits."""

from __future__ import annotations

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.core.interpreter import run_graph
from graphc.errors import InvalidArgumentError
from graphc.runtime.cpu import codegen, numba_cpu, tiny

pytestmark = pytest.mark.usefixtures("eager_compile")


def lorenz(s):
    x, y, z = s[0], s[1], s[-1]
    return gnp.stack([10.0 * (y - x), x * (28.0 - z) - y, x * y - (8.0 / 3.0) * z])


def programs(s, m, k):
    for _ in range(20):                        # the loop carries the vector as scalars
        s = s + 0.01 * lorenz(s + 0.005 * lorenz(s))
    one = gnp.stack([s[1]])                    # shape (1,): broadcast against (3,)
    mixed = gnp.stack([k, k * 2]) * 1.5        # int32 elements, a float64 result
    two = gnp.stack([s[0], s[2]])
    picked = gc.cond(s[0] > 0.0, lambda: two * 2.0, lambda: two - 1.0)  # branch outputs
    return s, one * s + 1.0, mixed, picked, gnp.matmul(m, lorenz(s)), lorenz(s)[1]


def test_tiny_vectors_compile_to_scalars_with_the_interpreters_bits(monkeypatch):
    args = (np.array([1.0, 1.0, 1.0]), np.arange(9.0).reshape(3, 3), np.array(7, np.int32))
    f = gc.function(programs)
    graph = f.get_concrete_function(*args).optimized_graph
    ex = numba_cpu.executor_for(graph)
    assert ex.backend == "numba", ex.explain()
    src = ex.program.source
    body = src[src.index("while True:"):src.index("\n    # %6 = ")]  # the loop's step
    assert "np.empty(" not in body and "_c1" in body  # the state is scalars: no arrays
    monkeypatch.setattr(tiny, "emit", lambda gen, node: False)
    monkeypatch.setattr(tiny, "carried", lambda body, written: [])
    arrays = codegen.generate(graph).source
    arrays = arrays[arrays.index("while True:"):arrays.index("\n    # %6 = ")]
    assert arrays.count("np.empty(") + arrays.count(" = k_") == 4  # two stacks, two ops
    got = ex([np.asarray(a) for a in args])
    want = run_graph(graph, [np.asarray(a) for a in args])
    for g, w in zip(got, want, strict=True):
        assert np.asarray(g).dtype == w.dtype and np.shape(g) == w.shape
        np.testing.assert_array_equal(g, w)


def test_an_index_past_a_tiny_vector_raises_as_numpy():
    @gc.function
    def f(a, b):
        return gnp.stack([a, b])[2]

    with pytest.raises(InvalidArgumentError, match="index 2 is out of bounds"):
        f(np.float64(1.0), np.float64(2.0))


def states(s, m, k, n):
    """Loops over tiny states: 2x2 float and int32 states made elementwise (carried as
    scalars), a state a matmul makes (an array), one a reduction reads (an array built
    in the body), and a loop that may run no iteration."""
    i = gc.constant(0)
    t = s
    while i < n:
        s = s * 0.5 + gnp.flip(s, 0)         # flip: an array reader inside the body
        k = (k * 3 + 1) % 7
        t = gnp.matmul(m, t) * 0.25           # made by a matmul: not carried as scalars
        s = s + gnp.sum(s) * 0.125
        i += 1
    return s, k, t, s[1, 0] + 1.0


@pytest.mark.parametrize("n", [0, 1, 5])
def test_loop_states_carried_as_scalars_keep_the_interpreters_bits(compiled_only, n):
    args = [np.array([[1.0, -2.0], [0.5, 3.0]]), np.array([[0.0, 1.0], [1.0, 0.0]]),
            np.array([2, 5, 6], np.int32), np.asarray(n, np.int64)]
    graph = gc.function(states).get_concrete_function(*args).optimized_graph
    ex = numba_cpu.executor_for(graph)
    assert ex.backend == "numba", ex.explain()
    src = ex.program.source
    # the int and the float states enter the loop as scalars; the matmul's stays an array
    assert "np.int32(a2[2])" in src and src.count("np.float64(a0[1, 1])") == 1
    got, want = ex(args), run_graph(graph, args)
    for g, w in zip(got, want, strict=True):
        assert np.asarray(g).dtype == w.dtype and np.shape(g) == w.shape
        np.testing.assert_array_equal(g, w)
