"""``setitem`` compiled by the Numba backend: static keys, and run-time slice bounds and
scalar indices inside staged loops (no part of the program falls back to Python),
against NumPy running the same code."""

import warnings

import numpy as np
import pytest

import graphc as gc
from graphc.runtime.cpu import numba_cpu
from tests.autograph.test_range_staging import lu  # LU in place, NumPy style

pytestmark = pytest.mark.usefixtures("eager_compile")


def stencil(A, B, steps):
    for _ in range(steps):
        B[1:-1, 1:-1] = (A[:-2, 1:-1] + A[2:, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:]) / 4
        A[...] = B
        A[0, ::2] = -1.0
        A[-1] = B[1] * 2


@pytest.mark.parametrize("program,args", [
    (lu, (np.eye(6) * 4 + np.arange(36.0).reshape(6, 6) / 50,)),
    (stencil, (np.arange(30.0).reshape(5, 6), np.zeros((5, 6)), 20)),
])
def test_compiled_writes_match_numpy_without_fallback(program, args):
    want = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    program(*want)
    got = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    f = gc.function(program)
    with warnings.catch_warnings():
        warnings.simplefilter("error", gc.errors.FallbackWarning)
        f(*got)
    assert f.get_concrete_function(*got).runtime.backend == "numba"
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12)


def test_a_run_time_index_out_of_bounds_raises_numpys_error():
    @gc.function
    def f(a, i):
        a[i] = 1.0
        return a

    with pytest.raises(IndexError):
        f(np.zeros(3), np.array(5))


def masked_pow(x):  # NPBench's N-body: a masked read, a power, a masked write
    x[x > 0] = x[x > 0] ** (-1.5)
    return x


def masked_fill(x, m):
    x[m] = 7
    return x


def masked_rows(x, m, v):
    x[m] = v  # v broadcast to (count, x.shape[1])
    return x


def indexed(x, i, v):
    x[i] = v  # repeated indices: the last write wins, as NumPy's
    return x


def tuple_index(x, i, j):
    x[i] = j  # a (2, 2) index array: the value is broadcast to (2, 2) + x.shape[1:]
    return x


def pair_index(x, i, j, v):
    x[i, j] = v  # row i * x.shape[1] + j of x seen as (rows, inner); NPBench's mandelbrot
    return x


X = np.arange(-6.0, 6.0).reshape(3, 4)
ADVANCED = [
    (masked_pow, (X,)),
    (masked_fill, (np.arange(12).reshape(3, 4), X > 1)),
    (masked_fill, (X.T, (X > 1).T)),  # a non-contiguous target and mask
    (masked_rows, (X, np.array([True, False, True]), np.array([1.0, 2.0, 3.0, 4.0]))),
    (masked_rows, (np.zeros(5, np.int32), np.arange(5) % 2 == 0, np.array([1.5, 2.5, 3.5]))),
    (indexed, (X, np.array([2, -3, 2]), np.arange(12.0).reshape(3, 4))),
    (indexed, (np.zeros(4), np.array([1, 3]), np.float64(-2.0))),
    (tuple_index, (np.zeros((5, 2)), np.array([[0, 4], [-1, 2]]), np.array([[1.0], [2.0]]))),
    (pair_index, (X, np.array([0, 2, -1, 2]), np.array([3, -4, 1, -4]), np.arange(4.0))),
    (pair_index, (np.zeros((3, 4, 2), np.int32), np.array([[1], [2]]), np.array([[0], [3]]),
                  np.array([7.9, -1.0]))),  # (2, 1) indices, rows of 2 values, cast to int
    (pair_index, (X.T.copy(), np.array([1, 1]), np.array([2, 2], np.uint8), np.float64(5))),
]


@pytest.mark.parametrize("program,args", ADVANCED, ids=lambda v: getattr(v, "__name__", ""))
def test_mask_and_index_array_writes_compile_and_match_numpy(program, args):
    want = program(*[np.copy(a) for a in args])
    f = gc.function(program)
    got_args = [np.copy(a) for a in args]
    with warnings.catch_warnings():
        warnings.simplefilter("error", gc.errors.FallbackWarning)
        got = f(*got_args)
    assert f.get_concrete_function(*got_args).runtime.backend == "numba"
    np.testing.assert_array_equal(np.asarray(got), want)
    assert np.asarray(got).dtype == want.dtype
    np.testing.assert_array_equal(got_args[0], want)  # written back into the argument


@pytest.mark.parametrize("program,args,error", [
    (masked_rows, (X, np.array([True, False, True]), np.array([1.0, 2.0, 3.0])), ValueError),
    (masked_fill, (np.zeros(4), np.array([True, False])), IndexError),
    (indexed, (np.zeros(4), np.array([4]), np.float64(1.0)), IndexError),
    (pair_index, (X, np.array([0, 3]), np.array([0, 0]), np.float64(1.0)), IndexError),
    (pair_index, (X, np.array([0, 1]), np.array([-5, 0]), np.float64(1.0)), IndexError),
    (pair_index, (X, np.array([0, 1]), np.array([0, 1, 2]), np.float64(1.0)), IndexError),
])
def test_bad_mask_or_index_writes_raise_numpys_errors(program, args, error):
    with pytest.raises(error):
        program(*[np.copy(a) for a in args])
    # unknown dims, so the compiled program (not the trace) meets the bad sizes
    spec = [gc.TensorSpec([None] * np.ndim(a), np.asarray(a).dtype) for a in args]
    with warnings.catch_warnings(), pytest.raises(error):
        warnings.simplefilter("error", gc.errors.FallbackWarning)
        gc.function(program, input_signature=spec)(*[np.copy(a) for a in args])


def masked_read(x, m):
    return x[m] * 2


@pytest.mark.parametrize("x,m", [
    (X, X > 0.5),                       # 2-D: C order
    (X.T, X.T < -1.5),                  # non-contiguous value and mask
    (np.arange(5, dtype=np.int32), np.zeros(5, bool)),  # nothing selected
])
def test_whole_shape_mask_reads_compile_and_match_numpy(x, m):
    f = gc.function(masked_read)
    with warnings.catch_warnings():
        warnings.simplefilter("error", gc.errors.FallbackWarning)
        got = np.asarray(f(x, m))
    want = masked_read(x, m)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == want.dtype and got.shape == want.shape
    src = numba_cpu.executor_for(f.get_concrete_function(x, m).optimized_graph).program.source
    assert "H.mask_take(" in src and "H.argwhere(" not in src


def test_whole_shape_mask_of_another_size_raises_at_run_time():
    spec = [gc.TensorSpec([None], np.float64), gc.TensorSpec([None], np.bool_)]
    with warnings.catch_warnings(), pytest.raises(IndexError):
        warnings.simplefilter("error", gc.errors.FallbackWarning)
        gc.function(masked_read, input_signature=spec)(np.zeros(4), np.ones(3, bool))
