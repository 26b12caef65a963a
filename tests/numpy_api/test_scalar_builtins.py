"""SPEC §12, scalars: Python's ``max``, ``min``, ``abs``, ``sum``, ``round``, ``int`` and
``float`` of traced values inside ``gc.function`` are staged as graph ops that compute
what the builtin computes on the NumPy scalars the values stand for (the same Python
function run on NumPy scalars is the reference)."""

from __future__ import annotations

import builtins
import warnings

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.autograph import builtin_calls
from graphc.errors import AutographError

NAN = float("nan")


def numpy_value(v):
    """A NumPy program's value: 0-d arrays as the NumPy scalars indexing would give."""
    v = np.asarray(v)
    return v[()] if v.ndim == 0 else v


def check(fn, *inputs, dtype=True):
    """``fn`` traced on tensors gives what ``fn`` gives on NumPy values."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's scalar overflow warning
        want = fn(*[numpy_value(a) for a in inputs])
    got = gc.function(fn)(*[gnp.asarray(a) for a in inputs])
    wants = want if isinstance(want, tuple) else (want,)
    gots = got if isinstance(got, tuple) else (got,)
    assert len(gots) == len(wants)
    for g, w in zip(gots, wants):
        w = np.asarray(w)  # a Python int is int64 and a float float64, as NumPy reads them
        g = np.asarray(g)
        np.testing.assert_array_equal(g, w)
        if dtype:
            assert g.dtype == w.dtype, (g.dtype, w.dtype)


def nodes(fn, *inputs):
    graph = gc.function(fn).get_concrete_function(*[gnp.asarray(a) for a in inputs]).graph
    return [n.op.name for n in graph.nodes]


F64 = [(1.5, -2.5), (2.0, 2.0), (NAN, 1.0), (1.0, NAN), (-0.0, 3.0)]
I32 = [(np.int32(3), np.int32(-7)), (np.int32(5), np.int32(5))]
F32 = [(np.float32(0.25), np.float32(0.5))]


# --------------------------------------------------------------------------- max, min
@pytest.mark.parametrize("a,b", F64 + I32 + F32)
def test_max_min_of_two(a, b):
    check(lambda x, y: (max(x, y), min(x, y), max(y, x), min(y, x)), a, b)


@pytest.mark.parametrize("a,b", F64 + F32)
def test_max_min_of_several_and_python_numbers(a, b):
    # Python returns whichever object wins (a Python float or a float32 scalar); a graph
    # value has one dtype, the promoted one (float32 here): only the values are compared
    check(lambda x, y: (max(x, y, 0.0), min(x, -1.0, y), max([x, y, 0.75]),
                        min((y, x)), max(x, 2.0)), a, b, dtype=type(a) is float)


@pytest.mark.parametrize("a,b", F64 + I32)
def test_max_min_with_key_and_generators(a, b):
    check(lambda x, y: (max(x, y, key=abs), min([x, y], key=lambda v: -v),
                        max(v * 2 for v in (x, y)), min(iter([y, x]))), a, b)


@pytest.mark.parametrize("v", [[1.5, -3.0, 7.25, 0.0], [NAN, 1.0, 2.0], [1.0, NAN, 2.0],
                               [2.0, 1.0, NAN], [5.0]])
def test_max_min_of_a_traced_vector(v):
    check(lambda t: (max(t), min(t)), np.array(v))
    check(lambda t: (max(t), min(t)), np.array(v, np.float32))


@pytest.mark.parametrize("v", [np.array([3, -9, 4], np.int8), np.array([True, False]),
                               np.array([4, 1, 4], np.uint16)])
def test_max_min_of_an_integer_or_bool_vector(v):
    check(lambda t: (max(t), min(t)), v)


def test_max_of_a_vector_is_one_reduction_not_a_loop():
    ops = nodes(lambda t: max(t), np.arange(50.0))
    assert "max" in ops and ops.count("where") <= 2 and "getitem" in ops, ops
    assert len(ops) < 10, ops


def test_max_over_rows_with_a_key():
    check(lambda m: max(m, key=lambda r: r[0] + r[1]), np.array([[1.0, 2.0], [5.0, -1.0]]))
    check(lambda m: min(m, key=lambda r: r.sum()), np.array([[1.0, 2.0], [5.0, -9.0]]))


def test_max_min_errors_match_numpy():
    vec, mat = np.array([1.0, 2.0]), np.ones((2, 2))
    for fn, args in [(lambda x, v: max(x, v), (np.float64(1.0), vec)),
                     (lambda x, v: min(v, v), (np.float64(1.0), vec)),
                     (lambda x, m: max(m), (np.float64(1.0), mat))]:
        with pytest.raises(ValueError, match="truth value of an array with more than one"):
            fn(*args)
        with pytest.raises(ValueError, match="truth value of an array with more than one"):
            gc.function(fn)(*[gnp.asarray(a) for a in args])
    with pytest.raises(TypeError, match="iteration over a 0-d array"):
        max(np.array(1.0))
    with pytest.raises(TypeError, match="iteration over a 0-d array"):
        gc.function(lambda x: max(x))(gnp.asarray(1.0))
    with pytest.raises(TypeError, match="iteration over a 0-d array"):
        gc.function(lambda x: sum(x))(gnp.asarray(1.0))
    with pytest.raises(ValueError, match="empty"):
        gc.function(lambda x: max(x))(gnp.zeros(0))
    # key over rows needs their number while tracing
    f = gc.function(lambda m: max(m, key=lambda r: r[0]),
                    input_signature=[gc.TensorSpec([None, 2], gc.float64)])
    with pytest.raises(AutographError, match="unknown length"):
        f(gnp.ones((2, 2)))


def test_max_default_and_empty_static_vector():
    got = gc.function(lambda x: max(x, default=gnp.asarray(-1.0)))(gnp.zeros(0))
    assert float(got) == -1.0


# --------------------------------------------------------------------------- abs
@pytest.mark.parametrize("a", [-2.5, 3.0, NAN, np.int32(-4), np.int8(-128), np.True_,
                               np.float32(-0.5), np.complex128(3 - 4j)])
def test_abs(a):
    check(lambda x: abs(x), a)


# --------------------------------------------------------------------------- sum
@pytest.mark.parametrize("v", [np.array([1.5, 2.0, -0.25]), np.array([100, 100], np.int8),
                               np.array([True, True, False]), np.ones((3, 2), np.float32),
                               np.array([7], np.uint8), np.arange(6, dtype=np.int16)])
def test_sum_of_a_traced_tensor(v):
    check(lambda t: (sum(t), sum(t, 10), sum(t, start=0.5)), v)


def test_sum_with_a_tensor_start_and_of_lists():
    check(lambda t, s: sum(t, s), np.array([1, 2, 3], np.int8), np.int16(5))
    check(lambda x, y: (sum([x, y]), sum((x, y, 1.5)), sum([x, y], x)), 1.25, -4.0)
    check(lambda x, y: sum([x, y]), np.int32(3), np.int32(9))


def test_sum_of_a_vector_is_one_reduction_not_a_loop():
    ops = nodes(lambda t: sum(t), np.arange(40.0))
    assert ops.count("sum") == 1 and "getitem" not in ops, ops


# --------------------------------------------------------------------------- round
@pytest.mark.parametrize("a", [2.5, 3.5, -2.5, -0.5, 0.49999999999999994, 1e15 + 0.5,
                               np.float32(2.5), np.float32(-7.5), np.float16(2.5),
                               np.int32(7), np.int64(-3), np.uint8(250)])
def test_round_to_an_int(a):
    check(lambda x: round(x), a)


@pytest.mark.parametrize("a", [2.567, -2.5, 1.55, np.float32(2.567), np.float16(0.125),
                               np.int32(17), np.int64(-25), np.uint8(250), np.int8(7)])
@pytest.mark.parametrize("n", [0, 1, 2, -1])
def test_round_with_ndigits(a, n):
    check(lambda x: (round(x, n), round(x, ndigits=n)), a)


def test_round_errors():
    for a, message in [(np.True_, "numpy.bool doesn't define __round__"),
                       (np.complex128(1j), "numpy.complex128 doesn't define __round__"),
                       (np.ones(2), "doesn't define __round__")]:
        with pytest.raises(TypeError, match=message):
            round(a)
        with pytest.raises(TypeError, match=message):
            gc.function(lambda x: round(x))(gnp.asarray(a))
    with pytest.raises(TypeError, match="ndigits must be known while tracing"):
        gc.function(lambda x, n: round(x, n))(gnp.asarray(1.5), gnp.asarray(1))


# --------------------------------------------------------------------------- int, float
@pytest.mark.parametrize("a", [2.7, -2.7, 0.5, -0.5, 1e10, np.float32(-3.9), np.int8(-5),
                               np.uint16(65535), np.True_, np.int64(2**62)])
def test_int_and_float(a):
    check(lambda x: (int(x), float(x)), a)


def test_int_and_float_of_complex_warn_as_numpy():
    with pytest.warns(np.exceptions.ComplexWarning):
        check(lambda x: (int(x), float(x)), np.complex128(2.5 + 1j))


def test_results_stand_for_python_numbers():
    """``int``/``float``/``round`` give Python numbers: weak beside a tensor (NEP 50)."""
    check(lambda x, n: (x * float(n), x + int(n), x - round(n), x * float(n) + max(n, 1)),
          np.float32(1.5), np.int8(3), dtype=False)
    check(lambda x, n: (x * float(n), x + int(n), x - round(n)), np.float32(1.5), np.int8(3))
    check(lambda i, n: (i + int(n), i * round(n)), np.int8(3), 2.5)
    # round(x, n) keeps x's dtype, as a NumPy scalar's round: not weak
    check(lambda x, y: y * round(x, 1), 2.25, np.float32(2.0))


def test_int_float_need_one_value_as_numpy():
    for fn in (int, float):
        with pytest.raises(TypeError, match="only 0-dimensional arrays can be converted"):
            fn(np.ones(2))
        with pytest.raises(TypeError, match="only 0-dimensional arrays can be converted"):
            gc.function(lambda v, fn=fn: fn(v))(gnp.ones(2))
        with pytest.raises(TypeError, match="only 0-dimensional arrays can be converted"):
            gc.function(lambda v, fn=fn: fn(v))(gnp.ones((1, 1)))


def test_int_of_a_traced_value_makes_a_range_and_an_index():
    check(lambda x, v: (v[int(x)], sum(gnp.arange(int(x)))), 2.9, np.arange(5.0))


# --------------------------------------------------------------------------- eager
def test_eager_calls_are_left_to_python():
    a, b = gnp.asarray(1.0), gnp.asarray(2.0)
    for func, args in [(builtins.max, (a, b)), (builtins.min, ([a, b],)),
                       (builtins.sum, (gnp.ones(3),)), (builtins.round, (a,)),
                       (builtins.int, (a,)), (builtins.float, (b,)), (builtins.max, (1, 2))]:
        assert builtin_calls.call(func, args, {}) is NotImplemented
    assert max(a, b) is b and min([a, b]) is a  # Python's own, unchanged
    assert int(b) == 2 and type(int(b)) is int


def test_builtins_inside_tensor_control_flow():
    def f(x, v):
        total = 0.0
        for i in range(3):
            if x > 0:
                total = total + max(v[i], x) - abs(min(v[i], -x))
            else:
                total = total + round(v[i])
        return total, int(total), float(sum(v))

    for x in (0.5, -0.5):
        check(f, x, np.array([1.5, -2.5, 3.0]), dtype=False)
