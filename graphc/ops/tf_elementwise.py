"""TensorFlow-style argument conversion and elementwise names (``gc.add``, ``gc.cast``,
``gc.where``...; ``graphc.tf_api`` and ``gc.math`` re-export them).

Where TensorFlow's behaviour differs from NumPy's the TensorFlow behaviour is kept:
Python literals default to float32/int32 when no tensor fixes the dtype (``_tf_args``),
and a Python list next to a tensor takes the tensor's dtype (``_list_as``). The op
families' TensorFlow-style functions (``gc.concat``, ``gc.tile``, ``gc.matmul``...)
convert their arguments with these helpers too.
"""

from __future__ import annotations

import numpy as np

from graphc import source_info
from graphc.core import weak
from graphc.core.registry import bind
from graphc.core.tensor import Tensor
from graphc.dtypes import as_dtype, numpy_literal, tf_literal
from graphc.ops import elementwise as ew
from graphc.ops.gather import argwhere


def _tf_args(*args):
    """Convert literal arguments as TensorFlow's ops do.

    Python scalars next to a tensor stay weak (NEP 50). Lists next to a tensor take the
    tensor's dtype. With no tensor at all, literals get TensorFlow's dtypes, a float
    anywhere making every argument float32 (``gc.maximum(0., [1, -1])`` is float32).
    """
    args = tuple(a._graphc_tensor_() if hasattr(a, "_graphc_tensor_") else a for a in args)
    tensors = [a for a in args if isinstance(a, Tensor | np.ndarray)]
    if tensors and all(weak.is_weak(t) for t in tensors):
        # traced Python numbers only: they take TensorFlow's literal dtypes, as the
        # numbers themselves would (a loop counter `i = 0` stacks as int32)
        return tuple(_tf_literal_of(a) if weak.is_weak(a) else
                     a if isinstance(a, Tensor | np.ndarray) else tf_literal(a) for a in args)
    if tensors:
        dtype = tensors[0].dtype
        return tuple(_list_as(a, dtype) if isinstance(a, list | tuple) else a for a in args)
    arrays = [tf_literal(a) for a in args]
    floats = [a.dtype for a in arrays if a.dtype.kind in "fc"]
    if floats:
        arrays = [a.astype(floats[0]) if a.dtype.kind in "iub" else a for a in arrays]
    return tuple(arrays)


def _tf_literal_of(t):
    dtype = {"i": np.int32, "u": np.int32, "f": np.float32, "c": np.complex64,
             "b": np.bool_}[t.dtype.kind]
    return t if t.dtype == dtype else bind(ew.CAST, t, dtype=np.dtype(dtype))


def _list_as(value, dtype):
    """A Python list next to a tensor, in the tensor's dtype (as TensorFlow converts it).

    Values that dtype cannot hold raise ``TypeError`` instead of changing: ``[1.5]`` next
    to an int32 tensor is not ``[1]``, and ``[300]`` next to an int8 tensor is not ``[44]``.
    """
    arr = numpy_literal(value)
    fits = np.can_cast(arr.dtype, dtype, "same_kind")
    if fits and arr.size and arr.dtype.kind in "iu" and dtype.kind in "iu":
        info = np.iinfo(dtype)
        fits = info.min <= arr.min() and arr.max() <= info.max
    if not fits:
        raise TypeError(f"cannot convert {value!r:.60} to {dtype} (the dtype of "
                        f"the tensor it is combined with) without changing its values"
                        f"{source_info.where()}; cast the tensor, or pass a tensor of the "
                        "dtype you mean")
    return arr.astype(dtype, copy=False)


def _binary(op, name):
    def fn(x, y, name=None):
        return bind(op, *_tf_args(x, y))

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``tf.{name}``: elementwise with broadcasting."
    return fn


def _unary(op, name):
    def fn(x, name=None):
        return bind(op, *_tf_args(x))

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``tf.{name}``: elementwise."
    return fn


add = _binary(ew.ADD, "add")
subtract = _binary(ew.SUBTRACT, "subtract")
multiply = _binary(ew.MULTIPLY, "multiply")
divide = _binary(ew.TRUE_DIVIDE, "divide")
maximum = _binary(ew.MAXIMUM, "maximum")
minimum = _binary(ew.MINIMUM, "minimum")
pow = _binary(ew.POWER, "pow")  # noqa: A001
greater = _binary(ew.GREATER, "greater")
greater_equal = _binary(ew.GREATER_EQUAL, "greater_equal")
less = _binary(ew.LESS, "less")
less_equal = _binary(ew.LESS_EQUAL, "less_equal")
equal = _binary(ew.EQUAL, "equal")
not_equal = _binary(ew.NOT_EQUAL, "not_equal")
logical_and = _binary(ew.LOGICAL_AND, "logical_and")
logical_or = _binary(ew.LOGICAL_OR, "logical_or")
abs = _unary(ew.ABSOLUTE, "abs")  # noqa: A001
sqrt = _unary(ew.SQRT, "sqrt")
exp = _unary(ew.EXP, "exp")
negative = _unary(ew.NEGATIVE, "negative")
logical_not = _unary(ew.LOGICAL_NOT, "logical_not")


def cast(x, dtype, name=None):
    """``tf.cast``: convert ``x`` to ``dtype`` (floats truncate toward zero into ints)."""
    return bind(ew.CAST, *_tf_args(x), dtype=as_dtype(dtype))


def where(condition, x=None, y=None, name=None):
    """``tf.where``: ``where(c, x, y)`` selects; ``where(c)`` gives int64 indices
    ``[n, rank]`` of the true elements."""
    if x is None and y is None:
        return argwhere(condition)
    if x is None or y is None:
        raise ValueError("where: give both x and y, or neither")
    x, y = _tf_args(x, y)
    return bind(ew.WHERE, condition, x, y)
