"""Reference: `and` / `or` / comparisons, including chained ones (TensorFlow's
logical_expression_test)."""

import itertools

import pytest
from ref_testing import check, params, product


def ors_with_a_call(x, y, z):
    get_z = lambda: z  # noqa: E731
    return x or y or get_z()


def ors(x, y, z):
    return x or y or z


def ands(x, y, z):
    return x and y and z


def mixed(x, y, z):
    return x or y or z and y and z


def eq(x, y):
    return x == y


def ne(x, y):
    return x != y


def chained_eq(x, y, z):
    return x == y == z


def ordered(x, y, z):
    return x < y and y < z


def chained_lt(x, y, z):
    return x < y < z


BOOLS = list(itertools.product((False, True), repeat=3))


@pytest.mark.parametrize("fn, xyz, kind", params(product(
    (ors, ands, mixed, ors_with_a_call), BOOLS, ("py", "t"))))
def test_boolean_operators(fn, xyz, kind):
    check(fn, xyz, kind)


PERMS = list(itertools.permutations((1, 2, 3)))


@pytest.mark.parametrize("xyz, kind", params(product(PERMS, ("py", "t"))))
def test_comparisons_joined_by_and(xyz, kind):
    check(ordered, xyz, kind)


@pytest.mark.parametrize("fn, xy, kind", params(product(
    (eq, ne), ((1, 1), (1, 2)), ("py", "t"))))
def test_equality(fn, xy, kind):
    check(fn, xy, kind)


@pytest.mark.parametrize("fn, xyz, kind", params(
    product((chained_eq,), ((1, 1, 2), (1, 1, 1), (2, 1, 1)), ("py", "t"))
    + product((chained_lt,), PERMS[:3], ("py", "t"))))
def test_chained_comparisons(fn, xyz, kind):
    check(fn, xyz, kind)
