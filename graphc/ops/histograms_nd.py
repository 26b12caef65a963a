"""``np.histogramdd`` and ``np.histogram2d``, built from ``searchsorted``, elementwise
integer arithmetic and ``bincount`` (no op of their own, so gradients, batching and
compiled kernels come from the ops used).

They follow NumPy's algorithm step by step, so counts agree with NumPy's on the edges
too:

* per dimension, ``bins`` an int: ``linspace(min, max, bins + 1)`` over ``range`` or the
  data's min and max (equal ends widened by 0.5 each way; NumPy's ``linspace`` dtype:
  float32 for float32 data and a float32 range, else float64); a vector: its edges
  (increasing, checked when known).
* a value's bin is ``searchsorted(edges, x, 'right')`` (0 and ``len(edges)`` are the
  outlier slots), values equal to the last edge moved into the last bin; the flat index
  is the row-major combination of the per-dimension bins (``ravel_multi_index``'s
  arithmetic), counted with ``bincount`` (weights summed as float64), reshaped, outlier
  slots removed. The result is float64, as NumPy's.
* ``density``: the counts divided by each dimension's bin widths, then by their sum.

Inside ``gc.function``: the numbers of bins (and ``range``) must be known while tracing;
the data may be traced (min and max then come from the graph). NumPy's value checks on
traced data (finite range, increasing edges) are not made there.
"""

from __future__ import annotations

import builtins
import operator

import numpy as np

from graphc import source_info
from graphc.core.tensor import Tensor
from graphc.ops.convert import asarray
from graphc.ops.creation import arange
from graphc.ops.histograms import _outer_edges, _static_number
from graphc.ops.join import stack
from graphc.ops.reduce import max as _max
from graphc.ops.reduce import min as _min
from graphc.ops.reduce import sum as _sum
from graphc.ops.searching import bincount, searchsorted
from graphc.ops.shape import reshape
from graphc.ops.shape_args import static_value
from graphc.ops.ufuncs import astype, where

INTP = np.dtype(np.intp)
F64 = np.dtype(np.float64)
_range = builtins.range  # `range` is NumPy's argument name below


def _sample(sample):
    """NumPy's ``(N, D)`` view of ``sample``: an ``(N, D)`` array, or a sequence of ``D``
    coordinate vectors (``atleast_2d(sample).T``)."""
    if isinstance(sample, Tensor | np.ndarray) and len(sample.shape) == 2:
        s = asarray(sample)
    else:
        if isinstance(sample, list | tuple) and any(isinstance(v, Tensor) for v in sample):
            parts = [asarray(v) for v in sample]
            shapes = {tuple(p.shape) for p in parts}
            if len(shapes) != 1 or len(next(iter(shapes))) > 1:
                raise ValueError("histogramdd: the coordinate vectors must be 1-D and of one "
                                 f"length, got shapes {[tuple(p.shape) for p in parts]}")
            s = stack(parts, axis=-1) if parts[0].shape else reshape(stack(parts), (1, -1))
        else:
            try:
                known = np.atleast_2d(np.asarray(sample)).T
            except ValueError as e:
                raise ValueError(f"histogramdd: {e}") from e
            if known.ndim != 2:
                raise ValueError(f"too many values to unpack (expected 2): sample of shape "
                                 f"{known.shape}")
            s = asarray(known)
    if s.dtype.kind == "c":
        raise NotImplementedError(f"gnp.histogramdd of complex data is not supported"
                                  f"{source_info.where()}")
    return s


def _known(x):
    return static_value(x) if isinstance(x, Tensor) else np.asarray(x)


def _traced_linspace(col, count):
    """``linspace(min, max, count + 1)`` of traced data (equal ends widened by 0.5), with
    NumPy's linspace arithmetic in its dtype (the data's float dtype, else float64)."""
    dt = col.dtype if col.dtype.kind == "f" else F64
    lo, hi = astype(_min(col), dt), astype(_max(col), dt)
    same = lo == hi
    first, last = where(same, lo - 0.5, lo), where(same, hi + 0.5, hi)
    step = (last - first) / count
    points = arange(0, count + 1, 1, dtype=dt)
    return where(points == count, last, points * step + first)


