"""NumPy's elementwise functions that need a per-element kernel of their own: ``copysign``,
``signbit``, ``fmod``, ``ldexp``, ``nextafter``, ``logaddexp``, ``logaddexp2``.

Each is a registry op like those of ``elementwise.py``: NumPy's ufunc is its reference
and dtype resolver, its ``scalar`` template gives the Numba backend, fusion and the CUDA
backend their per-element code, and it has a gradient rule (or ``NOT_DIFFERENTIABLE``)
and the shared elementwise batching rule. The templates use only ``math.copysign``,
``math.frexp``, ``math.ldexp``, ``math.exp``, ``math.log1p``, ``abs`` and arithmetic,
which both Numba on the CPU and numba-cuda compile. The other elementwise names of this
batch are compositions (``math_compose.py``).
"""

from __future__ import annotations

import numpy as np

from graphc.core.registry import ALL, NOT_DIFFERENTIABLE, OpDef, bind, register
from graphc.ops import elementwise as _ew
from graphc.ops.elementwise import _binary, _ufunc_infer, _want
from graphc.ops.elementwise_batch import elementwise_rule
from graphc.ops.ufuncs import _wrap


# --------------------------------------------------------------------------- templates
def literal(value, dtype) -> str:
    """An exact source literal of ``value`` as ``dtype`` (finite values)."""
    dtype = np.dtype(dtype)
    v = np.asarray(value, dtype).item()
    return f"np.{dtype.name}({float(v)!r})" if dtype.kind == "f" else f"np.{dtype.name}({int(v)})"



def _fmod_template(ins, out, attrs):
    """C's ``fmod``: the remainder with the dividend's sign. Floats: the remainder of the
    magnitudes (exact, no sign fix-up that could round) with ``{0}``'s sign; a zero
    divisor gives NaN (error model ``numpy``). Integers: Numba's floor remainder, moved
    to the dividend's sign; a zero divisor gives 0 as in NumPy, and so does ``-1``
    (``INT_MIN % -1`` would overflow)."""
    if out.kind == "f":
        return "math.copysign(abs({0}) % abs({1}), {0})"
    zero = literal(0, out)
    if out.kind == "u":
        return f"({zero} if {{1}} == {zero} else ({{0}} % {{1}}))"
    r = "({0} % {1})"
    return (f"({zero} if ({{1}} == {zero} or {{1}} == {literal(-1, out)}) else "
            f"({r} - ({{1}} if ({r} != {zero} and (({{0}} < {zero}) != ({{1}} < {zero}))) "
            f"else {zero})))")


def _nextafter_template(ins, out, attrs):
    """The float after ``{0}`` towards ``{1}``: ``{0}`` plus one unit in the last place
    of its binade, found with ``math.frexp`` (half that moving towards zero from a power
    of two), never below the smallest subnormal. Computed in float64 (exact for float32
    too, and the cast to float32 rounds past its largest value to inf, as NumPy)."""
    info = np.finfo(out)
    digits, emin = info.nmant + 1, int(np.log2(info.smallest_subnormal))
    tiny, big = literal(info.smallest_subnormal, np.float64), literal(info.max, np.float64)
    toward_zero = "(({1} > {0}) != ({0} > 0.0))"
    exponent = (f"max(math.frexp({{0}})[1] - {digits} - (1 if (abs(math.frexp({{0}})[0]) "
                f"== 0.5 and {toward_zero}) else 0), {emin})")
    step = f"((1.0 if {{1}} > {{0}} else -1.0) * math.ldexp(1.0, {exponent}))"
    return (f"(({{0}} + {{1}}) if ({{0}} != {{0}} or {{1}} != {{1}}) else ({{1}} if {{0}} == {{1}} "
            f"else (math.copysign({tiny}, {{1}}) if {{0}} == 0.0 else "
            f"(math.copysign({big}, {{0}}) if abs({{0}}) == np.inf else ({{0}} + {step})))))")


