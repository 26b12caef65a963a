"""``gc.math``'s special functions (``tf.math.erf``, ``lgamma``, ``igamma``, ``bessel_i0``...)
with TensorFlow's argument rules: inputs are converted as TensorFlow converts them
(Python floats are float32 when no tensor fixes the dtype), must be floating point
(float16, float32, float64: an integer tensor raises ``TypeError``, as TensorFlow's
kernels have no integer types) and, for several inputs, of one dtype (TensorFlow does not
promote). The ops are those of ``graphc/ops/special_fns.py`` (docs/special.md).
"""

from __future__ import annotations

from graphc.core.registry import bind
from graphc.ops import special_compose as _sc
from graphc.ops import special_fns as _sf
from graphc.ops import special_grad as _special_grad  # noqa: F401 - the ops' gradients
from graphc.ops.reduce import sum as _sum
from graphc.ops.tf_elementwise import _tf_args


def tf_floats(name, *args):
    """``args`` converted as TensorFlow does, checked to be of one float dtype."""
    args = _tf_args(*args)
    dtypes = {a.dtype for a in args if hasattr(a, "dtype")}  # Python numbers stay weak
    for d in dtypes:
        if d.kind != "f":
            raise TypeError(f"tf.math.{name}: expected a floating point tensor "
                            f"(float16, float32 or float64), got {d}")
    if len(dtypes) > 1:
        names = ", ".join(sorted(str(d) for d in dtypes))
        raise TypeError(f"tf.math.{name}: all inputs must have the same dtype, got {names}")
    return args


def _op1(op, name, doc):
    def fn(x, name=None):
        return bind(op, *tf_floats(fn.__name__, x))

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``tf.math.{name}``: {doc}"
    return fn


def _op2(op, name, a, b, doc):
    def fn(x, y, name=None):
        return bind(op, *tf_floats(fn.__name__, x, y))

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``tf.math.{name}({a}, {b})``: {doc}"
    return fn


erf = _op1(_sf.ERF, "erf", "the error function.")
erfc = _op1(_sf.ERFC, "erfc", "``1 - erf(x)``, accurate in the tail.")
erfinv = _op1(_sf.ERFINV, "erfinv", "the inverse error function (NaN outside [-1, 1]).")
ndtri = _op1(_sf.NDTRI, "ndtri", "the standard normal quantile.")
lgamma = _op1(_sf.LGAMMA, "lgamma", "``log|gamma(x)|`` (``inf`` at the poles).")
digamma = _op1(_sf.DIGAMMA, "digamma", "the derivative of ``lgamma``.")
bessel_i0 = _op1(_sf.BESSEL_I0, "bessel_i0", "the modified Bessel function I0.")
bessel_i0e = _op1(_sf.BESSEL_I0E, "bessel_i0e", "``exp(-|x|) I0(x)``.")
bessel_i1 = _op1(_sf.BESSEL_I1, "bessel_i1", "the modified Bessel function I1.")
bessel_i1e = _op1(_sf.BESSEL_I1E, "bessel_i1e", "``exp(-|x|) I1(x)``.")
polygamma = _op2(_sf.POLYGAMMA, "polygamma", "a", "x",
                 "the ``a``-th derivative of digamma (``a`` integral; no gradient in a).")
zeta = _op2(_sf.ZETA, "zeta", "x", "q", "the Hurwitz zeta function ``sum_k (q + k)^-x``.")
igamma = _op2(_sf.IGAMMA, "igamma", "a", "x",
              "the regularized lower incomplete gamma function P(a, x) (interpreter only).")
igammac = _op2(_sf.IGAMMAC, "igammac", "a", "x",
               "the regularized upper incomplete gamma function Q(a, x) (interpreter only).")


def betainc(a, b, x, name=None):
    """``tf.math.betainc(a, b, x)``: the regularized incomplete beta function I_x(a, b)
    (interpreter only)."""
    return bind(_sf.BETAINC, *tf_floats("betainc", a, b, x))


def erfcinv(x, name=None):
    """``tf.math.erfcinv``: the inverse of ``erfc`` on [0, 2] (``-ndtri(x/2)/sqrt2``)."""
    return _sc.erfcinv(*tf_floats("erfcinv", x))


def xlogy(x, y, name=None):
    """``tf.math.xlogy``: ``x * log(y)``, 0 where ``x == 0``."""
    return _sc.xlogy(*tf_floats("xlogy", x, y))


def xlog1py(x, y, name=None):
    """``tf.math.xlog1py``: ``x * log1p(y)``, 0 where ``x == 0``."""
    return _sc.xlog1py(*tf_floats("xlog1py", x, y))


def xdivy(x, y, name=None):
    """``tf.math.xdivy``: ``x / y``, 0 where ``x == 0``."""
    return _sc.xdivy(*tf_floats("xdivy", x, y))


def lbeta(x, name=None):
    """``tf.math.lbeta``: ``log|B(x)|`` over the last axis, ``sum(lgamma(x)) -
    lgamma(sum(x))``; an empty last axis gives 0 (TensorFlow's convention)."""
    (x,) = tf_floats("lbeta", x)
    if not x.shape:
        raise ValueError("tf.math.lbeta: x must have rank >= 1")
    if x.shape[-1] == 0:
        return _sum(x, axis=-1)  # zeros of the batch shape
    return _sum(bind(_sf.LGAMMA, x), axis=-1) - bind(_sf.LGAMMA, _sum(x, axis=-1))
