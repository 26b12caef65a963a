"""Reference: several `return`s, some in branches, context managers, try/finally
(TensorFlow's early_return_test)."""

import contextlib

import pytest
from ref_testing import check, expect_error, params, product

import graphc as gc
from graphc.errors import AutographError


def print_and_return(x):
    if x > 0:
        gc.print("x", x)
        return x
    return x * x


def return_local_or_reduced(c):
    t = gc.constant(1)
    if c:
        return t
    t = gc.stack([t, t])
    return gc.reduce_sum(t)


def maybe_no_return(x):
    if x > 0:
        if x < 5:
            return x
    else:
        return x * x * x


def nested_returns(x):
    if x > 0:
        if x < 5:
            return x
        else:
            return x * x
    else:
        return x * x * x


def return_then_loop(c1, c2, n):
    if c1:
        if c2:
            return 1
    for _ in range(n):
        pass
    return 2


def returns_in_with(x):
    with contextlib.nullcontext():
        if x > 0:
            if x < 5:
                with contextlib.nullcontext():
                    return x
            else:
                return x * x
        else:
            return x * x * x


def returns_in_with_then_dead_code(x):
    with contextlib.nullcontext():
        if x > 0:
            if x < 5:
                with contextlib.nullcontext():
                    return x
            else:
                return x * x
        else:
            return x * x * x
    return x * x * x * x


def return_default_in_with(x):
    with contextlib.nullcontext():
        if x > 0:
            return 1
        return 0


def return_in_try_finally(x):
    try:
        if x > 0:
            return 1
        else:
            return 0
    finally:
        x = x + 1


def return_default_in_try_finally(x):
    try:
        if x > 0:
            return 1
        return 0
    finally:
        x = x + 1


def return_in_finally(x):
    try:
        return 2
    finally:
        if x > 0:
            return 1  # noqa: B012
        else:
            return 0  # noqa: B012


def return_default_in_finally(x):
    try:
        return 2
    finally:
        if x > 0:
            return 1  # noqa: B012
        return 0  # noqa: B012


def finally_overrides_return(x):
    try:
        if x > 0:
            return 0
    finally:
        return 1  # noqa: B012


def _fails():
    raise ValueError()


def caught_during_return():
    try:
        return _fails()
    except ValueError:
        pass
    return 1


def caught_during_return_after_branch(c):
    if c:
        return 2
    try:
        return _fails()
    except ValueError:
        pass
    return 1


@pytest.mark.parametrize("x, kind", params(product((0, 1, 3), ("py", "t"))))
def test_return_with_default(x, kind):
    check(print_and_return, (x,), kind)


@pytest.mark.parametrize("c, kind", params(product((True, False), ("py", "t"))))
def test_return_depends_on_local(c, kind):
    check(return_local_or_reduced, (c,), kind)


@pytest.mark.parametrize("x", [0, 3, 5])
def test_possibly_missing_return_python(x):
    check(maybe_no_return, (x,), "py")


@pytest.mark.parametrize("x", params([(0,), (3,), (5,)]))
def test_possibly_missing_return_tensor_is_refused(x):
    # TF: ValueError "else branch must also have a return"
    expect_error(maybe_no_return, (x,), "t", AutographError)


@pytest.mark.parametrize("fn, x, kind", params(
    product((nested_returns,), (-1, 3, 6), ("py", "t"))
    + product((returns_in_with, returns_in_with_then_dead_code), (0, 3, 5), ("py", "t"))))
def test_nested_returns(fn, x, kind):
    check(fn, (x,), kind)


@pytest.mark.parametrize("c1, c2, n, kinds", params(product(
    (True, False), (True, False), (0, 1, 2), (("py", "py", "py"), ("py", "py", "t")))))
def test_return_before_loop(c1, c2, n, kinds):
    check(return_then_loop, (c1, c2, n), kinds)


@pytest.mark.parametrize("fn, x, kind", params(product(
    (return_default_in_with, return_in_try_finally, return_default_in_try_finally,
     return_in_finally, return_default_in_finally, finally_overrides_return),
    (0, 1), ("py", "t"))))
def test_returns_in_with_and_try(fn, x, kind):
    check(fn, (x,), kind)


def test_exception_during_return_caught():
    check(caught_during_return)


@pytest.mark.parametrize("c, kind", params(product((True, False), ("py", "t"))))
def test_exception_during_return_caught_after_branch(c, kind):
    check(caught_during_return_after_branch, (c,), kind)
