"""Vectorizable math for Numba loops, float32 and float64: programs call ``V.<f>_f32/_f64``.

Why: in a Numba loop ``math.exp``/``np.exp`` is a scalar libm call per element, which
LLVM cannot vectorize: measured here 7.8 ms for 2^20 float32 values against 0.94 ms for
NumPy's SIMD ``np.exp`` (``math.tanh``: 36 ms against 0.55 ms). These functions are plain
arithmetic plus bit casts, FMAs and (sin/cos) table reads, so once LLVM inlines them into
a fused loop it vectorizes the whole loop. Per-function speed and ULP bounds: docs/vmath.md.

Here: exp, sigmoid, softplus, expm1, tanh, erf; log and log1p in vmath_log.py, sin and cos in
vmath_trig.py, the bit casts and FMA in vmath_base.py (all re-exported here).

exp (Cody-Waite range reduction, like Cephes/SLEEF): ``x = n ln2 + r`` with
``n = rint(x / ln2)``, ``|r| <= ln2/2`` (ln2 split in two constants so ``n * hi`` is
exact); ``exp(r)`` by a polynomial (float32: a degree 6 fit, computed in float32;
float64: Taylor to degree 13); ``2^n`` built from its exponent bits as two factors (float32
with AVX-512: one vscalefps), so results that overflow, or underflow into denormals,
round once. NaN, +-inf and out-of-range inputs are handled with clamps and selects (no
branches, so the loops still vectorize). expm1 reduces the same way and returns
``2^n p + (2^n - 1)`` (exact but for p's error); tanh is ``-t / (t + 2)`` with
``t = expm1(-2|x|)``. float32 exp, tanh, log, log1p, sin and cos compute in float32
lanes (twice the lanes of float64; sin/cos up to |x| = 65536, see vmath_trig.py);
float32 expm1 computes in float64 with a shorter polynomial (no cancellation or
denormal cases to handle, one final rounding).
Accuracy across the whole range is tested in tests/runtime/test_numba_vmath.py.

Only generated programs import this module (it imports Numba); ``cache.version_tag``
hashes every ``vmath*.py``, because compiled programs link this code in.
"""

from __future__ import annotations

import numpy as np

from graphc.runtime.vmath_base import (  # noqa: F401  (prefer_wide_vectors: for programs)
    HAS_SCALEF,
    bits_of_f64,
    f32_from_bits,
    f64_from_bits,
    fma,
    horner,
    jit,
    ldexp_f32,
    prefer_wide_vectors,
    rint_i32,
)
from graphc.runtime.vmath_log import log1p_f32, log1p_f64, log_f32, log_f64  # noqa: F401
from graphc.runtime.vmath_trig import (  # noqa: F401
    cos_f32,
    cos_f32_fast,
    cos_f64,
    sin_f32,
    sin_f32_fast,
    sin_f64,
    trig_big_f32,
)

_jit = jit

_LOG2E = 1.4426950408889634
_LN2_HI = 0.693147180369123816490    # ln2 with the low 32 bits zero: n * hi is exact
_LN2_LO = 1.90821492927058770002e-10
_EXP64 = (1.0 / 6227020800, 1.0 / 479001600, 1.0 / 39916800, 1.0 / 3628800, 1.0 / 362880,
          1.0 / 40320, 1.0 / 5040, 1.0 / 720, 1.0 / 120, 1.0 / 24, 1.0 / 6, 0.5, 1.0, 1.0)
# expm1(r) = r + r^2/2 + r^3 P(r) on [-ln2/2, ln2/2]: P a Chebyshev fit (mpmath) of degree 9
# (float64, error of P < 2^-56) or 5 (float32 computed in float64, < 2^-32)
_EM64 = (2.091122972975856e-09, 2.5100375832561234e-08, 2.755728298405588e-07,
         2.7557268480310024e-06, 2.4801587317135164e-05, 0.00019841269863040545,
         0.0013888888888886554, 0.008333333333330065, 0.041666666666666664,
         0.16666666666666669)
_EM32 = (2.485128815112762e-05, 0.00019890980869750327, 0.0013888866495891856,
         0.008333310934448869, 0.041666666681610176, 0.16666666681614256)


@_jit
def _pow2(n):
    """2.0**n for an integral float64 ``n`` in [-1022, 1023]."""
    return f64_from_bits((np.int64(n) + 1023) << 52)


