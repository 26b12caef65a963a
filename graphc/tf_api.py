"""TensorFlow-style names for the top-level ``graphc`` namespace, over the same ops.

Where TensorFlow's behaviour differs from NumPy's the TensorFlow behaviour is kept:
Python literals default to float32/int32 when no tensor fixes the dtype, ``reduce_mean``
of integers truncates, ``argmax`` defaults to axis 0. The argument conversion and the
elementwise names are in ``graphc/ops/tf_elementwise.py`` (re-exported here).
"""

from __future__ import annotations

import numpy as np

from graphc.core.registry import bind
from graphc.core.tensor import Tensor
from graphc.ops import creation
from graphc.ops import shape as shape_ops
from graphc.ops.convert import convert_to_tensor
from graphc.ops.tf_elementwise import (  # noqa: F401 - re-exported (gc.add, gc.cast...)
    _binary,
    _list_as,
    _tf_args,
    _tf_literal_of,
    _unary,
    abs,
    add,
    cast,
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
    where,
)


# --------------------------------------------------------------------------- shapes and creation
# TensorFlow's spellings of graphc.numpy's shape and creation functions.
def tf_reshape(tensor, shape, name=None):
    """``tf.reshape``: like ``gnp.reshape``, with TensorFlow's literal dtypes."""
    return shape_ops.reshape(*_tf_args(tensor), shape)


def tf_transpose(a, perm=None, conjugate=False, name=None):
    """``tf.transpose(a, perm)``."""
    return shape_ops.transpose(*_tf_args(a), perm)


def tf_broadcast_to(input, shape, name=None):  # noqa: A002
    """``tf.broadcast_to``."""
    return shape_ops.broadcast_to(*_tf_args(input), shape)


def tf_identity(x, name=None) -> Tensor:
    """``tf.identity``."""
    return bind(creation.IDENTITY, convert_to_tensor(x))


def fill(dims, value, name=None) -> Tensor:
    """TensorFlow's ``tf.fill(dims, value)`` (Python float -> float32); ``dims`` may be a
    1-D integer tensor or hold traced 0-d integers (as in :func:`full`)."""
    value = convert_to_tensor(value)
    return creation._bind_full(value, dims, value.dtype, "fill")


def tf_zeros(shape, dtype=np.float32, name=None) -> Tensor:
    return creation.zeros(shape, dtype)


def tf_ones(shape, dtype=np.float32, name=None) -> Tensor:
    return creation.ones(shape, dtype)


def tf_eye(num_rows, num_columns=None, dtype=np.float32, name=None) -> Tensor:
    return creation.eye(num_rows, num_columns, dtype=dtype)
