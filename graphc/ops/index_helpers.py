"""NumPy's index helpers: ``indices``, ``diag_indices(_from)``, ``tril_indices(_from)``,
``triu_indices(_from)``, ``mask_indices``, ``ravel_multi_index``, ``unravel_index``,
``flatnonzero`` and the in-place ``fill_diagonal``.

Index sets that depend only on sizes are worked out while tracing (sizes must be known)
and become constants; ``ravel_multi_index``/``unravel_index`` are integer arithmetic on
tensors (``mode='raise'`` checks eagerly with NumPy's message, and while tracing with an
``assert`` node that raises ``InvalidArgumentError``, a ``ValueError``, when the graph
runs). ``fill_diagonal`` writes its first argument as ``t[...] = v`` would (``where``
over a constant mask): see docs/mutation.md.
"""

from __future__ import annotations

import operator

import numpy as np

from graphc import source_info
from graphc.core.tensor import Tensor
from graphc.ops.array_helpers import check as _check
from graphc.ops.array_helpers import known, mutate, rank, traced
from graphc.ops.convert import asarray
from graphc.ops.creation import arange
from graphc.ops.gather import nonzero
from graphc.ops.indexing import take
from graphc.ops.join import stack
from graphc.ops.shape import broadcast_to, ravel, reshape
from graphc.ops.ufuncs import clip, floor_divide, logical_and, remainder, where


def _const_indices(arrays):
    return tuple(asarray(np.asarray(a, dtype=np.int64)) for a in arrays)


def indices(dimensions, dtype=int, sparse=False):
    """``np.indices``: a grid of the indices of an array of shape ``dimensions`` (one
    ``(N, *dimensions)`` tensor, or a tuple of broadcastable ones with ``sparse=True``)."""
    dimensions = tuple(operator.index(d) for d in dimensions)
    n = len(dimensions)
    parts = []
    for i, d in enumerate(dimensions):
        line = reshape(arange(d, dtype=dtype), (1,) * i + (d,) + (1,) * (n - i - 1))
        parts.append(line if sparse else broadcast_to(line, dimensions))
    if sparse:
        return tuple(parts)
    if not parts:
        return asarray(np.zeros((0,), np.dtype(dtype)))
    return stack(parts)


def diag_indices(n, ndim=2):
    """``np.diag_indices``: ``ndim`` copies of ``arange(n)``, the index of the main
    diagonal of an ``(n,) * ndim`` array."""
    idx = arange(operator.index(n))
    return (idx,) * ndim


def diag_indices_from(arr):
    """``np.diag_indices_from``: ``diag_indices`` for the (equal) dims of ``arr``."""
    arr = asarray(arr)
    if rank(arr) < 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(arr.shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    if arr.shape[0] is None:
        raise ValueError(f"diag_indices_from: dims must be known while tracing"
                         f"{source_info.where()}")
    return diag_indices(arr.shape[0], rank(arr))


def _triangle(n, k, m, upper: bool):
    n = operator.index(n)
    m = n if m is None else operator.index(m)
    rows, cols = np.arange(n)[:, None], np.arange(m)[None, :]
    keep = cols - rows >= k if upper else cols - rows <= k
    return _const_indices(np.nonzero(keep))


def tril_indices(n, k=0, m=None):
    """``np.tril_indices``: the (row, column) indices of the lower triangle of an
    ``n x m`` array, at and below the ``k``-th diagonal, in row-major order."""
    return _triangle(n, operator.index(k), m, upper=False)


def triu_indices(n, k=0, m=None):
    """``np.triu_indices``: the indices of the upper triangle, at and above the ``k``-th
    diagonal."""
    return _triangle(n, operator.index(k), m, upper=True)


def _from_2d(arr, name):
    arr = asarray(arr)
    if rank(arr) != 2:
        raise ValueError("input array must be 2-d")
    if None in arr.shape:
        raise ValueError(f"{name}: dims must be known while tracing{source_info.where()}")
    return arr.shape


def tril_indices_from(arr, k=0):
    """``np.tril_indices_from``: ``tril_indices`` for the shape of the 2-D ``arr``."""
    r, c = _from_2d(arr, "tril_indices_from")
    return tril_indices(r, k=k, m=c)


def triu_indices_from(arr, k=0):
    """``np.triu_indices_from``: ``triu_indices`` for the shape of the 2-D ``arr``."""
    r, c = _from_2d(arr, "triu_indices_from")
    return triu_indices(r, k=k, m=c)


def mask_indices(n, mask_func, k=0):
    """``np.mask_indices``: the indices where ``mask_func(ones((n, n)), k)`` is nonzero
    (``mask_func`` such as ``gnp.triu`` or ``np.tril``)."""
    mask = mask_func(np.ones((operator.index(n),) * 2, int), k)
    return nonzero(asarray(mask) != 0)


def flatnonzero(a):
    """``np.flatnonzero``: the indices of the nonzero elements of the flattened ``a``
    (of unknown length while tracing)."""
    return nonzero(ravel(asarray(a)))[0]


# --------------------------------------------------------------------------- ravel/unravel
def _modes(mode, n):
    modes = (mode,) * n if isinstance(mode, str) else tuple(mode)
    if len(modes) != n:
        raise ValueError(f"mode must be a string or a sequence of {n} strings")
    for m in modes:
        if m not in ("raise", "wrap", "clip"):
            raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {m!r})")
    return modes


