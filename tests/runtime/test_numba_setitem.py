"""``setitem`` compiled by the Numba backend: static keys, and run-time slice bounds and
scalar indices inside staged loops (no part of the program falls back to Python),
against NumPy running the same code."""

import warnings

import numpy as np
import pytest

import graphc as gc
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
