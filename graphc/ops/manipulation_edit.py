"""``np.append``, ``np.delete``, ``np.insert``, ``np.resize``: new arrays with elements
added, removed or repeated, built from ``concatenate``, ``take`` and ``broadcast_to``
(no op of their own: gradients, batching and compiled kernels are those of the ops used).

Where the positions are known while tracing (Python/NumPy values, eager tensors), they are
worked out on the positions alone, with NumPy's rules and errors, and the data is moved
by one ``take``. A traced ``delete`` index or mask removes by a mask and ``argwhere``
(the length is then unknown, except for one scalar index); a traced scalar ``insert``
index places the values by index arithmetic.
"""

from __future__ import annotations

import operator

import numpy as np

from graphc import source_info
from graphc.core.tensor import Tensor
from graphc.ops.array_helpers import dims, known, norm_axis, rank
from graphc.ops.convert import asarray
from graphc.ops.creation import arange, ones, zeros
from graphc.ops.gather import argwhere
from graphc.ops.indexing import take
from graphc.ops.join import concatenate
from graphc.ops.shape import broadcast_to, moveaxis, ravel, reshape
from graphc.ops.ufuncs import logical_not, where


def _strong(x):
    """NumPy's ``asarray`` of a function argument (Python numbers are not weak here)."""
    return x if isinstance(x, Tensor) else asarray(np.asarray(x))


def append(arr, values, axis=None):
    """``np.append``: ``values`` joined after ``arr`` along ``axis`` (both flattened
    when ``axis`` is None)."""
    arr, values = _strong(arr), _strong(values)
    if axis is None:
        if rank(arr) != 1:
            arr = ravel(arr)
        values = ravel(values)
        axis = 0
    return concatenate([arr, values], axis=axis)


def _flat_axis(arr, axis):
    arr = _strong(arr)
    if axis is None:
        return (ravel(arr) if rank(arr) != 1 else arr), 0
    return arr, norm_axis(axis, rank(arr))


# --------------------------------------------------------------------------- delete
def delete(arr, obj, axis=None):
    """``np.delete``: ``arr`` without the entries ``obj`` (an index, a slice, indices or
    a boolean mask) along ``axis`` (of the flattened array when ``axis`` is None)."""
    arr, axis = _flat_axis(arr, axis)
    n = arr.shape[axis]
    where_known = known(obj) if isinstance(obj, Tensor) else obj
    if where_known is not None and n is not None:
        line = np.arange(n).reshape([n if i == axis else 1 for i in range(rank(arr))])
        keep = np.delete(line, where_known, axis=axis).ravel()
        return take(arr, keep.astype(np.int64), axis=axis)
    if isinstance(obj, slice) or not isinstance(obj, Tensor):
        obj = obj if isinstance(obj, slice) else asarray(np.asarray(obj))
    elif obj.dtype.kind not in "iub":
        raise IndexError("arrays used as indices must be of integer (or boolean) type")
    size = dims(arr)[axis]
    if isinstance(obj, Tensor) and obj.shape == () and obj.dtype.kind != "b" and n is not None:
        at = obj.astype(np.int64)
        at = where(at < 0, at + n, at)
        idx = arange(max(n - 1, 0))
        return take(arr, idx + (idx >= at).astype(np.int64), axis=axis)
    if isinstance(obj, Tensor) and obj.dtype.kind == "b":
        keep = logical_not(obj)
    else:
        keep = ones([size], dtype=np.bool_)
        keep[obj] = False
    return take(arr, argwhere(keep)[:, 0], axis=axis)


# --------------------------------------------------------------------------- insert
def _insert_indices(obj, n, axis):
    """NumPy's reading of ``insert``'s ``obj``: (indices, scalar or not)."""
    if isinstance(obj, slice):
        return np.arange(*obj.indices(n), dtype=np.intp)
    indices = np.array(obj)
    if indices.dtype == bool:
        if indices.ndim != 1:
            raise ValueError("boolean array argument obj to insert must be one dimensional")
        return np.flatnonzero(indices)
    if indices.ndim > 1:
        raise ValueError("index array argument obj to insert must be one dimensional or "
                         "scalar")
    if indices.size == 0 and not isinstance(obj, np.ndarray):
        indices = indices.astype(np.intp)
    if indices.dtype.kind not in "iu":
        raise IndexError("arrays used as indices must be of integer (or boolean) type")
    return indices


