"""``np.histogram`` and ``np.histogram_bin_edges``, built from reductions, elementwise
arithmetic, ``take``, ``sort``/``searchsorted`` and the scatter-add
``unsorted_segment_sum`` (no op of their own).

They follow NumPy's algorithm step by step, so the counts agree with NumPy's on the
edges too:

* ``bins`` an int: equal-width edges from ``range`` or the data's min and max (equal ends
  widened by 0.5 each way), ``linspace``'s arithmetic in NumPy's edge dtype (the data's
  float dtype, else float64). A value's bin is ``int((x - first) / width_total * bins)``,
  moved down or up one where that float computation disagrees with the edges; the last
  bin includes its right edge; values outside ``range`` are not counted. Counts are a
  scatter-add: int64, or the sums of ``weights`` (accumulated in float64 per block of
  65536 values, then in the weights' dtype, as NumPy).
* ``bins`` a vector of edges: NumPy's cumulative counts of the sorted data,
  ``searchsorted`` at the edges (the last one inclusive), then differences.

Inside ``gc.function``: the number of bins must be known while tracing, ``range`` too;
the data may be traced (its min and max are then computed in the graph). The checks
NumPy makes on values of traced data (a finite range; "too many bins" for a tiny range;
increasing edges) are not made there; with known values they are. ``bins`` given by name
(``'auto'``, ``'fd'``, ...) picks the count from the data's values, so it needs data
known while tracing (eagerly, always). Complex data is not supported. Weighted counts
with edge vectors over more than 65536 values may differ from NumPy's in the last bits
(NumPy sums them in blocks of 65536 sorted values).
"""

from __future__ import annotations

import operator
import warnings
from dataclasses import dataclass

import numpy as np

from graphc import source_info
from graphc.core.tensor import Tensor
from graphc.ops.convert import asarray
from graphc.ops.creation import arange, zeros
from graphc.ops.differences import diff
from graphc.ops.indexing import take
from graphc.ops.join import concatenate
from graphc.ops.reduce import cumsum
from graphc.ops.reduce import max as _max
from graphc.ops.reduce import min as _min
from graphc.ops.reduce import sum as _sum
from graphc.ops.searching import bincount, digitize, searchsorted  # noqa: F401 (gnp names)
from graphc.ops.segment import unsorted_segment_sum
from graphc.ops.shape import argsort, ravel, reshape, sort
from graphc.ops.shape_args import static_value
from graphc.ops.ufuncs import astype, where

INTP = np.dtype(np.intp)
F64 = np.dtype(np.float64)
BLOCK = 65536  # NumPy's block of values per accumulation


@dataclass
class _Uniform:
    """Equal-width bins: the outer edges, the bin count and ``last - first`` (NumPy's
    unsigned difference for integers); NumPy scalars, or traced scalars when the edges
    come from traced data (``ranged``: values outside must be dropped)."""

    first: object
    last: object
    count: int
    width: object
    ranged: bool


def _ndim(x) -> int:
    return len(x.shape) if isinstance(x, Tensor) else np.ndim(x)


def _prepare(a, weights):
    """NumPy's ``_ravel_and_check_weights``: flattened data (booleans as uint8, with its
    warning) and weights of the data's shape."""
    a = asarray(a)
    if a.dtype.kind == "c":
        raise NotImplementedError(f"gnp.histogram of complex data is not supported"
                                  f"{source_info.where()}")
    if a.dtype == np.bool_:
        warnings.warn(f"Converting input from {a.dtype} to {np.uint8} for compatibility.",
                      RuntimeWarning, stacklevel=4)
        a = astype(a, np.uint8)
    if weights is not None:
        weights = asarray(weights)
        sa, sw = a.shape, weights.shape
        if len(sa) != len(sw) or any(x is not None and y is not None and x != y
                                     for x, y in zip(sa, sw)):
            raise ValueError("weights should have the same shape as a.")
        weights = ravel(weights)
    return ravel(a), weights


def _static_number(v, what):
    if isinstance(v, Tensor):
        known = static_value(v)
        if known is None:
            raise TypeError(f"gnp.histogram: {what} must be known while tracing (Python "
                            f"numbers), got a traced tensor{source_info.where()}")
        return np.asarray(known)[()]
    return v


