"""NaN-ignoring reductions and a few more of NumPy's reductions, built from the reduce ops
(no op of their own: gradients, batching and compiled kernels are those of the ops
used): ``nansum``, ``nanprod``, ``nanmax``, ``nanmin``, ``nanargmax``, ``nanargmin``,
``nanmean``, ``nanvar``, ``nanstd``, ``nancumsum``, ``nancumprod``, ``count_nonzero``,
``average``, ``ptp``, ``cumulative_sum``, ``cumulative_prod``.

As NumPy: integer and bool inputs have no NaN, so the plain reduction runs; NaNs are
replaced by the operation's neutral element (0, 1, -inf, +inf). NumPy's warnings for
all-NaN slices ("All-NaN slice encountered", "Mean of empty slice", "Degrees of freedom
<= 0 for slice.") are given when the data is known while tracing (eagerly, or
constants); with traced data the values are the same, without the warning.
``nanargmax``/``nanargmin`` raise ``ValueError`` on an all-NaN slice eagerly, and an
``InvalidArgumentError`` when the graph runs inside ``gc.function``.
"""

from __future__ import annotations

import builtins

import numpy as np

from graphc import errors, source_info
from graphc.core.shapes import normalize_axes
from graphc.ops.convert import asarray
from graphc.ops.creation import ones, zeros
from graphc.ops.effects import assert_op
from graphc.ops.join import concatenate
from graphc.ops.reduce import all as _all
from graphc.ops.reduce import any as _any
from graphc.ops.reduce import (
    argmax,
    argmin,
    cumprod,
    cumsum,
    mean,
    prod,
    std,
    var,
)
from graphc.ops.reduce import max as _max
from graphc.ops.reduce import min as _min
from graphc.ops.reduce import sum as _sum
from graphc.ops.shape import broadcast_to, reshape, transpose
from graphc.ops.shape_args import static_value
from graphc.ops.ufuncs import astype, isnan, logical_not, sqrt, where

INTP = np.dtype(np.intp)


def _axis(axis):
    return tuple(axis) if isinstance(axis, list) else axis


def _no_out(out, name):
    if out is not None:
        raise NotImplementedError(f"gnp.{name}(..., out=) is not supported; use the result"
                                  f"{source_info.where()}")


def _warn_if(mask, message):
    """NumPy's RuntimeWarning, when ``mask`` is known while tracing and true somewhere."""
    known = static_value(mask)
    if known is not None and np.any(known):
        errors.warn(message, RuntimeWarning)


def _inexact(a) -> bool:
    return a.dtype.kind in "fc"


def _replaced(a, value):
    """``a`` with NaNs replaced by ``value`` (in ``a``'s dtype), and the NaN mask."""
    mask = isnan(a)
    return where(mask, np.asarray(value).astype(a.dtype), a), mask


def nansum(a, axis=None, dtype=None, out=None, keepdims=False):
    """``np.nansum``: the sum with NaNs taken as zero (all-NaN slices give 0)."""
    _no_out(out, "nansum")
    a = asarray(a)
    if _inexact(a):
        a = _replaced(a, 0)[0]
    return _sum(a, axis=_axis(axis), dtype=dtype, keepdims=keepdims)


def nanprod(a, axis=None, dtype=None, out=None, keepdims=False):
    """``np.nanprod``: the product with NaNs taken as one."""
    _no_out(out, "nanprod")
    a = asarray(a)
    if _inexact(a):
        a = _replaced(a, 1)[0]
    return prod(a, axis=_axis(axis), dtype=dtype, keepdims=keepdims)


def nancumsum(a, axis=None, dtype=None, out=None):
    """``np.nancumsum``: the running sum with NaNs taken as zero."""
    _no_out(out, "nancumsum")
    a = asarray(a)
    if _inexact(a):
        a = _replaced(a, 0)[0]
    return cumsum(a, axis=axis, dtype=dtype)


def nancumprod(a, axis=None, dtype=None, out=None):
    """``np.nancumprod``: the running product with NaNs taken as one."""
    _no_out(out, "nancumprod")
    a = asarray(a)
    if _inexact(a):
        a = _replaced(a, 1)[0]
    return cumprod(a, axis=axis, dtype=dtype)


def _nan_extreme(a, axis, keepdims, fill, reduce, name):
    a = asarray(a)
    axis = _axis(axis)
    if a.dtype.kind != "f":
        return reduce(a, axis=axis, keepdims=keepdims)
    filled, mask = _replaced(a, fill)
    empty = _all(mask, axis=axis, keepdims=keepdims)
    _warn_if(empty, "All-NaN slice encountered")
    return where(empty, np.asarray(np.nan, a.dtype), reduce(filled, axis=axis,
                                                            keepdims=keepdims))


