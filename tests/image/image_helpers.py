"""Shared helpers of the gc.image tests: value comparison, running inside a
gc.function, finite differences."""

from __future__ import annotations

import numpy as np

import graphc as gc

RNG = np.random.default_rng(11)


def img(*shape, dtype=np.float32):
    """A random image in [0, 1)."""
    return RNG.random(shape).astype(dtype)


def same(got, want, rtol=1e-6, atol=1e-6):
    """``got`` (a tensor) equals ``want`` in shape and value (dtype and exact values for
    integers)."""
    got = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    if want.dtype.kind in "iub":
        assert got.dtype == want.dtype, (got.dtype, want.dtype)
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def both(fn, *args, **kw):
    """``fn(*args)`` eagerly and inside a ``gc.function`` (the interpreter)."""
    return fn(*args, **kw), gc.function(lambda *a: fn(*a, **kw))(*args)


def check_grad(fn, x, rtol=1e-5, atol=1e-7, eps=1e-6, f32=False):
    """The tape's gradient of ``sum(fn(x) * w)`` against central differences (float64
    ``x``; where ``fn`` computes in float32, as TensorFlow's resizes do, a wider step and
    tolerance)."""
    x = np.asarray(x, np.float64)
    t = gc.constant(x)
    with gc.GradientTape() as tape:
        tape.watch(t)
        y = fn(t)
        if f32 or y.dtype == np.float32:
            eps, rtol, atol = 1e-3, max(rtol, 5e-3), max(atol, 5e-4)
        w = np.random.default_rng(1).standard_normal(y.shape)
        loss = gc.reduce_sum(y * w)
    g = tape.gradient(loss, t).numpy()
    fd = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        xp, xm = x.copy(), x.copy()
        xp[idx] += eps
        xm[idx] -= eps
        fd[idx] = (np.sum(fn(gc.constant(xp)).numpy() * w)
                   - np.sum(fn(gc.constant(xm)).numpy() * w)) / (2 * eps)
    np.testing.assert_allclose(g, fd, rtol=rtol, atol=atol)
