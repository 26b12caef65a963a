"""Per-element templates of elementwise ops, shared by the Numba CPU and CUDA backends.

:func:`scalar_expr` gives the per-element expression of an elementwise op as source text
(``add`` becomes ``np.float32((x0 + x1))``). It starts from the op's registry ``scalar``
template and applies :data:`SCALAR_OVERRIDES` where a template would not mean the same in
Numba (``math.floor`` returns an int there, ``~`` on a bool is ``-2``). Inputs are cast to
the ufunc's *loop* dtypes and the result to the node's dtype, so NumPy's promotion and
wraparound hold exactly whatever Numba's own scalar typing would pick.

Templates name three namespaces the generated module binds: ``np`` (NumPy's scalar
functions), ``H`` (compiled helpers such as ``H.clip``) and ``V`` (the vectorizable math,
``vmath*.py``). This module imports neither Numba nor any backend.
"""

from __future__ import annotations

import numpy as np


class Unsupported(Exception):
    """This node has no Numba kernel; the message is the reason shown to the user."""


# the real dtypes both backends compile; the CPU backend also compiles complex64 and
# complex128 (``COMPLEX_DTYPES``) in the ops ``scalar_templates_complex`` and the CPU
# emitters' own table list
SUPPORTED_DTYPES = frozenset(np.dtype(t) for t in (
    np.bool_, np.int8, np.int16, np.int32, np.int64,
    np.uint8, np.uint16, np.uint32, np.uint64, np.float32, np.float64))
COMPLEX_DTYPES = frozenset(np.dtype(t) for t in (np.complex64, np.complex128))


def check_dtype(dtype, what: str, complex_ok: bool = False) -> None:
    """Raise :class:`Unsupported` unless ``dtype`` compiles (complex ones only where the
    caller says the op has a complex kernel)."""
    if dtype in SUPPORTED_DTYPES or (complex_ok and dtype in COMPLEX_DTYPES):
        return
    if dtype in COMPLEX_DTYPES:
        raise Unsupported(f"{what} has dtype {dtype}, which the Numba backend compiles "
                          "only in arithmetic, indexing, shape ops, matmul and solve/inv "
                          "(docs/runtime.md, complex numbers)")
    raise Unsupported(f"{what} has dtype {dtype}, which the Numba backend does not "
                      "compile yet (float16 runs on the interpreter)")


def np_type(dtype) -> str:
    """``np.float32``: the NumPy scalar type's name as Numba source."""
    dtype = np.dtype(dtype)
    return "np.bool_" if dtype == np.bool_ else f"np.{dtype.name}"


def cast(expr: str, dtype) -> str:
    """``expr`` converted to ``dtype`` with NumPy's C-cast semantics."""
    if np.dtype(dtype) == np.bool_:
        return f"({expr} != 0)"  # NaN -> True, as ndarray.astype(bool)
    return f"{np_type(dtype)}({expr})"


def literal(value, dtype) -> str:
    """An exact source literal for one scalar of ``dtype``."""
    dtype = np.dtype(dtype)
    v = np.asarray(value, dtype).item()
    if dtype.kind == "c":
        part = np.dtype(f"f{dtype.itemsize // 2}")
        return (f"{np_type(dtype)}(complex({literal(v.real, part)}, "
                f"{literal(v.imag, part)}))")
    if dtype == np.bool_:
        return repr(bool(v))
    if dtype.kind == "f":
        if np.isnan(v):
            return f"{np_type(dtype)}(np.nan)"
        if np.isinf(v):
            return f"{np_type(dtype)}({'-' if v < 0 else ''}np.inf)"
        return f"{np_type(dtype)}({float(v)!r})"  # repr round-trips a double exactly
    return f"{np_type(dtype)}({int(v)})"


