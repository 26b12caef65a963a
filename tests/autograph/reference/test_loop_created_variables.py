"""Reference: variables first created inside a `while` loop, of static, value-dependent
shape or rank, alone or in a dict (TensorFlow's loop_created_variables_test). Shapes that
TF hid behind a random draw come straight from the loop counter here."""

import pytest
from ref_testing import check, expect_error, params, product

import graphc as gc


def static_shape(n):
    i = 0
    while i < n:
        v = gc.zeros([1, 2, 3])
        i += 1
    return v  # noqa: F821


def shape_from_counter(n):
    i = 0
    while i < n:
        v = gc.zeros([1, i, 2])
        i += 1
    return v  # noqa: F821


def rank_from_counter(n):
    i = 0
    while i < n:
        v = gc.zeros(gc.range(i))
        i += 1
    return v  # noqa: F821


def range_of_counter(n):
    i = 0
    while i < n:
        v = gc.range(i)
        i += 1
    return v  # noqa: F821


def dict_static_shape(n):
    i = 0
    while i < n:
        v = {"a": gc.zeros([1, 2, 3]), "b": gc.ones([1, 2, 3])}
        i += 1
    return v["a"], v["b"]  # noqa: F821


def dict_shape_from_counter(n):
    i = 0
    while i < n:
        v = {"a": gc.zeros([1, i]), "b": gc.ones([i, 2])}
        i += 1
    return v["a"], v["b"]  # noqa: F821


def dict_rank_from_counter(n):
    i = 0
    while i < n:
        v = {"a": gc.ones(gc.range(i)), "b": gc.ones([1, 2, 3])}
        i += 1
    return v["a"], v["b"]  # noqa: F821


ALL = (static_shape, shape_from_counter, rank_from_counter, range_of_counter,
       dict_static_shape, dict_shape_from_counter, dict_rank_from_counter)


@pytest.mark.parametrize("fn", params([(f,) for f in ALL]))
def test_zero_iterations_python_raises(fn):
    check(fn, (0,), "py")


@pytest.mark.parametrize("fn", ALL)
def test_zero_iterations_tensor_is_refused(fn):
    # TF: InvalidArgumentError when the graph runs zero iterations. graphc: AutographError
    # (first defined inside the loop), from the assertion the loop stages
    expect_error(fn, (0,), "t")


@pytest.mark.parametrize("fn, n, kind", params(product(ALL, (1, 2, 3), ("py", "t"))))
def test_created_in_loop(fn, n, kind):
    # gc.zeros([1, i, 2]) with a traced i has a run-time dim; gc.zeros(gc.range(i)) with
    # a traced i has unknown rank, so v is a loop variable of unknown rank
    check(fn, (n,), kind)
