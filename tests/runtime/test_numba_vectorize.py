"""gc.vectorized_map and gc.map_fn compiled by the Numba backend: the batched graph (and
the fallback loop, a while_loop writing a TensorArray) runs natively (backend "numba",
no FallbackWarning) and gives what stacking the function over the slices gives."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.runtime import numba_cpu

pytestmark = pytest.mark.usefixtures("eager_compile")

RNG = np.random.default_rng(1)
X = RNG.standard_normal((6, 4)).astype(np.float64)
W = RNG.standard_normal((4, 3)).astype(np.float64)


def _compiled(fn, *args):
    f = gc.function(fn)
    with warnings.catch_warnings():
        warnings.simplefilter("error", numba_cpu.FallbackWarning)
        warnings.simplefilter("ignore", gc.errors.VectorizationWarning)
        out = f(*args)
        runtime = f.get_concrete_function(*args).runtime
    assert runtime.backend == "numba", runtime.explain()
    return out


def _example(row, w):
    return gnp.sum(gnp.tanh(row @ w) ** 2) + gnp.max(row)


def test_vectorized_map_compiles_natively():
    got = _compiled(lambda x, w: gc.vectorized_map(lambda r: _example(r, w), x), X, W)
    want = np.array([np.sum(np.tanh(X[i] @ W) ** 2) + X[i].max() for i in range(6)])
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_fallback_loop_and_map_fn_compile_natively():
    def fn(x):
        tiled = gc.vectorized_map(lambda r: gnp.tile(r, 2) * 2.0, x)
        return tiled, gc.map_fn(lambda r: gnp.sum(r * r), x)

    tiled, sums = _compiled(fn, X)
    np.testing.assert_allclose(tiled, np.tile(X, 2) * 2.0)
    np.testing.assert_allclose(sums, np.sum(X * X, axis=1))
