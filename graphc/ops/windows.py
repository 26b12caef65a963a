"""NumPy's window functions (``bartlett``, ``blackman``, ``hamming``, ``hanning``,
``kaiser``), ranges (``logspace``, ``geomspace``) and ``vander``, built from ``arange``,
elementwise math, ``cumprod`` and ``concatenate`` (no op of their own), following
NumPy's formulas step by step so values agree with NumPy's to rounding.

Window lengths and ``num`` must be known while tracing; ``kaiser``'s ``beta`` and the
ends of ``logspace``/``geomspace`` may be traced tensors. ``kaiser`` evaluates the Bessel
function I0 by its power series (all terms positive, summed to double precision; for a
traced ``beta`` with 160 terms, accurate for ``|beta|`` up to about 100).
"""

from __future__ import annotations

import math
import operator

import numpy as np

from graphc import source_info
from graphc.core.tensor import Tensor
from graphc.ops.array_helpers import check, dims, known, norm_axis, rank, strong
from graphc.ops.convert import asarray
from graphc.ops.creation import arange, ones
from graphc.ops.join import concatenate
from graphc.ops.reduce import any as _any
from graphc.ops.reduce import cumprod
from graphc.ops.reduce import sum as _sum
from graphc.ops.shape import broadcast_to, expand_dims, flip, moveaxis, reshape
from graphc.ops.ufuncs import cos, floor, log10, logical_not, logical_or, power, sign, sqrt, where


def _length(M, name):
    value = known(M) if isinstance(M, Tensor) else M
    if value is None:
        raise ValueError(f"{name}: the window length must be known while tracing"
                         f"{source_info.where()}")
    return value.item() if hasattr(value, "item") else value


def _cosine_window(M, name, terms):
    M = _length(M, name)
    if M < 1:
        return asarray(np.array([], np.float64))
    if M == 1:
        return ones((1,), dtype=np.float64)
    n = arange(1 - M, M, 2)
    out = None
    for coef, freq in terms:
        term = coef if freq == 0 else coef * cos(freq * np.pi * n / (M - 1))
        out = term if out is None else out + term
    return out


def bartlett(M):
    """``np.bartlett``: the triangular window of ``M`` points (float64)."""
    M = _length(M, "bartlett")
    if M < 1:
        return asarray(np.array([], np.float64))
    if M == 1:
        return ones((1,), dtype=np.float64)
    n = arange(1 - M, M, 2)
    return where(n <= 0, 1 + n / (M - 1), 1 - n / (M - 1))


def blackman(M):
    """``np.blackman``: the Blackman window of ``M`` points."""
    return _cosine_window(M, "blackman", [(0.42, 0), (0.5, 1.0), (0.08, 2.0)])


def hamming(M):
    """``np.hamming``: the Hamming window of ``M`` points."""
    return _cosine_window(M, "hamming", [(0.54, 0), (0.46, 1.0)])


def hanning(M):
    """``np.hanning``: the Hann window of ``M`` points."""
    return _cosine_window(M, "hanning", [(0.5, 0), (0.5, 1.0)])


def _i0(x, terms):
    """The modified Bessel function I0 by its power series ``sum (x/2)^2k / (k!)^2``."""
    q = (x / 2.0) ** 2
    k = np.arange(1, terms, dtype=np.float64)
    steps = expand_dims(q, -1) / (k * k)
    return 1.0 + _sum(cumprod(steps, axis=-1), axis=-1)


def kaiser(M, beta):
    """``np.kaiser``: the Kaiser window of ``M`` points with shape parameter ``beta``."""
    M = _length(M, "kaiser")
    b = known(beta)
    if (b is not None and np.iscomplexobj(b)) or (isinstance(beta, Tensor)
                                                   and beta.dtype.kind == "c"):
        raise NotImplementedError("kaiser: complex beta is not supported")
    if M == 1:
        return ones((1,), dtype=np.float64)
    if M < 1:
        return asarray(np.array([], np.float64))
    terms = 160 if b is None else 30 + int(math.ceil(1.5 * abs(float(b))))
    beta = strong(beta).astype(np.float64)
    n = arange(0, M)
    alpha = (M - 1) / 2.0
    return _i0(beta * sqrt(1 - ((n - alpha) / alpha) ** 2.0), terms) / _i0(beta, terms)