def _int_index(x, message):
    x = x if isinstance(x, Tensor) else asarray(np.asarray(x))
    if x.dtype.kind not in "iu":
        raise TypeError(message)
    return x


def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    """``np.ravel_multi_index``: flat indices (int64) of the coordinate arrays
    ``multi_index`` in an array of shape ``dims``; ``mode`` ``'raise'``, ``'wrap'`` or
    ``'clip'`` (one, or one per dim), ``order`` ``'C'`` or ``'F'``."""
    dims = (operator.index(dims),) if np.ndim(dims) == 0 else tuple(
        operator.index(d) for d in dims)
    coords = list(multi_index)
    if len(coords) != len(dims):
        raise ValueError(f"parameter multi_index must be a sequence of length {len(dims)}")
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    modes = _modes(mode, len(dims))
    strides = np.ones(len(dims), np.int64)
    walk = range(len(dims) - 2, -1, -1) if order == "C" else range(1, len(dims))
    for i in walk:
        j = i + 1 if order == "C" else i - 1
        strides[i] = strides[j] * dims[j]
    if np.prod(dims, dtype=np.float64) > np.iinfo(np.int64).max:
        raise ValueError("invalid dims: array size defined by dims is larger than the "
                         "maximum possible size.")
    total = None
    for c, d, m, s in zip(coords, dims, modes, strides):
        c = _int_index(c, "only int indices permitted").astype(np.int64)
        if m == "wrap":
            c = remainder(c, d) if d else c
        elif m == "clip":
            c = clip(c, 0, max(d - 1, 0))
        else:
            _check(logical_and(c >= 0, c < d), "invalid entry in coordinates array")
        term = c * int(s)
        total = term if total is None else total + term
    return total


def unravel_index(indices, shape, order="C"):
    """``np.unravel_index``: a tuple of coordinate arrays (int64) for the flat
    ``indices`` in an array of ``shape``."""
    shape = (operator.index(shape),) if np.ndim(shape) == 0 else tuple(
        operator.index(d) for d in shape)
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    flat = _int_index(indices, "only int indices permitted").astype(np.int64)
    size = int(np.prod(shape, dtype=np.int64))
    if not traced(flat):
        bad = known(flat)[(known(flat) < 0) | (known(flat) >= size)]
        if bad.size:
            raise ValueError(f"index {int(bad.ravel()[0])} is out of bounds for array with "
                             f"size {size}")
    else:
        _check(logical_and(flat >= 0, flat < size), "index out of bounds for array with "
               f"size {size}")
    out = [None] * len(shape)
    rest = flat
    walk = range(len(shape) - 1, -1, -1) if order == "C" else range(len(shape))
    for i in walk:
        d = shape[i]
        out[i] = remainder(rest, d)
        rest = floor_divide(rest, d)
    return tuple(out)


# --------------------------------------------------------------------------- fill_diagonal
def fill_diagonal(a, val, wrap=False):
    """``np.fill_diagonal``: writes ``val`` (repeated as needed) into the main diagonal
    of ``a`` (2-D, or all dims equal), in place; ``wrap=True`` continues a tall 2-D
    array's diagonal below its first square. Returns None."""
    if not isinstance(a, Tensor | np.ndarray):
        raise TypeError(f"fill_diagonal writes into an ndarray or a tensor, not "
                        f"{type(a).__name__}")
    shape = a.shape
    if len(shape) < 2:
        raise ValueError("array must be at least 2-d")
    if None in shape:
        raise ValueError(f"fill_diagonal: dims must be known while tracing"
                         f"{source_info.where()}")
    end = None
    if len(shape) == 2:
        step = shape[1] + 1
        if not wrap:
            end = shape[1] * shape[1]
    else:
        if len(set(shape)) != 1:
            raise ValueError("All dimensions of input must be of equal length")
        step = 1 + int(np.cumprod(shape[:-1]).sum())
    size = int(np.prod(shape))
    pos = np.arange(size)[:end:step]
    vals = ravel(val if isinstance(val, Tensor) else asarray(np.asarray(val)))
    count = vals.shape[0]
    if count is None:
        raise ValueError(f"fill_diagonal: the number of values must be known while tracing"
                         f"{source_info.where()}")
    if count == 0 or pos.size == 0:
        return None
    mask = np.zeros(size, bool)
    mask[pos] = True
    which = np.zeros(size, np.int64)
    which[pos] = np.arange(pos.size) % count
    which = which.reshape(shape)
    mask = mask.reshape(shape)
    mutate(a, lambda src: where(mask, take(vals.astype(src.dtype), which), src),
           "fill_diagonal")
    return None


__all__ = ["diag_indices", "diag_indices_from", "fill_diagonal", "flatnonzero", "indices",
           "mask_indices", "ravel_multi_index", "tril_indices", "tril_indices_from",
           "triu_indices", "triu_indices_from", "unravel_index"]
