"""Per-element templates of elementwise ops on complex numbers, for the Numba CPU backend.

:func:`complex_expr` is what :func:`scalar_templates.scalar_expr` gives for a node with a
complex operand or result. Only the ops in :data:`COMPLEX_TEMPLATES` compile; any other
(ordering comparisons, ``sign``, the transcendentals, ...) raises ``Unsupported`` and the
node runs on the interpreter, so no op reaches Numba's own complex semantics by accident.

What NumPy computes, and how close the templates come (tested in
``tests/runtime/test_numba_complex.py``; docs/runtime.md "Complex numbers"):

* ``add``, ``subtract``, ``negative``, ``conjugate``, ``real``, ``imag``, comparisons for
  equality, ``isnan``/``isinf``/``isfinite``, ``where`` and casts: exact.
* ``divide``: NumPy's scaled (Smith) division, step for step (``H.cdiv``): exact; a zero
  divisor gives NumPy's inf/nan, not Python's ZeroDivisionError.
* ``power``: NumPy's algorithm (``H.cpow``): exact for integer exponents below 100 in
  magnitude (repeated squaring) and for the zero cases; other exponents go through
  ``exp(b * log(a))`` as C's ``cpow`` does, within a few ULP of ``|result|``.
* ``multiply``, ``square``: ``(ac - bd) + (ad + bc)i``, NumPy's formula; NumPy's SIMD
  loops fuse the multiply-adds, so a component may differ by 1 ULP of ``|x| |y|``.
* ``absolute``: NumPy's SIMD formula (the larger part times ``sqrt(1 + ratio**2)``) with
  selects, so it vectorizes; within 2 ULP of NumPy and of ``hypot``.

No Numba import: like ``scalar_templates``, text only.
"""

from __future__ import annotations

import numpy as np

from graphc.runtime.scalar_templates import Unsupported, np_type

# templates over operands already converted to NumPy's loop dtypes; each yields a value of
# the ufunc's own result dtype (``_result_dtype``), converted to the node's afterwards
COMPLEX_TEMPLATES = {
    "add": "({0} + {1})",
    "subtract": "({0} - {1})",
    "multiply": "H.cmul({0}, {1})",
    "square": "H.cmul({0}, {0})",
    "true_divide": "H.cdiv({0}, {1})",
    "power": "H.cpow({0}, {1})",
    "negative": "(-{0})",
    "positive": "{0}",
    "conjugate": "{0}.conjugate()",
    "real": "{0}.real",
    "imag": "{0}.imag",
    "absolute": "H.cabs({0})",
    "equal": "({0} == {1})",
    "not_equal": "({0} != {1})",
    "isnan": "(np.isnan({0}.real) or np.isnan({0}.imag))",
    "isinf": "(np.isinf({0}.real) or np.isinf({0}.imag))",
    "isfinite": "(np.isfinite({0}.real) and np.isfinite({0}.imag))",
    "where": "({1} if {0} else {2})",
    "cast": "{0}",
    "identity": "{0}",
}


def convert(expr: str, src, dst) -> str:
    """``expr`` (of dtype ``src``) as ``dst``, as ``ndarray.astype`` converts: a complex
    value to a real dtype keeps its real part, to bool tests both parts."""
    src, dst = np.dtype(src), np.dtype(dst)
    if src == dst:
        return expr
    if dst == np.bool_:
        return f"({expr} != 0)"
    if src.kind == "c" and dst.kind != "c":
        return f"{np_type(dst)}(({expr}).real)"
    if src == np.bool_ and dst.kind == "c":
        return f"{np_type(dst)}(1 if {expr} else 0)"
    return f"{np_type(dst)}({expr})"


def _dtypes(op, in_dtypes, out_dtype):
    """``(loop dtypes of the inputs, dtype the template yields)`` for ``op``."""
    in_dtypes = tuple(np.dtype(d) for d in in_dtypes)
    if op.name == "where":
        return (np.dtype(np.bool_), out_dtype, out_dtype), out_dtype
    if op.name in ("cast", "identity", "real", "imag"):
        base = in_dtypes[0]
        if op.name in ("real", "imag") and base.kind == "c":
            return in_dtypes, np.dtype(f"f{base.itemsize // 2}")
        return in_dtypes, base
    ufunc = op.ref
    if not isinstance(ufunc, np.ufunc):
        raise Unsupported(f"{op.name} on complex numbers")
    try:
        resolved = ufunc.resolve_dtypes(in_dtypes + (None,) * ufunc.nout)
    except TypeError as e:
        raise Unsupported(f"{op.name} on {', '.join(d.name for d in in_dtypes)}") from e
    return tuple(resolved[:ufunc.nin]), resolved[ufunc.nin]


def complex_expr(op, attrs, in_dtypes, out_dtype, args) -> str:
    """The element of ``op(*args)`` as ``out_dtype`` where an operand or the result is
    complex; raises ``Unsupported`` for an op without a complex template."""
    template = COMPLEX_TEMPLATES.get(op.name)
    if template is None:
        dtypes = ", ".join(dict.fromkeys(np.dtype(d).name for d in (*in_dtypes, out_dtype)))
        raise Unsupported(f"{op.name} on {dtypes}, which the Numba backend compiles only "
                          "in arithmetic, indexing, shape ops, matmul and solve/inv "
                          "(docs/runtime.md, complex numbers)")
    out_dtype = np.dtype(out_dtype)
    loop, result = _dtypes(op, in_dtypes, out_dtype)
    casted = [convert(a, d, ld) for a, d, ld in zip(args, in_dtypes, loop)]
    return convert(template.format(*casted), result, out_dtype)
