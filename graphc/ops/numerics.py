"""``np.gradient``, ``trapezoid``, ``interp``, ``unwrap`` and ``ediff1d``, built from
slices, elementwise ops, ``cumsum``, ``searchsorted`` and ``take`` (no op of their own:
gradients, batching and compiled kernels are those of the ops used).

Each follows NumPy's formulas (second-order central differences with NumPy's one-sided
ends for ``gradient``, uniform or not; NumPy's ``interp`` rules for ties, NaN and the
ends). Sizes along the working axis must be known while tracing where NumPy checks them.
"""

from __future__ import annotations

import builtins

import numpy as np

from graphc import source_info
from graphc.ops.convert import asarray
from graphc.ops.differences import _normalize_axis, diff
from graphc.ops.indexing import take
from graphc.ops.join import concatenate
from graphc.ops.reduce import cumsum
from graphc.ops.reduce import sum as _sum
from graphc.ops.searching import searchsorted
from graphc.ops.shape import argsort, reshape
from graphc.ops.shape_args import static_value
from graphc.ops.ufuncs import absolute, astype, isnan, remainder, where

_PY = (builtins.int, builtins.float)
_F64 = np.dtype(np.float64)


def _sl(nd, axis, s):
    key = [slice(None)] * nd
    key[axis] = s
    return tuple(key)


def _along(v, nd, axis):
    """A 1-D ``v`` shaped to broadcast along ``axis`` of an ``nd``-dim array."""
    return reshape(v, tuple(-1 if i == axis else 1 for i in range(nd)))


def _spacing(d, n, f_dtype):
    """One ``gradient`` spacing argument: a number (uniform), or coordinates -> their
    differences (a number again when they are known and evenly spaced, as NumPy)."""
    if type(d) in _PY:
        return d
    d = asarray(d)
    if len(d.shape) == 0:
        return d
    if len(d.shape) != 1:
        raise ValueError("distances must be either scalars or 1d")
    if d.shape[0] is not None and n is not None and d.shape[0] != n:
        raise ValueError("when 1d, distances must match the length of the corresponding "
                         "dimension")
    if d.dtype.kind in "iu":
        d = astype(d, _F64)
    dx = diff(d)
    known = static_value(dx)
    if known is not None and known.size and np.all(known == known[0]):
        return asarray(known[0])
    return dx


def _one_axis(f, axis, dx, edge_order):
    nd = len(f.shape)
    n = f.shape[axis]
    if n is not None and n < edge_order + 1:
        raise ValueError("Shape of array too small to calculate a numerical gradient, at "
                         "least (edge_order + 1) elements are required.")
    s = lambda sl: f[_sl(nd, axis, sl)]  # noqa: E731
    uniform = type(dx) in _PY or len(dx.shape) == 0
    if uniform:
        mid = (s(slice(2, None)) - s(slice(None, -2))) / (2.0 * dx)
        if edge_order == 1:
            first = (s(slice(1, 2)) - s(slice(0, 1))) / dx
            last = (s(slice(-1, None)) - s(slice(-2, -1))) / dx
        else:
            first = (-1.5 / dx) * s(slice(0, 1)) + (2.0 / dx) * s(slice(1, 2)) \
                + (-0.5 / dx) * s(slice(2, 3))
            last = (0.5 / dx) * s(slice(-3, -2)) + (-2.0 / dx) * s(slice(-2, -1)) \
                + (1.5 / dx) * s(slice(-1, None))
        return concatenate([first, mid, last], axis=axis)
    d1, d2 = _along(dx[:-1], nd, axis), _along(dx[1:], nd, axis)
    a = -d2 / (d1 * (d1 + d2))
    b = (d2 - d1) / (d1 * d2)
    c = d1 / (d2 * (d1 + d2))
    mid = a * s(slice(None, -2)) + b * s(slice(1, -1)) + c * s(slice(2, None))
    if edge_order == 1:
        first = (s(slice(1, 2)) - s(slice(0, 1))) / dx[0]
        last = (s(slice(-1, None)) - s(slice(-2, -1))) / dx[-1]
    else:
        e1, e2 = dx[0], dx[1]
        a = -(2.0 * e1 + e2) / (e1 * (e1 + e2))
        b = (e1 + e2) / (e1 * e2)
        c = -e1 / (e2 * (e1 + e2))
        first = a * s(slice(0, 1)) + b * s(slice(1, 2)) + c * s(slice(2, 3))
        e1, e2 = dx[-2], dx[-1]
        a = e2 / (e1 * (e1 + e2))
        b = -(e2 + e1) / (e1 * e2)
        c = (2.0 * e2 + e1) / (e2 * (e1 + e2))
        last = a * s(slice(-3, -2)) + b * s(slice(-2, -1)) + c * s(slice(-1, None))
    return concatenate([first, mid, last], axis=axis)


