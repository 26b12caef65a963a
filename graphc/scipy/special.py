"""``graphc.scipy.special``: ``jax.scipy.special``'s names over graphc ops (docs/special.md).

Elementwise special functions are registry ops (``graphc/ops/special_fns.py``: SciPy is
their reference, a scalar template their compiled kernel); the rest are compositions
(``graphc/ops/special_compose.py``). Integer and bool inputs become floats as ``np.exp``
makes them; complex inputs raise ``TypeError``.
"""

from __future__ import annotations

from graphc.core.registry import bind as _bind
from graphc.ops import special_fns as _sf
from graphc.ops import special_grad as _special_grad  # noqa: F401 - the ops' gradients
from graphc.ops.convert import asarray as _asarray
from graphc.ops.nn_softmax import logsumexp as _logsumexp
from graphc.ops.special_compose import (  # noqa: F401
    betaln,
    entr,
    expit,
    factorial,
    kl_div,
    log_ndtr,
    logit,
    multigammaln,
    ndtr,
    rel_entr,
    xlog1py,
    xlogy,
)
from graphc.ops.special_compose import (
    floats as _floats,
)
from graphc.ops.special_compose import log_softmax as _log_softmax
from graphc.ops.special_compose import softmax as _softmax


def _unary(op, name, doc):
    def fn(x):
        return _bind(op, _floats(x))

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``jax.scipy.special.{name}``: {doc}"
    return fn


erf = _unary(_sf.ERF, "erf", "the error function, elementwise.")
erfc = _unary(_sf.ERFC, "erfc", "the complementary error function ``1 - erf(x)``.")
erfinv = _unary(_sf.ERFINV, "erfinv",
                "the inverse error function on ``[-1, 1]`` (NaN outside, +-inf at +-1).")
ndtri = _unary(_sf.NDTRI, "ndtri",
               "the standard normal quantile (inverse of ``ndtr``) on ``[0, 1]``.")
gammaln = _unary(_sf.LGAMMA, "gammaln", "``log|gamma(x)|`` (``inf`` at the poles).")
gamma = _unary(_sf.GAMMA, "gamma", "the gamma function (NaN at the negative integers).")
digamma = _unary(_sf.DIGAMMA, "digamma", "``d/dx log gamma(x)``.")
i0 = _unary(_sf.BESSEL_I0, "i0", "the modified Bessel function of the first kind, order 0.")
i0e = _unary(_sf.BESSEL_I0E, "i0e", "``exp(-|x|) i0(x)``.")
i1 = _unary(_sf.BESSEL_I1, "i1", "the modified Bessel function of the first kind, order 1.")
i1e = _unary(_sf.BESSEL_I1E, "i1e", "``exp(-|x|) i1(x)``.")


def polygamma(n, x):
    """``jax.scipy.special.polygamma(n, x)``: the ``n``-th derivative of ``digamma``
    (``n`` integral and >= 0, NaN otherwise; no gradient with respect to ``n``)."""
    return _bind(_sf.POLYGAMMA, _asarray(n), _floats(x))


def zeta(x, q=None):
    """``jax.scipy.special.zeta(x, q)``: the Hurwitz zeta function ``sum_k (k + q)^-x``
    (``q`` is required, as in JAX)."""
    if q is None:
        raise TypeError("zeta: q is required (the Riemann zeta function is zeta(x, 1))")
    x, q = _floats(x, q)
    return _bind(_sf.ZETA, x, q)


def gammainc(a, x):
    """``jax.scipy.special.gammainc``: the regularized lower incomplete gamma function
    ``P(a, x)`` (interpreter only: SciPy)."""
    a, x = _floats(a, x)
    return _bind(_sf.IGAMMA, a, x)


def gammaincc(a, x):
    """``jax.scipy.special.gammaincc``: ``Q(a, x) = 1 - P(a, x)`` (interpreter only)."""
    a, x = _floats(a, x)
    return _bind(_sf.IGAMMAC, a, x)


def betainc(a, b, x):
    """``jax.scipy.special.betainc``: the regularized incomplete beta function
    ``I_x(a, b)`` (interpreter only: SciPy)."""
    a, b, x = _floats(a, b, x)
    return _bind(_sf.BETAINC, a, b, x)


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False, where=None):
    """``jax.scipy.special.logsumexp``: ``log(sum(b * exp(a)))`` over ``axis`` (all axes
    by default), stable for large ``a``; ``return_sign`` gives ``(log|s|, sign(s))``."""
    return _logsumexp(a, axis=axis, b=b, keepdims=keepdims, return_sign=return_sign,
                      where=where)


def softmax(x, /, *, axis=None):
    """``jax.scipy.special.softmax``: ``exp(x) / sum(exp(x))`` over ``axis`` (all axes by
    default, as SciPy)."""
    return _softmax(x, axis)


def log_softmax(x, /, *, axis=None):
    """``jax.scipy.special.log_softmax``: ``x - logsumexp(x)`` over ``axis`` (all axes by
    default)."""
    return _log_softmax(x, axis)
