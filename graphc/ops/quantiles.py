"""``np.quantile``, ``percentile``, ``median`` and their NaN-ignoring versions, built from
``sort``, ``take_along_axis`` and elementwise ops (no op of their own: gradients flow to
the selected elements through ``sort``/``take_along_axis``; batching and kernels are
those of the ops used).

Every one of NumPy's 13 ``method``s: the virtual index of each quantile among the ``n``
sorted values (``n`` the slice length, or its count of non-NaN values for the ``nan*``
names), its two neighbours (clipped to ``[0, n - 1]``) and NumPy's interpolation
``lerp`` between them with the method's weight. The result dtype is NumPy's (probed on a
two-element stand-in, with a Python-number ``q`` weak as in NumPy). A slice holding a NaN
gives NaN; for the ``nan*`` names an all-NaN slice gives NaN with NumPy's "All-NaN slice
encountered" warning (when the data is known while tracing). ``weights`` (NumPy's
``inverted_cdf`` weighting) is not supported.
"""

from __future__ import annotations

import builtins

import numpy as np

from graphc import errors, source_info
from graphc.core.shapes import normalize_axes
from graphc.ops.convert import asarray
from graphc.ops.indexing import take_along_axis
from graphc.ops.reduce import sum as _sum
from graphc.ops.shape import expand_dims, moveaxis, reshape, shape, sort, transpose
from graphc.ops.shape_args import static_value
from graphc.ops.ufuncs import astype, ceil, clip, floor, isnan, logical_not, round, where

_F64 = np.dtype(np.float64)
INTP = np.dtype(np.intp)
# method -> (alpha, beta) of the continuous methods (Hyndman & Fan's parametrization)
_CONTINUOUS = {"interpolated_inverted_cdf": (0.0, 1.0), "hazen": (0.5, 0.5),
               "weibull": (0.0, 0.0), "median_unbiased": (1 / 3.0, 1 / 3.0),
               "normal_unbiased": (3 / 8.0, 3 / 8.0)}
METHODS = ("inverted_cdf", "averaged_inverted_cdf", "closest_observation",
           *_CONTINUOUS, "linear", "lower", "higher", "midpoint", "nearest")
_DISCRETE = ("inverted_cdf", "closest_observation", "lower", "higher", "nearest")


def _boundaries(index, pick_previous):
    """NumPy's discrete rule: ``floor(index)`` where ``pick_previous(gamma, index)``, else
    the next index."""
    prev = floor(index)
    return where(pick_previous(index - prev, index), prev, prev + 1)


def _virtual_index(method, n, q):
    """The (float) virtual index of quantile ``q`` among ``n`` sorted values; integral
    for the discrete methods."""
    if method == "linear":
        return (n - 1) * q
    if method == "lower":
        return floor((n - 1) * q)
    if method == "higher":
        return ceil((n - 1) * q)
    if method == "nearest":
        return round((n - 1) * q)
    if method == "midpoint":
        return 0.5 * (floor((n - 1) * q) + ceil((n - 1) * q))
    if method == "inverted_cdf":
        return _boundaries(n * q - 1, lambda g, i: g == 0)
    if method == "averaged_inverted_cdf":
        return n * q - 1
    if method == "closest_observation":
        return _boundaries(n * q - 1.5, lambda g, i: (g == 0) & (floor(i) % 2 == 1))
    alpha, beta = _CONTINUOUS[method]
    return n * q + (alpha + q * (1 - alpha - beta)) - 1


def _lerp(a, b, t, rest):
    """NumPy's ``_lerp``: from ``a`` for ``t < 0.5``, from ``b`` above (exact ends);
    ``rest`` is ``1 - t``, computed before any cast as NumPy does."""
    d = b - a
    return where(t >= 0.5, b - d * rest, a + d * t)


def _result_dtype(a, q, weak_q, method):
    stand_in = np.array([0, 1], a.dtype)
    qs = np.zeros(q.shape, q.dtype) if weak_q is None else weak_q
    return np.asarray(np.quantile(stand_in, qs, method=method)).dtype


def _to_last(a, axis):
    """``a`` with the reduced axes merged into one last axis; the reduced axes."""
    nd = len(a.shape)
    if axis is None:
        return reshape(a, (-1,)), tuple(range(nd))
    axes = normalize_axes(axis, nd)
    axes = (axes,) if isinstance(axes, int) else tuple(sorted(axes))
    kept = [i for i in range(nd) if i not in axes]
    a = transpose(a, tuple(kept + list(axes)))
    if len(axes) == 1:
        return a, axes
    lead = tuple(a.shape[: len(kept)])
    if None in lead:
        raise ValueError(f"quantiles over several axes need the other dims known while "
                         f"tracing{source_info.where()}")
    return reshape(a, lead + (-1,)), axes


