"""``for i in range(n)`` over Python ints: unrolled up to the unroll limit, staged as one
graph loop beyond it (SPEC section 12), with ``gc.function(unroll=...)`` and
``gc.config.set_loop_unroll_limit`` deciding; NumPy runs the same code as the oracle."""

import numpy as np
import pytest

import graphc as gc
from graphc.autograph import loops


def jacobi(A, B, steps):
    for _ in range(1, steps):
        B[1:-1] = (A[:-2] + A[1:-1] + A[2:]) / 3
        A[1:-1] = (B[:-2] + B[1:-1] + B[2:]) / 3


def lu(A):
    n = A.shape[0]
    for i in range(n):
        for j in range(i):
            A[i, j] -= A[i, :j] @ A[:j, j]
            A[i, j] /= A[j, j]
        for j in range(i, n):
            A[i, j] -= A[i, :i] @ A[:i, j]


def loops_in(fn, *args):
    graph = fn.get_concrete_function(*args).graph
    return sum(n.op.name == "while_loop" for n in graph.nodes)


def test_a_long_range_loop_is_staged_and_matches_numpy():
    a, b = np.linspace(0, 1, 12), np.zeros(12)
    want_a, want_b = a.copy(), b.copy()
    jacobi(want_a, want_b, 150)
    f = gc.function(jacobi)
    f(a, b, 150)
    np.testing.assert_allclose(a, want_a, rtol=1e-12)
    np.testing.assert_allclose(b, want_b, rtol=1e-12)
    assert loops_in(f, a, b, 150) == 1
    assert loops_in(f, a, b, 4) == 0  # short, a small graph unrolled: unrolled


def gru_like(h, xs, w):
    for t in range(8):  # 8 iterations: under the unroll limit
        z = 1.0 / (1.0 + np.exp(-(xs[t] @ w + h)))
        h = (1.0 - z) * np.tanh(h @ w) + z * h
    return h


def test_a_short_loop_with_a_big_body_is_staged_after_its_first_iteration():
    rng = np.random.default_rng(0)
    h, xs, w = rng.standard_normal(4), rng.standard_normal((8, 4)), rng.standard_normal((4, 4))
    import graphc.numpy as gnp

    def traced(h, xs, w):
        for t in range(8):
            z = 1.0 / (1.0 + gnp.exp(-(xs[t] @ w + h)))
            h = (1.0 - z) * gnp.tanh(h @ w) + z * h
        return h

    f = gc.function(traced)
    np.testing.assert_allclose(f(h, xs, w), gru_like(h, xs, w), rtol=1e-12)
    graph = f.get_concrete_function(h, xs, w).graph
    assert loops_in(f, h, xs, w) == 1  # 8 x ~11 ops > 64: iterations 1..7 staged
    assert sum(n.op.name == "tanh" for n in graph.nodes) == 1  # iteration 0, peeled
    before = gc.config.get_loop_unroll_ops()
    try:
        gc.config.set_loop_unroll_limit(16, ops=1000)
        assert loops_in(gc.function(traced), h, xs, w) == 0
    finally:
        gc.config.set_loop_unroll_limit(16, ops=before)
    assert loops_in(gc.function(traced, unroll=16), h, xs, w) == 0  # explicit: unrolled
    with pytest.raises(ValueError, match="for ops"):
        gc.config.set_loop_unroll_limit(16, ops=-2)


@pytest.mark.parametrize("unroll,staged", [(False, 1), (True, 0), (2, 1), (1000, 0)])
def test_the_unroll_knob_decides(unroll, staged):
    a = np.eye(5) * 4 + np.arange(25.0).reshape(5, 5) / 50
    want = a.copy()
    lu(want)
    f = gc.function(lu, unroll=unroll)
    f(a)
    np.testing.assert_allclose(a, want, rtol=1e-12)
    assert loops_in(f, a) == staged  # the inner loops are in its body


def test_the_config_limit():
    before = gc.config.get_loop_unroll_limit()
    try:
        gc.config.set_loop_unroll_limit(3)
        assert loops_in(gc.function(jacobi), np.zeros(6), np.zeros(6), 10) == 1
    finally:
        gc.config.set_loop_unroll_limit(before)
    with pytest.raises(ValueError, match="non-negative int"):
        gc.config.set_loop_unroll_limit(-1)
    with pytest.raises(ValueError, match="unroll must be"):
        gc.function(jacobi, unroll="always")


def with_python_effects(x):
    seen = []
    for i in range(200):
        seen.append(i)  # a Python side effect per iteration
        x = x + 1
    return x, len(seen)


def python_list_index(x):
    weights = [float(k) for k in range(150)]
    for i in range(150):
        x = x + weights[i]  # needs i as a Python int: the loop unrolls
    return x


def test_loops_that_cannot_be_staged_unroll():
    loops._warned_unroll.clear()
    f = gc.function(with_python_effects)
    g = gc.function(python_list_index)
    with pytest.warns(UserWarning, match="unrolling a Python loop") as caught:
        x, n = f(np.float64(0) + np.zeros(()))
        y = g(np.zeros(()))
    assert len(caught) == 2  # each unrolled loop warns once
    assert float(x) == 200 and n == 200 and float(y) == sum(range(150))
    assert loops_in(f, np.zeros(())) == 0 and loops_in(g, np.zeros(())) == 0


def test_the_staged_index_is_a_weak_python_int():
    @gc.function(unroll=False)
    def f(a):
        for i in range(3):
            a[i] = a[i] * i  # float32 * Python int stays float32, as in NumPy
        return a

    out = f(np.ones(3, np.float32))
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out.numpy(), [0, 1, 2])


def nest(a, b):  # NPBench's scattering self-energies: short loops nested deep
    for i in range(2):
        for j in range(2):
            for k in range(2):
                for m in range(6):
                    b[m] = b[m] + a[i, j, k, m] * 2.0 - a[k, j, i, m] / 3.0
    return b


def total_ops(graph):
    return sum(1 + sum(total_ops(g) for g in n.subgraphs()) for n in graph.nodes)


def test_nested_short_loops_whose_body_is_known_big_are_staged_where_they_repeat():
    """The first run of a loop measures its body; where the same loop runs again inside
    an outer one and all of it unrolled would pass the op budget, it is staged at once
    (unrolling each 2-iteration level doubled the graph: 2 x 2 x 2 bodies)."""
    a, b = np.arange(48.0).reshape(2, 2, 2, 6), np.zeros(6)
    f = gc.function(nest)
    want = nest(a, b.copy())
    np.testing.assert_allclose(f(a, b.copy()), want, rtol=1e-12)
    graph = f.get_concrete_function(a, b.copy()).graph
    assert loops_in(f, a, b.copy()) >= 1
    assert total_ops(graph) < 320  # 258; 8 unrolled copies of the m-loop: 480
