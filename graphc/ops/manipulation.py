"""NumPy's joining, splitting, rotating and diagonal names (``atleast_3d``, ``block``,
``column_stack``, ``dstack``, ``array_split``/``hsplit``/``vsplit``/``dsplit``,
``unstack``, ``rollaxis``, ``rot90``, ``fliplr``/``flipud``, ``diag``/``diagflat``/
``diagonal``), built from existing ops (reshape, concatenate, split, transpose, flip,
getitem, einsum, take, where): no op of their own, so gradients, batching and compiled
kernels are those of the ops used. ``append``/``delete``/``insert``/``resize`` are in
``manipulation_edit.py``."""

from __future__ import annotations

import operator
import warnings

import numpy as np

from graphc import source_info
from graphc.ops import linalg as _linalg
from graphc.ops.array_helpers import norm_axis, rank
from graphc.ops.convert import asarray
from graphc.ops.creation import copy
from graphc.ops.indexing import take
from graphc.ops.join import atleast_2d, concatenate, split, vstack
from graphc.ops.shape import flip, moveaxis, ravel, reshape, transpose
from graphc.ops.ufuncs import where


def _sequence(tup, name):
    if not isinstance(tup, list | tuple) and not hasattr(tup, "__len__"):
        raise TypeError('arrays to stack must be passed as a "sequence" type such as list '
                        f'or tuple ({name})')
    return tup


# --------------------------------------------------------------------------- joining
def atleast_3d(*arys):
    """``np.atleast_3d``: each input viewed with at least three dims (``(N,)`` becomes
    ``(1, N, 1)``, ``(M, N)`` becomes ``(M, N, 1)``); one input gives one tensor, several a
    tuple."""
    out = []
    for a in arys:
        a = asarray(a)
        n = rank(a)
        if n == 0:
            a = reshape(a, (1, 1, 1))
        elif n == 1:
            a = a[None, :, None]
        elif n == 2:
            a = a[:, :, None]
        out.append(a)
    return out[0] if len(out) == 1 else tuple(out)


def column_stack(tup):
    """``np.column_stack``: 1-D inputs become columns, then joined along axis 1."""
    cols = []
    for a in _sequence(tup, "column_stack"):
        a = asarray(a)
        if rank(a) < 2:
            a = transpose(atleast_2d(a))
        cols.append(a)
    return concatenate(cols, axis=1)


def row_stack(tup):
    """``np.row_stack``: NumPy's deprecated alias of ``vstack`` (warns as NumPy does)."""
    warnings.warn("`row_stack` alias is deprecated. Use `np.vstack` directly.",
                  DeprecationWarning, stacklevel=2)
    return vstack(_sequence(tup, "row_stack"))


def dstack(tup):
    """``np.dstack``: inputs made at least 3-D, joined along axis 2."""
    arrs = atleast_3d(*_sequence(tup, "dstack"))
    return concatenate(list(arrs) if isinstance(arrs, tuple) else [arrs], axis=2)


def _block_depth(x, where_):
    """(list depth, max ndim of the leaves) of ``np.block``'s nested lists."""
    if type(x) is tuple:
        raise TypeError(f"{where_} is a tuple. Only lists can be used to arrange blocks, "
                        "and np.block does not allow implicit conversion from tuple to "
                        "ndarray.")
    if type(x) is not list:
        return 0, rank(asarray(x)), where_
    if not x:
        raise ValueError(f"List at {where_} cannot be empty")
    found = [_block_depth(item, f"{where_}[{i}]") for i, item in enumerate(x)]
    first = found[0][0]
    for depth, _, at in found:
        if depth != first:
            raise ValueError(f"List depths are mismatched. First element was at depth "
                             f"{first + 1}, but there is an element at depth {depth + 1} "
                             f"({at})")
    return first + 1, max(f[1] for f in found), found[0][2]


def block(arrays):
    """``np.block``: an array assembled from nested lists of blocks; the innermost lists
    join along the last axis, the outer ones along the axes before it."""
    depth, ndim, _ = _block_depth(arrays, "arrays")
    ndim = max(depth, ndim)

    def build(x, level):
        if level == depth:
            a = asarray(x)
            return _prepend(a, ndim - rank(a))
        return concatenate([build(item, level + 1) for item in x], axis=level - depth)

    return build(arrays, 0) if depth else copy(asarray(arrays))


def _prepend(a, k):
    for _ in range(k):
        a = a[None]
    return a


# --------------------------------------------------------------------------- splitting
def array_split(ary, indices_or_sections, axis=0):
    """``np.array_split``: like ``split``, but a number of sections need not divide the
    axis (the first ``n % sections`` parts get one element more)."""
    a = asarray(ary)
    try:
        len(indices_or_sections)
    except TypeError:
        sections = operator.index(indices_or_sections) if not isinstance(
            indices_or_sections, float) else int(indices_or_sections)
        if sections <= 0:
            raise ValueError("number sections must be larger than 0.") from None
        axis_n = norm_axis(axis, rank(a))
        n = a.shape[axis_n]
        if n is None:
            raise ValueError("array_split: the length of the split axis must be known "
                             f"while tracing{source_info.where()}") from None
        each, extra = divmod(n, sections)
        sizes = [each + 1] * extra + [each] * (sections - extra)
        cuts = np.cumsum(sizes)[:-1].tolist()
        return split(a, cuts, axis=axis)
    return split(a, list(indices_or_sections), axis=axis)


