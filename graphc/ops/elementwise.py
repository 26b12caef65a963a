"""Elementwise ops: one NumPy ufunc each, broadcasting, dtypes from NumPy's own resolver.

Every op here is ``elementwise`` with a ``scalar`` template for fused loops (``{0}`` is
the first input's element). Dtypes come from ``ufunc.resolve_dtypes`` (NEP 50), so eager,
traced and folded results agree with NumPy exactly.
"""

from __future__ import annotations

import numpy as np

from graphc.core.attr_types import DTYPE, INT
from graphc.core.registry import ALL, NOT_DIFFERENTIABLE, OpDef, bind, register
from graphc.core.shapes import broadcast_shapes
from graphc.core.tensor import Tensor
from graphc.ir.graph import Aval


def _ufunc_infer(ufunc):
    def infer(*avals, **attrs):
        dtypes = tuple(a.dtype for a in avals) + (None,) * ufunc.nout
        try:
            resolved = ufunc.resolve_dtypes(dtypes)
        except TypeError:
            names = ", ".join(str(a.dtype) for a in avals)
            raise TypeError(f"{ufunc.__name__} is not defined for dtype(s) {names}") from None
        shape = broadcast_shapes(*[a.shape for a in avals])
        outs = tuple(Aval(shape, d) for d in resolved[ufunc.nin:])
        return outs[0] if ufunc.nout == 1 else outs

    return infer


def _ufunc(name, ufunc, scalar=None):
    return register(OpDef(
        name=name, attrs={}, infer=_ufunc_infer(ufunc), ref=ufunc, weak=ALL, elementwise=True,
        scalar=scalar, multiple_results=ufunc.nout > 1,
    ))


# binary arithmetic
ADD = _ufunc("add", np.add, "({0} + {1})")
SUBTRACT = _ufunc("subtract", np.subtract, "({0} - {1})")
MULTIPLY = _ufunc("multiply", np.multiply, "({0} * {1})")
TRUE_DIVIDE = _ufunc("true_divide", np.true_divide, "({0} / {1})")
FLOOR_DIVIDE = _ufunc("floor_divide", np.floor_divide, "({0} // {1})")
REMAINDER = _ufunc("remainder", np.remainder, "({0} % {1})")
POWER = _ufunc("power", np.power, "({0} ** {1})")
MAXIMUM = _ufunc("maximum", np.maximum)
MINIMUM = _ufunc("minimum", np.minimum)
FMAX = _ufunc("fmax", np.fmax)
FMIN = _ufunc("fmin", np.fmin)
ARCTAN2 = _ufunc("arctan2", np.arctan2, "math.atan2({0}, {1})")
HYPOT = _ufunc("hypot", np.hypot, "math.hypot({0}, {1})")

# unary arithmetic and math
NEGATIVE = _ufunc("negative", np.negative, "(-{0})")
POSITIVE = _ufunc("positive", np.positive, "(+{0})")
ABSOLUTE = _ufunc("absolute", np.absolute, "abs({0})")
CONJUGATE = _ufunc("conjugate", np.conjugate, "{0}")  # the identity on real dtypes
SIGN = _ufunc("sign", np.sign)
EXP = _ufunc("exp", np.exp, "math.exp({0})")
EXP2 = _ufunc("exp2", np.exp2)
EXPM1 = _ufunc("expm1", np.expm1, "math.expm1({0})")
LOG = _ufunc("log", np.log, "math.log({0})")
LOG2 = _ufunc("log2", np.log2, "math.log2({0})")
LOG10 = _ufunc("log10", np.log10, "math.log10({0})")
LOG1P = _ufunc("log1p", np.log1p, "math.log1p({0})")
SQRT = _ufunc("sqrt", np.sqrt, "math.sqrt({0})")
CBRT = _ufunc("cbrt", np.cbrt)
SQUARE = _ufunc("square", np.square, "({0} * {0})")
RECIPROCAL = _ufunc("reciprocal", np.reciprocal)
SIN = _ufunc("sin", np.sin, "math.sin({0})")
COS = _ufunc("cos", np.cos, "math.cos({0})")
TAN = _ufunc("tan", np.tan, "math.tan({0})")
ARCSIN = _ufunc("arcsin", np.arcsin, "math.asin({0})")
ARCCOS = _ufunc("arccos", np.arccos, "math.acos({0})")
ARCTAN = _ufunc("arctan", np.arctan, "math.atan({0})")
SINH = _ufunc("sinh", np.sinh, "math.sinh({0})")
COSH = _ufunc("cosh", np.cosh, "math.cosh({0})")
TANH = _ufunc("tanh", np.tanh, "math.tanh({0})")
ARCSINH = _ufunc("arcsinh", np.arcsinh, "math.asinh({0})")
ARCCOSH = _ufunc("arccosh", np.arccosh, "math.acosh({0})")
ARCTANH = _ufunc("arctanh", np.arctanh, "math.atanh({0})")
FLOOR = _ufunc("floor", np.floor, "math.floor({0})")
CEIL = _ufunc("ceil", np.ceil, "math.ceil({0})")
RINT = _ufunc("rint", np.rint)
TRUNC = _ufunc("trunc", np.trunc, "math.trunc({0})")
ISNAN = _ufunc("isnan", np.isnan, "math.isnan({0})")
ISINF = _ufunc("isinf", np.isinf, "math.isinf({0})")
ISFINITE = _ufunc("isfinite", np.isfinite, "math.isfinite({0})")

