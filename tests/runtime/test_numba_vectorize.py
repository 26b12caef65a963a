"""gc.vectorized_map and gc.map_fn compiled by the Numba backend: the batched graph (and
the fallback loop, a while_loop writing a TensorArray) runs natively (backend "numba",
no FallbackWarning) and gives what stacking the function over the slices gives."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.runtime.cpu import numba_cpu

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
        tiled = gc.vectorized_map(lambda r: gnp.trace(gnp.outer(r, r)) * 2.0, x)
        return tiled, gc.map_fn(lambda r: gnp.sum(r * r), x)

    tiled, sums = _compiled(fn, X)
    np.testing.assert_allclose(tiled, np.sum(X * X, axis=1) * 2.0)
    np.testing.assert_allclose(sums, np.sum(X * X, axis=1))


def _control(row, w):
    if gnp.sum(row) > 0:  # a per-example predicate: both branches, then where
        row = gnp.tanh(row @ w)
    else:
        row = row[:3] * 2.0
    n = 0
    while gnp.sum(row) < 3.0:  # a per-example condition: masked loop
        row = row + 0.5
        n += 1
    return row, n


def test_per_example_if_and_while_compile_natively():
    got, n = _compiled(lambda x, w: gc.vectorized_map(lambda r: _control(r, w), x), X, W)
    want = [_control(gc.constant(X[i]), gc.constant(W)) for i in range(6)]
    np.testing.assert_allclose(got, np.stack([np.asarray(r) for r, _ in want]), rtol=1e-12)
    np.testing.assert_array_equal(n, [int(k) for _, k in want])
