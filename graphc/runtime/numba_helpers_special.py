"""Numba-compiled scalar helpers of the special-function ops (``graphc/ops/special_fns.py``):
``H.erfinv``, ``H.ndtri``, ``H.digamma``, ``H.zeta``, ``H.polygamma``, ``H.bessel_i0``...

Re-exported by ``numba_helpers`` (programs call them as ``H.name``; the CUDA backend
compiles them as device functions, so they use only ``math`` and arithmetic, no arrays).
``cache.version_tag`` hashes this file (its name starts with ``numba_helpers``): programs
link its code in. Each takes and returns float64; the scalar templates cast around them.

Algorithms (written here, checked against SciPy by tests/special/):

* ``ndtri``: a rational first guess (Acklam's), then one Halley step on the residual
  ``Phi(x) - p``, computed as ``erf(x/sqrt2)/2 - (p - 1/2)`` in the central region (no
  cancellation near 1/2) and as ``erfc(-x/sqrt2)/2 - p`` in the tail (relative accuracy
  down to the smallest normals); ``p > 1/2`` by symmetry (``1 - p`` is exact there).
* ``erfinv``: ``|y| <= 1/2``: the central guess and two Newton steps on ``erf``;
  beyond, ``-ndtri((1 - |y|)/2)/sqrt2`` (``1 - |y|`` exact, so the tail keeps its digits).
* ``digamma``: reflection for ``x < 0``, the recurrence up to ``x >= 10``, then the
  asymptotic series in ``1/x^2``.
* ``zeta`` (Hurwitz): direct terms until the base is at least 10 (and the terms stop
  mattering when the exponent is large), then Euler-Maclaurin with 12 Bernoulli terms.
* ``polygamma(n, x) = (-1)^(n+1) n! zeta(n+1, x)`` for integral ``n >= 1``.
* ``bessel_i0``/``i1`` (and the scaled ``*e``): the power series below 40, the
  asymptotic series of ``exp(-x) sqrt(2 pi x) I_nu(x)`` above.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numba

_jit = numba.njit(cache=True, error_model="numpy", nogil=True)

_INF = math.inf
_NAN = math.nan
_SQRT2 = math.sqrt(2.0)
_SQRT2PI = math.sqrt(2.0 * math.pi)
_EPS = 2.220446049250313e-16


def _bernoulli_coefficients(count):
    """``B_2j / (2j)!`` for j = 1..count (exact fractions, rounded once)."""
    b = [Fraction(1)]
    for m in range(1, 2 * count + 1):  # B_m from sum_{k<=m} C(m+1, k) B_k = 0
        acc = Fraction(0)
        binom = Fraction(1)
        for k in range(m):
            acc += binom * b[k]
            binom = binom * (m + 1 - k) / (k + 1)
        b.append(-acc / (m + 1))
    out = []
    fact = Fraction(1)
    for j in range(1, 2 * count + 1):
        fact *= j
        if j % 2 == 0:
            out.append(float(b[j] / fact))
    return tuple(out)


_BERN = _bernoulli_coefficients(12)  # B2/2!, B4/4!, ..., B24/24!

# Acklam's rational approximation of the normal quantile (relative error < 1.2e-9)
_A = (-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
      1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00)
_B = (-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
      6.680131188771972e+01, -1.328068155288572e+01)
_C = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
      -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00)
_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
      3.754408661907416e+00)
_P_LOW = 0.02425


@_jit
def _central_guess(q):
    """Acklam's central branch: the quantile of ``1/2 + q`` for ``|q| <= 0.47575``."""
    r = q * q
    num = (((((_A[0] * r + _A[1]) * r + _A[2]) * r + _A[3]) * r + _A[4]) * r + _A[5]) * q
    den = ((((_B[0] * r + _B[1]) * r + _B[2]) * r + _B[3]) * r + _B[4]) * r + 1.0
    return num / den