# comparison and logic
EQUAL = _ufunc("equal", np.equal, "({0} == {1})")
NOT_EQUAL = _ufunc("not_equal", np.not_equal, "({0} != {1})")
LESS = _ufunc("less", np.less, "({0} < {1})")
LESS_EQUAL = _ufunc("less_equal", np.less_equal, "({0} <= {1})")
GREATER = _ufunc("greater", np.greater, "({0} > {1})")
GREATER_EQUAL = _ufunc("greater_equal", np.greater_equal, "({0} >= {1})")
LOGICAL_AND = _ufunc("logical_and", np.logical_and, "({0} and {1})")
LOGICAL_OR = _ufunc("logical_or", np.logical_or, "({0} or {1})")
LOGICAL_NOT = _ufunc("logical_not", np.logical_not, "(not {0})")
LOGICAL_XOR = _ufunc("logical_xor", np.logical_xor, "(bool({0}) != bool({1}))")
BITWISE_AND = _ufunc("bitwise_and", np.bitwise_and, "({0} & {1})")
BITWISE_OR = _ufunc("bitwise_or", np.bitwise_or, "({0} | {1})")
BITWISE_XOR = _ufunc("bitwise_xor", np.bitwise_xor, "({0} ^ {1})")
INVERT = _ufunc("invert", np.invert, "(~{0})")
LEFT_SHIFT = _ufunc("left_shift", np.left_shift, "({0} << {1})")
RIGHT_SHIFT = _ufunc("right_shift", np.right_shift, "({0} >> {1})")


def _round_ref(x, decimals=0):
    return np.round(x, decimals)


def _round_infer(x, decimals=0):
    # NumPy's dtype, probed: bool rounds to float16 (decimals=0) or raises (otherwise)
    return Aval(x.shape, np.asarray(_round_ref(np.zeros((), x.dtype), decimals)).dtype)


# np.round: half to even
ROUND = register(OpDef(
    name="round", attrs={"decimals": INT}, infer=_round_infer, ref=_round_ref,
    elementwise=True,
))


def _where_infer(cond, x, y):
    dtype = np.result_type(x.dtype, y.dtype)
    return Aval(broadcast_shapes(cond.shape, x.shape, y.shape), dtype)


def _where_ref(cond, x, y):
    return np.where(cond, x, y)


WHERE = register(OpDef(
    name="where", attrs={}, infer=_where_infer, ref=_where_ref, weak=(1, 2), elementwise=True,
    scalar="({1} if {0} else {2})",
))


def _clip_infer(x, lo, hi):
    return Aval(broadcast_shapes(x.shape, lo.shape, hi.shape),
                np.result_type(x.dtype, lo.dtype, hi.dtype))


CLIP = register(OpDef(
    name="clip", attrs={}, infer=_clip_infer, ref=np.clip, weak=ALL, elementwise=True,
    scalar="min(max({0}, {1}), {2})",
))


