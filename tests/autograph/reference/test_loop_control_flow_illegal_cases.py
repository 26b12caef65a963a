"""Reference: a tensor `break` / `return` inside a loop over a Python list or a loop
whose condition starts as a Python value (TensorFlow's
loop_control_flow_illegal_cases_test: NotImplementedError there).

graphc documents both as supported (docs/autograph.md): a tensor `break` in an unrolled
Python loop guards the later iterations with a `cond`, and a Python `while` turns into a
`while_loop` from the iteration where its test becomes a tensor. So each case is checked
against Python instead of expecting an error."""

import pytest
from ref_testing import check, params, product

import graphc as gc


def tensor_break_in_python_for(items):
    s = 0
    for c in items:
        if gc.greater(c % 2, 0):
            break
        s += c
    return s


def tensor_return_in_python_for(items):
    s = 0
    for c in items:
        if gc.greater(c % 2, 0):
            return s
        else:
            return s
        s += c
    return s


def tensor_break_in_python_while(x):
    s = 0
    while x > 0:
        x -= 1
        if gc.greater(x % 2, 0):
            break
        s += x
    return s


def tensor_return_in_python_while(x):
    s = 0
    while x > 0:
        x -= 1
        if gc.greater(x % 2, 0):
            return s
        else:
            return s
        s += x
    return s


def _plain_break_in_for(items):
    s = 0
    for c in items:
        if c % 2 > 0:
            break
        s += c
    return s


def _plain_break_in_while(x):
    s = 0
    while x > 0:
        x -= 1
        if x % 2 > 0:
            break
        s += x
    return s


def _plain_return(arg):
    return 0


@pytest.mark.parametrize("fn, ref, items, kind", params(
    [(f, r, i, k) for (f, r), i, k in product(
        ((tensor_break_in_python_for, _plain_break_in_for),),
        ([1], [2, 1], [2, 4, 3], [1, 2, 3]), ("py", "tlist"))]
    + [(f, r, i, k) for (f, r), i, k in product(
        ((tensor_return_in_python_for, _plain_return),), ([1], [1, 2], [1, 2, 3]),
        ("py", "tlist"))]))
def test_tensor_condition_in_python_for(fn, ref, items, kind):
    # gc.greater gives a tensor even on Python ints: the `if` is a tensor `if`
    check(fn, (items,), kind, reference=ref, eager=False)


@pytest.mark.parametrize("fn, ref, x", params([(f, r, x) for (f, r), x in product(
    ((tensor_break_in_python_while, _plain_break_in_while),
     (tensor_return_in_python_while, _plain_return)), (1, 2, 3, 6))]))
def test_tensor_condition_in_python_while(fn, ref, x):
    check(fn, (x,), "py", reference=ref, eager=False)
