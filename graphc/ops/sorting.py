"""``np.partition``, ``np.argpartition``, ``np.lexsort``, ``np.sort_complex``: built
from the stable ``sort``/``argsort`` ops and ``take_along_axis`` (no op of their own).

``partition``/``argpartition`` return the fully sorted array (its stable ``argsort``):
a valid partition for every ``kth`` (NumPy leaves the order inside each part
unspecified, so its own arrays differ in that order).
"""

from __future__ import annotations

import operator

import numpy as np

from graphc.ops.array_helpers import norm_axis, rank, strong
from graphc.ops.indexing import take_along_axis
from graphc.ops.shape import argsort, ravel, sort


def _check_kth(a, kth, axis, name):
    if axis is None:
        a, axis = ravel(a), 0
    n = rank(a)
    if n == 0:
        raise np.exceptions.AxisError(axis, 0)
    axis = norm_axis(axis, n)
    size = a.shape[axis]
    kths = np.asarray(kth)
    if kths.dtype.kind not in "iu":
        raise TypeError("Partition index must be integer")
    if kths.ndim > 1:
        raise ValueError("kth array must have dimension <= 1")
    if size is not None:
        for k in kths.ravel():
            if not -size <= int(k) < size:
                raise ValueError(f"kth(={int(k)}) out of bounds ({size})")
    return a, axis


def _no_order(order):
    if order is not None:
        raise ValueError("Cannot specify order when the array has no fields.")


def partition(a, kth, axis=-1, kind="introselect", order=None):
    """``np.partition``: ``a`` rearranged so that each ``kth`` element is where a sort
    puts it, smaller ones before, larger after (here: fully sorted along ``axis``;
    ``axis=None`` flattens)."""
    _no_order(order)
    a, axis = _check_kth(strong(a), kth, axis, "partition")
    return sort(a, axis=axis)


def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    """``np.argpartition``: the indices that ``partition`` ``a`` (here: its stable
    ``argsort``), int64."""
    _no_order(order)
    a, axis = _check_kth(strong(a), kth, axis, "argpartition")
    return argsort(a, axis=axis)


def lexsort(keys, axis=-1):
    """``np.lexsort``: the stable sort order (int64) by several keys, the **last** key
    primary; ``keys`` a sequence of same-shape arrays or a 2-D+ array of rows."""
    if hasattr(keys, "shape") and not isinstance(keys, list | tuple):
        keys = strong(keys)
        if rank(keys) == 0:
            raise TypeError("need sequence of keys with len > 0 in lexsort")
        keys = [keys[i] for i in range(operator.index(keys.shape[0]))]
    keys = [strong(k) for k in keys]
    if not keys:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    shape = tuple(keys[0].shape)
    if any(tuple(k.shape) != shape for k in keys):
        raise ValueError("all keys need to be the same shape")
    if not shape:  # 0-d keys: NumPy's order of one element
        return strong(np.int64(0))
    axis = norm_axis(axis, len(shape))
    order = argsort(keys[0], axis=axis)
    for key in keys[1:]:
        step = argsort(take_along_axis(key, order, axis), axis=axis)
        order = take_along_axis(order, step, axis)
    return order


def sort_complex(a):
    """``np.sort_complex``: ``a`` sorted along its last axis (real part first, then
    imaginary), as complex: complex64 for (u)int8/16 input, else complex128."""
    b = sort(strong(a), axis=-1)
    if b.dtype.kind == "c":
        return b
    if b.dtype.char in "bhBH":
        return b.astype(np.complex64)
    if b.dtype.char == "g":
        return b.astype(np.clongdouble)
    return b.astype(np.complex128)
