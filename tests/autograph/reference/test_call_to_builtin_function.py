"""Reference: calls to builtins, shadowed builtins and builtins reached through a
variable (TensorFlow's call_to_builtin_function_test)."""

import pytest
from ref_testing import check, params, product


def make_dict(x):
    return dict(foo=x)


def shadowed_dict(x):
    def not_dict(x):
        return x

    dict = not_dict  # noqa: A001
    return dict(x)


def dict_from_a_call(x):
    def get_dict():
        return dict

    maker = get_dict()
    return maker(foo=x)


def length(x):
    return len(x)


def list_of_indices(x):
    return list(range(len(x)))


def int_then_float(x):
    return float(int(x))


def shadowed_len(x):
    def not_len(x):
        return x

    len = not_len  # noqa: A001
    return len(x)


def len_from_a_call(x):
    def get_len():
        return len

    measure = get_len()
    return measure(x)


@pytest.mark.parametrize("fn, x, kind", params(
    product((make_dict, shadowed_dict, dict_from_a_call), (1, -2.5), ("py", "t"))
    + product((length, shadowed_len, len_from_a_call, list_of_indices),
              ([1, 2], [4, 5, 6]), ("py", "t"))
    + product((list_of_indices,), ([],), ("py", "t"))
    + product((int_then_float,), (3.7, -2.2, 0.0), ("py", "t"))))
def test_builtin_call(fn, x, kind):
    check(fn, (x,), kind)
