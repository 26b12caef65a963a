"""``np.searchsorted``, ``np.digitize`` and ``np.bincount`` (``histograms.py`` builds the
histograms on them).

No op of their own. ``searchsorted`` is NumPy's binary search run for all values at
once: for ``a`` of static length ``n``, ``bit_length(n)`` steps each ``take`` one element
of ``a`` per searched value and compare, so the work is ``O(len(v) log n)`` with the
``take``, comparison and ``where`` kernels (a ``while_loop`` of the same steps when ``n``
is unknown while tracing). NaN sorts last, as in NumPy. ``bincount`` adds into bins with
``unsorted_segment_sum``, the scatter-add the gradients use.

Differences from NumPy: complex values are not supported; on an unsorted ``a`` each value
gets the index NumPy gives it when searched alone (NumPy carries bounds from one value to
the next there); inside ``gc.function`` the checks NumPy makes on
*values* (``digitize``'s monotonic bins, ``bincount``'s non-negative input) are made only
when the values are known while tracing; ``bincount`` needs its output length while
tracing (see its docstring for the ``length=`` keyword).
"""

from __future__ import annotations

import operator

import numpy as np

from graphc import source_info
from graphc.ops.control.flow import while_loop
from graphc.ops.convert import asarray
from graphc.ops.indexing import take
from graphc.ops.reduce import any as _any
from graphc.ops.reduce import argmax
from graphc.ops.segment import unsorted_segment_sum
from graphc.ops.shape import flip, shape
from graphc.ops.shape_args import static_value
from graphc.ops.ufuncs import astype, isnan, logical_not, where

INTP = np.dtype(np.intp)


def _no_complex(t, what):
    if t.dtype.kind == "c":
        raise NotImplementedError(f"{what} of complex values is not supported"
                                  f"{source_info.where()}")


def _less(x, y):
    """NumPy's sort order: ``x < y``, with NaN after every number."""
    lt = x < y
    if x.dtype.kind == "f" or y.dtype.kind == "f":
        lt = lt | (isnan(y) & logical_not(isnan(x)))
    return lt


def _goes_before(a_value, v, side):
    """Whether the element ``a_value`` of the sorted array lies before the insertion
    point of ``v``: ``a_value < v`` (left) or ``not v < a_value`` (right)."""
    return _less(a_value, v) if side == "left" else logical_not(_less(v, a_value))


def _search(a, v, side):
    """NumPy's binary search of each ``v`` in the 1-D ``a``, all values at once.

    ``[lo, hi)`` starts as ``[0, n)``; a step looks at ``a[mid]`` and keeps the half
    where the insertion point lies; ``bit_length(n)`` steps empty every interval.
    Values whose interval is empty stay put (``hi`` then equals ``mid``, and ``lo``
    moves only while ``lo < hi``).
    """
    n = a.shape[0]
    lo = astype(v < v, INTP)  # zeros shaped (and batched) like v: elementwise

    def step(lo, hi):
        mid = (lo + hi) // 2
        before = _goes_before(take(a, mid, mode="clip"), v, side)
        return where(before & (lo < hi), mid + 1, lo), where(before, hi, mid)

    if n is not None:
        hi = lo + n
        for _ in range(n.bit_length()):
            lo, hi = step(lo, hi)
        return lo
    hi = lo + shape(a, out_type=np.int64)[0]
    lo, _ = while_loop(lambda lo, hi: _any(lo < hi), step, [lo, hi])
    return lo


def searchsorted(a, v, side="left", sorter=None):
    """``np.searchsorted``: the indices at which to insert ``v`` into the sorted 1-D
    ``a`` (first such index for ``side='left'``, last for ``'right'``); ``sorter``:
    indices that sort ``a``. The result is int64 shaped like ``v``."""
    if side not in ("left", "right"):
        raise ValueError(f"search side must be 'left' or 'right' (got {side!r})")
    a, v = asarray(a), asarray(v)
    if len(a.shape) != 1:
        raise ValueError(f"object too deep for desired array (searchsorted needs a 1-D "
                         f"a, got shape {tuple(a.shape)}){source_info.where()}")
    _no_complex(a, "searchsorted")
    _no_complex(v, "searchsorted")
    if sorter is not None:
        sorter = asarray(sorter)
        if sorter.dtype.kind not in "iu":
            raise TypeError(f"sorter must be integers, got {sorter.dtype}")
        if (len(sorter.shape) != 1 or None not in (sorter.shape[0], a.shape[0])
                and sorter.shape[0] != a.shape[0]):
            raise ValueError("sorter.size must equal a.size")
        a = take(a, sorter)
    return _search(a, v, side)