# float32 constants (module-level NumPy scalars are typed float32 by Numba, so the
# arithmetic below stays float32 and vectorizes 8 lanes wide: LLVM prefers 256-bit vectors here)
_F1 = np.float32(1.0)
_FHALF = np.float32(0.5)
_FLO = np.float32(-104.0)   # exp(-104) < smallest float32 denormal / 2: result 0
_FHI = np.float32(89.0)     # exp(89) > float32 max: result inf
_FLOG2E = np.float32(1.44269504088896341)
_FC1 = np.float32(0.693359375)         # Cephes' two-part ln2: n * _FC1 is exact
_FC2 = np.float32(-2.12194440e-4)
# exp(r) = 1 + r + r^2 P(r), |r| <= ln2/2: P a degree 4 Chebyshev fit (mpmath), relative
# error < 2^-26.4 with float32 coefficients (Cephes' degree 5 cost an FMA for 2^-30)
_FP = tuple(np.float32(c) for c in (0.0013926181809476772, 0.00836317762999063,
                                    0.04166655462788882, 0.16666576998242955, 0.5))


@_jit
def _pow2f(n):
    """2.0**n (float32) for an integral float32 ``n`` in [-126, 127]."""
    # float32 -> int32 converts 8/16 lanes at once (-> int64 would not); Numba widens the
    # int arithmetic to int64, which LLVM narrows back because of the final int32 cast
    return f32_from_bits(np.int32((np.int32(n) + 127) << 23))


@_jit
def _scale_two_factors(p, n, ni):
    """p 2^n for an integral float32 n = ni in [-150, 129]: 2^n as two factors that stay
    normal; the last multiply rounds once, into a denormal or to inf where the true
    result is one."""
    h = np.floor(n * _FHALF)
    return p * _pow2f(h) * _pow2f(n - h)


@_jit
def _scale_scalef(p, n, ni):
    """p 2^n as ``_scale_two_factors``, bit for bit, in one instruction (AVX-512's
    vscalefps): exp float32 0.27 -> 0.21 ns per value, 2^16 values, one thread."""
    return ldexp_f32(p, ni)  # ni = int32(n): its conversion to float is shared with n


_scale = _scale_scalef if HAS_SCALEF else _scale_two_factors


@_jit
def exp_f32(x):
    """exp of a float32 in float32 arithmetic, <= 1 ULP."""
    # clamped so that NaN stays NaN (x86 max/min return their second operand then), and
    # NaN goes through: no select for it at the end
    d = _FLO if _FLO > x else x
    d = _FHI if _FHI < d else d
    ni = rint_i32(d * _FLOG2E)
    n = np.float32(ni)
    r = fma(n, -_FC2, fma(n, -_FC1, d))  # n * _FC1 is exact
    p = fma(horner(r, _FP), r * r, r) + _F1
    return _scale(p, n, ni)


@_jit
def exp_f64(x):
    """exp of a float64 within a few ULP; overflow to inf, gradual underflow to 0."""
    d = min(max(x, -746.0), 710.0)
    n = np.rint(d * _LOG2E)
    r = (d - n * _LN2_HI) - n * _LN2_LO
    p = horner(r, _EXP64)
    # 2^n as two factors so both stay normal for n in [-1076, 1025]
    h = np.floor(n * 0.5)
    res = p * _pow2(h) * _pow2(n - h)
    return x if x != x else res


@_jit
def sigmoid_f32(x):
    """1 / (1 + exp(-x)) in float32 arithmetic, as NumPy evaluates it."""
    return np.float32(1.0) / (np.float32(1.0) + exp_f32(-x))


@_jit
def sigmoid_f64(x):
    return 1.0 / (1.0 + exp_f64(-x))


@_jit
def softplus_f32(x):
    """log(1 + exp(x)) as NumPy's ``logaddexp(0, x)`` computes it, ``max(x, 0) +
    log1p(exp(-|x|))`` (never overflows; NaN -> NaN, -inf -> 0, inf -> inf)."""
    return max(x, np.float32(0.0)) + log1p_f32(exp_f32(-abs(x)))


@_jit
def softplus_f64(x):
    return max(x, 0.0) + log1p_f64(exp_f64(-abs(x)))


@_jit
def _expm1_f64(d):
    """expm1 of a float64 ``d`` in [-45, 710] (below -45 the result rounds to -1)."""
    n = np.rint(d * _LOG2E)
    r = (d - n * _LN2_HI) - n * _LN2_LO
    p = fma(r * r, fma(r, horner(r, _EM64), 0.5), r)  # expm1(r), |r| <= ln2/2
    # expm1(d) = 2^n p + (2^n - 1): 2^n - 1 is exact for n <= 53 and the product too, so
    # only p's error and one rounding remain, even where the result is near 0 (n = 0)
    t = _pow2(min(n, 56.0))
    small = fma(t, p, t - 1.0)
    h = np.floor(n * 0.5)  # above 2^56 the -1 is lost: exp's two factors (n <= 1025)
    big = (p + 1.0) * _pow2(h) * _pow2(n - h)
    return big if n > 56.0 else small


