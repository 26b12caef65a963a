"""Reference: `if`, `while` and `for` nested in each other, with try/with, globals and
variables first set inside a loop (TensorFlow's nested_control_flow_test)."""

import contextlib

import pytest
from ref_testing import check, expect_error, params, product

import graphc as gc


def independent_ifs(x, y):
    z = 0
    if x > 0:
        if y > 0:
            z = x + y
    return z


def dependent_inner_if(x):
    y = 0
    if x > 0:
        y = -2 * x
        if y > 0:
            x = -3 * x
    else:
        y = 4 * x
    return x, y


def dependent_imbalanced_inner_if(x):
    y = 0
    if x > 0:
        if x < 3:
            y = -2 * x
            x = -3 * x
    return x, y


def _raise():
    raise ValueError("control flow by exception")


def if_masked_by_exception(x):
    y = 0
    if x > 0:
        try:
            if x > 1:
                _raise()
            y = 1
        except ValueError:
            pass
        if y == 0:
            y = 2
    return y


_counter = None


def if_updates_global(x):
    y = 0
    if x > 0:
        if x > 0:
            global _counter
            if _counter is None:
                _counter = 1
            else:
                _counter += 1
            y += _counter
    return y


def independent_inner_for(a, b):
    p = 0
    for _ in a:
        tmp = b
        for j in tmp:
            p += j
    return p


def independent_inner_while(a, b):
    p = 0
    while a > 0:
        tmp = b
        while tmp > 0:
            p += 1
            tmp -= 1
        a -= 1
    return p


def dependent_inner_for(a, b):
    r = 1
    s = 0
    for _ in a:
        r += s
        tmp = b
        for j in tmp:
            s += j
    return r


def dependent_inner_while(a, b):
    r = 1
    while a > 0:
        r += 1
        tmp = b
        while tmp > 0:
            a -= 1
            tmp -= 1
        a -= 1
    return r


def if_in_for(a):
    k = 0
    for i in a:
        if i % 2 > 0:
            j = i // 2
            k += j
    return k


def continue_in_with(x):
    z = 0
    while x > 0:
        with contextlib.nullcontext():
            x = x - 1
            if x < 5:
                continue
            z = z + 1
    return z


def continue_in_try(x):
    z = 0
    while x > 0:
        x = x - 1
        try:
            if x < 5:
                continue
            z = z + 1
        finally:
            z = z + 10
    return z


def break_in_with(x):
    z = 0
    while x > 0:
        with contextlib.nullcontext():
            x = x - 1
            if x < 5:
                break
            z = z + 1
    return z


def break_in_try(x):
    z = 0
    while x > 0:
        x = x - 1
        try:
            if x < 5:
                break
            z = z + 1
        finally:
            z = z + 10
    return z


def first_set_in_loop(n):
    for i in range(n):
        if i == 0:
            a = 1
        else:
            a = 2
    return a  # noqa: F821


def first_set_then_updated_in_loop(n):
    for i in range(n):
        if i == 0:
            a = 1
        else:
            a = a + 1  # noqa: F821
    return a  # noqa: F821


@pytest.mark.parametrize("x, y, kx, ky", params(product(
    (-1, 1), (-1, 1), ("py", "t"), ("py", "t"))))
def test_independent_ifs(x, y, kx, ky):
    check(independent_ifs, (x, y), (kx, ky))


@pytest.mark.parametrize("fn, x, kind", params(product(
    (dependent_inner_if, dependent_imbalanced_inner_if), (-1, 1, 4), ("py", "t"))))
def test_dependent_inner_if(fn, x, kind):
    check(fn, (x,), kind)


@pytest.mark.parametrize("x", [-1, 0, 1, 2])
def test_if_masked_by_exception(x):
    check(if_masked_by_exception, (x,), "py")


@pytest.mark.parametrize("x, want", [(1, 1), (0, None)])
def test_global_modified_in_nested_if(x, want):
    global _counter
    _counter = None
    assert gc.function(if_updates_global)(x) == (1 if x else 0)
    assert _counter == want


@pytest.mark.parametrize("fn, a, b, ka, kb", params(product(
    (independent_inner_for, dependent_inner_for), (0, 1, 2), (0, 1, 2),
    ("range", "gcrange"), ("range", "gcrange"))))
def test_nested_for(fn, a, b, ka, kb):
    check(fn, (a, b), (ka, kb))


@pytest.mark.parametrize("a, b, ka, kb", params(product(
    (0, 1, 2), (0, 1, 2), ("py", "t"), ("py", "t"))))
def test_independent_inner_while(a, b, ka, kb):
    check(independent_inner_while, (a, b), (ka, kb))


@pytest.mark.parametrize("a, b, ka, kb", params(product(
    (0, 1, 2, 3, 4), (0, 1, 2, 3, 4), ("py", "t"), ("py", "t"))))
def test_dependent_inner_while(a, b, ka, kb):
    check(dependent_inner_while, (a, b), (ka, kb))


@pytest.mark.parametrize("a, kind", params(product((0, 1, 2, 5), ("range", "gcrange"))))
def test_if_in_for(a, kind):
    check(if_in_for, (a,), kind)


@pytest.mark.parametrize("fn, x, kind", params(product(
    (continue_in_with, continue_in_try, break_in_with, break_in_try), (0, 4, 10),
    ("py", "t"))))
def test_break_continue_in_with_and_try(fn, x, kind):
    check(fn, (x,), kind)


@pytest.mark.parametrize("n, kind", params([(0, "py"), (1, "py"), (2, "py"), (1, "t"),
                                            (2, "t")]))
def test_variable_first_set_in_loop(n, kind):
    # n == 0 in Python: UnboundLocalError, graphc must raise too
    check(first_set_in_loop, (n,), kind)


def test_variable_first_set_in_loop_zero_iterations_tensor_is_refused():
    # TF: InvalidArgumentError, the loop must iterate at least once
    expect_error(first_set_in_loop, (0,), "t")


@pytest.mark.parametrize("n", [1, 2])
def test_variable_first_set_then_updated_python(n):
    check(first_set_then_updated_in_loop, (n,), "py")


@pytest.mark.parametrize("n", [0, 1, 2])
def test_variable_first_set_then_updated_tensor_is_refused(n):
    # TF: ValueError "must be defined before the loop"
    expect_error(first_set_then_updated_in_loop, (n,), "t", match="'a'")