def nanmax(a, axis=None, out=None, keepdims=False):
    """``np.nanmax``: the maximum ignoring NaNs; NaN (with a warning) for all-NaN slices."""
    _no_out(out, "nanmax")
    return _nan_extreme(a, axis, keepdims, -np.inf, _max, "nanmax")


def nanmin(a, axis=None, out=None, keepdims=False):
    """``np.nanmin``: the minimum ignoring NaNs; NaN (with a warning) for all-NaN slices."""
    _no_out(out, "nanmin")
    return _nan_extreme(a, axis, keepdims, np.inf, _min, "nanmin")


def _nan_arg(a, axis, keepdims, fill, reduce):
    a = asarray(a)
    if a.dtype.kind != "f":
        return reduce(a, axis=axis, keepdims=keepdims)
    filled, mask = _replaced(a, fill)
    empty = _any(_all(mask, axis=axis))
    known = static_value(empty)
    if known is not None:
        if known:
            raise ValueError("All-NaN slice encountered")
    else:
        assert_op("assert", (logical_not(empty),), data=("All-NaN slice encountered",))
    return reduce(filled, axis=axis, keepdims=keepdims)


def nanargmax(a, axis=None, out=None, *, keepdims=False):
    """``np.nanargmax``: the index of the maximum ignoring NaNs; an all-NaN slice raises
    ``ValueError`` (eagerly; ``InvalidArgumentError`` when a traced graph runs)."""
    _no_out(out, "nanargmax")
    return _nan_arg(a, axis, keepdims, -np.inf, argmax)


def nanargmin(a, axis=None, out=None, *, keepdims=False):
    """``np.nanargmin``: the index of the minimum ignoring NaNs (see ``nanargmax``)."""
    _no_out(out, "nanargmin")
    return _nan_arg(a, axis, keepdims, np.inf, argmin)


def _count_and_total(a, axis, dtype, keepdims):
    filled, mask = _replaced(a, 0)
    cnt = _sum(logical_not(mask), axis=axis, dtype=INTP, keepdims=keepdims)
    tot = _sum(filled, axis=axis, dtype=dtype, keepdims=keepdims)
    return filled, mask, cnt, tot


