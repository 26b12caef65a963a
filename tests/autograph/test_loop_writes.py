"""Writes inside tensor-dependent loops and ifs (staged ``while_loop``/``cond``) with
NumPy's meaning:
the written arrays are carried as loop state by object, so other names, views and the
caller's arrays see the writes (SPEC section 12). Each program also runs on NumPy with
the loop bounds as Python ints, the oracle."""

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.errors import AliasError


def rows(A, n):
    B = A
    v = A[1:]
    for i in range(n):
        A[i] = A[i] * 2 + i
    return B * 1, v * 1


def named(x, n):
    y = x
    for _ in range(n):
        x += 1.0
        x[0] = x[0] * 2
    return y * 1


def triangle(A, n):
    for i in range(n):
        for j in range(i):
            A[i, j] -= A[i, :j] @ A[:j, j]  # traced slice bounds
    return A


def through_view(A, n):
    v = A[::2]
    for i in range(n):
        v[i] += 10.0
    return A


@pytest.mark.parametrize("program,shape", [(rows, (5,)), (named, (3,)),
                                           (triangle, (4, 4)), (through_view, (6,))])
def test_writes_in_tensor_loops_match_numpy(program, shape):
    data = np.arange(np.prod(shape), dtype=np.float64).reshape(shape) / 3 + 1
    want_arg = data.copy()
    want = program(want_arg, 3)
    got_arg = data.copy()
    got = gc.function(program)(got_arg, np.array(3))  # a tensor bound: a staged loop
    for g, w in zip(got if isinstance(got, tuple) else (got,),
                    want if isinstance(want, tuple) else (want,)):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-12)
    np.testing.assert_allclose(got_arg, want_arg, rtol=1e-12)


def test_the_loop_is_staged_not_unrolled():
    graph = gc.function(rows).get_concrete_function(np.zeros(5), np.array(3)).graph
    assert any(n.op.name == "while_loop" for n in graph.nodes)


def branches(a, flag):
    v = a[::2]
    if flag > 0:
        a += 1.0
        if flag > 1:
            v[0] = 50.0
    else:
        v *= -1.0
    return a


@pytest.mark.parametrize("flag", [2.0, 1.0, -1.0])
def test_writes_in_tensor_ifs_match_numpy(flag):
    want_arg, got_arg = np.arange(5.0), np.arange(5.0)
    want = branches(want_arg, flag)
    got = gc.function(branches)(got_arg, np.array(flag))
    np.testing.assert_array_equal(got.numpy(), want)
    np.testing.assert_array_equal(got_arg, want_arg)


def test_a_reshape_used_inside_a_loop_that_writes_its_base_raises():
    @gc.function
    def f(a, n):
        r = a.reshape(-1)
        for i in range(n):
            a[0, 0] = gnp.sum(r)
        return a

    with pytest.raises(AliasError, match="reshape"):
        f(np.ones((2, 2)), np.array(2))


def test_scalars_in_loops_rebind_as_numpy_scalars():
    @gc.function
    def f(x, n):
        s = gnp.sum(x)  # a 0-d tensor: NumPy's sum returns a scalar
        t = s
        for _ in range(n):
            s += 1.0
        return s, t

    s, t = f(np.ones(3), np.array(2))
    assert float(s) == 5.0 and float(t) == 3.0


def durbin_like(r, n):
    y = r * 0.0
    alpha = -r[0]
    beta = 1.0
    y[0] = -r[0]
    for k in range(1, n):
        beta *= 1.0 - alpha * alpha
        alpha = -(r[k] + gnp.dot(gnp.flip(r[:k]), y[:k])) / beta
        y[:k] += alpha * gnp.flip(y[:k])  # through a view made inside the body
        y[k] = alpha
    return y


def test_writes_through_views_made_inside_the_body_reach_the_outer_array():
    r = np.random.default_rng(0).random(8)
    want = durbin_like(gnp.asarray(r), 8).numpy()  # eager: NumPy's own views
    got = gc.function(durbin_like)(r, np.array(8))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)


def test_a_view_made_in_a_branch_writes_the_outer_array():
    def f(a, flag):
        if flag > 0:
            v = a[1:]
            v *= 10.0
        return a

    a = np.arange(3.0)
    np.testing.assert_array_equal(gc.function(f)(a, np.array(1.0)).numpy(), [0, 10, 20])
    np.testing.assert_array_equal(a, [0, 10, 20])