def _split_from(name, need):
    def fn(ary, indices_or_sections):
        a = asarray(ary)
        n = rank(a)
        if n < need:
            raise ValueError(f"{name} only works on arrays of {need} or more dimensions")
        axis = {"hsplit": 1 if n > 1 else 0, "vsplit": 0, "dsplit": 2}[name]
        return split(a, indices_or_sections, axis=axis)

    fn.__name__ = name
    fn.__doc__ = (f"``np.{name}``: ``split`` along axis "
                  f"{ {'hsplit': '1 (0 for 1-D input)', 'vsplit': '0', 'dsplit': '2'}[name]}"
                  " (a list of tensors).")
    return fn


hsplit = _split_from("hsplit", 1)
vsplit = _split_from("vsplit", 2)
dsplit = _split_from("dsplit", 3)


def unstack(x, /, *, axis=0):
    """``np.unstack``: the slices of ``x`` along ``axis``, as a tuple."""
    x = asarray(x)
    n = rank(x)
    if n == 0:
        raise ValueError("Input array must be at least 1-d.")
    axis = norm_axis(axis, n)
    length = x.shape[axis]
    if length is None:
        raise ValueError(f"unstack: the length of axis {axis} must be known while tracing"
                         f"{source_info.where()}")
    return tuple(x[(slice(None),) * axis + (i,)] for i in range(length))


# --------------------------------------------------------------------------- axes
def rollaxis(a, axis, start=0):
    """``np.rollaxis``: ``axis`` moved to stand before ``start``."""
    a = asarray(a)
    n = rank(a)
    axis = norm_axis(axis, n)
    start = operator.index(start)
    if start < 0:
        start += n
    if not 0 <= start < n + 1:
        raise np.exceptions.AxisError(
            f"'start' arg requires {-n} <= start < {n + 1}, but {start} was passed in")
    if axis < start:
        start -= 1
    if axis == start:
        return a[...]
    order = [i for i in range(n) if i != axis]
    order.insert(start, axis)
    return transpose(a, order)


def rot90(m, k=1, axes=(0, 1)):
    """``np.rot90``: ``k`` quarter turns in the plane of ``axes``, from the first axis
    toward the second."""
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    m = asarray(m)
    n = rank(m)
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == n:
        raise ValueError("Axes must be different.")
    if not (-n <= axes[0] < n and -n <= axes[1] < n):
        raise ValueError(f"Axes={axes} out of range for array of ndim={n}.")
    k = operator.index(k) % 4
    if k == 0:
        return m[...]
    if k == 2:
        return flip(flip(m, axes[0]), axes[1])
    order = list(range(n))
    a0, a1 = axes[0] % n, axes[1] % n
    order[a0], order[a1] = order[a1], order[a0]
    if k == 1:
        return transpose(flip(m, axes[1]), order)
    return flip(transpose(m, order), axes[1])


def fliplr(m):
    """``np.fliplr``: the columns (axis 1) reversed."""
    m = asarray(m)
    if rank(m) < 2:
        raise ValueError("Input must be >= 2-d.")
    return flip(m, 1)


def flipud(m):
    """``np.flipud``: the rows (axis 0) reversed."""
    m = asarray(m)
    if rank(m) < 1:
        raise ValueError("Input must be >= 1-d.")
    return flip(m, 0)


# --------------------------------------------------------------------------- diagonals
def diagonal(a, offset=0, axis1=0, axis2=1):
    """``np.diagonal``: the ``offset`` diagonal of the planes of ``axis1`` and ``axis2``,
    which are removed; the diagonal is the last axis (a copy, where NumPy returns a
    read-only view)."""
    a = asarray(a)
    n = rank(a)
    if n < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    ax1, ax2 = norm_axis(axis1, n), norm_axis(axis2, n)
    if ax1 == ax2:
        raise ValueError("axis1 and axis2 cannot be the same")
    x = moveaxis(a, (ax1, ax2), (-2, -1))
    r, c = x.shape[-2], x.shape[-1]
    offset = operator.index(offset)
    if offset or r != c:
        if r is None or c is None:
            raise ValueError("diagonal: with an offset or a non-square plane the two "
                             f"axes' lengths must be known while tracing{source_info.where()}")
        size = max(0, min(r + min(offset, 0), c - max(offset, 0)))
        r0, c0 = max(-offset, 0), max(offset, 0)
        x = x[..., r0:r0 + size, c0:c0 + size]
    return _linalg.einsum("...ii->...i", x)


def _diag_from_vector(v, k):
    size = v.shape[0]
    if size is None:
        raise ValueError(f"diag: the vector's length must be known while tracing"
                         f"{source_info.where()}")
    k = operator.index(k)
    n = size + abs(k)
    rows, cols = np.arange(n)[:, None], np.arange(n)[None, :]
    on = cols - rows == k
    pos = np.where(on, rows if k >= 0 else cols, 0)
    if size == 0:
        return where(on, np.zeros((), v.dtype), np.zeros((), v.dtype)).astype(v.dtype)
    return where(on, take(v, pos), np.zeros((), v.dtype))


def diag(v, k=0):
    """``np.diag``: a 2-D array with the 1-D ``v`` on its ``k``-th diagonal, or the
    ``k``-th diagonal of a 2-D ``v``."""
    v = asarray(v)
    n = rank(v)
    if n == 1:
        return _diag_from_vector(v, k)
    if n == 2:
        return diagonal(v, k)
    raise ValueError("Input must be 1- or 2-d.")


def diagflat(v, k=0):
    """``np.diagflat``: a 2-D array with the flattened input on its ``k``-th diagonal."""
    return _diag_from_vector(ravel(asarray(v)), k)


__all__ = ["array_split", "atleast_3d", "block", "column_stack", "diag", "diagflat",
           "diagonal", "dsplit", "dstack", "fliplr", "flipud", "hsplit", "rollaxis",
           "rot90", "row_stack", "unstack", "vsplit"]