def _divide(tot, cnt):
    """NumPy's ``_divide_by_count``: the quotient in the total's dtype (0/0 for empty
    slices is NaN without a floating-point warning: NumPy's own warning says why)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        q = tot / cnt
    return q if q.dtype == tot.dtype else astype(q, tot.dtype)


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False):
    """``np.nanmean``: the mean of the non-NaN values; NaN and "Mean of empty slice" for
    all-NaN slices. float32 stays float32, integers average in float64."""
    _no_out(out, "nanmean")
    a = asarray(a)
    axis = _axis(axis)
    if a.dtype.kind != "f":
        return mean(a, axis=axis, dtype=dtype, keepdims=keepdims)
    _, _, cnt, tot = _count_and_total(a, axis, dtype, keepdims)
    _warn_if(cnt == 0, "Mean of empty slice")
    return _divide(tot, cnt)


def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """``np.nanvar``: the variance of the non-NaN values, ``sum(|x - mean|^2) / (n -
    ddof)``; NaN with "Degrees of freedom <= 0 for slice." where ``n <= ddof``."""
    _no_out(out, "nanvar")
    a = asarray(a)
    axis = _axis(axis)
    if a.dtype.kind != "f":
        return var(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims)
    filled, mask, cnt, tot = _count_and_total(a, axis, dtype, True)
    avg = _divide(tot, cnt)
    dev = where(mask, np.zeros((), avg.dtype), filled - avg)
    sq = _sum(dev * dev, axis=axis, dtype=dtype, keepdims=keepdims)
    dof = _sum(logical_not(mask), axis=axis, dtype=INTP, keepdims=keepdims) - ddof
    bad = dof <= 0
    _warn_if(bad, "Degrees of freedom <= 0 for slice.")
    return where(bad, np.asarray(np.nan, sq.dtype), _divide(sq, dof))


def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """``np.nanstd``: ``sqrt(nanvar(...))``."""
    _no_out(out, "nanstd")
    a = asarray(a)
    if a.dtype.kind != "f":
        return std(a, axis=_axis(axis), dtype=dtype, ddof=ddof, keepdims=keepdims)
    return sqrt(nanvar(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims))


def count_nonzero(a, axis=None, *, keepdims=False):
    """``np.count_nonzero``: the number of nonzero (true) elements, as intp (a 0-d tensor
    for ``axis=None``, where NumPy gives a scalar)."""
    a = asarray(a)
    return _sum(a != 0, axis=_axis(axis), dtype=INTP, keepdims=keepdims)


def ptp(a, axis=None, out=None, keepdims=False):
    """``np.ptp``: ``max - min`` (integers wrap around as NumPy's subtraction does)."""
    _no_out(out, "ptp")
    a = asarray(a)
    axis = _axis(axis)
    return _max(a, axis=axis, keepdims=keepdims) - _min(a, axis=axis, keepdims=keepdims)


def _weights_shaped(a, wgt, axis):
    """1-D (or per-axis) weights reshaped to broadcast against ``a`` along ``axis``."""
    if axis is None:
        raise TypeError("Axis must be specified when shapes of a and weights differ.")
    axes = normalize_axes(axis, len(a.shape))
    axes = (axes,) if isinstance(axes, int) else tuple(axes)
    order = axis if isinstance(axis, tuple | list) else (axis,)
    order = [o % len(a.shape) for o in order]
    if tuple(wgt.shape) != tuple(a.shape[o] for o in order):
        raise ValueError("Shape of weights must be consistent with shape of a along "
                         "specified axis.")
    wgt = transpose(wgt, tuple(int(i) for i in np.argsort(order)))
    return reshape(wgt, tuple(a.shape[i] if i in axes else 1 for i in range(len(a.shape))))


def average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    """``np.average``: the (weighted) mean along ``axis``. Integer data averages in
    float64; weights of another shape than ``a`` must match ``a`` along ``axis``;
    weights summing to zero raise ``ZeroDivisionError`` (when known while tracing).
    ``returned=True`` also gives the sum of the weights, broadcast like the average."""
    a = asarray(a)
    axis = _axis(axis)
    if weights is None:
        avg = mean(a, axis=axis, keepdims=keepdims)
        if not returned:
            return avg
        size = 1
        for d in a.shape:
            size = None if size is None or d is None else size * d
        n = size // builtins.max(1, int(np.prod(avg.shape))) if size is not None else None
        if n is None:
            raise ValueError(f"gnp.average(returned=True) needs a's shape known while "
                             f"tracing{source_info.where()}")
        return avg, broadcast_to(np.asarray(n, avg.dtype), avg.shape)
    wgt = asarray(weights)
    if a.dtype.kind in "biu":
        dt = np.result_type(a.dtype, wgt.dtype, "f8")
    else:
        dt = np.result_type(a.dtype, wgt.dtype)
    if tuple(a.shape) != tuple(wgt.shape):
        wgt = _weights_shaped(a, wgt, axis)
    scl = _sum(wgt, axis=axis, dtype=dt, keepdims=keepdims)
    known = static_value(scl)
    if known is not None and np.any(known == 0.0):
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    avg = _sum(astype(a, dt) * astype(wgt, dt), axis=axis, keepdims=keepdims) / scl
    if not returned:
        return avg
    if tuple(scl.shape) != tuple(avg.shape):
        scl = broadcast_to(scl, avg.shape)
    return avg, scl


def _cumulative(x, axis, dtype, include_initial, scan, start, name):
    x = asarray(x)
    nd = len(x.shape)
    if axis is None:
        if nd > 1:
            raise ValueError("For arrays which have more than one dimension ``axis`` "
                             "argument is required.")
        axis = 0
    if nd == 0:
        x = reshape(x, (1,))
    r = scan(x, axis=axis, dtype=dtype)
    if not include_initial:
        return r
    ax = axis % builtins.max(nd, 1)
    shape = tuple(1 if i == ax else d for i, d in enumerate(r.shape))
    if None in shape:
        raise ValueError(f"gnp.{name}(include_initial=True) needs the other dims known "
                         f"while tracing{source_info.where()}")
    first = (zeros if start == 0 else ones)(shape, dtype=r.dtype)
    return concatenate([first, r], axis=ax)


def cumulative_sum(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    """``np.cumulative_sum``: ``cumsum`` that needs ``axis`` for more than one dimension
    and can start with 0 (``include_initial``)."""
    _no_out(out, "cumulative_sum")
    return _cumulative(x, axis, dtype, include_initial, cumsum, 0, "cumulative_sum")


def cumulative_prod(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    """``np.cumulative_prod``: ``cumprod`` that needs ``axis`` for more than one dimension
    and can start with 1 (``include_initial``)."""
    _no_out(out, "cumulative_prod")
    return _cumulative(x, axis, dtype, include_initial, cumprod, 1, "cumulative_prod")
