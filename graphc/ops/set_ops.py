"""NumPy's set routines: ``unique`` (and the Array API's ``unique_all``/``_counts``/
``_inverse``/``_values``), ``intersect1d``, ``setdiff1d``, ``setxor1d``, ``union1d``,
``isin``, ``trim_zeros``; built from the stable ``argsort``, ``take``, comparisons,
``cumsum`` and boolean masks (no op of their own).

Their result lengths depend on the data: eagerly they are known; inside ``gc.function``
they come out with unknown length (``None`` dims: boolean masks and ``argwhere``), which
the interpreter runs. ``isin`` keeps its input's shape, and ``trim_zeros`` slices with
bounds computed in the graph.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from graphc.ops.array_helpers import dims, known, norm_axis, rank, strong, traced
from graphc.ops.convert import asarray
from graphc.ops.gather import nonzero
from graphc.ops.indexing import take
from graphc.ops.join import concatenate
from graphc.ops.reduce import any as _any
from graphc.ops.reduce import argmax, cumsum
from graphc.ops.searching import searchsorted
from graphc.ops.shape import argsort, broadcast_to, flip, moveaxis, ravel, reshape, sort
from graphc.ops.sorting import lexsort
from graphc.ops.ufuncs import isnan, logical_and, logical_not, not_equal, where

UniqueAllResult = namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices",
                                                 "counts"])
UniqueCountsResult = namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = namedtuple("UniqueInverseResult", ["values", "inverse_indices"])


def _groups(s, new_group):
    """From a sorted sequence and where its groups start: (starts mask, group id of each
    sorted position)."""
    flag = concatenate([asarray(np.ones(1, bool)), new_group])
    return flag, cumsum(flag.astype(np.int64)) - 1


def _unique_sorted(perm, s, differs, want_index, want_inverse, want_counts):
    """The parts of ``unique`` from ``perm`` (a stable sort order), the sorted data
    ``s`` (along axis 0) and ``differs`` (whether each sorted entry after the first
    starts a new group)."""
    flag, group = _groups(s, differs)
    out = [s[flag]]
    if want_index:
        out.append(perm[flag])
    if want_inverse:
        out.append(take(group, argsort(perm)))
    if want_counts:
        starts = nonzero(flag)[0]
        n = dims(s)[0]
        ends = concatenate([starts[1:], reshape(asarray(n).astype(np.int64), (1,))
                            if not isinstance(n, int) else asarray(np.array([n]))])
        out.append(ends - starts)
    return out


def _empty_parts(x, want_index, want_inverse, want_counts):
    empty = asarray(np.zeros(0, np.int64))
    return [x] + [empty] * (bool(want_index) + bool(want_inverse) + bool(want_counts))


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None,
           *, equal_nan=True, sorted=True):  # noqa: A002  (NumPy's keyword)
    """``np.unique``: the sorted unique elements (of the flattened array, or the unique
    slices along ``axis``), with the first indices, the inverse (shaped like the input
    for ``axis=None``, as NumPy 2) and the counts on request (int64). ``equal_nan``
    collapses NaNs into one; ``sorted`` is accepted (results are always sorted)."""
    ar = strong(ar)
    if axis is None:
        flat = ravel(ar)
        if flat.shape[0] == 0:
            parts = _empty_parts(flat, return_index, return_inverse, return_counts)
        else:
            perm = argsort(flat)
            s = take(flat, perm)
            differs = not_equal(s[1:], s[:-1])
            if equal_nan and s.dtype.kind in "fc":
                differs = logical_and(differs, logical_not(
                    logical_and(isnan(s[1:]), isnan(s[:-1]))))
            parts = _unique_sorted(perm, s, differs, return_index, return_inverse,
                                   return_counts)
        if return_inverse:
            at = 1 + bool(return_index)
            parts[at] = reshape(parts[at], dims(ar))
    else:
        parts = _unique_axis(ar, axis, return_index, return_inverse, return_counts)
    return parts[0] if len(parts) == 1 else tuple(parts)


def _unique_axis(ar, axis, want_index, want_inverse, want_counts):
    axis = norm_axis(axis, rank(ar))
    moved = moveaxis(ar, axis, 0)
    rest = tuple(moved.shape[1:])
    if None in rest:
        raise ValueError("unique(axis=...): the other axes' lengths must be known while "
                         "tracing")
    width = int(np.prod(rest))
    rows = reshape(moved, (dims(moved)[0], width))
    if moved.shape[0] == 0 or width == 0:
        if moved.shape[0] == 0:
            parts = _empty_parts(rows, want_index, want_inverse, want_counts)
        else:  # every row is the empty row
            n = moved.shape[0]
            parts = [rows[:1]] + [asarray(np.zeros(k, np.int64)) for k, w in
                                  ((1, want_index), (n, want_inverse)) if w]
            if want_counts:
                parts.append(asarray(np.array([n])))
    else:
        perm = lexsort([rows[:, j] for j in range(width - 1, -1, -1)])
        s = take(rows, perm, axis=0)
        differs = _any(not_equal(s[1:], s[:-1]), axis=1)
        parts = _unique_sorted(perm, s, differs, want_index, want_inverse, want_counts)
    values = reshape(parts[0], [-1, *rest])
    parts[0] = moveaxis(values, 0, axis)
    return parts


def unique_all(x):
    """``np.unique_all`` (Array API): values, first indices, inverse (shaped like ``x``)
    and counts; NaNs are all distinct."""
    return UniqueAllResult(*unique(x, True, True, True, equal_nan=False))


def unique_counts(x):
    """``np.unique_counts`` (Array API): the unique values and their counts."""
    return UniqueCountsResult(*unique(x, return_counts=True, equal_nan=False))


def unique_inverse(x):
    """``np.unique_inverse`` (Array API): the unique values and the inverse (shaped
    like ``x``)."""
    return UniqueInverseResult(*unique(x, return_inverse=True, equal_nan=False))


def unique_values(x):
    """``np.unique_values`` (Array API): the unique values, NaNs all distinct."""
    return unique(x, equal_nan=False)


# --------------------------------------------------------------------------- 1-D sets
def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """``np.intersect1d``: the sorted values in both; with ``return_indices``, also the
    first index of each in ``ar1`` and in ``ar2`` (flattened)."""
    if assume_unique:
        a, b = ravel(strong(ar1)), ravel(strong(ar2))
        ia = ib = None
    elif return_indices:
        a, ia = unique(ar1, return_index=True)
        b, ib = unique(ar2, return_index=True)
    else:
        a, b = unique(ar1), unique(ar2)
    aux = concatenate([a, b])
    order = argsort(aux)
    aux = take(aux, order)
    same = aux[1:] == aux[:-1]
    common = aux[:-1][same]
    if not return_indices:
        return common
    first = order[:-1][same]
    second = order[1:][same] - dims(a)[0]
    if not assume_unique:
        first, second = take(ia, first), take(ib, second)
    return common, first, second


def setdiff1d(ar1, ar2, assume_unique=False):
    """``np.setdiff1d``: the sorted unique values of ``ar1`` not in ``ar2`` (``ar1``
    flattened as given when ``assume_unique``)."""
    a = ravel(strong(ar1)) if assume_unique else unique(ar1)
    b = strong(ar2) if assume_unique else unique(ar2)
    return a[isin(a, b, assume_unique=True, invert=True)]


def setxor1d(ar1, ar2, assume_unique=False):
    """``np.setxor1d``: the sorted values in exactly one of the inputs."""
    a = strong(ar1) if assume_unique else unique(ar1)
    b = strong(ar2) if assume_unique else unique(ar2)
    aux = concatenate([ravel(a), ravel(b)])
    if aux.shape[0] == 0:
        return aux
    aux = sort(aux)
    edge = asarray(np.ones(1, bool))
    flag = concatenate([edge, not_equal(aux[1:], aux[:-1]), edge])
    return aux[logical_and(flag[1:], flag[:-1])]


def union1d(ar1, ar2):
    """``np.union1d``: the sorted unique values of both (flattened)."""
    return unique(concatenate([ravel(strong(ar1)), ravel(strong(ar2))]))


def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    """``np.isin``: whether each element of ``element`` equals some element of
    ``test_elements`` (a boolean array of ``element``'s shape; NaN matches nothing)."""
    e, t = strong(element), ravel(strong(test_elements))
    if kind not in (None, "sort", "table"):
        raise ValueError(f"Invalid kind: '{kind}'. Please use None, 'sort' or 'table'.")
    if kind == "table" and not (e.dtype.kind in "biu" and t.dtype.kind in "biu"):
        raise ValueError("The 'table' method is only supported for boolean or integer "
                         "arrays. Please select 'sort' or None for kind.")
    m = t.shape[0]
    if m == 0:
        hit = asarray(np.zeros((), bool))
        return _shaped(hit if not invert else logical_not(hit), e)
    n = int(np.prod(e.shape)) if None not in e.shape else None
    if m is not None and n is not None and m * max(n, 1) <= 1 << 16:
        hit = _any(e[..., None] == t, axis=-1)
    else:  # sort the test values and look each element up
        common = np.result_type(e.dtype, t.dtype)
        st = sort(t.astype(common))
        flat = ravel(e).astype(common)
        pos = searchsorted(st, flat)
        last = dims(st)[0] - 1
        hit = take(st, where(pos > last, last, pos)) == flat
        hit = reshape(hit, dims(e))
    return logical_not(hit) if invert else hit


def _shaped(value, like):
    return broadcast_to(value, dims(like))


# --------------------------------------------------------------------------- trim_zeros
def trim_zeros(filt, trim="fb", axis=None):
    """``np.trim_zeros``: ``filt`` without its leading (``'f'``) and/or trailing
    (``'b'``) zeros, along ``axis`` or every axis (the bounding box of the nonzeros).
    While tracing, the bounds are computed in the graph (unknown lengths)."""
    trim = trim.lower()
    if trim not in ("fb", "bf", "f", "b"):
        raise ValueError(f"unexpected character(s) in `trim`: {trim!r}")
    f = strong(filt)
    nd = rank(f)
    if axis is None:
        axes = range(nd)
    else:
        axes = sorted({norm_axis(a, nd) for a in (axis if isinstance(axis, tuple | list)
                                                  else (axis,))})
    value = known(f) if not traced(f) else None
    key = [slice(None)] * nd
    if value is not None:
        where_nz = np.argwhere(value)
        for ax in axes:
            if not where_nz.size:  # all zeros: empty along the trimmed axes
                key[ax] = slice(0, 0)
                continue
            lo, hi = int(where_nz[:, ax].min()), int(where_nz[:, ax].max()) + 1
            key[ax] = slice(lo if "f" in trim else None, hi if "b" in trim else None)
        return f[tuple(key)]
    nz = not_equal(f, 0)
    anything = _any(nz)
    for ax in axes:
        line = _any(nz, axis=tuple(i for i in range(nd) if i != ax)) if nd > 1 else nz
        n = dims(f)[ax]
        lo = where(anything, argmax(line) if "f" in trim else 0, 0)
        hi = where(anything, n - argmax(flip(line, 0)) if "b" in trim else n, 0)
        key[ax] = slice(lo, hi)
    return f[tuple(key)]
