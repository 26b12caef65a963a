"""Vectorizable sin and cos for Numba loops, float32 and float64, whole range.

Reduction: ``y = |x| 2/pi``, ``n = rint(y)``, ``r = (y - n) pi/2`` in [-pi/4, pi/4], then
``sin x = +-sin r`` or ``+-cos r`` by ``n mod 4``. Near multiples of pi/2, ``y - n`` is
tiny, so ``y`` must be known to far more bits than ``x`` has (for float32 ``|y - n|`` gets
down to ~2^-30, for float64 to ~2^-61); a Cody-Waite split of pi/2 is exact only while
``n`` fits its spare bits, so float64 uses Payne-Hanek for every input: only the bits of
2/pi near ``x``'s exponent matter (higher ones make ``y`` change by multiples of 4).

float32 has two paths. Up to |x| = 65536 (``sin_f32_fast``/``cos_f32_fast``): Cody-Waite
in float32 lanes, pi/2 in three 24-bit parts with FMAs, within 1 ULP of the correctly
rounded result for every float32 there (checked exhaustively). Above, Payne-Hanek in
64-bit integers and float64 (``sin_f32``/``cos_f32``, which select the fast path below
65536): a select computes both paths for every element, so loops run the fast variant
and compute the whole loop again with the exact one only when some element is larger
(``scalar_templates.FAST_VARIANTS``, ``trig_big_f32``).

float32 above 65536 (computed in float64): ``x = M 2^E``, M a 24-bit integer; ``y mod 4``
as a 64-bit fixed-point number (62 fraction bits) is ``M * W`` shifted, ``W`` the 96 bits
of 2/pi at that exponent, in wrapping uint64 arithmetic (two 64-bit products). ``W`` is
cut from four constant words with shifts and selects. The fraction, converted to
float64, keeps >= 30 significant bits even at the worst case.

float64: ``W`` as four float64 chunks of 52-53 consecutive bits, read from tables
indexed by the exponent (gathers); ``x * chunk`` is computed exactly as a sum of two
doubles with FMA, and the parts are added in double-double arithmetic after removing
multiples of 4, which keeps ``y - n`` to ~2^-150 absolute.

Polynomials: Chebyshev fits (mpmath) of sin r = r + r^3 S(r^2), cos r = 1 - r^2/2 +
r^4 C(r^2) on [0, (pi/4)^2], of degree 3 (float32, error < 2^-35) or 6/5 (float64,
< 2^-60); float64 adds the low part of r as fdlibm's __kernel_sin/__kernel_cos do.
"""

from __future__ import annotations

import numpy as np

from graphc.runtime.vmath_base import bits_of_f32, bits_of_f64, fma, horner, jit, rint_i32

# 2/pi to 1216 bits (fdlibm's ipio2 table; checked against mpmath), enough for the
# float64 window at the largest exponent (up to bit 971 + 207)
_TWO_OVER_PI_HEX = (
    "a2f9836e4e441529fc2757d1f534ddc0db6295993c439041fe5163abdebbc561b7246e3a424d"
    "d2e006492eea09d1921cfe1deb1cb129a73ee88235f52ebb4484e99c7026b45f7e413991d639"
    "835339f49c845f8bbdf9283b1ff897ffde05980fef2f118b5a0a6d1f6d367ecf27cb09b74f46"
    "3f669e5fea2d7527bac7ebe5f17b3d0739f78a5292ea6bfb5fb11f8d5d0856033046fc7b6bab"
)
_T_BITS = len(_TWO_OVER_PI_HEX) * 4
_T = int(_TWO_OVER_PI_HEX, 16)  # floor(2/pi * 2^_T_BITS)


def _t_floor(shift):
    """floor(2/pi * 2^shift) as a Python int, shift <= _T_BITS (0 when shift <= 0)."""
    return _T >> (_T_BITS - shift) if shift > 0 else 0


