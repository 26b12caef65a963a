"""NumPy's elementwise functions built from other ops (no op of their own: gradients,
batching and compiled kernels are those of the ops used): ``fabs``, ``fix``,
``float_power``, ``frexp``, ``gcd``, ``lcm``, ``heaviside``, ``i0``, ``modf``, ``sinc``,
``spacing``, ``isneginf``, ``isposinf``, ``nan_to_num``, ``deg2rad``/``radians``,
``rad2deg``/``degrees`` and ``bitwise_count``.

Dtypes are NumPy's: each ufunc's loop is resolved from the operands' dtypes (Python
numbers weak, as NEP 50), the operands are cast to it and the steps run in it.
"""

from __future__ import annotations

import builtins
import math

import numpy as np

from graphc import source_info
from graphc.ops import inplace as _inplace
from graphc.ops.control.flow import while_loop
from graphc.ops.convert import asarray
from graphc.ops.creation import zeros_like
from graphc.ops.math_extra import copysign, ldexp, nextafter, signbit
from graphc.ops.reduce import any as _any
from graphc.ops.ufuncs import (
    absolute,
    astype,
    ceil,
    exp,
    floor,
    isfinite,
    isinf,
    isnan,
    log2,
    logical_not,
    power,
    sin,
    sqrt,
    trunc,
    where,
)

_PY_NUMBERS = (builtins.bool, builtins.int, builtins.float, builtins.complex)


def _operand(x):
    """A Python number stays one (weak); anything else becomes a tensor."""
    return x if type(x) in _PY_NUMBERS else asarray(x)


def _loop(ufunc, *args):
    """``args`` cast to the loop dtypes NumPy resolves for ``ufunc`` (Python numbers are
    weak and stay numbers), and the result dtype."""
    args = [_operand(a) for a in args]
    key = tuple(type(a) if type(a) in _PY_NUMBERS else a.dtype for a in args)
    if builtins.all(type(a) in _PY_NUMBERS for a in args):
        args = [asarray(a) for a in args]  # NumPy converts lone numbers to arrays
        key = tuple(a.dtype for a in args)
    try:
        dtypes = ufunc.resolve_dtypes(key + (None,) * ufunc.nout)
    except TypeError:
        names = ", ".join(getattr(k, "__name__", str(k)) for k in key)
        raise TypeError(f"ufunc '{ufunc.__name__}' is not supported for the input "
                        f"types ({names}){source_info.where()}") from None
    cast = [a if type(a) in _PY_NUMBERS or a.dtype == d else astype(a, d)
            for a, d in zip(args, dtypes)]
    return cast, dtypes[ufunc.nin:]


def _out(result, out, name, x):
    return result if out is None else _inplace.into_out(out, result, name, x)


def fabs(x, out=None):
    """``np.fabs``: the absolute value as a float (integers give float64; no complex)."""
    (a,), _ = _loop(np.fabs, x)
    return _out(absolute(a), out, "fabs", x)


def fix(x, out=None):
    """``np.fix``: round towards zero (``floor`` for ``x >= 0``, else ``ceil``); integers
    keep their dtype, as NumPy 2's ``floor``/``ceil``."""
    x = asarray(x)
    return _out(where(x >= 0, floor(x), ceil(x)), out, "fix", x)


def float_power(x1, x2, out=None):
    """``np.float_power``: ``power`` in float64 at least (or complex128)."""
    (a, b), _ = _loop(np.float_power, x1, x2)
    a, b = asarray(a), asarray(b)
    if b.shape == () and a.shape != ():
        # NumPy's power takes a shortcut for a 0-d exponent (0.5 is sqrt: -inf ** 0.5
        # would be NaN, not inf); float_power has none, so the exponent is broadcast
        b = b + zeros_like(a, dtype=b.dtype)
    return _out(power(a, b), out, "float_power", x2)


def frexp(x, out=None):
    """``np.frexp``: ``(mantissa, exponent)`` with ``x = mantissa * 2**exponent`` and
    ``0.5 <= |mantissa| < 1``; the exponent is int32. Zero, inf and NaN give ``(x, 0)``.

    The exponent is first guessed from ``log2`` and then corrected by one either way, so
    it is exact; ``ldexp`` scales without rounding."""
    if out is not None:
        raise NotImplementedError(f"gnp.frexp(..., out=) is not supported{source_info.where()}")
    (a,), _ = _loop(np.frexp, x)
    ok = isfinite(a) & (a != 0)
    guess = astype(floor(log2(where(ok, absolute(a), 1))), np.int32) + 1
    e = where(ok, guess, np.int32(0))
    m = ldexp(a, -e)
    big = ok & (absolute(m) >= 1)
    m, e = where(big, m * 0.5, m), e + astype(big, np.int32)
    small = ok & (absolute(m) < 0.5)
    return where(small, m * 2, m), e - astype(small, np.int32)


