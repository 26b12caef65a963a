"""Shared by the tests of TensorFlow's top-level names (tests/tf_api) and gc.signal
(tests/signal): value checks against a NumPy/SciPy oracle, eagerly and inside
gc.function, and a compiled run that may not fall back to the interpreter."""

from __future__ import annotations

import numpy as np
import pytest

import graphc as gc
from graphc.runtime.cpu import numba_cpu, runners


def same(got, want, rtol=1e-6, atol=1e-6):
    """``got`` (a tensor, or a list/tuple of them) equals ``want``: same dtype and shape,
    exact for integers and booleans, within tolerance for floats."""
    if isinstance(got, list | tuple):
        assert isinstance(want, list | tuple) and len(got) == len(want), (got, want)
        for g, w in zip(got, want):
            same(g, w, rtol, atol)
        return
    g = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
    w = np.asarray(want)
    assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, g.shape, w.dtype, w.shape)
    if w.dtype.kind in "biu":
        np.testing.assert_array_equal(g, w)
    else:
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


def both(fn, *args, **kwargs):
    """``fn(*args)`` eagerly and inside a fresh ``gc.function`` (the interpreter)."""
    eager = fn(*args, **kwargs)
    traced = gc.function(lambda *a: fn(*a, **kwargs))(*args)
    return eager, traced


def check_both(fn, args, want, **tol):
    """``fn(*args)`` equals ``want`` eagerly and traced."""
    for got in both(fn, *args):
        same(got, want, **tol)


def compiled(monkeypatch, tmp_path, fn, *args):
    """``fn(*args)`` under ``gc.function(jit_compile=True)``, made to compile at once
    and never run on the interpreter; returns the results."""
    monkeypatch.setenv("GRAPHC_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(numba_cpu.settings, "mode", "eager")
    monkeypatch.setattr(numba_cpu.settings, "worker", False)
    f = gc.function(fn, jit_compile=True)
    with monkeypatch.context() as mp:
        mp.setattr(runners, "run_graph", lambda *a: pytest.fail("ran on the interpreter"))
        out = f(*args)
    assert f.get_concrete_function(*args).runtime.backend == "numba"
    return out


def numeric_grad(f, x, eps=1e-6):
    """Central finite differences of the scalar ``f`` (NumPy in, float out) at ``x``."""
    x = np.array(x, dtype=np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        g[i] = (f(up) - f(down)) / (2 * eps)
    return g


def tape_grad(f, x):
    """``d sum(f(x)) / dx`` by ``gc.GradientTape`` (float64)."""
    t = gc.constant(np.asarray(x, np.float64))
    with gc.GradientTape() as tape:
        tape.watch(t)
        y = gc.reduce_sum(f(t))
    return tape.gradient(y, t).numpy()
