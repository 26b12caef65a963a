"""Reference: calls in a loop's condition, iterable and body: global, local, lambda,
method, builtin and closure callees (TensorFlow's loop_with_function_call_test)."""

import numpy as np
import pytest
from ref_testing import check, params, product

import graphc as gc


def while_call_in_test(n, fn):
    i = 0
    s = 0
    while i < fn(n):
        s = s * 10 + i
        i += 1
    return s


def for_call_in_iterable(items, fn):
    s = 0
    for i in fn(items):
        s = s * 10 + i
    return s


def while_local_call_in_test(n):
    def triple(x):
        return x * 3

    i = 0
    s = 0
    while i < triple(n):
        s = s * 10 + i
        i += 1
    return s


def for_local_call_in_iterable(items):
    def same(v):
        return v * 1

    s = 0
    for i in same(items):
        s = s * 10 + i
    return s


def while_call_in_body(n, fn):
    i = 0
    s = 0
    while i < n:
        s = s * 10 + fn(i)
        i += 1
    return s


def for_call_in_body(items, fn):
    s = 0
    for i in items:
        s = s * 10 + fn(i)
    return s


def while_local_call_in_body(n):
    def triple(x):
        return x * 3

    i = 0
    s = 0
    while i < n:
        s = s * 10 + triple(i)
        i += 1
    return s


def for_local_call_in_body(items):
    def triple(x):
        return x * 3

    s = 0
    for i in items:
        s = s * 10 + triple(i)
    return s


def while_closure_call(n):
    i = 0

    def i_plus_two():
        return i + 2

    i = 0
    s = 0
    while i < n:
        s = s * 10 + i_plus_two()
        i += 1
    return s


def for_closure_call(items):
    i = 0

    def i_plus_two():
        return i + 2

    s = 0
    for i in items:
        s = s * 10 + i_plus_two()
    return s, i


def while_lambda_closure_call(n):
    i = 0
    s = 0
    i_plus_two = lambda: i + 2  # noqa: E731
    while i < n:
        s = s * 10 + i_plus_two()
        i += 1
    return s


def for_lambda_closure_call(items):
    i = 0
    s = 0
    i_plus_two = lambda: i + 2  # noqa: E731
    for i in items:
        s = s * 10 + i_plus_two()
    return s, i


def while_method_closure_call(n):
    i = 0

    class Reader:
        def __call__(self):
            return i

    read_i = Reader()
    i = 0
    s = 0
    while i < n:
        s = s * 10 + read_i()
        i += 1
    return s


def for_method_closure_call(items):
    i = 0

    class Reader:
        def __call__(self):
            return i

    read_i = Reader()
    i = 0
    s = 0
    for i in items:
        s = s * 10 + read_i()
    return s, i


def double(x):
    return x * 2


class Scaler:
    def times_four(self, x):
        return x * 4


def _same(x):
    return x * 1


CALLEES = (double, _same, Scaler().times_four, abs)
# Python lists and NumPy arrays (the reference for tensors: `l * 2` on a list repeats it)
ARRAYS = (np.zeros(0, np.int64), np.array([1]), np.array([1, 2]), np.array([-2, 3]))


@pytest.mark.parametrize("n, kind, fn", params(product((0, 1, 2, 3), ("py", "t"), CALLEES)))
def test_call_in_while_test(n, kind, fn):
    check(while_call_in_test, (n, fn), (kind, "py"))


@pytest.mark.parametrize("items, kind, fn", params(
    product(ARRAYS, ("np", "t"), CALLEES[:3] + (gc.abs,))
    + product(([], [1], [1, 2]), ("py",), CALLEES[:3])))
def test_call_in_for_iterable(items, kind, fn):
    check(for_call_in_iterable, (items, fn), (kind, "py"))


@pytest.mark.parametrize("n, kind, rng", params(product(
    (0, 1, 2), ("py", "t"), ((range, range), (range, gc.range)))))
def test_range_call_in_for_iterable(n, kind, rng):
    check(for_call_in_iterable, (n, rng), (kind, "pair"))


@pytest.mark.parametrize("n, kind, fn", params(product((0, 1, 2, 3), ("py", "t"), CALLEES)))
def test_call_in_while_body(n, kind, fn):
    check(while_call_in_body, (n, fn), (kind, "py"))


@pytest.mark.parametrize("items, kind, fn", params(product(
    ([], [1], [1, 2], [-1, 2]), ("py", "t"), CALLEES)))
def test_call_in_for_body(items, kind, fn):
    check(for_call_in_body, (items, fn), (kind, "py"))


@pytest.mark.parametrize("fn, n, kind", params(product(
    (while_local_call_in_test, while_local_call_in_body), (0, 1, 2), ("py", "t"))))
def test_local_call_in_while(fn, n, kind):
    check(fn, (n,), kind)


@pytest.mark.parametrize("fn, items, kind", params(
    product((for_local_call_in_iterable,), ARRAYS, ("np", "t"))
    + product((for_local_call_in_body,), ([], [1], [1, 2]), ("py", "t"))))
def test_local_call_in_for(fn, items, kind):
    check(fn, (items,), kind)


@pytest.mark.parametrize("fn, n, kind", params(product(
    (while_closure_call, while_lambda_closure_call, while_method_closure_call), (0, 1, 2, 3),
    ("py", "t"))))
def test_closure_in_while(fn, n, kind):
    check(fn, (n,), kind)


@pytest.mark.parametrize("fn, items, kind", params(product(
    (for_closure_call, for_lambda_closure_call, for_method_closure_call),
    ([], [1], [1, 2], [3, 4, 5]), ("py", "t"))))
def test_closure_in_for(fn, items, kind):
    check(fn, (items,), kind)