# the first 256 bits of 2/pi as four 64-bit words (unsigned: see below)
_A = tuple(np.uint64((_t_floor(64 * (k + 1))) & ((1 << 64) - 1)) for k in range(4))
# unsigned, because Numba marks signed int arithmetic "nsw" (overflow is undefined
# behaviour to LLVM, which then folded the quadrant bits wrongly) and the fixed-point
# arithmetic below wraps on purpose; constants typed uint64 so nothing turns float
_U_HALF = np.uint64(1 << 61)
_U_FRAC = np.uint64((1 << 62) - 1)
_U_MANT = np.uint64(0x7FFFFF)
_U_ONE = np.uint64(0x800000)
_U0, _U1, _U2 = (np.uint64(k) for k in range(3))
_U6, _U23, _U32, _U62, _U63 = (np.uint64(k) for k in (6, 23, 32, 62, 63))
_U_LOW32, _U_LOW6 = np.uint64(0xFFFFFFFF), np.uint64(63)


@jit
def _window(j):
    """floor(2/pi 2^j) mod 2^64 for 0 <= j < 256: the two 64-bit words of 2/pi around bit
    j, shifted. Selects, not a table: a gather made LLVM vectorize whole fused loops 4
    lanes wide instead of 8 (2x slower)."""
    q = j >> _U6
    r = j & _U_LOW6
    cur = _A[0] if q == _U0 else (_A[1] if q == _U1 else (_A[2] if q == _U2 else _A[3]))
    prev = _U0 if q == _U0 else (_A[0] if q == _U1 else (_A[1] if q == _U2 else _A[2]))
    return (prev << r) | ((cur >> _U1) >> (_U63 - r))  # (cur >> 64 - r) without >> 64


def _f64_tables():
    # x = M 2^E (M a 53-bit integer, E = e - 1075, denormals as e = 1): chunk 0 holds the
    # bits of 2/pi at positions E - 1 .. E + 51 (bit p weighs 2^-p), chunk k > 0 the next
    # 52, all times 2^E so M * chunk stays within 2^55 whatever E is (an exact product
    # with FMA); bits above position E - 1 only add multiples of 4 to y
    tab = np.zeros((4, 2048))
    for e in range(1, 2048):
        big = e - 1075
        tab[0, e] = (_t_floor(big + 51) & ((1 << 53) - 1)) * 2.0 ** -51
        for k in (1, 2, 3):
            tab[k, e] = (_t_floor(big + 51 + 52 * k) & ((1 << 52) - 1)) * 2.0 ** (-51 - 52 * k)
    return tab[0].copy(), tab[1].copy(), tab[2].copy(), tab[3].copy()


_C0, _C1, _C2, _C3 = _f64_tables()
_PIO2 = 1.5707963267948966
_PIO2_LO = 6.123233995736766e-17  # pi/2 - _PIO2
_S64 = (-7.586697117706918e-13, 1.6058531618986147e-10, -2.5052106232447578e-08,
        2.7557319219339167e-06, -0.00019841269841265065, 0.008333333333333331,
        -0.16666666666666666)
_C64 = (-1.1382632425521717e-11, 2.08761462684032e-09, -2.7557317271729793e-07,
        2.480158729876569e-05, -0.0013888888888887398, 0.041666666666666664)
_S32 = (2.724992580305979e-06, -0.00019840086735384846, 0.008333331874710208,
        -0.1666666666385529)
_C32 = (-2.730095920390147e-07, 2.480060037715673e-05, -0.001388888767201679,
        0.0416666666643212)


@jit
def _reduce_f32(ax):
    """(n mod 4, r) with |x| = (n + r 2/pi) pi/2, |r| <= pi/4, for a finite float32 |x|."""
    b = np.uint64(bits_of_f32(ax))
    e = max(b >> _U23, np.uint64(88))  # below 2^-12 (e < 115) the result is selected away
    m = (b & _U_MANT) | _U_ONE
    # x = M 2^(e - 150); y 2^62 = M 2/pi 2^(e - 88), so with W = floor(2/pi 2^(e - 56))
    # mod 2^96 (W_hi its top 64 bits): y 2^62 mod 2^64 = M W >> 32, within 2 units
    w_hi = _window(e - np.uint64(88))
    w_lo = _window(e - np.uint64(56)) & _U_LOW32
    q = m * w_hi + ((m * w_lo) >> _U32)  # wraps mod 2^64
    q = q + _U_HALF  # round: the top two bits are n mod 4, the rest (y - n + 1/2) 2^62
    n = np.int64(q >> _U62)
    f = np.float64(np.int64(q & _U_FRAC) - (1 << 61)) * 2.168404344971009e-19  # 2^-62
    return n, f * _PIO2