def _cast_infer(x, dtype):
    return Aval(x.shape, dtype)


def _cast_ref(x, dtype):
    return x.astype(dtype)


# C casting: floats truncate toward zero when cast to ints
CAST = register(OpDef(
    name="cast", attrs={"dtype": DTYPE}, infer=_cast_infer, ref=_cast_ref, elementwise=True,
))


def _sigmoid_ref(x):
    with np.errstate(over="ignore"):  # exp(-x) overflows to inf for x << 0: result 0
        return 1 / (1 + np.exp(-x))


def _softplus_ref(x):
    return np.logaddexp(0, x)


def _float_infer(x):
    return Aval(x.shape, np.exp.resolve_dtypes((x.dtype, None))[1])


SIGMOID = register(OpDef(
    name="sigmoid", attrs={}, infer=_float_infer, ref=_sigmoid_ref, elementwise=True,
    scalar="(1.0 / (1.0 + math.exp(-{0})))",
))
SOFTPLUS = register(OpDef(
    name="softplus", attrs={}, infer=_float_infer, ref=_softplus_ref, elementwise=True,
))


# x, with no gradient flowing back through it (a new array: tensors are writable)
STOP_GRADIENT = register(OpDef(
    name="stop_gradient", attrs={}, infer=lambda x: x, ref=np.copy, elementwise=True,
    scalar="{0}",
))


# --------------------------------------------------------------------------- gradients
# ``grad(cts, args, outputs)``: one cotangent per argument (``None``: none), written with
# graphc ops so eager tapes and traces share them; the walk in graphc/transforms/autodiff
# sums broadcast cotangents back to each argument's shape. ``_want(a)``: the argument
# can take a gradient (else the rule skips computing it).
def _want(a) -> bool:
    return isinstance(a, Tensor) and a.dtype.kind in "fc"


def _unary(rule):
    """A one-input rule ``rule(g, x, out)`` as a ``grad``."""
    return lambda cts, args, outs, **_: (rule(cts[0], args[0], outs[0]),)


def _binary(rule_x, rule_y):
    """A two-input rule from one function per input, each ``(g, x, y, out)``."""
    def grad(cts, args, outs, **_):
        g, (x, y), out = cts[0], args, outs[0]
        return (rule_x(g, x, y, out) if _want(x) else None,
                rule_y(g, x, y, out) if _want(y) else None)
    return grad


def _where(c, x, y):
    """``np.where(c, x, y)``: the rules use this family's own ops, as NumPy code would."""
    return bind(WHERE, c, x, y)


LN2, LN10 = float(np.log(2.0)), float(np.log(10.0))

ADD.grad = _binary(lambda g, x, y, o: g, lambda g, x, y, o: g)
SUBTRACT.grad = _binary(lambda g, x, y, o: g, lambda g, x, y, o: -g)
MULTIPLY.grad = _binary(lambda g, x, y, o: g * y, lambda g, x, y, o: g * x)
TRUE_DIVIDE.grad = _binary(lambda g, x, y, o: g / y, lambda g, x, y, o: -g * o / y)
POWER.grad = _binary(
    lambda g, x, y, o: g * y * x ** (y - 1),
    # d/dy x**y = x**y log x, taken as 0 where x == 0 (the limit for y > 0)
    lambda g, x, y, o: g * o * bind(LOG, _where(x > 0, x, 1)))
MAXIMUM.grad = _binary(lambda g, x, y, o: _where(x >= y, g, 0),
                       lambda g, x, y, o: _where(x >= y, 0, g))
MINIMUM.grad = _binary(lambda g, x, y, o: _where(x <= y, g, 0),
                       lambda g, x, y, o: _where(x <= y, 0, g))
FMAX.grad = MAXIMUM.grad
FMIN.grad = MINIMUM.grad
ARCTAN2.grad = _binary(lambda g, x, y, o: g * y / (x * x + y * y),
                       lambda g, x, y, o: -g * x / (x * x + y * y))
REMAINDER.grad = _binary(lambda g, x, y, o: g,
                         lambda g, x, y, o: -g * bind(FLOOR_DIVIDE, x, y))
HYPOT.grad = _binary(lambda g, x, y, o: g * x / o, lambda g, x, y, o: g * y / o)