@_jit
def _ndtri_lower(p):
    """The normal quantile of ``0 < p <= 1/2`` (a value <= 0)."""
    if p < _P_LOW:
        t = math.sqrt(-2.0 * math.log(p))
        x = ((((((_C[0] * t + _C[1]) * t + _C[2]) * t + _C[3]) * t + _C[4]) * t + _C[5])
             / ((((_D[0] * t + _D[1]) * t + _D[2]) * t + _D[3]) * t + 1.0))
        for _ in range(2):
            pdf = math.exp(-0.5 * x * x) / _SQRT2PI
            if pdf == 0.0:
                break
            u = (0.5 * math.erfc(-x / _SQRT2) - p) / pdf
            x = x - u / (1.0 + 0.5 * x * u)
        return x
    q = p - 0.5
    x = _central_guess(q)
    for _ in range(2):
        pdf = math.exp(-0.5 * x * x) / _SQRT2PI
        u = (0.5 * math.erf(x / _SQRT2) - q) / pdf
        x = x - u / (1.0 + 0.5 * x * u)
    return x


@_jit
def ndtri(p):
    """The standard normal quantile (``scipy.special.ndtri``)."""
    if p != p or p < 0.0 or p > 1.0:
        return _NAN
    if p == 0.0:
        return -_INF
    if p == 1.0:
        return _INF
    if p > 0.5:
        return -_ndtri_lower(1.0 - p)
    return _ndtri_lower(p)


@_jit
def erfinv(y):
    """The inverse error function (``scipy.special.erfinv``)."""
    if y != y:
        return y
    t = abs(y)
    if t > 1.0:
        return _NAN
    if t == 1.0:
        return math.copysign(_INF, y)
    if t == 0.0:
        return y
    if t <= 0.5:
        x = _central_guess(0.5 * y) / _SQRT2
        for _ in range(2):
            x = x - (math.erf(x) - y) / (1.1283791670955126 * math.exp(-x * x))
        return x
    return math.copysign(-_ndtri_lower(0.5 * (1.0 - t)) / _SQRT2, y)


@_jit
def digamma(x):
    """The logarithmic derivative of the gamma function (``scipy.special.digamma``)."""
    if x != x:
        return x
    if x == _INF:
        return _INF
    if x == -_INF:
        return _NAN
    if x == 0.0:
        return _INF if math.copysign(1.0, x) < 0.0 else -_INF
    res = 0.0
    if x < 0.0:
        r = x - math.floor(x + 0.5)  # exact, |r| <= 1/2: cot(pi x) = cot(pi r)
        if r == 0.0:
            return _NAN
        res = -math.pi / math.tan(math.pi * r)  # psi(x) = psi(1-x) - pi cot(pi x)
        x = 1.0 - x
    while x < 10.0:
        res -= 1.0 / x
        x += 1.0
    r = 1.0 / (x * x)
    tail = 0.0
    for j in range(7, 0, -1):  # sum_j B_2j / (2j x^2j)
        tail = (tail + _BERN[j - 1] * _fact2(j)) * r
    return res + math.log(x) - 0.5 / x - tail


@_jit
def _fact2(j):
    """``(2j)! / (2j)``: turns ``B_2j/(2j)!`` into ``B_2j/(2j)``."""
    f = 1.0
    for i in range(1, 2 * j):
        f *= i
    return f