# --------------------------------------------------------------------------- digitize
def _monotonicity(bins: np.ndarray) -> int:
    """1: non-decreasing, -1: non-increasing, 0: neither (NumPy's rule: the direction is
    that of the first element differing from ``bins[0]``; all equal counts as 1)."""
    if bins.size < 2:
        return 1
    first = bins[0]
    differ = np.flatnonzero(bins[1:] != first)
    if not differ.size:
        return 1
    with np.errstate(invalid="ignore"):
        if first < bins[1 + differ[0]]:
            return 0 if np.any(bins[:-1] > bins[1:]) else 1
        return 0 if np.any(bins[:-1] < bins[1:]) else -1


def _decreasing(bins):
    """The ``-1`` case of :func:`_monotonicity` on a traced vector (a boolean scalar)."""
    differ = bins[1:] != bins[0]
    turn = take(bins, argmax(differ) + 1, mode="clip")
    return _any(differ) & logical_not(bins[0] < turn)


def digitize(x, bins, right=False):
    """``np.digitize``: the index of the bin of each ``x``; ``bins`` increasing or
    decreasing, ``right`` closes the bins on the right instead of the left."""
    x, bins = asarray(x), asarray(bins)
    if x.dtype.kind == "c":
        raise TypeError("x may not be complex")
    if len(bins.shape) != 1:
        raise ValueError(f"object too deep for desired array (digitize needs 1-D bins, "
                         f"got shape {tuple(bins.shape)}){source_info.where()}")
    _no_complex(bins, "digitize")
    side = "left" if right else "right"
    known = static_value(bins)
    if known is not None:
        mono = _monotonicity(np.asarray(known))
        if mono == 0:
            raise ValueError("bins must be monotonically increasing or decreasing")
        if mono == 1:
            return _search(bins, x, side)
        return len(known) - _search(flip(bins), x, side)
    up = _search(bins, x, side)
    count = bins.shape[0]
    if count is None:
        count = shape(bins, out_type=np.int64)[0]
    elif count < 2:
        return up
    down = count - _search(flip(bins), x, side)
    return where(_decreasing(bins), down, up)


# --------------------------------------------------------------------------- bincount
def _bincount_length(x, minlength, length):
    if length is not None:
        length = operator.index(length)
        if length < 0:
            raise ValueError("'length' must not be negative")
        return length, False
    known = static_value(x)
    if known is None:
        raise ValueError(
            "gnp.bincount inside gc.function needs its output length while tracing, and "
            "NumPy's is max(x) + 1 (at least minlength), a value of the data. Pass "
            "length=N (a graphc keyword: exactly N bins, values >= N are dropped), or use "
            f"gnp.histogram with a static number of bins{source_info.where()}")
    known = np.asarray(known)
    if known.size and known.min() < 0:
        raise ValueError("'list' argument must have no negative elements")
    return max(int(known.max()) + 1 if known.size else 0, minlength), True


def bincount(x, weights=None, minlength=0, *, length=None):
    """``np.bincount``: how often each value ``0..max(x)`` occurs in the non-negative
    integer vector ``x`` (the sum of ``weights`` at those places, as float64, when given);
    at least ``minlength`` bins.

    The number of bins depends on the values of ``x``: eagerly (and for ``x`` known while
    tracing) it is NumPy's; inside ``gc.function`` pass ``length=N`` (as JAX's
    ``bincount``): exactly ``N`` bins, values outside ``[0, N)`` dropped.
    """
    x = asarray(x)
    if len(x.shape) != 1:
        numpy_words = "of too small depth" if not x.shape else "too deep"
        raise ValueError(f"object {numpy_words} for desired array (bincount takes a 1-D "
                         f"array, got shape {tuple(x.shape)}){source_info.where()}")
    if x.dtype.kind not in "iub" or not np.can_cast(x.dtype, INTP):
        raise TypeError(f"Cannot cast array data from {x.dtype!r} to {INTP!r} according "
                        "to the rule 'safe'")
    minlength = operator.index(minlength)
    if minlength < 0:
        raise ValueError("'minlength' must not be negative")
    count, checked = _bincount_length(x, minlength, length)
    if weights is not None:
        weights = asarray(weights)
        if weights.dtype.kind == "c":
            raise TypeError(f"Cannot cast array data from {weights.dtype!r} to "
                            "dtype('float64') according to the rule 'safe'")
        if len(weights.shape) != 1 or (None not in (weights.shape[0], x.shape[0])
                                       and weights.shape[0] != x.shape[0]):
            raise ValueError("The weights and list don't have the same length.")
        data = astype(weights, np.float64)
    else:
        data = astype(x == x, INTP)  # ones, elementwise (batched like x)
    ids = astype(x, INTP)
    if not checked:
        ids = where(ids < count, ids, -1)  # dropped by the scatter-add, as negative ids
    return unsorted_segment_sum(data, ids, count)

