"""Reference: generator functions (TensorFlow's generator_test: tf.function raises
NotImplementedError for generators).

graphc does not convert generators (docs/autograph.md: calls to them run as written).
A ``gc.function`` *of* a generator function cannot compute its results when called,
so it is refused at every call with a TypeError naming the function (like TensorFlow's
NotImplementedError, the call fails instead of returning a generator)."""

import pytest
from ref_testing import expect_error, params

import graphc as gc


def yields_one():
    yield 1


def yields_in_for(n):
    for i in range(n):
        yield i


def yields_in_while(n):
    i = 0
    while i < n:
        i += 1
        yield i


@pytest.mark.parametrize("fn, args, kinds", params([
    (yields_one, (), ()),
    (yields_in_for, ([],), ("py",)),
    (yields_in_for, (3,), ("py",)),
    (yields_in_while, (0,), ("py",)),
    (yields_in_while, (2,), ("t",)),
]))
def test_generator_function_is_refused(fn, args, kinds):
    expect_error(fn, args, kinds, TypeError, match="returned a generator")


def test_generator_function_called_twice():
    f = gc.function(yields_in_for)
    for _ in range(2):  # refused every time (nothing exhausted is cached)
        with pytest.raises(TypeError, match="returned a generator"):
            f(3)