def _unsigned_width(last, first):
    """``last - first`` as NumPy's histogram takes it: integers subtract into their
    unsigned type (no overflow for ``last >= first``)."""
    dt = np.result_type(last, first)
    if dt.kind == "i":
        unsigned = np.dtype(f"u{dt.itemsize}")
        return np.subtract(np.asarray(last, dt), np.asarray(first, dt), casting="unsafe",
                           dtype=unsigned)
    return np.subtract(last, first, dtype=dt)


def _outer_edges(a, range):  # noqa: A002 - NumPy's argument name
    """``(first, last)`` as NumPy scalars, or None when they come from traced data."""
    if range is not None:
        first, last = (_static_number(v, "range") for v in range)
        if first > last:
            raise ValueError("max must be larger than min in range parameter.")
        if not (np.isfinite(first) and np.isfinite(last)):
            raise ValueError(f"supplied range of [{first}, {last}] is not finite")
    elif a.shape[0] == 0:
        first, last = 0, 1
    else:
        known = static_value(a)
        if known is None:
            return None
        first, last = known.min(), known.max()
        if not (np.isfinite(first) and np.isfinite(last)):
            raise ValueError(f"autodetected range of [{first}, {last}] is not finite")
    if first == last:
        first, last = first - 0.5, last + 0.5
    return first, last


def _equal_edges(a, count, range):  # noqa: A002
    ends = _outer_edges(a, range)
    if ends is None:
        return _traced_equal_edges(a, count)
    first, last = ends
    edge_type = np.result_type(first, last, a.dtype)
    if edge_type.kind in "iub":
        edge_type = np.result_type(edge_type, float)
    edges = np.linspace(first, last, count + 1, endpoint=True, dtype=edge_type)
    if np.any(edges[:-1] >= edges[1:]):
        raise ValueError(f"Too many bins for data range. Cannot create {count} "
                         "finite-sized bins.")
    return asarray(edges), _Uniform(first, last, count,
                                    np.asarray(_unsigned_width(last, first)), range is not None)


def _traced_equal_edges(a, count):
    """The equal-width edges of traced data, NumPy's ``linspace`` steps in the graph."""
    edge_type = a.dtype if a.dtype.kind == "f" else F64
    lo, hi = _min(a), _max(a)
    same = lo == hi
    lo_e, hi_e = astype(lo, edge_type), astype(hi, edge_type)
    first, last = where(same, lo_e - 0.5, lo_e), where(same, hi_e + 0.5, hi_e)
    if a.dtype.kind == "f":
        width = last - first
    else:  # NumPy subtracts integer ends into the unsigned type
        if a.dtype.kind == "u":
            apart = astype(hi, np.uint64) - astype(lo, np.uint64)
        else:
            apart = astype(astype(hi, np.int64) - astype(lo, np.int64), np.uint64)
        width = where(same, last - first, astype(apart, F64))
    step = (last - first) / count
    points = arange(0, count + 1, 1, dtype=edge_type)
    edges = where(points == count, last, points * step + first)
    return edges, _Uniform(first, last, count, width, False)


def _named_count(a, name, range, weights):  # noqa: A002
    """The bin count NumPy's estimator ``name`` picks for the known data ``a``."""
    if weights is not None:
        raise TypeError("Automated estimation of the number of bins is not supported for "
                        "weighted data")
    known = static_value(a)
    if known is None:
        raise TypeError(
            f"gnp.histogram: bins={name!r} picks the number of bins from the data's values, "
            "which are unknown while gc.function traces; pass the number of bins (an int) "
            f"or the edges{source_info.where()}")
    if range is not None:
        range = tuple(_static_number(v, "range") for v in range)  # noqa: A001
    return len(np.histogram_bin_edges(known, name, range)) - 1


