"""Special functions built from other ops (no op of their own: gradients, batching and
compiled kernels come from the ops used): ``ndtr``, ``log_ndtr``, ``erfcinv``,
``xlogy``, ``xlog1py``, ``xdivy``, ``logit``, ``expit``, ``entr``, ``rel_entr``,
``kl_div``, ``betaln``, ``factorial``, ``multigammaln``, ``softmax``/``log_softmax``
over any axes (SciPy's and JAX's ``axis=None``: all axes).

``graphc.scipy.special`` exposes them with JAX's signatures, ``gc.math`` the TensorFlow
ones. Where a value is 0 by convention (``xlogy(0, y)``, ``entr(0)``...) the other
branch is computed on a safe stand-in, so no NaN leaks into the gradient.
"""

from __future__ import annotations

import math

import numpy as np

from graphc.core.registry import bind
from graphc.ops import elementwise as ew
from graphc.ops import special_fns as sf
from graphc.ops.convert import asarray
from graphc.ops.reduce import max as _max
from graphc.ops.reduce import sum as _sum

_INV_SQRT2 = 1.0 / math.sqrt(2.0)
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
_LOG_PI = math.log(math.pi)


def _is_number(x):
    return isinstance(x, int | float | np.integer | np.floating) and not isinstance(x, bool)


def floats(*xs):
    """The arguments as tensors of one float dtype (``special_fns.result_dtype``); a
    Python number next to an array is weak (takes the array's float dtype)."""
    arrays = [x for x in xs if not _is_number(x)]
    ts = [asarray(x) for x in (arrays or xs)]
    dtype = sf.result_dtype(*[t.dtype for t in ts])
    out = [np.asarray(x, dtype) if _is_number(x) and arrays else asarray(x) for x in xs]
    out = [t if t.dtype == dtype else bind(ew.CAST, t, dtype=dtype) for t in out]
    return out[0] if len(out) == 1 else out


def _where(c, x, y):
    return bind(ew.WHERE, c, x, y)


def _log(x):
    return bind(ew.LOG, x)


def _const(value, like):
    return np.asarray(value, like.dtype)


def ndtr(x):
    """``scipy.special.ndtr``: the standard normal CDF, ``erfc(-x/sqrt2)/2``."""
    x = floats(x)
    return 0.5 * bind(sf.ERFC, -x * _INV_SQRT2)


def log_ndtr(x, series_order=3):
    """``jax.scipy.special.log_ndtr``: ``log(ndtr(x))`` without underflow: ``log1p(-ndtr(-x))``
    above 0, ``log(ndtr(x))`` down to -30, and the asymptotic series of ``log(ndtr)``
    below (relative error under 1e-16 there). ``series_order`` is accepted for JAX's
    signature (the series here always has enough terms for float64)."""
    if not isinstance(series_order, int) or not 0 <= series_order <= 30:
        raise ValueError(f"series_order must be an int in [0, 30], got {series_order!r}")
    x = floats(x)
    hi = x > 0
    lo = x < -30
    xp = _where(hi, x, _const(1.0, x))
    upper = bind(ew.LOG1P, -0.5 * bind(sf.ERFC, xp * _INV_SQRT2))
    xm = _where(hi | lo, _const(-1.0, x), x)
    middle = _log(0.5 * bind(sf.ERFC, -xm * _INV_SQRT2))
    xl = _where(lo, x, _const(-31.0, x))
    r = 1 / (xl * xl)
    series = _const(1.0, x)  # 1 - r(1 - 3r(1 - 5r(...))) = 1 - 1/x^2 + 3/x^4 - 15/x^6 ...
    for k in range(8, 0, -1):
        series = 1 - (2 * k - 1) * r * series
    lower = -0.5 * xl * xl - _log(-xl) - _HALF_LOG_2PI + _log(series)
    return _where(hi, upper, _where(lo, lower, middle))


def erfcinv(x):
    """The inverse of ``erfc`` on ``[0, 2]``: ``-ndtri(x/2)/sqrt2`` (accurate for tiny x)."""
    x = floats(x)
    return -bind(sf.NDTRI, 0.5 * x) * _INV_SQRT2


def _x_times(fn, x, y):
    x, y = floats(x, y)
    zero = x == 0
    safe_x = _where(zero, _const(1.0, x), x)
    safe_y = _where(zero, _const(1.0, y), y)
    return _where(zero, _const(0.0, x), fn(safe_x, safe_y))


def xlogy(x, y):
    """``x * log(y)``, 0 where ``x == 0`` (whatever ``y``, NaN included, as JAX and
    TensorFlow)."""
    return _x_times(lambda a, b: a * _log(b), x, y)


