"""Shared by the ``gnp.linalg`` tests (test_linalg_*.py): sample matrices, NumPy
comparison with the documented tolerances, a finite-difference gradient, and the Numba
settings that compile on the first call."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

import graphc as gc
from graphc.runtime.cpu import numba_cpu

RNG = np.random.default_rng(7)


def spd(n, batch=(), dtype=np.float64):
    """Symmetric (Hermitian) positive definite matrices."""
    x = RNG.normal(size=batch + (n, n))
    if np.dtype(dtype).kind == "c":
        x = x + 1j * RNG.normal(size=batch + (n, n))
    return (x @ np.conj(np.swapaxes(x, -1, -2)) + n * np.eye(n)).astype(dtype)


def tall(shape, dtype=np.float64):
    """Random (full-rank) matrices of any shape."""
    x = RNG.normal(size=shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * RNG.normal(size=shape)
    return x.astype(dtype)


def tol(dtype):
    """float64/complex128: 1e-12 relative (the interpreter is NumPy; compiled float64 is
    LAPACK's result); float32/complex64: 1e-5."""
    return 1e-5 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-12


def close(got, want):
    got = got.numpy() if isinstance(got, gc.Tensor) else np.asarray(got)
    want = np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape,
                                                                 want.dtype, want.shape)
    t = tol(want.dtype)
    np.testing.assert_allclose(got, want, rtol=t, atol=t)


def numeric_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[idx] += eps
        down[idx] -= eps
        g[idx] = (f(up) - f(down)) / (2 * eps)
    return g


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
