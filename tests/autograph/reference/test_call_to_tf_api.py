"""Reference: a call to a graphc (TensorFlow-style) API function (TensorFlow's
call_to_tf_api_test)."""

import pytest
from ref_testing import check, params, product

import graphc as gc


def times_constant(x):
    return x * gc.constant(2)


@pytest.mark.parametrize("x, kind", params(product((1, -6), ("py", "t"))))
def test_api_call(x, kind):
    check(times_constant, (x,), kind)