@_jit
def _expm1_f32(d):
    """expm1 of a float64 ``d`` in [-20, 89] to ~2^-32 relative (float32 use: 2^n never
    overflows float64, and rounding to float32 makes an overflow inf)."""
    n = np.rint(d * _LOG2E)
    r = fma(n, -0.6931471805599453, d)
    p = fma(r * r, fma(r, horner(r, _EM32), 0.5), r)
    t = _pow2(n)
    return fma(t, p, t - 1.0)


@_jit
def expm1_f64(x):
    """exp(x) - 1 of a float64, ~1 ULP; exact for tiny x, keeps -0; inf -> inf, -inf -> -1."""
    r = _expm1_f64(min(max(x, -45.0), 710.0))
    r = r if x != 0 else x  # -0: the polynomial would give +0
    return x if x != x else r


@_jit
def expm1_f32(x):
    """exp(x) - 1 of a float32 computed in float64, <= 1 ULP."""
    r = np.float32(_expm1_f32(min(max(np.float64(x), -20.0), 89.0)))
    r = r if x != 0 else x
    return x if x != x else r


@_jit
def tanh_f64(x):
    """tanh of a float64 as -t / (t + 2), t = expm1(-2|x|) in (-1, 0]: no cancellation
    (t + 2 >= 1), no overflow, and ~x itself for tiny x; a few ULP."""
    t = _expm1_f64(max(-2.0 * abs(x), -45.0))
    r = np.copysign(-t / (t + 2.0), x)
    return x if x != x else r


# expm1(r) = r + r^2/2 + r^3 Q(r) for |r| <= ln2/2 in float32: Q's Taylor terms 1/6..1/5040
_FEM = tuple(np.float32(1.0 / k) for k in (5040, 720, 120, 24, 6))


@_jit
def _expm1_neg_f32(d):
    """expm1 of a float32 ``d`` in [-20, 0] in float32 arithmetic (tanh's t), ~1 ULP:
    ``2^n p + (2^n - 1)``, where ``2^n - 1`` is exact for n >= -24 and below that the
    result rounds to -1 anyway."""
    n = np.float32(rint_i32(d * _FLOG2E))
    r = fma(n, -_FC2, fma(n, -_FC1, d))  # n * _FC1 is exact
    p = fma(r * r, fma(r, horner(r, _FEM), _FHALF), r)
    t = _pow2f(n)
    return fma(t, p, t - _F1)


@_jit
def tanh_f32(x):
    """tanh of a float32 in float32 arithmetic: -t / (t + 2), t = expm1(-2|x|), <= 2 ULP.

    All float32, so the loop runs 16 lanes per 512-bit vector: 0.32 ns per value
    against 0.64 ns with t computed in float64 (2^16 values, one thread)."""
    a = np.float32(-2.0) * abs(x)
    t = _expm1_neg_f32(np.float32(-20.0) if np.float32(-20.0) > a else a)  # NaN stays
    return np.copysign(-t / (t + np.float32(2.0)), x)

# ---------------------------------------------------------------------------------- erf
# fdlibm's method (< 1 ULP), branch-free so LLVM vectorizes it: every range's formula is
# computed and the right one selected per lane (``math.erf`` is a scalar libm call that
# kept a fused loop scalar: Black-Scholes' two erfs per option ran at ~25 ns a value).
# |x| < 0.84375: x + x R(x^2), R rational (degree 4 / 5 in x^2); |x| < 2^-28:
# x + x (2/sqrt(pi) - 1), denormals scaled by 8 first so the product keeps its bits.
# 0.84375 <= |x| < 1.25: c + P(s) / Q(s), s = |x| - 1, c = erf(1) rounded to 24 bits.
# 1.25 <= |x| < 6: 1 - exp(-z^2 - 0.5625) exp((z - |x|)(z + |x|) + R(t) / S(t)) / |x|,
# t = 1 / x^2 (one rational pair below 1/0.35, another above), z = |x| with its low 32
# bits cleared (z^2 exact); |x| >= 6: 1. The sign is put back last; NaN stays NaN.
# Coefficients: fdlibm's (Sun Microsystems, 1993: "Permission to use, copy, modify, and
# distribute this software is freely granted, provided that this notice is preserved"),
# as published in FreeBSD's and musl's s_erf.c. float32: in float64, rounded once.
_ERX = 8.45062911510467529297e-01      # erf(1) rounded to 24 bits
_EFX = 1.28379167095512586316e-01      # 2/sqrt(pi) - 1
_EFX8 = 1.02703333676410069053e+00     # 8 * _EFX
# |x| < 0.84375: erf(x) = x + x * PP(x^2) / QQ(x^2) (highest degree first)
_PP = (-2.37630166566501626084e-05, -5.77027029648944159157e-03,
       -2.84817495755985104766e-02, -3.25042107247001499370e-01,
       1.28379167095512558561e-01)
