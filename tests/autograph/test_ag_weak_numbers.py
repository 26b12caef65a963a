"""Python numbers carried through tensor loops and branches stay *weakly typed*: next
to a tensor they take its dtype, as the Python number itself would (NEP 50)."""

from __future__ import annotations

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.errors import AutographError


def tf_counter_into_int32(n):
    v = gc.constant([7], dtype=gc.int32)
    i = 0
    while i < n:
        v = gc.concat((v, gc.stack([i])), 0)
        i += 1
    return v


def np_counter_into_int32(n):
    v = gnp.asarray(np.array([7], np.int32))
    i = 0
    while i < n:
        v = gnp.concatenate((v, gnp.stack([i])))
        i += 1
    return v


@pytest.mark.parametrize("fn", [tf_counter_into_int32, np_counter_into_int32])
@pytest.mark.parametrize("n", [0, 3])
def test_loop_counter_takes_the_dtype_it_meets(fn, n):
    got = gc.function(fn)(gnp.asarray(n))
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got.numpy(), [7, *range(n)])


def count_then_add(n, t):
    x = 0
    for _ in gc.range(n):
        x = x + 2
    return x + t


def test_weak_loop_result_next_to_int8():
    got = gc.function(count_then_add)(gnp.asarray(3), gnp.asarray(np.int8(1)))
    assert got.dtype == np.int8 and int(got) == 7


def branch_numbers(c, t):
    if c > 0:
        x = 5
    else:
        x = 7
    return x + t


@pytest.mark.parametrize("c,want", [(1, 6), (-1, 8)])
def test_branches_of_python_numbers_give_a_weak_value(c, want):
    got = gc.function(branch_numbers)(gnp.asarray(c), gnp.asarray(np.int8(1)))
    assert got.dtype == np.int8 and int(got) == want


def branch_weak_and_strong(c, n, t):
    i = 0
    while i < n:
        i += 1
    if c > 0:
        y = i          # weak (a traced Python number)
    else:
        y = t          # an int16 tensor
    return y


@pytest.mark.parametrize("c,want", [(1, 3), (-1, 9)])
def test_weak_value_joins_a_strong_branch(c, want):
    got = gc.function(branch_weak_and_strong)(gnp.asarray(c), gnp.asarray(3),
                                              gnp.asarray(np.int16(9)))
    assert got.dtype == np.int16 and int(got) == want


def becomes_strong(n, t):
    i = 0
    while i < n:
        i = i + t
    return i


def test_a_tensor_in_the_body_makes_it_strong():
    got = gc.function(becomes_strong)(gnp.asarray(5), gnp.asarray(np.int32(2)))
    assert got.dtype == np.int32 and int(got) == 6


def becomes_float(n):
    x = 0
    for _ in gc.range(n):
        x = x + 0.5
    return x


def test_weak_int_becomes_weak_float():
    f = gc.function(becomes_float)
    assert float(f(gnp.asarray(3))) == 1.5
    # outside the trace the result is a plain float64 tensor; inside a trace it stays
    # weak: float32 next to float32
    assert (f(gnp.asarray(3)) + gnp.asarray(np.float32(1))).dtype == np.float64
    g = gc.function(lambda n, t: becomes_float(n) + t)
    assert g(gnp.asarray(3), gnp.asarray(np.float32(1))).dtype == np.float32


def float_into_int_branch(n, t):
    x = 0
    for _ in gc.range(n):
        x = x + 0.5
    if n > 0:
        y = x
    else:
        y = t
    return y


def test_weak_float_does_not_join_an_int_branch():
    with pytest.raises(AutographError, match="computed from Python numbers"):
        gc.function(float_into_int_branch)(gnp.asarray(1), gnp.asarray(np.int16(1)))


def test_explicit_cast_is_strong():
    def f(n, t):
        i = 0
        while i < n:
            i += 1
        return gc.cast(i, gc.int64) + t

    got = gc.function(f)(gnp.asarray(2), gnp.asarray(np.int8(1)))
    assert got.dtype == np.int64 and int(got) == 3