def xlog1py(x, y):
    """``x * log1p(y)``, 0 where ``x == 0``."""
    return _x_times(lambda a, b: a * bind(ew.LOG1P, b), x, y)


def xdivy(x, y):
    """``x / y``, 0 where ``x == 0`` (TensorFlow's ``xdivy``)."""
    return _x_times(lambda a, b: a / b, x, y)


def logit(x):
    """``log(x / (1 - x))``."""
    x = floats(x)
    return _log(x / (1 - x))


def expit(x):
    """The logistic sigmoid ``1 / (1 + exp(-x))``."""
    return bind(ew.SIGMOID, floats(x))


def entr(x):
    """``-x log x`` for ``x > 0``, 0 at 0, ``-inf`` below, NaN for NaN."""
    x = floats(x)
    pos = x > 0
    safe = _where(pos, x, _const(1.0, x))
    val = _where(pos, -safe * _log(safe), _where(x == 0, _const(0.0, x), _const(-np.inf, x)))
    return _where(x != x, x, val)


def _both_positive(p, q, fn, at_zero):
    p, q = floats(p, q)
    both = (p > 0) & (q > 0)
    sp = _where(both, p, _const(1.0, p))
    sq = _where(both, q, _const(1.0, q))
    zero = (p == 0) & (q >= 0)
    return _where(both, fn(sp, sq), _where(zero, at_zero(q), _const(np.inf, p)))


def rel_entr(p, q):
    """``p log(p/q)`` for ``p, q > 0``; 0 where ``p == 0 <= q``; ``inf`` elsewhere
    (NaN inputs included, as JAX)."""
    return _both_positive(p, q, lambda a, b: a * (_log(a) - _log(b)),
                          lambda q: _const(0.0, q))


def kl_div(p, q):
    """``p log(p/q) - p + q`` for ``p, q > 0``; ``q`` where ``p == 0 <= q``; ``inf``
    elsewhere."""
    return _both_positive(p, q, lambda a, b: a * (_log(a) - _log(b)) - a + b,
                          lambda q: q)


def betaln(a, b):
    """``log|B(a, b)| = lgamma(a) + lgamma(b) - lgamma(a + b)``."""
    a, b = floats(a, b)
    return bind(sf.LGAMMA, a) + bind(sf.LGAMMA, b) - bind(sf.LGAMMA, a + b)


def factorial(n, exact=False):
    """``gamma(n + 1)``, 0 for ``n < 0`` (``exact=True`` raises, as in JAX)."""
    if exact:
        raise NotImplementedError("factorial with exact=True (integer results) is not "
                                  "supported; use exact=False")
    n = floats(n)
    return _where(n < 0, _const(0.0, n), bind(sf.GAMMA, n + 1))


def multigammaln(a, d):
    """The log of the multivariate gamma function of dimension ``d`` (a Python int):
    ``d(d-1)/4 log(pi) + sum_j lgamma(a - j/2)``."""
    if isinstance(d, bool) or not isinstance(d, int | np.integer) or d < 1:
        raise ValueError(f"multigammaln: d must be a positive int, got {d!r}")
    a = floats(a)
    total = bind(sf.LGAMMA, a)
    for j in range(1, int(d)):
        total = total + bind(sf.LGAMMA, a - 0.5 * j)
    return total + float(d * (d - 1) / 4 * _LOG_PI)


def _axes(x, axis):
    rank = len(x.shape)
    if axis is None:
        return tuple(range(rank))
    axes = (axis,) if isinstance(axis, int | np.integer) else tuple(axis)
    for a in axes:
        if not -max(rank, 1) <= a < max(rank, 1):
            raise ValueError(f"axis {a} is out of bounds for an array of rank {rank}")
    return tuple(int(a) % max(rank, 1) for a in axes)


def _shifted(x, axis):
    """``x - max`` over ``axis`` (kept), the max held out of the gradient, 0 where it is
    not finite."""
    x = floats(x)
    axes = _axes(x, axis)
    if not axes:
        return x, axes
    m = bind(ew.STOP_GRADIENT, _max(x, axis=axes, keepdims=True))
    m = _where(bind(ew.ISFINITE, m), m, _const(0.0, m))
    return x - m, axes


def softmax(x, axis=None):
    """``exp(x) / sum(exp(x))`` over ``axis`` (an int, a tuple, or None for all axes)."""
    z, axes = _shifted(x, axis)
    e = bind(ew.EXP, z)
    return e / _sum(e, axis=axes, keepdims=True) if axes else e / e


def log_softmax(x, axis=None):
    """``x - log(sum(exp(x)))`` over ``axis`` (an int, a tuple, or None for all axes)."""
    z, axes = _shifted(x, axis)
    if not axes:
        return z - z
    return z - _log(_sum(bind(ew.EXP, z), axis=axes, keepdims=True))
