"""Reference: calls to lambdas defined inside or passed in (TensorFlow's
call_to_lambda_function_test)."""

import pytest
from ref_testing import check, params, product


def local_lambda(x):
    sq = lambda x: x * x if x > 0 else -x  # noqa: E731
    return sq(x)


def passed_lambda(x, fn):
    return fn(x)


@pytest.mark.parametrize("x, kind", params(product((1, -3, 0, 4), ("py", "t"))))
def test_lambda_defined_inside(x, kind):
    check(local_lambda, (x,), kind)


@pytest.mark.parametrize("x, kind", params(product((1, 0), ("py", "t"))))
def test_lambda_passed_in(x, kind):
    check(passed_lambda, (x, lambda v: v == 0), (kind, "py"))
