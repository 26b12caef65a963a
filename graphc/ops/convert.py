"""Tensor conversion: ``asarray``/``array`` (NumPy's literal dtypes) and
``convert_to_tensor`` (TensorFlow's: float32 / int32).

Conversion is not an op: it makes an eager tensor (or, while tracing, a ``const`` node),
copying NumPy input so later changes to the array never change the tensor; a tensor of
another dtype is cast. ``creation.py`` re-exports these with the creation functions;
they live apart so that the op families below ``creation`` (reductions, shapes) can
convert their arguments.
"""

from __future__ import annotations

import numpy as np

from graphc.core import placement, trace
from graphc.core.device_scope import placing as _placing
from graphc.core.registry import bind
from graphc.core.tensor import Tensor, _eager, _symbolic
from graphc.dtypes import as_dtype, numpy_literal, tf_literal
from graphc.ops.elementwise import CAST


def _convert(value, dtype, literal):
    as_tensor = getattr(value, "_graphc_tensor_", None)
    if as_tensor is not None:  # a gc.Variable: its current value (a read while tracing)
        value = as_tensor()
    dtype = as_dtype(dtype)
    if isinstance(value, Tensor):
        if dtype is not None and value.dtype != dtype:
            return bind(CAST, value, dtype=dtype)
        return value
    arr = np.array(literal(value, dtype), copy=True)
    if trace.active():
        return _symbolic(trace.current().constant(arr))
    arr.flags.writeable = False
    if _placing:  # some thread has an accelerator scope open: maybe this one
        return placement.place_new(_eager(arr))
    return _eager(arr)


def asarray(a, dtype=None) -> Tensor:
    """Convert ``a`` (number, nested list, ndarray, Tensor) to a tensor, NumPy's dtypes.

    >>> gnp.asarray(1).dtype, gnp.asarray(1.).dtype
    (dtype('int64'), dtype('float64'))
    """
    return _convert(a, dtype, numpy_literal)


def array(a, dtype=None, copy=True) -> Tensor:
    """Like ``asarray`` (tensors are immutable, so ``copy`` changes nothing)."""
    return _convert(a, dtype, numpy_literal)


def convert_to_tensor(value, dtype=None, dtype_hint=None, name=None) -> Tensor:
    """TensorFlow's ``tf.convert_to_tensor`` (TensorFlow literal dtypes)."""
    if dtype is None and dtype_hint is not None and not isinstance(value, Tensor):
        dtype = dtype_hint
    return _convert(value, dtype, tf_literal)
