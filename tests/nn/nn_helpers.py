"""Shared helpers of the gc.nn tests: NumPy oracles written as plain loops, finite
differences, and value comparison."""

from __future__ import annotations

import itertools

import numpy as np

import graphc as gc


def same(got, want, rtol=1e-12, atol=0.0):
    """``got`` (a tensor) equals ``want`` in dtype, shape and value."""
    got = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    if want.dtype.kind in "iub":
        assert got.dtype == want.dtype, (got.dtype, want.dtype)
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)


def traced(fn, *args, **kw):
    """``fn`` run inside a ``gc.function`` (interpreter)."""
    return gc.function(lambda *a: fn(*a, **kw))(*args)


def grad(fn, x, *rest):
    """``d sum(fn(x) * w) / dx`` by the tape, with a fixed random weight ``w``."""
    t = gc.constant(x)
    with gc.GradientTape() as tape:
        tape.watch(t)
        y = fn(t, *rest)
        w = np.random.default_rng(1).standard_normal(y.shape)
        loss = gc.reduce_sum(y * w)
    return tape.gradient(loss, t).numpy(), w


def fd_grad(fn, x, w, *rest, eps=1e-6):
    """The same gradient by central differences (float64 ``x``)."""
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        xp, xm = x.copy(), x.copy()
        xp[idx] += eps
        xm[idx] -= eps
        fp = np.sum(fn(xp, *rest).numpy() * w)
        fm = np.sum(fn(xm, *rest).numpy() * w)
        g[idx] = (fp - fm) / (2 * eps)
    return g


def check_grad(fn, x, *rest, rtol=1e-6, atol=1e-8):
    g, w = grad(fn, x, *rest)
    np.testing.assert_allclose(g, fd_grad(fn, x, w, *rest), rtol=rtol, atol=atol)


# --------------------------------------------------------------------------- oracles
def conv_loops(x, w, strides, dilations, pads, groups=1):
    """Channels-last N-D convolution (cross-correlation) by nested loops; ``pads`` are
    ``(before, after)`` per spatial dim."""
    n = x.ndim - 2
    xp = np.pad(x, [(0, 0)] + list(pads) + [(0, 0)])
    ks = w.shape[:n]
    cin, cout = w.shape[n], w.shape[n + 1]
    outs = [(xp.shape[1 + i] - (ks[i] - 1) * dilations[i] - 1) // strides[i] + 1
            for i in range(n)]
    og = cout // groups
    out = np.zeros((x.shape[0], *outs, cout))
    for b in range(x.shape[0]):
        for o in itertools.product(*[range(v) for v in outs]):
            for k in itertools.product(*[range(v) for v in ks]):
                pos = tuple(o[i] * strides[i] + k[i] * dilations[i] for i in range(n))
                for co in range(cout):
                    g = co // og
                    for ci in range(cin):
                        out[(b, *o, co)] += xp[(b, *pos, g * cin + ci)] * w[(*k, ci, co)]
    return out


def conv_transpose_loops(x, w, out_spatial, strides, dilations, pads):
    """The transposed convolution by scattering each input element (``w`` is
    ``[k..., out, in]``); ``pads`` are the forward convolution's."""
    n = x.ndim - 2
    ks = w.shape[:n]
    full = [out_spatial[i] + pads[i][0] + pads[i][1] for i in range(n)]
    y = np.zeros((x.shape[0], *full, w.shape[n]))
    for b in range(x.shape[0]):
        for o in itertools.product(*[range(v) for v in x.shape[1:1 + n]]):
            for k in itertools.product(*[range(v) for v in ks]):
                pos = tuple(o[i] * strides[i] + k[i] * dilations[i] for i in range(n))
                if all(p < f for p, f in zip(pos, full)):
                    y[(b, *pos)] += w[k] @ x[(b, *o)]
    key = tuple(slice(pads[i][0], pads[i][0] + out_spatial[i]) for i in range(n))
    return y[(slice(None), *key)]


def pool_loops(x, ks, strides, pads, kind):
    """Channels-last pooling by loops over the windows (padding takes no part)."""
    n = x.ndim - 2
    sizes = x.shape[1:1 + n]
    outs = [(sizes[i] + pads[i][0] + pads[i][1] - ks[i]) // strides[i] + 1 for i in range(n)]
    out = np.zeros((x.shape[0], *outs, x.shape[-1]), x.dtype)
    for o in itertools.product(*[range(v) for v in outs]):
        key = []
        for i in range(n):
            start = o[i] * strides[i] - pads[i][0]
            key.append(slice(max(start, 0), min(start + ks[i], sizes[i])))
        win = x[(slice(None), *key, slice(None))].reshape(x.shape[0], -1, x.shape[-1])
        out[(slice(None), *o)] = win.max(1) if kind == "MAX" else win.mean(1)
    return out


def same_pads(sizes, ks, strides, dilations=None):
    """TensorFlow's "SAME" ``(before, after)`` pads."""
    dilations = dilations or [1] * len(sizes)
    pads = []
    for i, k, s, d in zip(sizes, ks, strides, dilations):
        o = -(-i // s)
        total = max((o - 1) * s + (k - 1) * d + 1 - i, 0)
        pads.append((total // 2, total - total // 2))
    return pads