def _bin_edges(a, bins, range, weights):  # noqa: A002
    """NumPy's ``_get_bin_edges``: the edges, and the equal-width description or None."""
    if isinstance(bins, str):
        return _equal_edges(a, _named_count(a, bins, range, weights), range)
    if isinstance(bins, Tensor) and _ndim(bins) == 0:
        bins = _static_number(bins, "the number of bins")
    if _ndim(bins) == 0:
        try:
            count = operator.index(bins)
        except TypeError as e:
            raise TypeError("`bins` must be an integer, a string, or an array") from e
        if count < 1:
            raise ValueError("`bins` must be positive, when an integer")
        return _equal_edges(a, count, range)
    if _ndim(bins) == 1:
        edges = asarray(bins)
        known = static_value(edges)
        if known is not None and np.any(known[:-1] > known[1:]):
            raise ValueError("`bins` must increase monotonically, when an array")
        return edges, None
    raise ValueError("`bins` must be 1d, when an array")


# --------------------------------------------------------------------------- counts
def _bin_index(a, edges, u: _Uniform):
    """Each value's bin (``-1``: not counted), as NumPy computes it for equal bins."""
    edge_type = edges.dtype
    x = astype(a, edge_type)
    keep = None
    if u.ranged:
        keep = (a >= u.first) & (a <= u.last)
    if isinstance(u.first, Tensor):
        first = u.first
    else:
        first = np.asarray(u.first).astype(edge_type)
        if keep is not None:
            x = where(keep, x, first)  # out-of-range values: a harmless stand-in
    index = astype((x - first) / u.width * u.count, INTP)
    index = where(index == u.count, u.count - 1, index)
    index = index - astype(x < take(edges, index, mode="clip"), INTP)
    up = (x >= take(edges, index + 1, mode="clip")) & (index != u.count - 1)
    index = index + astype(up, INTP)
    return index if keep is None else where(keep, index, -1)


def _equal_counts(a, weights, edges, u: _Uniform, ntype):
    index = _bin_index(a, edges, u)
    if weights is None:
        return unsorted_segment_sum(astype(index == index, INTP), index, u.count)
    sums = astype(weights, np.complex128 if ntype.kind == "c" else F64)
    size = a.shape[0]
    if size is None or size <= BLOCK:
        return astype(unsorted_segment_sum(sums, index, u.count), ntype)
    blocks = -(-size // BLOCK)
    block = arange(0, size, 1, dtype=INTP) // BLOCK
    index = where(index >= 0, index + block * u.count, -1)
    per_block = reshape(unsorted_segment_sum(sums, index, blocks * u.count),
                        (blocks, u.count))
    return _sum(astype(per_block, ntype), axis=0, dtype=ntype)


def _edge_counts(a, weights, edges, ntype):
    """Counts for given edges: cumulative counts at the edges of the sorted data."""
    def at_edges(sorted_a):
        return concatenate([searchsorted(sorted_a, edges[:-1], "left"),
                            searchsorted(sorted_a, edges[-1:], "right")])

    if weights is None:
        cum = at_edges(sort(a))
    else:
        order = argsort(a)
        running = cumsum(take(weights, order))
        cum = astype(take(concatenate([zeros((1,), dtype=running.dtype), running]),
                          at_edges(take(a, order))), ntype)
    return diff(cum)


def histogram(a, bins=10, range=None, density=None, weights=None):  # noqa: A002
    """``np.histogram``: ``(counts, edges)`` of the flattened ``a``.

    ``bins``: a number of equal-width bins over ``range`` (default: the data's min and
    max), a vector of increasing edges, or an estimator's name (data known while tracing
    only). ``weights``: add these instead of ones (the counts take their dtype).
    ``density``: counts divided by their sum and the bin widths (float64).
    """
    a, weights = _prepare(a, weights)
    edges, uniform = _bin_edges(a, bins, range, weights)
    ntype = INTP if weights is None else weights.dtype
    if uniform is not None:
        counts = _equal_counts(a, weights, edges, uniform, ntype)
    else:
        counts = _edge_counts(a, weights, edges, ntype)
    if density:
        widths = astype(edges[1:] - edges[:-1], F64)
        return counts / widths / _sum(counts), edges
    return counts, edges


def histogram_bin_edges(a, bins=10, range=None, weights=None):  # noqa: A002
    """``np.histogram_bin_edges``: the edges ``histogram`` would use."""
    a, weights = _prepare(a, weights)
    return _bin_edges(a, bins, range, weights)[0]