# --------------------------------------------------------------------------- ranges
def _linspace(start, stop, num, endpoint, axis):
    """``np.linspace`` of (broadcast) arrays ``start``/``stop`` along a new ``axis``."""
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    div = (num - 1) if endpoint else num
    start, stop = start * 1.0, stop * 1.0
    dt = np.result_type(start.dtype, stop.dtype, float(num))
    delta = (stop - start).astype(dt)
    nd = max(rank(delta), rank(start))
    y = reshape(arange(0, num, dtype=dt), (-1,) + (1,) * nd)
    if div > 0:
        step = delta / div
        zero = _any(step == 0)
        y = where(zero, y / div * delta, y * step)
    else:
        y = y * delta
    y = y + start
    if endpoint and num > 1:
        y = concatenate([y[:-1], expand_dims(broadcast_to(stop, dims(y[-1])), 0)], axis=0)
    return y.astype(dt), dt


def _ndmin(x, n):
    x = strong(x)
    for _ in range(n - rank(x)):
        x = x[None]
    return x


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """``np.logspace``: ``base ** linspace(start, stop, num)``; ``start``, ``stop`` and
    ``base`` may be arrays (the points go along ``axis``)."""
    if isinstance(base, float | int) or not rank(strong(base)):
        start, stop = strong(start), strong(stop)
        y, _ = _linspace(start, stop, num, endpoint, 0)
        if axis != 0:
            y = moveaxis(y, 0, axis)
        out = power(base if isinstance(base, float | int) else strong(base), y)
    else:  # an array base broadcasts with the ends, and takes part in ``axis``
        nd = max(rank(strong(v)) for v in (start, stop, base))
        start, stop, base = (_ndmin(v, nd) for v in (start, stop, base))
        y, _ = _linspace(start, stop, num, endpoint, 0)
        y = moveaxis(y, 0, axis) if axis != 0 else y
        out = power(expand_dims(base, norm_axis(axis, nd + 1)), y)
    return out if dtype is None else out.astype(np.dtype(dtype))


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """``np.geomspace``: ``num`` points spaced evenly on a log scale from ``start`` to
    ``stop`` (either may be negative, not zero; the ends are exact)."""
    start, stop = strong(start), strong(stop)
    if start.dtype.kind == "c" or stop.dtype.kind == "c":
        raise NotImplementedError("geomspace: complex ends are not supported")
    check(logical_not(_any(logical_or(start == 0, stop == 0))),
          "Geometric sequence cannot include zero")
    dt = np.result_type(start.dtype, stop.dtype, float(num), np.zeros((), dtype).dtype)
    want = dt if dtype is None else np.dtype(dtype)
    start, stop = start.astype(dt), stop.astype(dt)
    out_sign = sign(start)
    start, stop = start / out_sign, stop / out_sign
    nd = max(rank(start), rank(stop))
    start, stop = _ndmin(start, nd), _ndmin(stop, nd)
    y, _ = _linspace(log10(start), log10(stop), num, endpoint, 0)
    result = power(asarray(np.array(10.0)), y).astype(dt)
    if num > 0:
        parts = [expand_dims(broadcast_to(start, dims(result[0])), 0)]
        if num > 1:
            last = expand_dims(broadcast_to(stop, dims(result[-1])), 0) if endpoint \
                else result[-1:]
            parts += [result[1:-1], last]
        result = concatenate(parts, axis=0)
    result = out_sign * result
    if axis != 0:
        result = moveaxis(result, 0, axis)
    if np.issubdtype(want, np.integer):
        result = floor(result)
    return result.astype(want)


def vander(x, N=None, increasing=False):
    """``np.vander``: the Vandermonde matrix of the 1-D ``x``, columns ``x**(N-1)``, ...,
    ``x**0`` (``x**0`` first when ``increasing``), by running products as NumPy does."""
    x = strong(x)
    if rank(x) != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    n = x.shape[0]
    N = n if N is None else operator.index(N)
    if N is None:
        raise ValueError(f"vander: N must be known while tracing{source_info.where()}")
    dt = np.promote_types(x.dtype, int)
    col = reshape(x.astype(dt), (-1, 1))
    first = broadcast_to(ones((1, 1), dtype=dt), (dims(x)[0], 1))
    if N == 0:
        return first[:, :0]
    parts = [first]
    if N > 1:
        parts.append(cumprod(concatenate([col] * (N - 1), axis=1), axis=1))
    v = concatenate(parts, axis=1)
    return v if increasing else flip(v, 1)

