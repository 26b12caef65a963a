"""NumPy's elementwise functions over the ops of ``elementwise.py``: ``add``, ``exp``,
``equal``... (one generated wrapper each, from the tables below), ``round``, ``clip``,
``where`` and ``astype``. ``graphc.numpy`` re-exports them; the op families' gradient
rules call them as NumPy code would.
"""

from __future__ import annotations

import builtins as _builtins

import numpy as _np

from graphc.core.registry import bind as _bind
from graphc.core.registry import fast_binary, fast_unary
from graphc.dtypes import as_dtype
from graphc.ops import elementwise as _ew
from graphc.ops import inplace as _inplace
from graphc.ops import ufunc_methods as _ufunc_methods
from graphc.ops.convert import asarray
from graphc.ops.gather import argwhere


def _wrap(op, name, nin):
    fast = fast_unary(op) if nin == 1 else fast_binary(op)
    if nin == 1:
        def fn(x, out=None):
            return fast(x) if out is None else _inplace.into_out(out, fast(x), name, x)
    else:
        def fn(x1, x2, out=None):
            if out is None:
                return fast(x1, x2)
            return _inplace.into_out(out, fast(x1, x2), name, x2)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"``np.{name}``, elementwise with broadcasting (op ``{op.name}``); "
                  "``out`` (positional or keyword: a tensor, an ndarray or a 1-tuple) is "
                  "written with the result, cast as NumPy's same_kind rule allows, and "
                  "returned.")
    return _ufunc_methods.attach(fn, op, name, nin, _outer(fn, name) if nin == 2 else None)


def _outer(fn, name):
    def outer(a, b):
        """``fn(a[..., None, ...], b)``: every element of ``a`` with every one of ``b``."""
        a, b = asarray(a), asarray(b)
        return fn(a[(Ellipsis,) + (None,) * len(b.shape)], b)

    outer.__name__ = outer.__qualname__ = f"{name}.outer"
    outer.__doc__ = f"``np.{name}.outer(a, b)``: shape ``a.shape + b.shape``."
    return outer


_UNARY = {
    "negative": _ew.NEGATIVE, "positive": _ew.POSITIVE, "abs": _ew.ABSOLUTE,
    "absolute": _ew.ABSOLUTE, "sign": _ew.SIGN, "exp": _ew.EXP, "exp2": _ew.EXP2,
    "expm1": _ew.EXPM1, "log": _ew.LOG, "log2": _ew.LOG2, "log10": _ew.LOG10,
    "log1p": _ew.LOG1P, "sqrt": _ew.SQRT, "cbrt": _ew.CBRT, "square": _ew.SQUARE,
    "reciprocal": _ew.RECIPROCAL, "sin": _ew.SIN, "cos": _ew.COS, "tan": _ew.TAN,
    "arcsin": _ew.ARCSIN, "arccos": _ew.ARCCOS, "arctan": _ew.ARCTAN, "sinh": _ew.SINH,
    "cosh": _ew.COSH, "tanh": _ew.TANH, "arcsinh": _ew.ARCSINH, "arccosh": _ew.ARCCOSH,
    "arctanh": _ew.ARCTANH, "floor": _ew.FLOOR, "ceil": _ew.CEIL, "rint": _ew.RINT,
    "trunc": _ew.TRUNC, "isnan": _ew.ISNAN, "isinf": _ew.ISINF, "isfinite": _ew.ISFINITE,
    "logical_not": _ew.LOGICAL_NOT, "invert": _ew.INVERT,
}
_BINARY = {
    "add": _ew.ADD, "subtract": _ew.SUBTRACT, "multiply": _ew.MULTIPLY,
    "divide": _ew.TRUE_DIVIDE, "true_divide": _ew.TRUE_DIVIDE,
    "floor_divide": _ew.FLOOR_DIVIDE, "mod": _ew.REMAINDER, "remainder": _ew.REMAINDER,
    "power": _ew.POWER, "maximum": _ew.MAXIMUM, "minimum": _ew.MINIMUM, "fmax": _ew.FMAX,
    "fmin": _ew.FMIN, "arctan2": _ew.ARCTAN2, "hypot": _ew.HYPOT, "equal": _ew.EQUAL,
    "not_equal": _ew.NOT_EQUAL, "less": _ew.LESS, "less_equal": _ew.LESS_EQUAL,
    "greater": _ew.GREATER, "greater_equal": _ew.GREATER_EQUAL,
    "logical_and": _ew.LOGICAL_AND, "logical_or": _ew.LOGICAL_OR,
    "logical_xor": _ew.LOGICAL_XOR, "bitwise_and": _ew.BITWISE_AND,
    "bitwise_or": _ew.BITWISE_OR, "bitwise_xor": _ew.BITWISE_XOR,
    "left_shift": _ew.LEFT_SHIFT, "right_shift": _ew.RIGHT_SHIFT,
    "bitwise_left_shift": _ew.LEFT_SHIFT, "bitwise_right_shift": _ew.RIGHT_SHIFT,
}
for _name, _op in _UNARY.items():
    globals()[_name] = _wrap(_op, _name, 1)
for _name, _op in _BINARY.items():
    globals()[_name] = _wrap(_op, _name, 2)
del _name, _op


def divmod(x1, x2):  # noqa: A001
    """``np.divmod``: ``(floor_divide(x1, x2), remainder(x1, x2))``."""
    return floor_divide(x1, x2), remainder(x1, x2)  # noqa: F821 - made from _BINARY


def round(a, decimals=0):  # noqa: A001
    """``np.round`` (half to even)."""
    return _bind(_ew.ROUND, a, decimals=decimals)


around = round


def clip(a, a_min=None, a_max=None):
    """``np.clip``; either bound may be ``None`` (both: ``positive(a)``, as NumPy 2).

    As in NumPy, ``a`` is converted first (a Python number there is not weak), and on
    integer tensors a Python-int bound beyond the dtype's range is dropped.
    """
    if not hasattr(a, "dtype"):
        a = asarray(a)
    if a.dtype.kind in "iu":
        info = _np.iinfo(a.dtype)
        if type(a_min) is _builtins.int and a_min <= info.min:
            a_min = None
        if type(a_max) is _builtins.int and a_max >= info.max:
            a_max = None
    if a_min is None and a_max is None:
        return positive(a)  # noqa: F821  (defined by the loop above)
    if a_min is None:
        return minimum(a, a_max)  # noqa: F821  (defined by the loop above)
    if a_max is None:
        return maximum(a, a_min)  # noqa: F821
    return _bind(_ew.CLIP, a, a_min, a_max)


def where(condition, x=None, y=None):
    """``np.where(condition, x, y)``; with only ``condition``, a tuple of index tensors."""
    if x is None and y is None:
        idx = argwhere(condition)
        return tuple(idx[:, i] for i in range(idx.shape[1]))
    if x is None or y is None:
        raise ValueError("where: give both x and y, or neither")
    return _bind(_ew.WHERE, condition, x, y)


def astype(x, dtype):
    """``x.astype(dtype)`` (NumPy 2's ``np.astype``)."""
    dtype = as_dtype(dtype)
    return _bind(_ew.CAST, x, dtype=dtype)
