"""Reference: calls to user functions reached statically, through factories, variables
and parameters (TensorFlow's call_to_user_function_test)."""

import pytest
from ref_testing import check, params, product

import graphc as gc


def cube(x):
    return x * x * x


def affine(x):
    return -1 * x + 11


def pick(n):
    if n == 1:
        return cube
    return affine


def direct_calls(x):
    return cube(x) + affine(x)


def calls_through_factory(x):
    f = pick(1)
    a = f(x)
    f = pick(2)
    b = f(x)
    return a + b


def call_parameter(f, x):
    return f(x)


def calls_through_variable(x):
    f = cube
    a = f(x)
    f = affine
    b = f(x)
    return a + b


def api_through_variable(x):
    f = gc.identity
    return f(x)


def call_parameter_by_keyword(f, x):
    return f(x=x)


@pytest.mark.parametrize("fn, x, kind", params(product(
    (direct_calls, calls_through_factory, calls_through_variable, api_through_variable),
    (1, 3), ("py", "t"))))
def test_user_function_call(fn, x, kind):
    check(fn, (x,), kind)


@pytest.mark.parametrize("fn, x, kind", params(product(
    (call_parameter, call_parameter_by_keyword), (1, -2), ("py", "t"))))
def test_function_parameter(fn, x, kind):
    check(fn, (cube, x), ("py", kind))
