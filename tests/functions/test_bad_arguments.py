"""Inputs a graph cannot stand for get a clear error at the call, never a late failure or
a silently wrong value: generator and async functions, string/object arrays, masked
arrays."""

from __future__ import annotations

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp


def test_generator_function_raises_at_the_call():
    @gc.function
    def numbers(x):
        yield x + 1
        yield x + 2

    with pytest.raises(TypeError, match=r"'numbers' \(defined at .*test_bad_arguments.py"
                                        r":\d+\) returned a generator") as info:
        numbers(gnp.asarray(1.0))
    assert "Return a tuple or list of tensors" in str(info.value)
    # the failed call cached nothing: the next call raises the same error again
    with pytest.raises(TypeError, match="returned a generator"):
        numbers(gnp.asarray(1.0))


def test_returned_generator_expression_raises():
    @gc.function
    def lazy(x):
        return (x * k for k in range(3))

    with pytest.raises(TypeError, match="returned a generator"):
        lazy(gnp.asarray(2.0))


def test_async_function_raises_without_a_never_awaited_warning(recwarn):
    @gc.function
    async def later(x):
        return x

    with pytest.raises(TypeError, match="returned a coroutine"):
        later(gnp.asarray(1.0))
    assert not [w for w in recwarn if "never awaited" in str(w.message)]


def test_generator_used_inside_a_function_is_fine():
    def parts(x):
        yield x
        yield x * 2

    @gc.function
    def total(x):
        return sum(parts(x))

    assert float(total(gnp.asarray(3.0))) == 9.0


@pytest.mark.parametrize("array", [np.array(["a", "b"]), np.array([1, None], dtype=object),
                                   np.array([b"x"])], ids=["str", "object", "bytes"])
def test_non_numeric_array_argument_gets_eager_error(array):
    @gc.function
    def ident(x):
        return x

    with pytest.raises(TypeError, match="hold numbers and booleans") as eager:
        gnp.asarray(array)
    with pytest.raises(TypeError, match=r"'ident', argument 'x': cannot convert") as traced:
        ident(array)
    assert str(eager.value) in str(traced.value)


def test_masked_array_is_refused_eagerly_and_in_functions():
    masked = np.ma.masked_array([1.0, 2.0, 3.0], mask=[0, 1, 0])

    @gc.function
    def total(x):
        return gnp.sum(x)

    for call in (lambda: gnp.asarray(masked), lambda: gc.add(masked, 1.0),
                 lambda: total(masked), lambda: total([masked])):
        with pytest.raises(TypeError, match=r"masked array .* a\.filled\(fill_value\)"):
            call()
    # the documented ways out
    assert float(total(masked.filled(0.0))) == 4.0
    assert float(total(masked.data)) == 6.0
