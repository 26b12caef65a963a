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

from graphc import source_info
from graphc.core import placement, trace
from graphc.core.device_scope import placing as _placing
from graphc.core.registry import bind, get
from graphc.core.tensor import Tensor, _eager, _symbolic
from graphc.dtypes import as_dtype, numpy_literal, tf_literal
from graphc.ops.elementwise import CAST
from graphc.ops.shape_args import holds_symbolic


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
    if _placing:  # some thread has an accelerator scope open: maybe this one
        return placement.place_new(_eager(arr))
    return _eager(arr)


def asarray(a, dtype=None) -> Tensor:
    """Convert ``a`` (number, nested list, ndarray, Tensor) to a tensor, NumPy's dtypes.

    >>> gnp.asarray(1).dtype, gnp.asarray(1.).dtype
    (dtype('int64'), dtype('float64'))

    While tracing, a nested list holding traced tensors (``[x, 0.5]``, ``[[x, 0], [0,
    y]]``) is stacked into one tensor as NumPy would build it (:func:`_from_nested`).
    """
    if (type(a) is list or type(a) is tuple) and trace.active() and holds_symbolic(a):
        return _from_nested(a, dtype)
    return _convert(a, dtype, numpy_literal)


def array(a, dtype=None, copy=True) -> Tensor:
    """Like ``asarray``, but a tensor is copied unless ``copy=False`` (as ``np.array``):
    writing into the result never changes ``a``."""
    if (type(a) is list or type(a) is tuple) and trace.active() and holds_symbolic(a):
        return _from_nested(a, dtype)
    out = _convert(a, dtype, numpy_literal)
    if copy and out is a:
        if a._np is None:  # traced: a new name for the value (a write rebinds only it)
            return _symbolic(a._sym)
        if type(a) is Tensor:
            return _eager(a._np.copy())
        return bind(get("identity"), a)  # on a device: its copy op
    return out


def convert_to_tensor(value, dtype=None, dtype_hint=None, name=None) -> Tensor:
    """TensorFlow's ``tf.convert_to_tensor`` (TensorFlow literal dtypes)."""
    if dtype is None and dtype_hint is not None and not isinstance(value, Tensor):
        dtype = dtype_hint
    return _convert(value, dtype, tf_literal)


# ------------------------------------------------------------------ lists of traced values
def _from_nested(value, dtype):
    """``np.array(value, dtype)`` for a nested list/tuple holding traced tensors: one
    ``stack`` per nesting level of the converted elements. NumPy's rules: the shape is the
    nesting's (a ragged list raises NumPy's ``ValueError``), and without ``dtype`` the
    dtype promotes the elements' dtypes, where a Python number counts as ``np.asarray``
    converts it (not weakly: ``np.array([x_f32, 1.0])`` is float64, ``[x_i32, 1]`` int64).
    """
    leaves = []
    found = _nested_shape(value, leaves)
    if found is not None and not found[1]:
        raise ValueError(
            "setting an array element with a sequence. The requested array has an "
            f"inhomogeneous shape after {len(found[0])} dimensions. The detected shape was "
            f"{found[0]} + inhomogeneous part.{source_info.where()}")
    if dtype is None:
        dtype = np.result_type(*[v.dtype for v in leaves])
    return _stack_nested(value, as_dtype(dtype))


def _stack_nested(value, dtype):
    if isinstance(value, list | tuple) and holds_symbolic(value):
        return bind(get("stack"), *[_stack_nested(v, dtype) for v in value], axis=0)
    return _convert(value, dtype, numpy_literal)


def _nested_shape(value, leaves):
    """``(dims, complete)``: the shape NumPy finds for ``value`` (``None`` for a traced
    dim unknown while tracing), and whether the nesting is regular (else ``dims`` is the
    part that is); ``None`` where a tensor's rank is unknown. Collects the leaves
    (tensors, and arrays for the other values)."""
    if isinstance(value, list | tuple):
        found = [_nested_shape(v, leaves) for v in value]
        if any(f is None for f in found):
            return None
        dims, complete = _common(found)
        return (len(value), *dims), complete
    if not isinstance(value, Tensor):
        as_tensor = getattr(value, "_graphc_tensor_", None)  # a gc.Variable
        value = as_tensor() if as_tensor is not None else numpy_literal(value)
    leaves.append(value)
    return (None if value.shape is None else (tuple(value.shape), True))


def _common(found) -> tuple:
    """The dims all ``(dims, complete)`` agree on (unknown dims match any), and whether
    they agree on all of them."""
    if not found:
        return (), True
    out = []
    for i in range(max(len(dims) for dims, _ in found)):
        if any(i >= len(dims) for dims, _ in found):
            return tuple(out), False
        known = {dims[i] for dims, _ in found if dims[i] is not None}
        if len(known) > 1:
            return tuple(out), False
        out.append(known.pop() if known else None)
    return tuple(out), all(complete for _, complete in found)