def modf(x, out=None):
    """``np.modf``: ``(fractional part, integral part)``, both with ``x``'s sign
    (``modf(-2.0)`` is ``(-0.0, -2.0)``, ``modf(inf)`` is ``(0.0, inf)``)."""
    if out is not None:
        raise NotImplementedError(f"gnp.modf(..., out=) is not supported{source_info.where()}")
    (a,), _ = _loop(np.modf, x)
    whole = trunc(a)
    return copysign(where(isinf(a), 0, a - whole), a), whole


def _euclid(a, b):
    """gcd of non-negative ``a`` and ``b`` (same shape): Euclid's steps on every pair
    at once, while any divisor is nonzero."""
    def body(a, b):
        nz = b != 0
        return where(nz, b, a), where(nz, a % where(nz, b, 1), 0)

    return while_loop(lambda a, b: _any(b != 0), body, [a, b])[0]


def gcd(x1, x2, out=None):
    """``np.gcd``: the greatest common divisor of the absolute values (integers only);
    ``gcd(0, 0)`` is 0. Euclid's algorithm over whole arrays (a ``while_loop``)."""
    (a, b), _ = _loop(np.gcd, x1, x2)
    a, b = asarray(a), asarray(b)
    zero = (a * 0) + (b * 0)  # broadcast both to the common shape
    return _out(_euclid(absolute(a) + zero, absolute(b) + zero), out, "gcd", x2)