_QQ = (-3.96022827877536812320e-06, 1.32494738004321644526e-04,
       5.08130628187576562776e-03, 6.50222499887672944485e-02,
       3.97917223959155352819e-01, 1.0)
# 0.84375 <= |x| < 1.25: erf(|x|) = _ERX + PA(s) / QA(s), s = |x| - 1
_PA = (-2.16637559486879084300e-03, 3.54783043256182359371e-02,
       -1.10894694282396677476e-01, 3.18346619901161753674e-01,
       -3.72207876035701323847e-01, 4.14856118683748331666e-01,
       -2.36211856075265944077e-03)
_QA = (1.19844998467991074170e-02, 1.36370839120290507362e-02,
       1.26171219808761642112e-01, 7.18286544141962662868e-02,
       5.40397917702171048937e-01, 1.06420880400844228286e-01, 1.0)
# 1.25 <= |x| < 1/0.35: log(erfc(x) x) + x^2 - 0.5625 = RA(t) / SA(t), t = 1 / x^2
_RA = (-9.81432934416914548592e+00, -8.12874355063065934246e+01,
       -1.84605092906711035994e+02, -1.62396669462573470355e+02,
       -6.23753324503260060396e+01, -1.05586262253232909814e+01,
       -6.93858572707181764372e-01, -9.86494403484714822705e-03)
_SA = (-6.04244152148580987438e-02, 6.57024977031928170135e+00,
       1.08635005541779435134e+02, 4.29008140027567833386e+02,
       6.45387271733267880336e+02, 4.34565877475229228821e+02,
       1.37657754143519042600e+02, 1.96512716674392571292e+01, 1.0)
# 1/0.35 <= |x| < 6: the same with RB / SB
_RB = (-4.83519191608651397019e+02, -1.02509513161107724954e+03,
       -6.37566443368389627722e+02, -1.60636384855821916062e+02,
       -1.77579549177547519889e+01, -7.99283237680523006574e-01,
       -9.86494292470009928597e-03)
_SB = (-2.24409524465858183362e+01, 4.74528541206955367215e+02,
       2.55305040643316442583e+03, 3.19985821950859553908e+03,
       1.53672958608443695994e+03, 3.25792512996573918826e+02,
       3.03380607434824582924e+01, 1.0)
_ONE_OVER_035 = 2.857141494750976562   # fdlibm's switch: high word 0x4006DB6E
_HIGH_WORD = np.int64(-4294967296)     # 0xFFFFFFFF00000000: keeps a float64's high word


@_jit
def erf_f64(x):
    """erf of a float64, < 1 ULP (fdlibm's method, branch-free; see above)."""
    a = abs(x)
    z = x * x
    # |x| < 2^-28: x + x (2/sqrt(pi) - 1); below 2^-1015 scaled by 8 to keep its bits
    tiny = 0.125 * (8.0 * x + _EFX8 * x) if a < 2.0 ** -1015 else x + _EFX * x
    near0 = x + x * (horner(z, _PP) / horner(z, _QQ))
    s = a - 1.0
    near1 = _ERX + horner(s, _PA) / horner(s, _QA)
    t = 1.0 / z
    low = a < _ONE_OVER_035
    r = horner(t, _RA) if low else horner(t, _RB)
    q = horner(t, _SA) if low else horner(t, _SB)
    hi = f64_from_bits(bits_of_f64(a) & _HIGH_WORD)  # z^2 exact: hi has 21 bits
    tail = 1.0 - exp_f64(-hi * hi - 0.5625) * exp_f64((hi - a) * (hi + a) + r / q) / a
    far = np.copysign(near1 if a < 1.25 else (tail if a < 6.0 else 1.0), x)
    small = near0 if a >= 2.0 ** -28 else tiny
    out = small if a < 0.84375 else far
    return x if x != x else out


@_jit
def erf_f32(x):
    """erf of a float32: computed in float64 (< 1 ULP there) and rounded once."""
    return np.float32(erf_f64(np.float64(x)))
