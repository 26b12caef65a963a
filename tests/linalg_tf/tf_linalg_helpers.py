"""Shared by the ``gc.linalg`` tests: both ways a name runs (eagerly and inside a
``gc.function`` on the reference interpreter), a NumPy comparison, a finite-difference
gradient, and the Numba settings that compile on the first call."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

import graphc as gc
from graphc.runtime.cpu import numba_cpu

RNG = np.random.default_rng(11)


def both(fn, *args):
    """``fn(*args)`` eagerly and traced (interpreter), as NumPy values (nests kept)."""
    eager = fn(*args)
    traced = gc.function(fn, backend="numpy")(*args)
    return as_np(eager), as_np(traced)


def as_np(x):
    if isinstance(x, tuple | list):
        return type(x)(as_np(v) for v in x) if not hasattr(x, "_fields") else tuple(
            as_np(v) for v in x)
    return x.numpy() if isinstance(x, gc.Tensor) else np.asarray(x)


def close(got, want, rtol=None, exact_dtype=True):
    got, want = np.asarray(got), np.asarray(want)
    if exact_dtype:
        assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    if rtol is None:
        rtol = 1e-5 if want.dtype in (np.float32, np.complex64) else 1e-10
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol)


def check_both(fn, args, want, rtol=None):
    for got in both(fn, *args):
        if isinstance(want, tuple | list):
            for g, w in zip(got, want):
                close(g, w, rtol)
        else:
            close(got, want, rtol)


def numeric_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[idx] += eps
        down[idx] -= eps
        g[idx] = (f(up) - f(down)) / (2 * eps)
    return g


def tape_grad(fn, x, seed):
    """``d sum(seed * fn(x)) / dx`` through gc.GradientTape."""
    t = gc.constant(x)
    with gc.GradientTape() as tape:
        tape.watch(t)
        y = fn(t)
    return tape.gradient(y, t, output_gradients=gc.constant(seed)).numpy()


@contextlib.contextmanager
def compiling(cache_dir):
    """Programs compile on their first call, into ``cache_dir``, in this process."""
    mp = pytest.MonkeyPatch()
    mp.setenv("GRAPHC_CACHE_DIR", str(cache_dir))
    mp.setattr(numba_cpu.settings, "mode", "eager")
    mp.setattr(numba_cpu.settings, "worker", False)
    try:
        yield
    finally:
        mp.undo()


def tri(n, lower=True, batch=(), dtype=np.float64):
    """A well-conditioned triangular matrix (garbage in the other triangle, which the
    solvers must not read)."""
    x = RNG.uniform(-1, 1, batch + (n, n)) + n * np.eye(n)
    return x.astype(dtype)


def general(shape, dtype=np.float64):
    return (RNG.uniform(-1, 1, shape) + shape[-1] * np.eye(shape[-1])).astype(dtype)