NEGATIVE.grad = _unary(lambda g, x, o: -g)
POSITIVE.grad = _unary(lambda g, x, o: g)
# complex values follow JAX's convention (graphc's other rules use it: d(x*y)/dx = y):
# d|z| sends g back as g * conj(z / |z|), conjugate sends g back as conj(g)
ABSOLUTE.grad = _unary(lambda g, x, o: g * (bind(CONJUGATE, bind(SIGN, x))
                                            if x.dtype.kind == "c" else bind(SIGN, x)))
CONJUGATE.grad = _unary(lambda g, x, o: bind(CONJUGATE, g) if g.dtype.kind == "c" else g)
EXP.grad = _unary(lambda g, x, o: g * o)
EXP2.grad = _unary(lambda g, x, o: g * o * LN2)
EXPM1.grad = _unary(lambda g, x, o: g * (o + 1))
LOG.grad = _unary(lambda g, x, o: g / x)
LOG2.grad = _unary(lambda g, x, o: g / (x * LN2))
LOG10.grad = _unary(lambda g, x, o: g / (x * LN10))
LOG1P.grad = _unary(lambda g, x, o: g / (x + 1))
SQRT.grad = _unary(lambda g, x, o: g / (2 * o))
CBRT.grad = _unary(lambda g, x, o: g / (3 * o * o))
SQUARE.grad = _unary(lambda g, x, o: 2 * g * x)
RECIPROCAL.grad = _unary(lambda g, x, o: -g * o * o)
SIN.grad = _unary(lambda g, x, o: g * bind(COS, x))
COS.grad = _unary(lambda g, x, o: -g * bind(SIN, x))
TAN.grad = _unary(lambda g, x, o: g * (1 + o * o))
ARCSIN.grad = _unary(lambda g, x, o: g / bind(SQRT, 1 - x * x))
ARCCOS.grad = _unary(lambda g, x, o: -g / bind(SQRT, 1 - x * x))
ARCTAN.grad = _unary(lambda g, x, o: g / (1 + x * x))
SINH.grad = _unary(lambda g, x, o: g * bind(COSH, x))
COSH.grad = _unary(lambda g, x, o: g * bind(SINH, x))
TANH.grad = _unary(lambda g, x, o: g * (1 - o * o))
ARCSINH.grad = _unary(lambda g, x, o: g / bind(SQRT, x * x + 1))
ARCCOSH.grad = _unary(lambda g, x, o: g / bind(SQRT, x * x - 1))
ARCTANH.grad = _unary(lambda g, x, o: g / (1 - x * x))
SIGMOID.grad = _unary(lambda g, x, o: g * o * (1 - o))
SOFTPLUS.grad = _unary(lambda g, x, o: g * bind(SIGMOID, x))
CAST.grad = _unary(lambda g, x, o: g)  # the walk casts it back to x's dtype
WHERE.grad = lambda cts, args, outs, **_: (
    None,
    _where(args[0], cts[0], 0) if _want(args[1]) else None,
    _where(args[0], 0, cts[0]) if _want(args[2]) else None)
CLIP.grad = lambda cts, args, outs, **_: (
    _where((args[0] >= args[1]) & (args[0] <= args[2]), cts[0], 0)
    if _want(args[0]) else None,
    _where(args[0] < args[1], cts[0], 0) if _want(args[1]) else None,
    _where(args[0] > args[2], cts[0], 0) if _want(args[2]) else None)

for _op in (FLOOR, CEIL, RINT, TRUNC, ROUND, SIGN, ISNAN, ISINF, ISFINITE, EQUAL,
            NOT_EQUAL, LESS, LESS_EQUAL, GREATER, GREATER_EQUAL, LOGICAL_AND, LOGICAL_OR,
            LOGICAL_NOT, LOGICAL_XOR, BITWISE_AND, BITWISE_OR, BITWISE_XOR, INVERT,
            LEFT_SHIFT, RIGHT_SHIFT, FLOOR_DIVIDE, STOP_GRADIENT):
    _op.grad = NOT_DIFFERENTIABLE  # piecewise constant, or not a number at all


# batching (gc.vectorized_map): one rule for every elementwise op, attached by
# graphc/ops/elementwise_batch.py
