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


# --------------------------------------------------------------------------- more of tf's names
# (graphc/ops/tf_api_*.py; docs/tf_api.md). The face binds every name of TF_TOP_LEVEL as
# gc.<name>, and every name of TF_MATH_NAMES as gc.math's object when gc.math defines it
# (one object, as in TensorFlow), as the function here otherwise.
import sys as _sys  # noqa: E402

from graphc import debugging as _debugging  # noqa: E402
from graphc.ops import bitcast as _bitcast  # noqa: E402
from graphc.ops import signal_fft as _signal_fft  # noqa: E402
from graphc.ops import tf_api_blocks as _blocks  # noqa: E402
from graphc.ops import tf_api_index as _index  # noqa: E402
from graphc.ops import tf_api_math as _tfmath  # noqa: E402
from graphc.ops import tf_api_misc as _misc  # noqa: E402
from graphc.ops import tf_api_partition as _partition  # noqa: E402
from graphc.ops import tf_api_shapes as _shapes  # noqa: E402


def _forward(namespace: str, attr: str, tf_name: str):
    """``gc.<tf_name>`` calling ``gc.<namespace>.<attr>`` (a namespace loaded on first
    use, from the face), as TensorFlow's ``tf.<tf_name>`` is ``tf.<namespace>.<attr>``."""
    def forward(*args, **kwargs):
        face = _sys.modules["graphc"]  # the face, imported before any call reaches here
        target = getattr(getattr(face, namespace, None), attr, None)
        if target is None:
            raise NotImplementedError(f"gc.{tf_name} is gc.{namespace}.{attr}, which this "
                                      "graphc does not provide yet (docs/tf_api.md)")
        return target(*args, **kwargs)

    forward.__name__ = forward.__qualname__ = tf_name
    forward.__doc__ = (f"``tf.{tf_name}``: ``gc.{namespace}.{attr}`` (looked up when "
                       "called).")
    return forward


def _conv(input, filter, strides, padding, explicit_paddings=(),  # noqa: A002
          data_format="CHANNELS_LAST", dilations=(), batch_dims=1, groups=1, name=None):
    if data_format != "CHANNELS_LAST" or batch_dims != 1 or explicit_paddings:
        raise NotImplementedError("gc.conv: only data_format='CHANNELS_LAST', "
                                  "batch_dims=1 and no explicit_paddings")
    inner = list(strides)[1:-1]
    rate = list(dilations)[1:-1] if dilations else None
    return _forward("nn", "convolution", "conv")(input, filter, padding=padding,
                                                 strides=inner, dilations=rate)


_conv.__name__ = _conv.__qualname__ = "conv"
_conv.__doc__ = ("``tf.conv``: the N-D convolution of a channels-last input (strides and "
                 "dilations listed for every dim), through ``gc.nn.convolution``.")

TF_MATH_NAMES = dict(_tfmath.MATH_FALLBACKS)

TF_TOP_LEVEL = {
    # shapes and slices
    **{n: getattr(_shapes, n) for n in (
        "expand_dims squeeze reverse roll slice strided_slice split unstack parallel_stack "
        "meshgrid repeat zeros_like ones_like shape_n identity_n ensure_shape").split()},
    # indexing, scatter, masks, order, sets, histograms
    **{n: getattr(_index, n) for n in (
        "gather_nd scatter_nd tensor_scatter_nd_add tensor_scatter_nd_sub "
        "tensor_scatter_nd_max tensor_scatter_nd_min boolean_mask sequence_mask one_hot "
        "sort argsort searchsorted unique unique_with_counts approx_top_k").split()},
    **{n: getattr(_partition, n) for n in (
        "dynamic_partition dynamic_stitch reverse_sequence histogram_fixed_width "
        "histogram_fixed_width_bins unravel_index").split()},
    # blocks
    **{n: getattr(_blocks, n) for n in (
        "space_to_batch space_to_batch_nd batch_to_space required_space_to_batch_paddings "
        "extract_volume_patches").split()},
    # math that tf.math does not have
    **{n: getattr(_tfmath, n) for n in (
        "clip_by_value clip_by_norm clip_by_global_norm saturate_cast complex einsum "
        "tensordot norm linspace realdiv truncatediv truncatemod").split()},
    # dtypes, shapes, values, control
    **{n: getattr(_misc, n) for n in (
        "DType as_dtype newaxis half double uint16 uint32 uint64 TensorShape "
        "broadcast_static_shape broadcast_dynamic_shape get_static_value is_tensor "
        "no_gradient assert_rank case").split()},
    # tf.debugging's, the same objects
    **{n: getattr(_debugging, n) for n in "Assert assert_equal assert_greater assert_less"
       .split()},
    # tf.signal's, the same objects as gc.signal's
    **{n: getattr(_signal_fft, n) for n in "fftnd ifftnd rfftnd irfftnd".split()},
    # tf.linalg's and tf.nn's, looked up when called
    "eig": _forward("linalg", "eig", "eig"),
    "eigvals": _forward("linalg", "eigvals", "eigvals"),
    "matrix_square_root": _forward("linalg", "sqrtm", "matrix_square_root"),
    "conv": _conv,
    # reinterpreted bits (graphc/ops/bitcast.py)
    "bitcast": _bitcast.bitcast,
}