@jit
def _sin_cos_f32(ax):
    """(n mod 4, sin r, cos r) for a finite float32 ``ax`` >= 0, in float64."""
    n, r = _reduce_f32(ax)
    z = r * r
    s = fma(r * z, horner(z, _S32), r)
    c = fma(z * z, horner(z, _C32), fma(-0.5, z, 1.0))
    return n, s, c


# float32 in float32 lanes, for |x| <= _F_BIG: Cody-Waite with pi/2 = _F_P1 + _F_P2 +
# _F_P3 (24 bits each, 1e-23 left over). fma(-n, _F_P1, |x|) is exact (the difference of
# two multiples of 2^-24 below 1), the next two round once each; n < 2^16 keeps r within
# 1 ULP of sin/cos for every float32 up to _F_BIG (checked exhaustively, docs/vmath.md)
F = np.float32
_F_BIG = F(65536.0)
_F_2OPI = F(0.6366197466850281)
_F_P1, _F_P2, _F_P3 = F(1.5707963705062866), F(-4.371138828673793e-08), F(-1.7151245100058819e-15)
_S32F = tuple(F(c) for c in _S32)
_C32F = tuple(F(c) for c in _C32)
_F_TINY = F(2.4414062e-4)  # 2^-12: below it sin x rounds to x, cos x to 1


@jit
def _sin_cos_fast_f32(ax):
    """(n mod 4 as int32, sin r, cos r) in float32 for a float32 0 <= ``ax`` <= _F_BIG."""
    ni = rint_i32(ax * _F_2OPI)  # garbage above 2^31 (inf, NaN): selected away
    n = F(ni)
    r = fma(-n, _F_P3, fma(-n, _F_P2, fma(-n, _F_P1, ax)))
    z = r * r
    s = fma(r * z, horner(z, _S32F), r)
    c = fma(z * z, horner(z, _C32F), fma(F(-0.5) * r, r, F(1.0)))  # 1 - r^2/2 rounded once
    return np.int32(ni & np.int32(3)), s, c


_I0, _I1, _I2 = np.int32(0), np.int32(1), np.int32(2)


@jit
def trig_big_f32(x):
    """Whether ``sin_f32_fast``/``cos_f32_fast`` are not exact for float32 ``x``: a finite
    |x| > 65536, where the loop must use ``sin_f32``/``cos_f32`` (an int32, for a sum)."""
    ax = abs(x)
    return np.int32(1) if ax > _F_BIG and ax < F(np.inf) else np.int32(0)


@jit
def sin_f32_fast(x):
    """sin of a float32 in float32 lanes, <= 1 ULP for |x| <= 65536, inf/NaN -> NaN;
    wrong above (``trig_big_f32``): loops compute those again with ``sin_f32``."""
    ax = abs(x)
    n, s, c = _sin_cos_fast_f32(ax)
    # int ops cast back to int32 (Numba's int64 promotion would give 8-lane vectors)
    v = c if np.int32(n & _I1) != _I0 else s
    w = -v if (np.int32(n & _I2) != _I0) != (x < 0) else v  # sin(-x) = -sin(x)
    w = w if ax >= _F_TINY else x  # keeps -0
    return w if ax < F(np.inf) else F(np.nan)


@jit
def cos_f32_fast(x):
    """cos of a float32 in float32 lanes, <= 1 ULP for |x| <= 65536 (as ``sin_f32_fast``)."""
    ax = abs(x)
    n, s, c = _sin_cos_fast_f32(ax)
    v = s if np.int32(n & _I1) != _I0 else c  # cos(r + n pi/2)
    w = -v if np.int32(np.int32(n + _I1) & _I2) != _I0 else v
    return w if ax < F(np.inf) else F(np.nan)


@jit
def sin_f32(x):
    """sin of a float32, <= 1 ULP over the whole range; inf/NaN -> NaN. The fast path up
    to 65536 (so both give the same values there), Payne-Hanek in float64 above."""
    ax = abs(x)
    n, s, c = _sin_cos_f32(ax)
    v = c if n & 1 else s
    neg = (n & 2 != 0) != (x < 0)  # sin(-x) = -sin(x)
    w = np.float32(-v if neg else v)
    return w if ax > _F_BIG and ax < F(np.inf) else sin_f32_fast(x)


