"""``gc.math``: TensorFlow's ``tf.math`` names over graphc ops."""

from __future__ import annotations

from graphc.ops import elementwise as _ew
from graphc.ops.reduce import (  # noqa: F401
    reduce_all,
    reduce_any,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_prod,
    reduce_sum,
)
from graphc.tf_api import (  # noqa: F401
    _binary,
    _unary,
    abs,
    add,
    divide,
    equal,
    exp,
    greater,
    greater_equal,
    less,
    less_equal,
    logical_and,
    logical_not,
    logical_or,
    maximum,
    minimum,
    multiply,
    negative,
    not_equal,
    pow,
    sqrt,
    subtract,
)

log = _unary(_ew.LOG, "log")
log1p = _unary(_ew.LOG1P, "log1p")
expm1 = _unary(_ew.EXPM1, "expm1")
sigmoid = _unary(_ew.SIGMOID, "sigmoid")
softplus = _unary(_ew.SOFTPLUS, "softplus")
tanh = _unary(_ew.TANH, "tanh")
sin = _unary(_ew.SIN, "sin")
cos = _unary(_ew.COS, "cos")
tan = _unary(_ew.TAN, "tan")
square = _unary(_ew.SQUARE, "square")
floor = _unary(_ew.FLOOR, "floor")
ceil = _unary(_ew.CEIL, "ceil")
round = _unary(_ew.RINT, "round")  # noqa: A001  (tf.math.round rounds half to even)
sign = _unary(_ew.SIGN, "sign")
reciprocal = _unary(_ew.RECIPROCAL, "reciprocal")
is_nan = _unary(_ew.ISNAN, "is_nan")
is_inf = _unary(_ew.ISINF, "is_inf")
is_finite = _unary(_ew.ISFINITE, "is_finite")
floordiv = _binary(_ew.FLOOR_DIVIDE, "floordiv")
floormod = _binary(_ew.REMAINDER, "floormod")
truediv = _binary(_ew.TRUE_DIVIDE, "truediv")
atan2 = _binary(_ew.ARCTAN2, "atan2")


def rsqrt(x, name=None):
    """``tf.math.rsqrt``: 1 / sqrt(x)."""
    return 1 / sqrt(x)
