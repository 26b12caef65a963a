"""``np.apply_along_axis``, ``np.apply_over_axes``, ``np.packbits``, ``np.unpackbits``
and ``np.einsum_path``, built from existing ops (no op of their own).

``apply_along_axis`` calls the function once per 1-D slice, in Python (the slices'
count must be known while tracing), and stacks the results, as NumPy does; bits are
packed and unpacked with comparisons, shifts and sums. ``einsum_path`` plans from the
operands' shapes alone: it asks NumPy's planner with zero-stride stand-ins of those
shapes (no data is read, so traced operands of known shape work).
"""

from __future__ import annotations

import operator

import numpy as np

from graphc import source_info
from graphc.core.tensor import Tensor
from graphc.ops.array_helpers import norm_axis, rank, strong
from graphc.ops.convert import asarray
from graphc.ops.join import stack
from graphc.ops.pad_tile import pad
from graphc.ops.reduce import sum as _sum
from graphc.ops.shape import expand_dims, moveaxis, ravel, reshape, transpose
from graphc.ops.ufuncs import bitwise_and, not_equal, right_shift


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """``np.apply_along_axis``: ``func1d`` applied to each 1-D slice of ``arr`` along
    ``axis``; the result's dims replace that axis (dtype: that of the first result)."""
    arr = strong(arr)
    nd = rank(arr)
    axis = norm_axis(axis, nd)
    moved = moveaxis(arr, axis, -1)
    outer = tuple(moved.shape[:-1])
    if None in outer:
        raise ValueError(f"apply_along_axis: the other axes' lengths must be known while "
                         f"tracing{source_info.where()}")
    spots = list(np.ndindex(*outer))
    if not spots or 0 in outer:
        raise ValueError("Cannot apply_along_axis when any iteration dimensions are 0")
    results = [strong(func1d(moved[spot], *args, **kwargs)) for spot in spots]
    first = results[0]
    results = [r.astype(first.dtype) for r in results]
    res_shape = tuple(first.shape)
    out = reshape(stack(results), outer + res_shape)
    k = len(res_shape)
    order = list(range(axis)) + [len(outer) + i for i in range(k)] + list(
        range(axis, len(outer)))
    return transpose(out, order)


def apply_over_axes(func, a, axes):
    """``np.apply_over_axes``: ``a = func(a, axis)`` for each axis in turn, the result
    kept at ``a``'s rank (a removed axis is put back as length 1)."""
    val = strong(a)
    n = rank(val)
    if np.ndim(axes) == 0:
        axes = (axes,)
    for axis in axes:
        axis = operator.index(axis)
        if axis < 0:
            axis = n + axis
        res = strong(func(val, axis))
        if rank(res) == rank(val):
            val = res
            continue
        res = expand_dims(res, axis)
        if rank(res) != rank(val):
            raise ValueError("function is not returning an array of the correct shape")
        val = res
    return val


# --------------------------------------------------------------------------- bits
def _bitorder(bitorder):
    if bitorder not in ("big", "little"):
        raise ValueError("'order' must be either 'little' or 'big'")
    return bitorder


def packbits(a, /, axis=None, bitorder="big"):
    """``np.packbits``: the truth of each element of ``a`` as bits, eight to a uint8
    along ``axis`` (the flattened ``a`` for None), the last byte padded with zeros."""
    a = strong(a)
    if a.dtype.kind not in "biu":
        raise TypeError("Expected an input array of integer or boolean data type")
    order = _bitorder(bitorder)
    if axis is None:
        a, axis = ravel(a), 0
    axis = norm_axis(axis, rank(a))
    bits = moveaxis(not_equal(a, 0).astype(np.uint8), axis, -1)
    n = bits.shape[-1]
    if n is None:
        raise ValueError(f"packbits: the packed axis's length must be known while tracing"
                         f"{source_info.where()}")
    extra = -n % 8
    if extra:
        bits = pad(bits, [(0, 0)] * (rank(bits) - 1) + [(0, extra)])
    bits = reshape(bits, tuple(bits.shape[:-1]) + ((n + extra) // 8, 8))
    weights = 1 << np.arange(8, dtype=np.uint8)
    weights = weights[::-1] if order == "big" else weights
    packed = _sum(bits * asarray(weights.astype(np.uint8)), axis=-1, dtype=np.uint8)
    return moveaxis(packed, -1, axis)


def unpackbits(a, /, axis=None, count=None, bitorder="big"):
    """``np.unpackbits``: the bits of the uint8 ``a`` as a uint8 array of 0s and 1s along
    ``axis`` (flattened for None); ``count`` keeps that many (zero-padded beyond, from
    the end when negative)."""
    a = strong(a)
    if a.dtype != np.uint8:
        raise TypeError("Expected an input array of unsigned byte data type")
    order = _bitorder(bitorder)
    if axis is None:
        a, axis = ravel(a), 0
    axis = norm_axis(axis, rank(a))
    moved = moveaxis(a, axis, -1)
    n = moved.shape[-1]
    if n is None:
        raise ValueError(f"unpackbits: the unpacked axis's length must be known while "
                         f"tracing{source_info.where()}")
    shifts = np.arange(8, dtype=np.uint8)
    shifts = shifts[::-1] if order == "big" else shifts
    bits = bitwise_and(right_shift(expand_dims(moved, -1), asarray(shifts.copy())),
                       np.uint8(1))
    bits = reshape(bits, tuple(moved.shape[:-1]) + (n * 8,))
    if count is not None:
        count = operator.index(count)
        if count < 0:
            if -count > n * 8:
                raise ValueError("-count larger than number of elements")
            count = n * 8 + count
        if count <= n * 8:
            bits = bits[..., :count]
        else:
            bits = pad(bits, [(0, 0)] * (rank(bits) - 1) + [(0, count - n * 8)])
    return moveaxis(bits, -1, axis)


# --------------------------------------------------------------------------- einsum_path
def _stand_in(x):
    if isinstance(x, Tensor):
        if x.shape is None or None in x.shape:
            raise ValueError(f"einsum_path: operand shapes must be known while tracing"
                             f"{source_info.where()}")
        return np.broadcast_to(np.zeros((), x.dtype), tuple(x.shape))
    value = np.asarray(x)
    return np.broadcast_to(np.zeros((), value.dtype), value.shape)


def einsum_path(subscripts, *operands, optimize="greedy", einsum_call=False):
    """``np.einsum_path``: the contraction order (a list, ``['einsum_path', (i, j),
    ...]``) and NumPy's report string; it depends only on the shapes."""
    if not isinstance(subscripts, str):  # the interleaved form: operands and sublists
        operands = (subscripts, *operands)
        args = [_stand_in(o) if i % 2 == 0 else o for i, o in enumerate(operands)]
        if len(operands) % 2:
            args[-1] = operands[-1] if not isinstance(operands[-1], Tensor) else args[-1]
        return np.einsum_path(*args, optimize=optimize, einsum_call=einsum_call)
    return np.einsum_path(subscripts, *[_stand_in(o) for o in operands],
                          optimize=optimize, einsum_call=einsum_call)