def _values_block(values, arr, axis, scalar_index: bool):
    """``values`` cast to ``arr``'s dtype and shaped as NumPy's single-index insert
    shapes them (at least ``arr``'s rank, the first axis moved to ``axis`` for a
    scalar index)."""
    values = _strong(values).astype(arr.dtype)
    nd = rank(arr)
    for _ in range(nd - rank(values)):
        values = values[None]
    if scalar_index:
        values = moveaxis(values, 0, axis)
    return values


def _fill(values, arr, axis, count):
    shape = dims(arr)
    shape[axis] = count
    return broadcast_to(values, shape)


def insert(arr, obj, values, axis=None):
    """``np.insert``: ``values`` inserted before the indices ``obj`` along ``axis`` (of
    the flattened array when ``axis`` is None), cast to ``arr``'s dtype."""
    arr, axis = _flat_axis(arr, axis)
    n = arr.shape[axis]
    if isinstance(obj, Tensor) and known(obj) is None:
        return _insert_traced(arr, obj, values, axis)
    if n is None:
        raise ValueError(f"insert: the length of axis {axis} must be known while tracing"
                         f"{source_info.where()}")
    indices = _insert_indices(known(obj) if isinstance(obj, Tensor) else obj, n, axis)
    if indices.size == 1:
        index = int(indices.item())
        if index < -n or index > n:
            raise IndexError(f"index {obj} is out of bounds for axis {axis} with size {n}")
        index += n if index < 0 else 0
        block = _values_block(values, arr, axis, indices.ndim == 0)
        count = block.shape[axis]
        if count is None:
            raise ValueError(f"insert: the number of values must be known while tracing"
                             f"{source_info.where()}")
        key = [slice(None)] * rank(arr)
        before, after = list(key), list(key)
        before[axis], after[axis] = slice(None, index), slice(index, None)
        parts = [arr[tuple(before)], _fill(block, arr, axis, count), arr[tuple(after)]]
        return concatenate(parts, axis=axis)
    indices = indices.astype(np.intp)
    if indices.size and (indices.min() < -n or indices.max() > n):
        bad = indices[(indices < -n) | (indices > n)][0]
        raise IndexError(f"index {bad} is out of bounds for axis {axis} with size {n}")
    indices = np.where(indices < 0, indices + n, indices)
    count = len(indices)
    order = np.argsort(indices, kind="stable")
    placed = indices.copy()
    placed[order] += np.arange(count)
    perm = np.empty(n + count, np.int64)
    old = np.ones(n + count, bool)
    old[placed] = False
    perm[placed] = n + np.arange(count)
    perm[old] = np.arange(n)
    vals = _fill(_strong(values).astype(arr.dtype), arr, axis, count)
    return take(concatenate([arr, vals], axis=axis), perm, axis=axis)


def _insert_traced(arr, obj, values, axis):
    if obj.shape != () or obj.dtype.kind not in "iu":
        raise ValueError("insert: a traced obj must be one integer index; pass indices "
                         f"known while tracing for more{source_info.where()}")
    n = arr.shape[axis]
    if n is None:
        raise ValueError(f"insert: the length of axis {axis} must be known while tracing"
                         f"{source_info.where()}")
    block = _values_block(values, arr, axis, True)
    count = block.shape[axis]
    at = obj.astype(np.int64)
    at = where(at < 0, at + n, at)
    pos = arange(n + count)
    perm = where(pos < at, pos, where(pos < at + count, n + pos - at, pos - count))
    return take(concatenate([arr, _fill(block, arr, axis, count)], axis=axis), perm,
                axis=axis)


# --------------------------------------------------------------------------- resize
def resize(a, new_shape):
    """``np.resize``: ``a`` flattened, repeated as often as needed, cut to the size of
    ``new_shape`` and reshaped (zeros when either is empty)."""
    if isinstance(new_shape, int | np.integer):
        new_shape = (new_shape,)
    new_shape = tuple(operator.index(d) for d in new_shape)
    total = 1
    for d in new_shape:
        total *= d
        if d < 0:
            raise ValueError("all elements of `new_shape` must be non-negative")
    flat = ravel(_strong(a))
    size = flat.shape[0]
    if size == 0 or total == 0:
        return zeros(new_shape, dtype=flat.dtype)
    if size is None:
        return reshape(take(flat, arange(total) % dims(flat)[0]), new_shape)
    repeats = -(-total // size)
    return reshape(concatenate([flat] * repeats, axis=0)[:total], new_shape)