@_jit
def zeta(s, q):
    """The Hurwitz zeta function ``sum_k (q + k)^-s`` (``scipy.special.zeta(s, q)``)."""
    # in SciPy's order: s = 1, s < 1, then the poles in q whatever s (NaN included)
    if s == 1.0:
        return _INF
    if s < 1.0:
        return _NAN
    if q <= 0.0 and q == math.floor(q):
        return _INF
    if s != s or q != q:
        return _NAN
    if q <= 0.0 and s != math.floor(s):
        return _NAN  # (q + k)^-s of a negative base
    if q == _INF:
        return 0.0
    if s == _INF:
        return _INF if q < 1.0 else (1.0 if q == 1.0 else _NAN)  # as SciPy
    total = 0.0
    a = q
    k = 0
    while k < 9 or a < 10.0:
        total += a ** -s
        a += 1.0
        k += 1
        if abs(a ** -s) <= 1e-17 * abs(total):
            return total
    # Euler-Maclaurin: a^(1-s)/(s-1) + a^-s/2 + sum_j B_2j/(2j)! (s)_(2j-1) a^(-s-2j+1)
    p = a ** -s
    total += a * p / (s - 1.0) + 0.5 * p
    rising = s  # (s)(s+1)...(s+2j-2)
    t = p / a  # a^(-s-2j+1) for j = 1
    for j in range(12):
        term = _BERN[j] * rising * t
        total += term
        if abs(term) <= _EPS * abs(total):
            break
        rising *= (s + 2 * j + 1) * (s + 2 * j + 2)
        t /= a * a
    return total


@_jit
def polygamma(n, x):
    """``scipy.special.polygamma(n, x)``: the n-th derivative of digamma (integral
    ``n >= 0``, NaN otherwise)."""
    if n != n or x != x or n < 0.0 or n != math.floor(n):
        return _NAN
    if n == 0.0:
        return digamma(x)
    m = n + 1.0  # the sign of (-1)^(n+1), read off n + 1 as SciPy does (huge n round)
    sign = 1.0 if (m == _INF or m - 2.0 * math.floor(0.5 * m) == 0.0) else -1.0
    return sign * math.gamma(n + 1.0) * zeta(n + 1.0, x)


@_jit
def _i_series(ax, nu):
    """``I_nu(ax)`` for ``0 <= ax <= 40``, nu = 0 or 1, by its power series."""
    h = 0.25 * ax * ax
    term = 1.0 if nu == 0 else 0.5 * ax
    total = term
    k = 1
    while k < 500:
        term *= h / (k * (k + nu))
        total += term
        if term <= _EPS * 0.25 * total:
            break
        k += 1
    return total


@_jit
def _i_asymptotic(ax, nu):
    """``exp(-ax) I_nu(ax)`` for ``ax >= 40`` by the asymptotic series."""
    mu = 4.0 * nu * nu
    term = 1.0
    total = 1.0
    for k in range(1, 40):
        term *= -(mu - (2 * k - 1) * (2 * k - 1)) / (8.0 * k * ax)
        total += term
        if abs(term) <= _EPS * 0.25 * abs(total):
            break
    return total / math.sqrt(2.0 * math.pi * ax)


@_jit
def _bessel_i(x, nu, scaled):
    if x != x:
        return x
    ax = abs(x)
    if ax == _INF:
        v = 0.0 if scaled else _NAN
    elif ax < 40.0:
        v = _i_series(ax, nu)
        if scaled:
            v *= math.exp(-ax)
    else:
        v = _i_asymptotic(ax, nu)
        if not scaled:
            e = math.exp(0.5 * ax)  # exp(ax) * v without overflowing early
            v = (v * e) * e
    return -v if (nu == 1 and x < 0.0) else v


@_jit
def bessel_i0(x):
    """The modified Bessel function of order 0 (``scipy.special.i0``)."""
    return _bessel_i(x, 0, False)


@_jit
def bessel_i0e(x):
    """``exp(-|x|) I0(x)`` (``scipy.special.i0e``)."""
    return _bessel_i(x, 0, True)


@_jit
def bessel_i1(x):
    """The modified Bessel function of order 1 (``scipy.special.i1``)."""
    return _bessel_i(x, 1, False)


@_jit
def bessel_i1e(x):
    """``exp(-|x|) I1(x)`` (``scipy.special.i1e``)."""
    return _bessel_i(x, 1, True)


@_jit
def lgamma(x):
    """``log|gamma(x)|`` (C's ``lgamma``: ``inf`` at the poles and at ``-inf``)."""
    return math.lgamma(x)


@_jit
def gamma(x):
    """The gamma function (C's ``tgamma``: NaN at the negative integers and ``-inf``)."""
    return math.gamma(x)
