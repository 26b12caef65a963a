"""Reference: `assert` statements (TensorFlow's assertion_test)."""

import pytest
from ref_testing import check, expect_error, params

import graphc as gc


def positive_or_fail(x):
    assert x > 0
    return x


@pytest.mark.parametrize("x, kind", params([(1, "py"), (1, "t"), (7, "t"), (2.5, "t")]))
def test_assert_that_holds(x, kind):
    check(positive_or_fail, (x,), kind)


def test_failing_assert_on_python_value_raises_assertion_error():
    expect_error(positive_or_fail, (0,), "py", AssertionError, message=False)


@pytest.mark.parametrize("x", [0, -3])
def test_failing_assert_on_tensor_raises_when_the_graph_runs(x):
    expect_error(positive_or_fail, (x,), "t", gc.errors.InvalidArgumentError)
