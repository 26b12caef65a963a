"""Vectorizable log and log1p for Numba loops, float32 and float64 (see vmath.py for why).

Method (fdlibm's e_log.c/s_log1p.c without branches): write ``x = 2^k m`` with
``m`` in [sqrt(1/2), sqrt(2)) read from the exponent and mantissa bits, so ``f = m - 1``
is exact and ``log x = k ln2 + log1p(f)``, ``|f| < 0.42``. float64: with
``s = f / (2 + f)``, ``log1p(f) = 2 atanh(s) = 2s + s z Q(z)``, ``z = s^2 < 0.03``, Q of
fdlibm's degree 6 minimax (``Lg1..7``), summed as fdlibm does so that the large terms
``k ln2_hi`` and ``f`` are added last and exactly. log1p: ``u = 1 + x`` rounded,
``log1p x = log u + c/u`` with ``c`` the rounding error of ``u`` (exact: ``x - (u - 1)``
or ``1 - (u - x)``). Special inputs are selected, not branched on.

float32 runs in float32 lanes (16 per 512-bit vector; float64 halves that), the bit
manipulation in int32 (each int op cast back to int32, or Numba's int64 promotion makes
LLVM widen the vectors). log: a degree 8 polynomial in ``f`` (the Chebyshev fit below,
rounded to float32) in place of the division, <= 1 ULP; denormal inputs are scaled by
2^23 first. log1p uses the same polynomial and adds ``c 2^-k`` (``c`` the rounding
error of ``1 + x``), so the float32 functions have no division at all. Both take k from
the exponent of ``x sqrt2`` (``u sqrt2``) and scale by 2^-k with ``vscalefps`` where the
CPU has it (``_unscale``; see ``log1p_f32``), the float64 ones from the mantissa bits.
"""

from __future__ import annotations

import numpy as np

from graphc.runtime.vmath_base import (
    HAS_SCALEF,
    bits_of_f32,
    bits_of_f64,
    f32_from_bits,
    f64_from_bits,
    fma,
    horner,
    jit,
    ldexp_f32,
)

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


F = np.float32
# log1p(f) = f - f^2/2 + f^3 P(f) on [sqrt(1/2) - 1, sqrt(2) - 1], P a degree 8
# Chebyshev fit (mpmath) of (log1p(f) - f + f^2/2) / f^3: error of P < 2^-23.7, of log1p
# < 2^-28 relative (degree 10, used before, cost 2 FMAs more for nothing float32 keeps)
_P8 = (0.06971611458048073, -0.11479733839922293, 0.11685419925192936, -0.12425687332467304,
       0.1424905764563943, -0.16667802319457087, 0.20000715748892448, -0.24999996957951376,
       0.3333333118003007)
_P32F = tuple(F(c) for c in _P8)
_F_LN2_HI = F(0.693359375)  # 355/512: k * hi is exact for |k| < 2^15
_F_LN2_LO = F(_LN2 - 0.693359375)
_F_SQRT2 = F(1.4142135)


@jit
def _pow2_neg(k):
    """2^-k (float32) for an int32 k in [-126, 126], from its bits."""
    return f32_from_bits(np.int32(np.int32(np.int32(127) - k) << 23))


@jit
def _unscale_two_factors(v, k):
    """v 2^-k for an int32 k in [-126, 128]: two normal powers of two; exact wherever
    log_f32/log1p_f32 use it (their results are normal)."""
    h = np.int32(k >> 1)
    return v * _pow2_neg(h) * _pow2_neg(np.int32(k - h))


@jit
def _unscale_scalef(v, k):
    """v 2^-k as ``_unscale_two_factors``, bit for bit, in one ``vscalefps``."""
    return ldexp_f32(v, np.int32(-k))


_unscale = _unscale_scalef if HAS_SCALEF else _unscale_two_factors


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
    """Natural log of a float32 in float32 arithmetic, <= 1 ULP: k ln2 + f - f^2/2 +
    f^3 P(f), with x = 2^k (1 + f) split as in ``log1p_f32``."""
    sub = x < F(1.1754944e-38)  # denormals: scale by 2^23 into the normal range first
    y = x * F(8388608.0) if sub else x
    ki = np.int32(np.int32(bits_of_f32(y * _F_SQRT2) >> 23) - np.int32(127))
    f = _unscale(y, ki) - F(1.0)
    k = F(ki) - (F(23.0) if sub else F(0.0))  # k ln2_hi stays exact (|k| < 2^8)
    z = f * f
    r = fma(k, _F_LN2_HI, fma(z * f, horner(f, _P32F), fma(F(-0.5), z, f)) + k * _F_LN2_LO)
    r = r if x < F(np.inf) else x
    return r if x > 0 else (F(-np.inf) if x == 0 else F(np.nan))


@jit
def log1p_f32(x):
    """log(1 + x) of a float32 in float32 arithmetic, <= 1 ULP; keeps -0 and denormals.

    ``u = 1 + x`` rounded, ``c`` its rounding error (exact); with ``u = 2^k (1 + f)``,
    ``log1p x = k ln2 + log1p(f) + c/u``. No division: log's polynomial in ``f`` replaces
    fdlibm's ``s = f / (2 + f)`` (tried again: the division cost what the shorter
    polynomial saved), and ``c/u`` needs only a few correct bits. ``log1p(exp(-|x|))``,
    one thread, 2^16 values: 0.92 -> 0.83 ns per value (no division), -> 0.60 (c in 2
    instructions, degree 8, specials by sign and u, exp's scalef, this split)."""
    u = F(1.0) + x
    # u's rounding error, exact: u - 1 is (Sterbenz for u <= 2; for 2 < u <= 2^24, u - 1 >=
    # u / 2 and 1 is a multiple of u's ULP); above 2^24 c / u is below 2^-23, negligible
    # next to log(u) > 16; x <= -1/2 gives u = 1 + x and c = 0 exactly
    c = x - (u - F(1.0))
    # u = 2^k (1 + f): k = floor(log2(u sqrt2)) from the exponent bits of u sqrt2 (inf
    # above 2^127.5: k = 128), so 1 + f = u 2^-k is in [sqrt(1/2), sqrt(2)] (to the
    # rounding of u sqrt2, well inside the polynomial's fit). Nonsense for u <= 0 and
    # NaN, selected away at the end
    ki = np.int32(np.int32(bits_of_f32(u * _F_SQRT2) >> 23) - np.int32(127))
    f = _unscale(u, ki) - F(1.0)
    k = F(ki)
    # c / u = c 2^-k / (1 + f) ~ c 2^-k (1 - f + f^2): c is below half an ULP of u, so
    # the quadratic's 7% error at |f| = 0.41 costs < 0.3 ULP; c 2^-k is exact (c is 0
    # or at least 2^-25 where k > 0)
    d = _unscale(c, ki)
    z = f * f
    cu = d * fma(f, f - F(1.0), F(1.0))
    small = fma(z * f, horner(f, _P32F), fma(k, _F_LN2_LO, fma(F(-0.5), z, cu)))
    r = fma(k, _F_LN2_HI, f + small)  # f and k ln2_hi last, as fdlibm sums
    # special inputs in 7 instructions (were 13): log1p x has x's sign (-0 stays -0);
    # u is inf only for x = inf, NaN for NaN, 0 for x = -1, negative below
    r = np.copysign(r, x)
    r = r if u < F(np.inf) else u
    return r if u > 0 else (F(-np.inf) if u == 0 else F(np.nan))