@jit
def cos_f32(x):
    """cos of a float32, <= 1 ULP over the whole range (fast path up to 65536, as sin_f32)."""
    ax = abs(x)
    n, s, c = _sin_cos_f32(ax)
    v = s if n & 1 else c  # cos(r + n pi/2)
    w = np.float32(-v if (n + 1) & 2 else v)
    return w if ax > _F_BIG and ax < F(np.inf) else cos_f32_fast(x)


@jit
def _two_sum(a, b):
    """(s, t) with s = fl(a + b) and s + t = a + b exactly (Knuth)."""
    s = a + b
    v = s - a
    return s, (a - (s - v)) + (b - v)


@jit
def _reduce_f64(ax):
    """(n mod 4, r, rr) with |x| = n pi/2 + r + rr, r + rr to ~2^-150 absolute."""
    b = bits_of_f64(ax)
    e = b >> 52
    m = np.float64((b & 0xFFFFFFFFFFFFF) | ((1 << 52) if e > 0 else 0))
    i = max(e, 1)
    c0, c1, c2 = _C0[i], _C1[i], _C2[i]
    h = m * c0  # the products are exact as h + l (FMA)
    l0 = fma(m, c0, -h)
    h = h - 4.0 * np.floor(h * 0.25)  # mod 4, exact
    h1 = m * c1
    l1 = fma(m, c1, -h1)
    s, t = _two_sum(h, h1)
    s, t2 = _two_sum(s, l0)
    n = np.rint(s)
    s = s - n  # exact, in [-1/2, 1/2]
    # the small terms in double-double: rounding errors stay ~2^-155, so y - n keeps
    # 53 bits even at the closest float64 to a multiple of pi/2 (~2^-61 away)
    h2 = m * c2
    a, u = _two_sum(t, t2)
    a, u1 = _two_sum(a, l1)
    a, u2 = _two_sum(a, h2)
    u = u + u1 + u2 + fma(m, c2, -h2) + m * _C3[i]
    f, g = _two_sum(s, a)
    g = g + u
    f, g = _two_sum(f, g)
    r = f * _PIO2  # (f + g) pi/2 as r + rr
    rr = fma(f, _PIO2, -r) + fma(f, _PIO2_LO, g * _PIO2)
    return np.int64(n) & 3, r, rr


@jit
def _sin_cos_f64(ax):
    """(n mod 4, sin r, cos r) for a finite float64 ``ax`` >= 0 (fdlibm's kernels)."""
    n, r, rr = _reduce_f64(ax)
    z = r * r
    # sin(r + rr) = r + r^3 S(z) + rr (1 - z/2): the big term r goes in last
    s = r + fma(z * r, horner(z, _S64), rr - 0.5 * z * rr)
    # cos(r + rr) = w + ((1 - w) - z/2) + z^2 C(z) - r rr, w = 1 - z/2 rounded
    hz = 0.5 * z
    w = 1.0 - hz
    c = w + (((1.0 - w) - hz) + fma(z * z, horner(z, _C64), -r * rr))
    return n, s, c


@jit
def sin_f64(x):
    """sin of a float64, ~1 ULP over the whole range; inf/NaN -> NaN."""
    ax = abs(x)
    n, s, c = _sin_cos_f64(ax if ax < np.inf else 0.0)
    v = c if n & 1 else s
    neg = (n & 2 != 0) != (x < 0)
    w = -v if neg else v
    w = w if ax >= 7.450580596923828e-09 else x  # |x| < 2^-27: sin x rounds to x
    return w if ax < np.inf else np.nan


@jit
def cos_f64(x):
    """cos of a float64, ~1 ULP over the whole range; inf/NaN -> NaN."""
    ax = abs(x)
    n, s, c = _sin_cos_f64(ax if ax < np.inf else 0.0)
    v = s if n & 1 else c
    w = -v if (n + 1) & 2 else v
    w = w if ax >= 7.450580596923828e-09 else 1.0
    return w if ax < np.inf else np.nan
