"""Chained comparisons on tensors, and closures made in converted branches and loops
(Python's late binding kept)."""

from __future__ import annotations

import numpy as np
import pytest
from ag_testing import assert_transformed

import graphc as gc
import graphc.numpy as gnp


def in_range(x):
    if 0 < x < 10:
        return 1
    return 0


def three_way(x, y):
    return 0 <= x <= y < 100


def middle_evaluated_once(x):
    calls = []

    def middle():
        calls.append(1)
        return x

    result = 0 < middle() < 10
    return len(calls), result


@pytest.mark.parametrize("x", [-1, 0, 5, 10, 11])
def test_chained_comparison_in_an_if(x):
    assert_transformed(in_range, [(x,)], graph_ops={"cond", "logical_and"})


@pytest.mark.parametrize("x,y", [(1, 5), (5, 1), (-1, 5), (5, 200)])
def test_three_way_chain(x, y):
    assert_transformed(three_way, [(x, y)])


def test_chain_is_elementwise_on_arrays():
    f = gc.function(lambda x: 0 < x < 10)
    x = np.array([-5, 0, 3, 9, 10, 12])
    got = f(gnp.asarray(x)).numpy()
    np.testing.assert_array_equal(got, (0 < x) & (x < 10))


def test_chain_evaluates_its_middle_operand_once():
    for x in (5, gnp.asarray(5)):
        n, result = gc.function(middle_evaluated_once)(x)
        assert n == 1 and bool(result)


def test_python_chain_short_circuits():
    def f(x):
        seen = []
        r = x > 0 < (seen.append(1) or 1)  # the second operand only if x > 0
        return r, len(seen)

    assert gc.function(f)(-1) == f(-1) == (False, 0)
    assert gc.function(f)(1) == f(1)


def lambdas_in_python_loop():
    fns = []
    for i in range(3):
        fns.append(lambda: i)
    return [f() for f in fns]


def lambdas_in_while_loop():
    fns = []
    k = 0
    while k < 3:
        j = k * 10
        fns.append(lambda: j)
        k += 1
    return [f() for f in fns]


def closure_in_branch(c):
    if c > 0:
        j = 1
        f = lambda: j  # noqa: E731
    else:
        j = 2
        f = lambda: j + 100  # noqa: E731
    j = 5
    return f()


def def_in_loop():
    fns = []
    for i in range(3):
        def get():
            return i
        fns.append(get)
    return [g() for g in fns]


@pytest.mark.parametrize("fn", [lambdas_in_python_loop, lambdas_in_while_loop, def_in_loop])
def test_loop_closures_bind_late(fn):
    assert gc.function(fn)() == fn() == [fn()[-1]] * 3


@pytest.mark.parametrize("c", [1, -1])
def test_branch_closure_sees_later_assignment(c):
    assert gc.function(closure_in_branch)(c) == closure_in_branch(c)


def test_closure_over_tensor_loop_variable_after_graph_loop():
    """A closure made in a graph loop body reads the variable's entry value after the
    loop (the body's traced value never escapes the loop graph)."""
    def f(n):
        x = gnp.asarray(0)
        last = 0
        for i in gc.range(n):
            x = x + i
            last = i
            g = lambda: last  # noqa: E731, F841
        return x

    assert int(gc.function(f)(gnp.asarray(4))) == 6
