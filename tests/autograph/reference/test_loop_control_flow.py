"""Reference: `break`, `continue` and `return` in single and nested loops (TensorFlow's
loop_control_flow_test; its dataset variants are not ported: graphc has no tf.data)."""

import pytest
from ref_testing import check, params, product


def continue_in_for(items):
    s = 0
    for c in items:
        if c % 2 > 0:
            continue
        s += c
    return s


def continue_in_while(x):
    s = 0
    while x > 0:
        x -= 1
        if x % 2 > 0:
            continue
        s += x
    return s


def continue_in_inner_for(m):
    s = 0
    for row in m:
        for c in row:
            if c % 2 > 0:
                continue
            s += c
    return s


def continue_in_inner_while(x, y):
    s = 0
    while x > 0:
        x -= 1
        while y > 0:
            y -= 1
            if (x + y) % 2 > 0:
                continue
            s += x + y
    return s


def break_in_for(items):
    s = 0
    for c in items:
        if c % 2 > 0:
            break
        s += c
    return s


def return_in_for(items):
    s = 0
    for c in items:
        s += c
        return s
    return s


def return_in_both_branches_in_for(items):
    s = 0
    for c in items:
        s += c
        if c % 2 > 0:
            return s
        else:
            return -s
    return s


def return_in_while(x):
    s = 0
    while x > 0:
        x -= 1
        s += x
        return s
    return s


def return_in_both_branches_in_while(x):
    s = 0
    while x > 0:
        x -= 1
        s += x
        if x % 2 > 0:
            return s
        else:
            return -s
    return s


def break_in_while(x):
    s = 0
    while x > 0:
        x -= 1
        if x % 2 > 0:
            break
        s += x
    return s


def break_in_inner_for(m):
    s = 0
    for row in m:
        for c in row:
            if c % 2 > 0:
                break
            s += c
    return s


def break_in_inner_while(x, y):
    s = 0
    while x > 0:
        x -= 1
        while y > 0:
            y -= 1
            if ((x + y) % 2) == 0:
                break
            s += x + y
    return s


def break_or_continue_in_inner_for(m):
    s = 0
    for row in m:
        for c in row:
            if c % 2 > 0:
                break
            else:
                continue
            s += c
    return s


def break_or_continue_in_inner_while(x, y):
    s = 0
    while x > 0:
        x -= 1
        while y > 0:
            y -= 1
            if (x + y) % 2 > 0:
                break
            else:
                continue
            s += x + y
    return s


def break_then_if_in_for(x, y):
    for i in range(y):
        if i == 2:
            break
        if x > 0:
            x -= 1
    return x


def break_then_if_in_while(x):
    while x > 0:
        if x == 2:
            break
        if x > 0:
            x -= 1
    return x


def two_breaks_in_while(n):
    s = 1
    i = 0
    while i < n:
        i += 1
        if i > 10 * n:
            break
        if i == n:
            break
        s = s * 10 + i
    return i, s


LISTS = ([], [1], [1, 2], [1, 2, 3], [1, 2, 3, 4], [2, 4, 5])
RETURNS_FOR = (return_in_for, return_in_both_branches_in_for)
RETURNS_WHILE = (return_in_while, return_in_both_branches_in_while)


@pytest.mark.parametrize("fn, items, kind", params(
    product((continue_in_for, break_in_for), LISTS, ("py", "t"))
    + product(RETURNS_FOR, LISTS[1:], ("py", "t"))
    + product(RETURNS_FOR, ([],), ("py",))))
def test_single_for(fn, items, kind):
    check(fn, (items,), kind)


@pytest.mark.parametrize("fn, n, kind", params(
    product((continue_in_while, break_in_while, two_breaks_in_while,
             break_then_if_in_while), (0, 1, 2, 3, 4), ("py", "t"))
    + product(RETURNS_WHILE, (1, 2, 3, 4), ("py", "t"))
    + product(RETURNS_WHILE, (0,), ("py",))))
def test_single_while(fn, n, kind):
    check(fn, (n,), kind)


@pytest.mark.parametrize("fn, arg", params(
    product(RETURNS_FOR, ([],)) + product(RETURNS_WHILE, (0,))))
def test_return_in_loop_zero_iterations_tensor(fn, arg):
    # TF refuses this ("must iterate at least once to initialize"); graphc lowers
    # `return` to flags and the fall-through `return s` defines the result, so it must
    # match Python (s == 0)
    check(fn, (arg,), "t")


@pytest.mark.parametrize("x, y, kx, ky", params(product(
    (0, 3), (0, 1, 2, 4), ("py", "t"), ("py", "t"))))
def test_break_then_if_in_for(x, y, kx, ky):
    check(break_then_if_in_for, (x, y), (kx, ky))


@pytest.mark.parametrize("fn, m, kind", params(product(
    (continue_in_inner_for, break_in_inner_for, break_or_continue_in_inner_for),
    ([[], []], [[1], [2]], [[1, 2], [3, 4]], [[1, 2, 3], [4, 5, 6]], [[2, 4, 1], [6, 8, 0]]),
    ("py", "t", "tlist"))))
def test_nested_for(fn, m, kind):
    check(fn, (m,), kind)


@pytest.mark.parametrize("fn, m, n, kind", params(product(
    (continue_in_inner_while, break_in_inner_while, break_or_continue_in_inner_while),
    (0, 1, 2, 3, 4), (0, 1, 2, 3, 4), ("py", "t"))))
def test_nested_while(fn, m, n, kind):
    check(fn, (m, n), kind)


@pytest.mark.parametrize("fn, m, n, kinds", params(product(
    (continue_in_inner_while, break_in_inner_while), (0, 2, 3), (1, 4),
    (("py", "t"), ("t", "py")))))
def test_nested_while_mixed_kinds(fn, m, n, kinds):
    check(fn, (m, n), kinds)