# --------------------------------------------------------------------------- scalars
# Templates that replace or fill in the registry's ``scalar`` field for Numba, each for a
# reason: ``math.floor``/``ceil``/``trunc`` return ints in Numba (NaN/inf would break);
# Python ``max``/``min`` drop NaN where np.maximum keeps it; ``~`` on bools is ``-2``.
# A value is a template string or ``fn(in_dtypes, out_dtype, attrs) -> template``.
SCALAR_OVERRIDES = {
    "floor": "np.floor({0})",
    "ceil": "np.ceil({0})",
    "trunc": "np.trunc({0})",
    "rint": "np.rint({0})",
    "exp2": "np.exp2({0})",
    "cbrt": "np.cbrt({0})",
    "log": lambda ins, out, attrs: _vmath("log", out, "np.log({0})"),
    "log2": "np.log2({0})",
    "log10": "np.log10({0})",
    "log1p": lambda ins, out, attrs: _vmath("log1p", out, "np.log1p({0})"),
    "sqrt": "np.sqrt({0})",
    "isnan": "np.isnan({0})",
    "isinf": "np.isinf({0})",
    "isfinite": "np.isfinite({0})",
    "arcsin": "np.arcsin({0})",
    "arccos": "np.arccos({0})",
    "arccosh": "np.arccosh({0})",
    "arctanh": "np.arctanh({0})",
    "maximum": "({0} if ({0} >= {1} or {0} != {0}) else {1})",
    "minimum": "({0} if ({0} <= {1} or {0} != {0}) else {1})",
    "fmax": "({0} if ({0} >= {1} or {1} != {1}) else {1})",
    "fmin": "({0} if ({0} <= {1} or {1} != {1}) else {1})",
    "sign": "(1 if {0} > 0 else (-1 if {0} < 0 else (0 if {0} == 0 else {0})))",
    "clip": "H.clip({0}, {1}, {2})",
    "reciprocal": lambda ins, out, attrs: (
        "(1.0 / {0})" if out.kind == "f" else _int_reciprocal(out)),
    "invert": lambda ins, out, attrs: "(not {0})" if out == np.bool_ else "(~{0})",
    # NumPy: a shift by the width or more (or a negative amount, read as unsigned) gives
    # 0, and -1 for a negative number shifted right; Numba's own << and >> do not
    # (typed literals: Numba joins uint64 with a plain int literal into float64)
    "left_shift": lambda ins, out, attrs: (
        f"(({{0}} << {{1}}) if {{1}} >= 0 and {{1}} < {out.itemsize * 8} "
        f"else {literal(0, out)})"),
    "right_shift": lambda ins, out, attrs: (
        f"(({{0}} >> {{1}}) if {{1}} >= 0 and {{1}} < {out.itemsize * 8} else "
        f"({literal(-1 if out.kind == 'i' else 0, out)} if {{0}} < 0 "
        f"else {literal(0, out)}))"),
    # ints: by squaring with wraparound; a negative exponent raises NumPy's ValueError
    "power": lambda ins, out, attrs: (
        "({0} ** {1})" if out.kind == "f" else
        f"H.{'ipow' if out.kind == 'u' else 'ipow_checked'}({{0}}, {{1}}, {literal(1, out)})"),
    # Numba's ``//`` gives 0 for INT_MIN // -1 (to dodge the x86 trap); NumPy wraps to
    # INT_MIN, which is ``-x``. A constant divisor folds the test away.
    "floor_divide": lambda ins, out, attrs: (
        "((-{0}) if {1} == -1 else ({0} // {1}))" if out.kind == "i" else "({0} // {1})"),
    **{name: (lambda ins, out, attrs, name=name: _compare_template(name, ins))
       for name in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal")},
    "logical_and": "(({0} != 0) and ({1} != 0))",
    "logical_or": "(({0} != 0) or ({1} != 0))",
    "logical_not": "({0} == 0)",
    "logical_xor": "(({0} != 0) != ({1} != 0))",
    "cast": "{0}",
    "identity": "{0}",
    "round": lambda ins, out, attrs: _round_template(out, attrs.get("decimals", 0)),
    # vectorizable polynomial versions (vmath): libm calls would keep loops scalar
    "exp": lambda ins, out, attrs: _vmath("exp", out, "math.exp({0})"),
    "expm1": lambda ins, out, attrs: _vmath("expm1", out, "math.expm1({0})"),
    "tanh": lambda ins, out, attrs: _vmath("tanh", out, "math.tanh({0})"),
    "sin": lambda ins, out, attrs: _vmath("sin", out, "math.sin({0})"),
    "cos": lambda ins, out, attrs: _vmath("cos", out, "math.cos({0})"),
    "erf": lambda ins, out, attrs: _erf_template(out),
    "sigmoid": lambda ins, out, attrs: _vmath("sigmoid", out,
                                              "(1.0 / (1.0 + math.exp(-{0})))"),
    "softplus": lambda ins, out, attrs: _vmath("softplus", out, _softplus_template(out)),
}


# ``x OP y`` for each comparison, and its value when the signed operand of a mixed
# int64/uint64 comparison is negative (then it is the smaller one)
_COMPARE = {"equal": ("==", False, False), "not_equal": ("!=", True, True),
            "less": ("<", True, False), "less_equal": ("<=", True, False),
            "greater": (">", False, True), "greater_equal": (">=", False, True)}


def _compare_template(name, ins):
    """NumPy 2 compares int64 with uint64 exactly (its own mixed loops); Numba would
    compare both as float64 (2**63 - 1 == 2**63 there). A negative signed operand
    decides alone, else both are compared as uint64."""
    sym, signed_first, signed_second = _COMPARE[name]
    ufunc = getattr(np, name)
    a, b = ufunc.resolve_dtypes(tuple(ins) + (None,))[:2]
    if {a.kind, b.kind} != {"i", "u"}:
        return f"({{0}} {sym} {{1}})"
    s, when_neg = ("{0}", signed_first) if a.kind == "i" else ("{1}", signed_second)
    u = "np.uint64({0})" if a.kind == "i" else "np.uint64({1})"
    x, y = (u, "{1}") if a.kind == "i" else ("{0}", u)
    return f"({when_neg} if {s} < 0 else ({x} {sym} {y}))"


def _int_reciprocal(out):
    """NumPy's integer reciprocal is ``1.0 / x`` converted to the int type: 1 and -1 map
    to themselves, other nonzero values truncate to 0, and 0 gives whatever this
    platform's C conversion of inf gives (INT_MIN for int32/int64 on x86-64, 0 for the
    narrower and unsigned types), taken from NumPy itself."""
    with np.errstate(all="ignore"):
        at_zero = literal(np.reciprocal(np.zeros((), out)), out)
    one = literal(1, out)
    unit = f"({{0}} == {one})" if out.kind == "u" else f"({{0}} == {one} or {{0}} == -{one})"
    return f"({{0}} if {unit} else ({at_zero} if {{0}} == 0 else 0))"


def _softplus_template(out):
    """NumPy's ``logaddexp(0, x)`` (npy_logaddexp) branch for branch, in ``out``'s type."""
    ln2 = literal(np.log(2.0), out)
    return (f"({ln2} if {{0}} == 0 else (np.log1p(np.exp({{0}})) if {{0}} < 0 else "
            f"(({{0}} + np.log1p(np.exp(-{{0}}))) if {{0}} > 0 else {{0}})))")


def _vmath(name, out, fallback):
    if out == np.float32:
        return f"V.{name}_f32({{0}})"
    if out == np.float64:
        return f"V.{name}_f64({{0}})"
    return fallback

def _erf_template(out):
    """V's erf takes its own float type; the op's template (``math.erf(float(x))``) takes
    any real input, so integer inputs are converted first."""
    if out in (np.float32, np.float64):
        return f"V.erf_{'f32' if out == np.float32 else 'f64'}({np_type(out)}({{0}}))"
    return "math.erf(float({0}))"


def _round_template(out, decimals):
    if out.kind != "f":
        if decimals >= 0:
            return "{0}"
        raise Unsupported("round with negative decimals on integers")
    if decimals == 0:
        return "np.rint({0})"
    scale = literal(10.0 ** abs(decimals), out)
    # NumPy: rint(x * 10**d) / 10**d for d > 0, rint(x / 10**-d) * 10**-d for d < 0
    if decimals > 0:
        return f"(np.rint({{0}} * {scale}) / {scale})"
    return f"(np.rint({{0}} / {scale}) * {scale})"


# Fast variants for loops: a function that is fast and exact for almost every input,
# and a guard (an int32, 1 where the fast one is not exact). A flat loop runs the fast
# one and sums the guard; if the sum is nonzero it runs again with the exact template
# (``Loops.elementwise``). float32 sin/cos: Cody-Waite in float32 lanes up to |x| = 65536
# (0.29 ns per value against 1.27 for the whole-range Payne-Hanek in float64 lanes).
FAST_VARIANTS = {
    "sin": lambda ins, out, attrs: (
        ("V.sin_f32_fast({0})", "V.trig_big_f32({0})") if out == np.float32 else None),
    "cos": lambda ins, out, attrs: (
        ("V.cos_f32_fast({0})", "V.trig_big_f32({0})") if out == np.float32 else None),
}


def fast_expr(op, attrs, in_dtypes, out_dtype, args):
    """``(fast, guard)`` source for one element of ``op(*args)`` (see FAST_VARIANTS), or
    None when the op has no fast variant for these dtypes."""
    variant = FAST_VARIANTS.get(op.name)
    pair = variant(tuple(in_dtypes), out_dtype, attrs or {}) if variant else None
    if pair is None:
        return None
    fast, guard = pair
    over = {op.name: fast}
    return (scalar_expr(op, attrs, in_dtypes, out_dtype, args, overrides=over),
            _casted(op, in_dtypes, out_dtype, args, guard))


def loop_dtypes(op, in_dtypes, out_dtype) -> tuple:
    """The dtypes NumPy computes in: the ufunc's resolved loop, else the output dtype."""
    ufunc = op.ref
    if isinstance(ufunc, np.ufunc):
        try:
            return tuple(ufunc.resolve_dtypes(tuple(in_dtypes) + (None,) * ufunc.nout))[
                :ufunc.nin]
        except TypeError:
            pass
    if op.name in ("cast", "identity"):
        return tuple(in_dtypes)
    return (out_dtype,) * len(in_dtypes)


def scalar_expr(op, attrs, in_dtypes, out_dtype, args, overrides=None) -> str:
    """The element of ``op(*args)`` as ``out_dtype``, exactly as NumPy computes it.

    ``overrides``: a backend's own table consulted before :data:`SCALAR_OVERRIDES` (the
    CUDA backend's, where a device cannot do what the CPU template does). Raises
    :class:`Unsupported` when the op has no template.
    """
    if any(np.dtype(d).kind == "c" for d in (*in_dtypes, out_dtype)):
        from graphc.runtime.scalar_templates_complex import complex_expr  # (imports this)
        return complex_expr(op, attrs, in_dtypes, out_dtype, args)
    template = None if overrides is None else overrides.get(op.name)
    if template is None:
        template = SCALAR_OVERRIDES.get(op.name, op.scalar)
    if template is None:
        raise Unsupported(f"elementwise op {op.name} has no scalar template")
    if callable(template):
        template = template(tuple(in_dtypes), out_dtype, attrs or {})
    return cast(_casted(op, in_dtypes, out_dtype, args, template), out_dtype)


def _casted(op, in_dtypes, out_dtype, args, template) -> str:
    """``template`` applied to ``args``, each cast to NumPy's loop dtype for ``op``."""
    loop = loop_dtypes(op, in_dtypes, out_dtype)
    if "math." in template and any(d.kind != "f" for d in loop):
        # math.* on ints returns floats in Numba; NumPy has integer loops for these
        raise Unsupported(f"{op.name} on {', '.join(d.name for d in loop)}")
    if op.name == "where":  # the condition is tested as a bool, the branches are values
        loop = (np.dtype(np.bool_), out_dtype, out_dtype)
    casted = [a if d == ld else cast(a, ld) for a, d, ld in zip(args, in_dtypes, loop)]
    return template.format(*casted)
