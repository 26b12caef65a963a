"""Reference: namedtuples created, passed in and subclassed (TensorFlow's
call_to_named_tuple_test)."""

import collections

import pytest
from ref_testing import check, params, product


def local_namedtuple(x):
    pair = collections.namedtuple("Pair", ("a", "b"))
    return pair(a=1, b=x)


def passed_namedtuple(x, ctor):
    return ctor(a=1, b=x)


class Counter(collections.namedtuple("Counter", ("a",))):
    def next(self):
        return self.a + 1


def subclass_method(x):
    return Counter(x).next()


Pair = collections.namedtuple("Pair", ("a", "b"))


@pytest.mark.parametrize("x, kind", params(product((1, 2.5), ("py", "t"))))
def test_namedtuple_created_inside(x, kind):
    check(local_namedtuple, (x,), kind)


@pytest.mark.parametrize("x, kind", params(product((1, 2.5), ("py", "t"))))
def test_namedtuple_passed_in(x, kind):
    check(passed_namedtuple, (x, Pair), (kind, "py"))


@pytest.mark.parametrize("x, kind", params(product((1, -4), ("py", "t"))))
def test_namedtuple_subclass_method(x, kind):
    check(subclass_method, (x,), kind)