def lcm(x1, x2, out=None):
    """``np.lcm``: ``|x1 // gcd(x1, x2) * x2|``; 0 when either is 0."""
    (a, b), _ = _loop(np.lcm, x1, x2)
    a, b = asarray(a), asarray(b)
    g = gcd(a, b)
    nz = g != 0
    return _out(where(nz, absolute(a // where(nz, g, 1) * b), 0), out, "lcm", x2)


def heaviside(x1, x2, out=None):
    """``np.heaviside``: 0 for ``x1 < 0``, ``x2`` where ``x1 == 0``, 1 for ``x1 > 0``,
    NaN for NaN."""
    (a, h), _ = _loop(np.heaviside, x1, x2)
    a = asarray(a)
    r = where(isnan(a), a, where(a == 0, h, where(a < 0, 0, 1)))
    return _out(astype(r, a.dtype) if r.dtype != a.dtype else r, out, "heaviside", x2)


def sinc(x):
    """``np.sinc``: ``sin(pi x) / (pi x)``, 1 at 0 (NumPy's own steps: ``pi x == 0`` is
    replaced by the dtype's ``eps``)."""
    x = math.pi * asarray(x)
    y = where(x != 0, x, np.finfo(x.dtype).eps)
    return sin(y) / y


def spacing(x, out=None):
    """``np.spacing``: the distance from ``x`` to the next float away from zero (negative
    for negative ``x``); NaN for inf and NaN."""
    (a,), _ = _loop(np.spacing, x)
    a = asarray(a)
    inf = np.asarray(np.inf, a.dtype)
    # NumPy's float16 loop steps a negative number towards zero (a positive spacing)
    half = a.dtype == np.float16
    r = nextafter(a, where(a < 0, np.zeros((), a.dtype) if half else -inf, inf)) - a
    return _out(where(isinf(a), a - a, r) if half else r, out, "spacing", x)


def _no_complex(x, name):
    if x.dtype.kind == "c":
        raise TypeError(f"This operation is not supported for complex values because it "
                        f"would be ambiguous ({name}){source_info.where()}")


def isposinf(x, out=None):
    """``np.isposinf``: ``isinf(x) & ~signbit(x)`` (complex raises TypeError)."""
    x = asarray(x)
    _no_complex(x, "isposinf")
    return _out(isinf(x) & logical_not(signbit(x)), out, "isposinf", x)


def isneginf(x, out=None):
    """``np.isneginf``: ``isinf(x) & signbit(x)`` (complex raises TypeError)."""
    x = asarray(x)
    _no_complex(x, "isneginf")
    return _out(isinf(x) & signbit(x), out, "isneginf", x)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """``np.nan_to_num``: NaN -> ``nan``, +inf -> ``posinf`` (default the largest float),
    -inf -> ``neginf`` (default the most negative); integers and bools unchanged.
    ``copy`` does not matter (tensors are values). Complex is not supported."""
    x = asarray(x)
    if x.dtype.kind == "c":
        raise NotImplementedError(f"gnp.nan_to_num of complex values is not supported"
                                  f"{source_info.where()}")
    if x.dtype.kind != "f":
        return x if not copy else x + np.zeros((), x.dtype)
    info = np.finfo(x.dtype)
    big = info.max if posinf is None else posinf
    low = info.min if neginf is None else neginf
    vals = [np.asarray(v).astype(x.dtype) for v in (nan, big, low)]
    return where(isnan(x), vals[0], where(isinf(x), where(x > 0, vals[1], vals[2]), x))


def _scaled(ufunc, x, out, name, f64, f32):
    (a,), (dt,) = _loop(ufunc, x)
    a = asarray(a)
    if dt == np.float16:  # NumPy's half loops compute in float32
        return _out(astype(a.astype(np.float32) * np.float32(f32), dt), out, name, x)
    const = np.float32(f32) if dt == np.float32 else np.asarray(f64, dt)
    return _out(a * const, out, name, x)


def deg2rad(x, out=None):
    """``np.deg2rad``: ``x * (pi / 180)`` in the loop's float type."""
    return _scaled(np.deg2rad, x, out, "deg2rad", math.pi / 180,
                   np.float32(math.pi / 180))


def rad2deg(x, out=None):
    """``np.rad2deg``: ``x * (180 / pi)`` (float32: ``180f / pi_f``, as NumPy)."""
    return _scaled(np.rad2deg, x, out, "rad2deg", 180 / math.pi,
                   np.float32(180) / np.float32(math.pi))


def radians(x, out=None):
    """``np.radians``, the same as ``deg2rad``."""
    return _scaled(np.radians, x, out, "radians", math.pi / 180,
                   np.float32(math.pi / 180))


def degrees(x, out=None):
    """``np.degrees``, the same as ``rad2deg``."""
    return _scaled(np.degrees, x, out, "degrees", 180 / math.pi,
                   np.float32(180) / np.float32(math.pi))


_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def bitwise_count(x, out=None):
    """``np.bitwise_count``: the number of 1 bits in ``|x|`` (uint8), by the classic
    shift-and-mask population count over uint64."""
    x = asarray(x)
    if x.dtype.kind not in "biu":
        raise TypeError(f"ufunc 'bitwise_count' not supported for the input type {x.dtype}"
                        f"{source_info.where()}")
    if x.dtype.kind == "i":
        x = astype(absolute(x), _UNSIGNED[x.dtype.itemsize])  # |INT_MIN| as unsigned
    v = astype(x, np.uint64)
    v = v - ((v >> 1) & 0x5555555555555555)
    v = (v & 0x3333333333333333) + ((v >> 2) & 0x3333333333333333)
    v = (v + (v >> 4)) & 0x0F0F0F0F0F0F0F0F
    return _out(astype((v * 0x0101010101010101) >> 56, np.uint8), out, "bitwise_count", x)


# i0: the power series sum_k (x^2/4)^k / (k!)^2 up to |x| = 20 (37 terms reach double
# precision there), the asymptotic series e^x / sqrt(2 pi x) * sum_k c_k / x^k beyond
# (c_k = ((2k-1)!!)^2 / (k! 8^k); its terms shrink until k ~ 2x, below 1e-17 by then).
_SPLIT = 20.0
_SERIES = [1.0 / math.factorial(k) ** 2 for k in range(37)]
_ASYMPTOTIC = [1.0]
for _k in range(1, 30):
    _ASYMPTOTIC.append(_ASYMPTOTIC[-1] * (2 * _k - 1) ** 2 / (8.0 * _k))


def _horner(coefs, t):
    acc = coefs[-1] + t * 0
    for c in reversed(coefs[:-1]):
        acc = acc * t + c
    return acc


def i0(x):
    """``np.i0``: the modified Bessel function of the first kind, order 0 (float64
    inside; float32 and float16 input keep their dtype, integers give float64; complex
    raises TypeError). Differentiable through the series."""
    x = asarray(x)
    if x.dtype.kind == "c":
        raise TypeError(f"i0 not supported for complex values{source_info.where()}")
    dt = x.dtype if x.dtype.kind == "f" else np.dtype(np.float64)
    ax = absolute(astype(x, np.float64))
    near = ax <= _SPLIT
    small = where(near, ax, 0.0)
    series = _horner(_SERIES, small * small * 0.25)
    large = where(near, _SPLIT, ax)
    # as NumPy: exp(x) / sqrt(x) overflows to inf past x ~ 709.8, and is NaN at inf
    tail = exp(large) / sqrt(large) * (_horner(_ASYMPTOTIC, 1.0 / large)
                                        * (1 / math.sqrt(2 * math.pi)))
    r = where(near, series, tail)
    return r if dt == np.float64 else astype(r, dt)


__all__ = ["bitwise_count", "deg2rad", "degrees", "fabs", "fix", "float_power", "frexp",
           "gcd", "heaviside", "i0", "isneginf", "isposinf", "lcm", "modf", "nan_to_num",
           "rad2deg", "radians", "sinc", "spacing"]