def _logaddexp_template(base2):
    """NumPy's ``npy_logaddexp``/``npy_logaddexp2``, branch for branch, in ``out``."""
    def template(ins, out, attrs):
        if base2:
            tie = literal(1.0, out)
            log1p_exp = "({c} * math.log1p(2.0 ** ({d})))"
        else:
            tie = literal(np.log(2.0), out)
            log1p_exp = "({c} * math.log1p(math.exp({d})))"
        c = literal(1 / np.log(2.0) if base2 else 1.0, out)
        a = log1p_exp.format(c=c, d="{1} - {0}")
        b = log1p_exp.format(c=c, d="{0} - {1}")
        return (f"(({{0}} + {tie}) if {{0}} == {{1}} else (({{0}} + {a}) if {{0}} > {{1}} else "
                f"(({{1}} + {b}) if {{0}} < {{1}} else ({{0}} - {{1}}))))")
    return template


def _ldexp_ref(x1, x2):
    return np.ldexp(x1, x2)


# --------------------------------------------------------------------------- ops
def _op(name, ufunc, scalar, ref=None, weak=ALL):
    return register(OpDef(
        name=name, attrs={}, infer=_ufunc_infer(ufunc), ref=ufunc if ref is None else ref,
        weak=weak, elementwise=True, scalar=scalar))


COPYSIGN = _op("copysign", np.copysign, "math.copysign({0}, {1})")
SIGNBIT = _op("signbit", np.signbit, "(math.copysign(1.0, {0}) < 0.0)")
FMOD = _op("fmod", np.fmod, _fmod_template)
NEXTAFTER = _op("nextafter", np.nextafter, _nextafter_template)
LOGADDEXP = _op("logaddexp", np.logaddexp, _logaddexp_template(False))
LOGADDEXP2 = _op("logaddexp2", np.logaddexp2, _logaddexp_template(True))
# ldexp's exponent is an integer operand: a Python int there is not weak (NumPy keeps
# it an int, where weak promotion would make it the mantissa's float type). The
# reference is a plain function, so the backends cast both operands to the result's
# float type (the shared rule for non-ufunc refs); the template converts the exponent
# back to an int, clamped to a range past which every result is 0 or inf anyway.
LDEXP = _op("ldexp", np.ldexp, "math.ldexp({0}, int(max(min({1}, 100000.0), -100000.0)))",
            ref=_ldexp_ref, weak=(0,))

for _o in (COPYSIGN, SIGNBIT, FMOD, NEXTAFTER, LOGADDEXP, LOGADDEXP2, LDEXP):
    _o.batch = elementwise_rule(_o)

# --------------------------------------------------------------------------- gradients
# d/dx copysign(x, y) = sign(x) * sign(y) (as sign bits); y only picks a sign
COPYSIGN.grad = lambda cts, args, outs, **_: (
    bind(_ew.WHERE, bind(SIGNBIT, args[0]) == bind(SIGNBIT, args[1]), cts[0], -cts[0])
    if _want(args[0]) else None, None)
FMOD.grad = _binary(lambda g, x, y, o: g,
                    lambda g, x, y, o: -g * bind(_ew.TRUNC, x / y))
LOGADDEXP.grad = _binary(lambda g, x, y, o: g * bind(_ew.EXP, x - o),
                         lambda g, x, y, o: g * bind(_ew.EXP, y - o))
LOGADDEXP2.grad = _binary(lambda g, x, y, o: g * bind(_ew.EXP2, x - o),
                          lambda g, x, y, o: g * bind(_ew.EXP2, y - o))
# ldexp(x, n) = x * 2**n exactly: the cotangent scales the same way; n is an integer
LDEXP.grad = lambda cts, args, outs, **_: (
    bind(LDEXP, cts[0], args[1]) if _want(args[0]) else None, None)
SIGNBIT.grad = NOT_DIFFERENTIABLE  # a bool
NEXTAFTER.grad = NOT_DIFFERENTIABLE  # a step of one ulp: piecewise constant offsets

# --------------------------------------------------------------------------- API
copysign = _wrap(COPYSIGN, "copysign", 2)
signbit = _wrap(SIGNBIT, "signbit", 1)
fmod = _wrap(FMOD, "fmod", 2)
nextafter = _wrap(NEXTAFTER, "nextafter", 2)
logaddexp = _wrap(LOGADDEXP, "logaddexp", 2)
logaddexp2 = _wrap(LOGADDEXP2, "logaddexp2", 2)
ldexp = _wrap(LDEXP, "ldexp", 2)
