"""``gc.nn.isotonic_regression``: the pool-adjacent-violators solution as a composition.

The least-squares monotone fit has a closed form (the "min-max" formula): for a
non-increasing fit, ``out[i] = min_{j <= i} max_{k >= i} mean(y[j..k])``; for a
non-decreasing one, ``max_{j <= i} min_{k >= i} mean(y[j..k])``. All window means
come from one cumulative sum, so the whole fit is a masked min/max over an
``(n, n, n)`` tensor per row (no data-dependent loop), and the gradient (each output is
the mean of its block) comes from the ops used.
"""

from __future__ import annotations

import numpy as np

from graphc.ops import nn_namespaces as _ns

_SMALL_INTS = (np.int8, np.int16, np.uint8, np.uint16)


def _out_dtype(dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return dtype
    if dtype.kind in "iu":
        return np.dtype(np.float32) if dtype.type in _SMALL_INTS else np.dtype(np.float64)
    raise TypeError(f"isotonic_regression: inputs must be real numbers, got {dtype}")


def isotonic_regression(inputs, decreasing=True, axis=-1, name=None):
    """``tf.nn.isotonic_regression``: the monotone least-squares fit along ``axis``.

    Returns ``(output, segments)``: ``output`` (float; float32 for 8/16-bit integer
    inputs, float64 for 32/64-bit ones, else the input dtype) is non-increasing along
    ``axis`` when ``decreasing`` (TensorFlow's default), non-decreasing otherwise;
    ``segments`` (int32) numbers the blocks of equal fitted value ``0, 1, ...`` along the
    axis. Adjacent blocks whose means are equal count as one block, as TensorFlow's
    pool-adjacent-violators merges them. Memory is ``O(n**3)`` per row (``n`` the
    length along ``axis``), meant for the short rows this is used on.
    """
    gc, gnp = _ns.GC, _ns.GNP

    x = gc.convert_to_tensor(inputs)
    rank = len(x.shape)
    if rank == 0:
        raise ValueError("isotonic_regression: inputs must have rank >= 1")
    ax = int(axis)
    if not -rank <= ax < rank:
        raise ValueError(f"isotonic_regression: axis {axis} out of range for rank {rank}")
    ax %= rank
    n = x.shape[ax]
    if n is None:
        raise ValueError("isotonic_regression: the length along axis must be known "
                         "while tracing")
    dtype = _out_dtype(x.dtype)
    y = gnp.moveaxis(gc.cast(x, dtype), ax, -1)
    if n == 0:
        out = y
        seg = gc.cast(y, np.int32)
    else:
        front = [(0, 0)] * (rank - 1) + [(1, 0)]
        cs = gnp.pad(gnp.cumsum(y, axis=-1), front)
        idx = np.arange(n)
        width = (idx[None, :] - idx[:, None] + 1).astype(dtype)      # (j, k): k - j + 1
        ok = idx[None, :] >= idx[:, None]
        safe_w = np.where(ok, width, 1).astype(dtype)
        means = (cs[..., None, 1:] - cs[..., :-1, None]) / safe_w       # (..., j, k)
        # (j, i, k): j <= i <= k
        inside = (idx[:, None, None] <= idx[None, :, None]) & \
                 (idx[None, :, None] <= idx[None, None, :])
        big = np.asarray(np.inf, dtype)
        m = means[..., :, None, :]
        if decreasing:
            inner = gnp.max(gnp.where(inside, m, -big), axis=-1)      # (..., j, i)
            inner = gnp.where(ok, inner, big)
            out = gnp.min(inner, axis=-2)
        else:
            inner = gnp.min(gnp.where(inside, m, big), axis=-1)
            inner = gnp.where(ok, inner, -big)
            out = gnp.max(inner, axis=-2)
        step = gc.cast(gc.stop_gradient(out[..., 1:] != out[..., :-1]), np.int32)
        seg = gc.cast(gnp.pad(gnp.cumsum(step, axis=-1), front), np.int32)
    return gnp.moveaxis(out, -1, ax), gnp.moveaxis(seg, -1, ax)
