"""Complex arithmetic of generated programs as NumPy computes it (``H.cmul``, ``H.cdiv``,
``H.cpow``, ``H.cabs``; the same ``H.`` namespace as ``numba_helpers``).

Numba's own complex operators follow CPython: ``/`` raises ZeroDivisionError and divides
by the denominator where NumPy multiplies by its reciprocal, ``**`` has its own algorithm,
and newer Pythons recover infinities in ``*``. These helpers are NumPy's loops written
out (numpy/_core/src/umath: the complex division loop, ``nc_pow``), so a compiled program
gives NumPy's values; ``runtime/scalar_templates_complex.py`` says which ops use them and
how close each comes.
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numba import types
from numba.extending import overload

_jit = numba.njit(cache=True, error_model="numpy", nogil=True)


def _pack(like, re, im):
    """A complex of ``like``'s type from its two parts (compiled code only)."""
    raise NotImplementedError


@overload(_pack)
def _pack_impl(like, re, im):
    if like == types.complex64:
        return lambda like, re, im: np.complex64(complex(re, im))
    return lambda like, re, im: complex(re, im)


def _like(x, value):
    """``value`` as a float of ``x``'s type (compiled code only)."""
    raise NotImplementedError


@overload(_like)
def _like_impl(x, value):
    if x == types.float32:
        return lambda x, value: np.float32(value)
    return lambda x, value: np.float64(value)


@_jit
def cmul(a, b):
    """``a * b``: NumPy's ``(ac - bd) + (ad + bc)i``, no infinity recovery."""
    ar, ai, br, bi = a.real, a.imag, b.real, b.imag
    return _pack(a, ar * br - ai * bi, ar * bi + ai * br)


@_jit
def cdiv(a, b):
    """``a / b``: NumPy's scaled division; a zero divisor gives inf or nan parts."""
    ar, ai, br, bi = a.real, a.imag, b.real, b.imag
    abs_br, abs_bi = abs(br), abs(bi)
    if abs_br >= abs_bi:
        if abs_br == 0 and abs_bi == 0:
            return _pack(a, ar / abs_br, ai / abs_bi)
        rat = bi / br
        scl = _like(br, 1.0) / (br + bi * rat)
        return _pack(a, (ar + ai * rat) * scl, (ai - ar * rat) * scl)
    rat = br / bi
    scl = _like(br, 1.0) / (bi + br * rat)
    return _pack(a, (ar * rat + ai) * scl, (ai * rat - ar) * scl)


@_jit
def cabs(a):
    """``abs(a)`` as NumPy's SIMD loop computes it: the larger part times
    ``sqrt(1 + (smaller / larger)**2)``, inf if a part is inf, else nan if one is nan.
    Selects, not branches, so a loop of it vectorizes (libm's ``hypot`` per element was
    11x slower than NumPy); within 2 ULP of ``hypot`` and of NumPy, which fuses the
    multiply-add where the CPU has FMA."""
    re, im = abs(a.real), abs(a.imag)
    zero, one = _like(re, 0.0), _like(re, 1.0)
    big = re if re >= im else im
    small = im if re >= im else re
    scaled = big != zero and small != np.inf
    ratio = small / (big if scaled else one)
    h = big * np.sqrt(one + ratio * ratio) if scaled else big
    h = h if re == re and im == im else _like(re, np.nan)
    return _like(re, np.inf) if re == np.inf or im == np.inf else h


@_jit
def cpow(a, b):
    """``a ** b`` as NumPy's complex power: 1 for a zero exponent; for a zero base 0
    when the exponent's real part is positive, else nan; repeated squaring for an
    integer exponent below 100 in magnitude (the reciprocal taken with ``cdiv`` for a
    negative one); else ``exp(b * log(a))``."""
    ar, ai, br, bi = a.real, a.imag, b.real, b.imag
    if br == 0 and bi == 0:
        return _pack(a, 1.0, 0.0)
    if ar == 0 and ai == 0:
        if br > 0:
            return _pack(a, 0.0, 0.0)
        return _pack(a, np.nan, np.nan)
    if bi == 0 and br == math.floor(br) and abs(br) < 100:
        n = int(br)
        if n == 1:
            return a
        if n == 2:
            return cmul(a, a)
        if n == 3:
            return cmul(cmul(a, a), a)
        m = abs(n)
        acc = _pack(a, 1.0, 0.0)
        p = a
        mask = 1
        while True:
            if m & mask:
                acc = cmul(acc, p)
            mask <<= 1
            if m < mask:
                break
            p = cmul(p, p)
        if n < 0:
            return cdiv(_pack(a, 1.0, 0.0), acc)
        return acc
    return _pack(a, 0.0, 0.0) + np.exp(b * np.log(a))
