"""Reference: generator functions (TensorFlow's generator_test: tf.function raises
NotImplementedError for generators).

graphc does not convert generators (docs/autograph.md: calls to them run as written).
A ``gc.function`` *of* a generator function is not documented; it cannot return tensors,
so it should be refused. Today it returns the generator object made at trace time, and
every later call returns that same, exhausted, object."""

import pytest
from ref_testing import expect_error, params

import graphc as gc

GENERATOR = ("other: gc.function of a generator function returns the trace-time "
             "generator object instead of refusing it")


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
], {lambda pid: True: GENERATOR}))
def test_generator_function_is_refused(fn, args, kinds):
    expect_error(fn, args, kinds)


@pytest.mark.xfail(strict=True, reason=GENERATOR + " (second call: exhausted, WRONG ANSWER)")
def test_generator_function_called_twice():
    f = gc.function(yields_in_for)
    try:
        first, second = list(f(3)), list(f(3))
    except Exception:  # noqa: BLE001  (refusing it is fine)
        return
    assert first == second == [0, 1, 2]
