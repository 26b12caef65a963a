"""Vectorizable log and log1p for Numba loops, float32 and float64 (see vmath.py for why).

Method (fdlibm's e_log.c/s_log1p.c without branches): write ``x = 2^k m`` with
``m`` in [sqrt(1/2), sqrt(2)) read from the exponent and mantissa bits, so ``f = m - 1``
is exact and ``log x = k ln2 + log1p(f)``, ``|f| < 0.42``. float64: with
``s = f / (2 + f)``, ``log1p(f) = 2 atanh(s) = 2s + s z Q(z)``, ``z = s^2 < 0.03``, Q of
fdlibm's degree 6 minimax (``Lg1..7``), summed as fdlibm does so that the large terms
``k ln2_hi`` and ``f`` are added last and exactly. float32 is computed in float64: its
denormals are normal there (no rescaling), the input is exactly representable, and a
degree 13 polynomial in ``f`` (relative error < 2^-32) replaces the division, so the one
final rounding gives at most 1 ULP. log1p: ``u = 1 + x`` rounded, ``log1p x = log u +
c/u`` with ``c`` the rounding error of ``u`` (exact: ``x - (u - 1)`` or ``1 - (u - x)``);
float32 needs no ``c`` (``u`` is exact in float64 unless ``|x| < 2^-29``, and below
2^-25 the float32 result is ``x`` itself). Special inputs are selected, not branched on.
"""

from __future__ import annotations

import numpy as np

from graphc.runtime.vmath_base import bits_of_f64, f64_from_bits, fma, horner, jit

_MANT = (1 << 52) - 1
# added to the mantissa bits, carries into bit 52 exactly when m >= sqrt(2) (fdlibm's
# 0x95f64 of the high word): then m is halved and k incremented
_SQRT2_CARRY = 0x95F64 << 32
_ONE_BITS = 1023 << 52
_LN2_HI = 6.93147180369123816490e-01  # ln2 with the low 32 bits zero: k * hi is exact
_LN2_LO = 1.90821492927058770002e-10
_LN2 = 0.6931471805599453
_TINY = 2.2250738585072014e-308  # smallest normal float64
_LG = (1.479819860511658591e-01, 1.531383769920937332e-01, 1.818357216161805012e-01,
       2.222219843214978396e-01, 2.857142874366239149e-01, 3.999999999940941908e-01,
       6.666666666666735130e-01)  # fdlibm Lg7..Lg1

# log1p(f) = f - f^2/2 + f^3 P(f) on [sqrt(1/2) - 1, sqrt(2) - 1], P a degree 10
# Chebyshev fit (mpmath) of (log1p(f) - f + f^2/2) / f^3: error < 2^-32 relative
_P32 = (0.05555094556064493, -0.09727659389760898, 0.09804564386097082, -0.09931553137948022,
        0.11048250377157395, -0.12499927717186018, 0.14287886099982502, -0.1666671980607466,
        0.19999973727896375, -0.249999994987083, 0.33333333384803754)


@jit
def _split(u):
    """(k, f) with u = 2^k (1 + f), f in [sqrt(1/2) - 1, sqrt(2) - 1); u normal, > 0."""
    b = bits_of_f64(u)
    m = b & _MANT
    i = (m + _SQRT2_CARRY) & (1 << 52)  # 1 << 52 if m >= sqrt(2), else 0
    k = (b >> 52) - 1023 + (i >> 52)
    return np.float64(k), f64_from_bits(m | (i ^ _ONE_BITS)) - 1.0


@jit
def _log_f64_core(u, c):
    """log(u) + c for a normal positive float64 u and a tiny correction c (fdlibm)."""
    k, f = _split(u)
    s = f / (2.0 + f)
    z = s * s
    r = z * horner(z, _LG)
    hfsq = 0.5 * f * f
    # log1p(f) = f - (hfsq - s (hfsq + R)); the big terms k ln2_hi and f go in last
    return k * _LN2_HI - ((hfsq - (s * (hfsq + r) + (k * _LN2_LO + c))) - f)


@jit
def _log_f32_core(u):
    """log(u) with relative error < 2^-32 for a normal positive float64 u (float32 use)."""
    k, f = _split(u)
    z = f * f
    return fma(k, _LN2, fma(z * f, horner(f, _P32), fma(-0.5, z, f)))


@jit
def log_f64(x):
    """Natural log of a float64, < 1 ULP; 0 -> -inf, < 0 -> NaN, inf -> inf."""
    sub = x < _TINY  # denormals: scale by 2^54 into the normal range first
    k_sub = -54.0 if sub else 0.0
    y = x * 18014398509481984.0 if sub else x
    r = _log_f64_core(y, 0.0) + k_sub * _LN2_HI + k_sub * _LN2_LO
    r = r if x < np.inf else x  # +inf and NaN pass through
    return r if x > 0 else (-np.inf if x == 0 else np.nan)


@jit
def log1p_f64(x):
    """log(1 + x) of a float64, ~1 ULP; -1 -> -inf, < -1 -> NaN, keeps -0 and denormals."""
    u = 1.0 + x
    # the rounding error of u, exactly (Sterbenz); negligible once u > 2^54
    c = (1.0 - (u - x)) if u > 2.0 else (x - (u - 1.0))
    c = c / u if u < 1.8014398509481984e16 else 0.0
    uu = u if u > 0 else 1.0  # keep the bit tricks on a normal number; result selected
    r = _log_f64_core(uu, c)
    r = r if x < np.inf else x
    r = r if x != 0 else x  # -0 stays -0
    return r if u > 0 else (-np.inf if x == -1.0 else np.nan)


@jit
def log_f32(x):
    """Natural log of a float32 computed in float64, <= 1 ULP (mostly correctly rounded)."""
    d = np.float64(x)
    r = np.float32(_log_f32_core(d if d > 0 else 1.0))
    r = r if x < np.float32(np.inf) else x
    return r if x > 0 else (np.float32(-np.inf) if x == 0 else np.float32(np.nan))


@jit
def log1p_f32(x):
    """log(1 + x) of a float32 computed in float64, <= 1 ULP."""
    u = 1.0 + np.float64(x)
    r = np.float32(_log_f32_core(u if u > 0 else 1.0))
    r = r if x < np.float32(np.inf) else x
    r = r if abs(x) > np.float32(2.9802322e-08) else x  # |x| <= 2^-25: the result is x
    return r if u > 0 else (np.float32(-np.inf) if x == -1 else np.float32(np.nan))
