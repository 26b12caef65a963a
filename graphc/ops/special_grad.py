"""Gradient rules of the special-function ops (``special_fns.py``), written with graphc
ops so eager tapes and traces share them (and higher derivatives come from the same
rules).

Closed forms where there is one: ``erf' = 2/sqrt(pi) exp(-x^2)``, ``lgamma' = digamma``,
``digamma' = polygamma(1, .)``, ``zeta_q = -s zeta(s+1, q)``, ``I0' = I1``, the
integrands of the incomplete gamma and beta functions for their ``x``... Where none
exists (the parameter ``a`` of ``igamma``/``igammac``, ``a`` and ``b`` of ``betainc``,
``s`` of ``zeta``) the rule takes a central difference of the op itself in float64 with
step ``6e-6 |a|`` (relative error about 1e-10; TensorFlow has closed forms for some of
these, JAX has none). ``polygamma``'s order ``n`` is an integer: no gradient
(``None``), as in TensorFlow.
"""

from __future__ import annotations

import math

import numpy as np

from graphc.core.registry import bind
from graphc.ops import elementwise as ew
from graphc.ops import special_fns as sf
from graphc.ops.elementwise import _want

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT_PI_OVER_2 = math.sqrt(math.pi) / 2.0
_SQRT_2PI = math.sqrt(2.0 * math.pi)
F64 = np.dtype(np.float64)


def _exp(x):
    return bind(ew.EXP, x)


def _log(x):
    return bind(ew.LOG, x)


def _where(c, x, y):
    return bind(ew.WHERE, c, x, y)


def _unary(rule):
    return lambda cts, args, outs, **_: (rule(cts[0], args[0], outs[0]),)


def _numeric(op, args, i):
    """``d op / d args[i]`` by a central difference in float64 (see the module doc)."""
    wide = [a if a.dtype == F64 else bind(ew.CAST, a, dtype=F64) for a in args]
    h = bind(ew.ABSOLUTE, wide[i]) * 6e-6
    up, down = list(wide), list(wide)
    up[i], down[i] = wide[i] + h, wide[i] - h
    d = (bind(op, *up) - bind(op, *down)) / (up[i] - down[i])
    dtype = args[i].dtype if args[i].dtype.kind == "f" else F64
    return d if d.dtype == dtype else bind(ew.CAST, d, dtype=dtype)


sf.ERFC.grad = _unary(lambda g, x, o: g * (-_TWO_OVER_SQRT_PI * _exp(-(x * x))))
sf.ERFINV.grad = _unary(lambda g, x, o: g * (_SQRT_PI_OVER_2 * _exp(o * o)))
sf.NDTRI.grad = _unary(lambda g, x, o: g * (_SQRT_2PI * _exp(0.5 * o * o)))
sf.LGAMMA.grad = _unary(lambda g, x, o: g * bind(sf.DIGAMMA, x))
sf.GAMMA.grad = _unary(lambda g, x, o: g * o * bind(sf.DIGAMMA, x))
sf.DIGAMMA.grad = _unary(lambda g, x, o: g * bind(sf.POLYGAMMA, 1, x))
sf.POLYGAMMA.grad = lambda cts, args, outs, **_: (
    None, cts[0] * bind(sf.POLYGAMMA, args[0] + 1, args[1]) if _want(args[1]) else None)
sf.ZETA.grad = lambda cts, args, outs, **_: (
    cts[0] * _numeric(sf.ZETA, args, 0) if _want(args[0]) else None,
    cts[0] * (-args[0] * bind(sf.ZETA, args[0] + 1, args[1])) if _want(args[1]) else None)


def _i1_over_x(x, o, nu0):
    """``I0(x) - I1(x)/x`` (``nu0`` the order-0 value), 1/2 at x = 0."""
    zero = x == 0
    safe = _where(zero, 1, x)
    return _where(zero, 0.5, nu0 - o / safe)


sf.BESSEL_I0.grad = _unary(lambda g, x, o: g * bind(sf.BESSEL_I1, x))
sf.BESSEL_I0E.grad = _unary(
    lambda g, x, o: g * (bind(sf.BESSEL_I1E, x) - bind(ew.SIGN, x) * o))
sf.BESSEL_I1.grad = _unary(lambda g, x, o: g * _i1_over_x(x, o, bind(sf.BESSEL_I0, x)))
sf.BESSEL_I1E.grad = _unary(
    lambda g, x, o: g * (_i1_over_x(x, o, bind(sf.BESSEL_I0E, x)) - bind(ew.SIGN, x) * o))


def _igamma_density(a, x):
    """``x^(a-1) e^-x / gamma(a)``: d igamma(a, x) / dx."""
    return _exp((a - 1) * _log(x) - x - bind(sf.LGAMMA, a))


def _igamma_grad(op, sign):
    def grad(cts, args, outs, **_):
        a, x = args
        return (cts[0] * _numeric(op, args, 0) if _want(a) else None,
                cts[0] * (sign * _igamma_density(a, x)) if _want(x) else None)
    return grad


sf.IGAMMA.grad = _igamma_grad(sf.IGAMMA, 1.0)
sf.IGAMMAC.grad = _igamma_grad(sf.IGAMMAC, -1.0)


def _betainc_grad(cts, args, outs, **_):
    a, b, x = args
    g = cts[0]
    dx = None
    if _want(x):
        lbeta = bind(sf.LGAMMA, a) + bind(sf.LGAMMA, b) - bind(sf.LGAMMA, a + b)
        dx = g * _exp((a - 1) * _log(x) + (b - 1) * bind(ew.LOG1P, -x) - lbeta)
    return (g * _numeric(sf.BETAINC, args, 0) if _want(a) else None,
            g * _numeric(sf.BETAINC, args, 1) if _want(b) else None,
            dx)


sf.BETAINC.grad = _betainc_grad