def _rank(v):
    return len(v.shape) if hasattr(v, "shape") else np.ndim(v)


def gradient(f, *varargs, axis=None, edge_order=1):
    """``np.gradient``: second-order central differences inside, first- or second-order
    (``edge_order``) one-sided ones at the ends; spacings are numbers or coordinate
    vectors per axis. One axis gives an array, several a tuple. Integers give float64."""
    f = asarray(f)
    nd = len(f.shape)
    if axis is None:
        axes = tuple(range(nd))
    else:
        axes = (axis,) if isinstance(axis, builtins.int) else tuple(axis)
        axes = tuple(_normalize_axis(a, nd) for a in axes)
        if len(set(axes)) != len(axes):
            raise ValueError("repeated axis")
    if edge_order > 2 or edge_order < 1:
        raise ValueError("'edge_order' greater than 2 not supported")
    if len(varargs) == 0:
        spacings = [1.0] * len(axes)
    elif len(varargs) == 1 and _rank(varargs[0]) == 0:
        spacings = [varargs[0]] * len(axes)
    elif len(varargs) == len(axes):
        spacings = list(varargs)
    else:
        raise TypeError("invalid number of arguments")
    if f.dtype.kind in "iu":
        f = astype(f, _F64)
    outs = [_one_axis(f, ax, _spacing(d, f.shape[ax], f.dtype), edge_order)
            for ax, d in zip(axes, spacings)]
    outs = [o if o.dtype == f.dtype else astype(o, f.dtype) for o in outs]  # NumPy's out
    return outs[0] if len(outs) == 1 else tuple(outs)


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """``np.trapezoid``: the trapezoidal rule along ``axis``, with sample points ``x``
    (1-D, or shaped like ``y``) or a uniform spacing ``dx``."""
    y = asarray(y)
    nd = len(y.shape)
    axis = _normalize_axis(axis, nd)
    if x is None:
        d = dx
    else:
        x = asarray(x)
        d = _along(diff(x), nd, axis) if len(x.shape) == 1 else diff(x, axis=axis)
    return _sum(d * (y[_sl(nd, axis, slice(1, None))] + y[_sl(nd, axis, slice(None, -1))])
                / 2.0, axis=axis)


def _interp_sorted(x, xp, fp, left, right):
    n = xp.shape[0]
    if n == 1:  # NumPy's one-point rule (NaN included): fp[0] unless x is beyond xp[0]
        return where(x < xp[0], left, where(x > xp[0], right, fp[0]))
    j = searchsorted(xp, x, side="right") - 1
    hi = builtins.max(n - 2, 0)
    j = where(j < 0, 0, where(j > hi, hi, j))
    x0, x1 = take(xp, j), take(xp, j + 1 if n > 1 else j)
    f0, f1 = take(fp, j), take(fp, j + 1 if n > 1 else j)
    with np.errstate(all="ignore"):
        slope = (f1 - f0) / (x1 - x0)
        lin = slope * (x - x0) + f0
        lin = where(isnan(lin), slope * (x - x1) + f1, lin)
        lin = where(isnan(lin) & (f0 == f1), f0, lin)
    r = where(x0 == x, f0, lin)
    r = where(x == xp[-1], fp[-1], r)
    r = where(x < xp[0], left, where(x > xp[-1], right, r))
    return where(isnan(x), x, r)