def _edges(col, b, rng, i):
    """The edges of dimension ``i`` (a tensor)."""
    if isinstance(b, Tensor) and len(b.shape) == 0:
        b = _static_number(b, "the number of bins")
    if not isinstance(b, Tensor) and np.ndim(b) == 0:
        if b < 1:
            raise ValueError(f"`bins[{i}]` must be positive, when an integer")
        try:
            n = operator.index(b)
        except TypeError as e:
            raise TypeError(f"`bins[{i}]` must be an integer, when a scalar") from e
        ends = _outer_edges(asarray(col), rng)
        if ends is None:
            return _traced_linspace(col, n)
        return asarray(np.linspace(ends[0], ends[1], n + 1))
    if len(b.shape if isinstance(b, Tensor) else np.shape(b)) == 1:
        edges = asarray(b)
        known = _known(edges)
        if known is not None and np.any(known[:-1] > known[1:]):
            raise ValueError(f"`bins[{i}]` must be monotonically increasing, when an array")
        if edges.shape[0] is None:
            raise TypeError(f"gnp.histogramdd: the number of edges of bins[{i}] must be "
                            f"known while tracing{source_info.where()}")
        return edges
    raise ValueError(f"`bins[{i}]` must be a scalar or 1d array")


def histogramdd(sample, bins=10, range=None, density=None, weights=None):  # noqa: A002
    """``np.histogramdd``: ``(hist, edges)``, the float64 counts of the ``D``-dimensional
    points of ``sample`` (``(N, D)``, or ``D`` coordinate vectors) and the list of ``D``
    edge vectors.

    ``bins``: per dimension a number of equal-width bins or a vector of edges (one int or
    edge list for all, or a sequence of ``D``); ``range``: per dimension ``(min, max)`` or
    None; ``weights``: ``N`` values to add instead of ones; ``density``: divide by the
    bin volumes and the total.
    """
    s = _sample(sample)
    d = s.shape[1]
    if d is None:
        raise TypeError(f"gnp.histogramdd: the number of dimensions (sample.shape[1]) must "
                        f"be known while tracing{source_info.where()}")
    try:
        if len(bins) != d:
            raise ValueError("The dimension of bins must be equal to the dimension of the "
                             "sample x.")
    except TypeError:
        bins = d * [bins]
    if isinstance(bins, Tensor):
        bins = [bins[i] for i in _range(d)]
    if range is None:
        range = (None,) * d  # noqa: A001
    elif len(range) != d:
        raise ValueError("range argument must have one entry per dimension")
    if weights is not None:
        weights = asarray(weights)
    cols = [s[:, i] for i in _range(d)]
    edges = [_edges(cols[i], bins[i], range[i], i) for i in _range(d)]
    nbin = [e.shape[0] + 1 for e in edges]  # an outlier slot at each end
    flat = None
    for i in _range(d):
        idx = searchsorted(edges[i], cols[i], side="right")
        idx = idx - astype(cols[i] == edges[i][-1], INTP)
        flat = idx if flat is None else flat * nbin[i] + idx
    total = int(np.prod(nbin, dtype=np.int64))
    if flat is None:  # no dimensions: NumPy's empty histogram of one element
        flat = astype(_sum(s, axis=1) * 0, INTP)
    hist = bincount(flat, weights, minlength=total, length=total)
    hist = astype(reshape(hist, tuple(nbin)), F64)
    hist = hist[(slice(1, -1),) * d]
    if density:
        total_count = _sum(hist)
        for i in _range(d):
            widths = edges[i][1:] - edges[i][:-1]
            shape = [1] * d
            shape[i] = nbin[i] - 2
            hist = hist / reshape(widths, tuple(shape))
        hist = hist / total_count
    return hist, edges



def histogram2d(x, y, bins=10, range=None, density=None, weights=None):  # noqa: A002
    """``np.histogram2d``: ``(hist, xedges, yedges)`` of the points ``(x[i], y[i])``.

    ``bins``: an int or a pair of ints (bins per dimension), one edge vector for both, or
    a pair of edge vectors (or an int and a vector); ``range``: ``[[xmin, xmax], [ymin,
    ymax]]``; ``density`` and ``weights`` as ``histogramdd``'s.
    """
    try:
        n = len(bins)
    except TypeError:
        n = 1
    if n not in (1, 2):
        both = asarray(bins)
        bins = [both, both]
    x, y = asarray(x), asarray(y)
    if len(x.shape) != 1 or len(y.shape) != 1 or (
            None not in (x.shape[0], y.shape[0]) and x.shape[0] != y.shape[0]):
        raise ValueError(f"histogram2d: x and y must be 1-D of one length, got shapes "
                         f"{tuple(x.shape)} and {tuple(y.shape)}")
    hist, edges = histogramdd([x, y], bins, range, density, weights)
    return hist, edges[0], edges[1]
