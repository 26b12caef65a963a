"""``np.tri``, ``np.triu``, ``np.tril``: lower/upper triangles, built from ``arange``
comparisons and ``where`` (no op of their own: their gradient, batching and kernels are
those of the ops they use)."""

from __future__ import annotations

import numpy as np

from graphc import source_info
from graphc.ops.convert import asarray
from graphc.ops.creation import arange
from graphc.ops.ufuncs import where


def _mask(n: int, m: int, k: int):
    """``[i, j] -> j - i <= k`` over an ``n x m`` grid (``np.tri``'s ones)."""
    return arange(m)[None, :] - arange(n)[:, None] <= k


def tri(N, M=None, k=0, dtype=float):
    """``np.tri``: an ``N x M`` array with ones at and below the ``k``-th diagonal."""
    mask = _mask(int(N), int(N if M is None else M), int(k))
    return mask.astype(np.dtype(dtype))


def _last_two(m, name: str):
    shape = m.shape
    if len(shape) < 2 or shape[-1] is None or shape[-2] is None:
        raise ValueError(f"{name} needs the last two dims known (got shape {shape})"
                         f"{source_info.where()}")
    return shape[-2], shape[-1]


def tril(m, k=0):
    """``np.tril``: ``m`` with the elements above the ``k``-th diagonal zeroed."""
    m = asarray(m)
    n, c = _last_two(m, "tril")
    return where(_mask(n, c, int(k)), m, np.zeros((), m.dtype))


def triu(m, k=0):
    """``np.triu``: ``m`` with the elements below the ``k``-th diagonal zeroed."""
    m = asarray(m)
    n, c = _last_two(m, "triu")
    return where(_mask(n, c, int(k) - 1), np.zeros((), m.dtype), m)