def interp(x, xp, fp, left=None, right=None, period=None):
    """``np.interp``: piecewise-linear interpolation of ``(xp, fp)`` (``xp`` increasing)
    at ``x``, float64; ``left``/``right`` outside (default the end values); ``period``
    for periodic ``xp``. Complex ``fp`` is not supported."""
    x = asarray(x)
    xp, fp = asarray(xp), asarray(fp)
    if fp.dtype.kind == "c" or x.dtype.kind == "c":
        raise NotImplementedError(f"gnp.interp of complex values is not supported"
                                  f"{source_info.where()}")
    x, xp, fp = (t if t.dtype == _F64 else astype(t, _F64) for t in (x, xp, fp))
    if len(xp.shape) != 1 or len(fp.shape) != 1:
        raise ValueError("object too deep for desired array")
    if xp.shape[0] is not None and fp.shape[0] is not None and xp.shape[0] != fp.shape[0]:
        raise ValueError("fp and xp are not of the same length.")
    if xp.shape[0] == 0:
        raise ValueError("array of sample points is empty")
    if xp.shape[0] is None:
        raise ValueError(f"gnp.interp needs len(xp) known while tracing{source_info.where()}")
    if period is not None:
        if period == 0:
            raise ValueError("period must be a non-zero value")
        period = builtins.abs(period)
        left = right = None
        x, xp = remainder(x, period), remainder(xp, period)
        order = argsort(xp)
        xp, fp = take(xp, order), take(fp, order)
        xp = concatenate([xp[-1:] - period, xp, xp[:1] + period])
        fp = concatenate([fp[-1:], fp, fp[:1]])
    left = fp[0] if left is None else asarray(left, dtype=_F64)
    right = fp[-1] if right is None else asarray(right, dtype=_F64)
    return _interp_sorted(x, xp, fp, left, right)


def unwrap(p, discont=None, axis=-1, *, period=2 * np.pi):
    """``np.unwrap``: adds multiples of ``period`` where consecutive values jump by more
    than ``max(discont, period / 2)``, so the result is continuous along ``axis``."""
    p = asarray(p)
    nd = len(p.shape)
    axis = _normalize_axis(axis, nd)
    dd = diff(p, axis=axis)
    if discont is None:
        discont = period / 2
    dtype = np.result_type(dd.dtype, period) if type(period) not in _PY else \
        np.result_type(dd.dtype, period)
    if dtype.kind in "iu":
        high, rem = divmod(period, 2)
        ambiguous = rem == 0
    else:
        high, ambiguous = period / 2, True
    low = -high
    ddmod = remainder(dd - low, period) + low
    if ambiguous:
        ddmod = where((ddmod == low) & (dd > 0), high, ddmod)
    correct = where(absolute(dd) < discont, 0, ddmod - dd)
    if correct.dtype != dtype:
        correct = astype(correct, dtype)
    head = p[_sl(nd, axis, slice(0, 1))]
    rest = p[_sl(nd, axis, slice(1, None))] + cumsum(correct, axis=axis)
    head = head if head.dtype == rest.dtype else astype(head, rest.dtype)
    return concatenate([head, rest], axis=axis)


def ediff1d(ary, to_end=None, to_begin=None):
    """``np.ediff1d``: the differences of the flattened array, with ``to_begin`` and
    ``to_end`` (cast to its dtype under NumPy's ``same_kind`` rule) around them."""
    ary = reshape(asarray(ary), (-1,))
    parts = []
    for name, extra in (("to_begin", to_begin), ("to_end", to_end)):
        if extra is None:
            parts.append(None)
            continue
        e = asarray(extra)
        if not np.can_cast(e.dtype, ary.dtype, casting="same_kind"):
            raise TypeError(f"dtype of `{name}` must be compatible with input `ary` under "
                            "the `same_kind` rule.")
        parts.append(reshape(astype(e, ary.dtype), (-1,)))
    d = ary[1:] - ary[:-1]
    return concatenate([t for t in (parts[0], d, parts[1]) if t is not None])
