"""Recursive Python functions trace like plain Python (recursion on Python values)."""

from __future__ import annotations

import graphc as gc
import graphc.numpy as gnp


def factorial(n):
    if n <= 1:
        return 1
    return n * factorial(n - 1)


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def test_recursive_helper_called_from_a_function():
    @gc.function
    def f(x):
        return x * factorial(5) + fib(7)

    assert int(f(gnp.asarray(2))) == 2 * 120 + 13


def test_recursive_helper_with_tensor_steps():
    """The recursion depth is a Python value; the work in each level is on tensors."""
    def power(x, k):
        if k == 0:
            return gnp.ones_like(x)
        return x * power(x, k - 1)

    f = gc.function(power)
    assert f(gnp.asarray([2.0, 3.0]), 3).numpy().tolist() == [8.0, 27.0]


def test_decorated_recursive_function():
    @gc.function
    def count_down(n):
        if n <= 0:
            return 0
        return n + count_down(n - 1)

    assert count_down(4) == 10


def test_nested_recursive_closure():
    def outer(x):
        def rec(k):
            return x if k == 0 else rec(k - 1) + 1
        return rec(3)

    assert int(gc.function(outer)(gnp.asarray(1))) == 4


def test_tracebacks_name_the_user_function():
    def broken(n):
        if n == 0:
            raise ValueError("bottom")
        return broken(n - 1)

    f = gc.function(broken)
    try:
        f(2)
    except ValueError as e:
        names = []
        tb = e.__traceback__
        while tb is not None:
            names.append(tb.tb_frame.f_code.co_name)
            tb = tb.tb_next
        assert names.count("broken") == 3, names
    else:
        raise AssertionError("expected ValueError")