def _prepare(a, axis, ignore_nan):
    """The data sorted along one last axis (NaN last), the count ``n`` of values per
    slice (a float, or a float64 tensor shaped ``(..., 1)`` for the ``nan*`` names),
    the reduced axes, and whether the data is floating."""
    a = asarray(a)
    if a.dtype.kind == "c":
        raise TypeError("a must be an array of real numbers")
    x, axes = _to_last(a, axis)
    x = sort(x, axis=-1)
    inexact = x.dtype.kind == "f"
    if ignore_nan and inexact:
        n = astype(_sum(logical_not(isnan(x)), axis=-1, keepdims=True), _F64)
    elif x.shape[-1] is not None:
        n = float(x.shape[-1])
    else:
        n = astype(shape(x, out_type=np.int64)[-1], _F64)
    return x, n, axes, inexact


def _gather(x, idx):
    """``x[..., idx]`` for float indices ``idx`` shaped ``(Q,)`` or ``(..., Q)``."""
    idx = astype(idx, INTP)
    if len(idx.shape) < len(x.shape):  # the same indices for every slice
        idx = reshape(idx, (1,) * (len(x.shape) - 1) + (-1,)) \
            + astype(isnan(x[..., :1]), INTP) * 0
    return take_along_axis(x, idx, axis=-1)


def _finish(r, x, n, axes, q_shape, keepdims, ignore_nan, inexact, out_dtype):
    """NaN where a slice holds a NaN (or is all NaN), NumPy's dtype, and NumPy's shape:
    ``q.shape + kept dims`` (the reduced ones as ones with ``keepdims``)."""
    if inexact:
        if ignore_nan:
            bad = n == 0
            known = static_value(bad)
            if known is not None and np.any(known):
                errors.warn("All-NaN slice encountered", RuntimeWarning)
        else:
            bad = isnan(x[..., -1:])  # a NaN sorts last
        r = where(bad, np.asarray(np.nan, r.dtype), r)
    if r.dtype != out_dtype:
        r = astype(r, out_dtype)
    r = moveaxis(r, -1, 0)  # (Q, kept...)
    if keepdims:
        for ax in axes:
            r = expand_dims(r, 1 + ax)
    if len(q_shape) == 0:
        return r[0]
    if len(q_shape) == 1:
        return r
    return reshape(r, tuple(q_shape) + tuple(-1 if d is None else d for d in r.shape[1:]))


def _quantile(a, q, axis, method, keepdims, ignore_nan, weak_q):
    if method not in METHODS:
        raise ValueError(f"{method!r} is not a valid method. Use one of: {METHODS}")
    x, n, axes, inexact = _prepare(a, axis, ignore_nan)
    out_dtype = _result_dtype(x, q, weak_q, method)
    # NumPy computes the indices in q's float type (float64 for integer q)
    qdt = q.dtype if q.dtype.kind == "f" else _F64
    qf = reshape(astype(q, qdt) if q.dtype != qdt else q, (-1,))  # (Q,)
    if not isinstance(n, float) and n.dtype != qdt:
        n = astype(n, qdt)
    vi = _virtual_index(method, n, qf)
    last = n - 1 if isinstance(n, float) else where(n > 0, n - 1, 0.0)
    if isinstance(n, float) and n == 0:
        raise IndexError("cannot take a quantile of an empty slice")
    if method in _DISCRETE:
        r = _gather(x, clip(vi, 0, last))
    else:
        # NumPy's neighbours: both the last index at or past it, both 0 below 0
        prev = floor(vi)
        above, below = vi >= last, vi < 0
        nxt = where(above, last, where(below, 0.0, prev + 1))
        prev = where(above, last, where(below, 0.0, prev))
        gamma = vi - prev
        if method == "averaged_inverted_cdf":
            gamma = where(gamma == 0, 0.5, 1.0)
        rest = 1 - gamma
        if weak_q is not None and out_dtype.kind == "f":  # NumPy's gamma: a weak float
            gamma, rest = astype(gamma, out_dtype), astype(rest, out_dtype)
        r = _lerp(_gather(x, prev), _gather(x, nxt), gamma, rest)
    return _finish(r, x, n, axes, q.shape, keepdims, ignore_nan, inexact, out_dtype)


def _q_tensor(q, scale, name, what):
    """``q`` (divided by ``scale``) as a tensor, checked when known; and, for a Python
    number (weak in NumPy's promotion), a number of its kind for the dtype probe (an int
    stays an int in ``quantile``; ``percentile`` divides it into a float), else None."""
    weak_q = None
    if type(q) in (builtins.int, builtins.float):
        weak_q = 0 if type(q) is builtins.int and scale == 1 else 0.5
    qt = asarray(q)
    if qt.dtype.kind == "c":
        raise TypeError(f"{name}: q must be real")
    if scale != 1:
        qt = qt / scale
    known = static_value(qt)
    if known is not None and not (np.all(known >= 0) and np.all(known <= 1)):
        raise ValueError(f"{what} must be in the range [0, {scale if scale != 1 else 1}]")
    return qt, weak_q


def _no_extras(out, overwrite_input, weights, interpolation, name):
    if out is not None:
        raise NotImplementedError(f"gnp.{name}(..., out=) is not supported{source_info.where()}")
    if weights is not None:
        raise NotImplementedError(f"gnp.{name}(..., weights=) is not supported"
                                  f"{source_info.where()}")
    if interpolation is not None:
        raise TypeError(f"{name}: 'interpolation' was removed from NumPy; use 'method'")


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False, *, weights=None, interpolation=None):
    """``np.quantile``: the ``q``-th quantiles (``0 <= q <= 1``, a scalar or array) along
    ``axis`` (None, an int or a tuple), by any of NumPy's 13 methods."""
    _no_extras(out, overwrite_input, weights, interpolation, "quantile")
    qt, weak = _q_tensor(q, 1, "quantile", "Quantiles")
    return _quantile(a, qt, axis, method, keepdims, False, weak)


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False, *, weights=None, interpolation=None):
    """``np.percentile``: ``quantile(a, q / 100, ...)`` (``0 <= q <= 100``)."""
    _no_extras(out, overwrite_input, weights, interpolation, "percentile")
    qt, weak = _q_tensor(q, 100, "percentile", "Percentiles")
    return _quantile(a, qt, axis, method, keepdims, False, weak)


def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                keepdims=False, *, weights=None, interpolation=None):
    """``np.nanquantile``: ``quantile`` of the non-NaN values of each slice."""
    _no_extras(out, overwrite_input, weights, interpolation, "nanquantile")
    qt, weak = _q_tensor(q, 1, "nanquantile", "Quantiles")
    return _quantile(a, qt, axis, method, keepdims, True, weak)


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                  keepdims=False, *, weights=None, interpolation=None):
    """``np.nanpercentile``: ``percentile`` of the non-NaN values of each slice."""
    _no_extras(out, overwrite_input, weights, interpolation, "nanpercentile")
    qt, weak = _q_tensor(q, 100, "nanpercentile", "Percentiles")
    return _quantile(a, qt, axis, method, keepdims, True, weak)


def _median(a, axis, keepdims, ignore_nan):
    """NumPy's median: the mean ``(lo + hi) / 2`` of the two middle values (the middle
    value itself for an odd count), in float64 for integer data."""
    x, n, axes, inexact = _prepare(a, axis, ignore_nan)
    if isinstance(n, float) and n == 0:
        raise IndexError("cannot take the median of an empty slice")
    calc = x.dtype if inexact else _F64
    half = (n - 1) * 0.5
    lo_i, hi_i = floor(half), ceil(half)
    if not isinstance(n, float):
        lo_i, hi_i = where(n > 0, lo_i, 0.0), where(n > 0, hi_i, 0.0)
    lo, hi = astype(_gather(x, lo_i), calc), astype(_gather(x, hi_i), calc)
    r = where(lo_i == hi_i, lo, (lo + hi) / 2)
    if r.dtype != calc:
        r = astype(r, calc)
    return _finish(r, x, n, axes, (), keepdims, ignore_nan, inexact, np.dtype(calc))


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """``np.median``: the middle value (mean of the middle two) along ``axis``; NaN for
    slices holding a NaN."""
    _no_extras(out, overwrite_input, None, None, "median")
    return _median(a, axis, keepdims, False)


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """``np.nanmedian``: the median of the non-NaN values of each slice."""
    _no_extras(out, overwrite_input, None, None, "nanmedian")
    return _median(a, axis, keepdims, True)
