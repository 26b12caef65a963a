"""``gc.bitcast(input, type)``: TensorFlow's ``tf.bitcast``, the registry op ``bitcast``.

The bytes of each innermost run of values are read as values of another dtype (NumPy's
``ndarray.view`` of a C-ordered copy; the machine's byte order, little-endian on every
platform graphc runs on, as TensorFlow's). Shapes, TensorFlow's rule, for input itemsize
``i`` and target itemsize ``o``:

* ``i == o``: the shape is kept;
* ``i > o``: a last dim of ``i // o`` is added;
* ``i < o``: the last dim must be ``o // i`` and is removed (a 0-d input, or another last
  dim, is an error; an unknown last dim is checked when the graph runs).

``bool`` and string types are refused, as TensorFlow refuses them (its op takes numbers
only). No gradient (TensorFlow's ``Bitcast`` is not differentiable either). Batching: the
batch axis moved to the front is one more leading dim. Compiled: no Numba emitter (the
Numba backend runs the node on the interpreter; docs/tf_api.md).
"""

from __future__ import annotations

import numpy as np

from graphc import source_info
from graphc.core.attr_types import DTYPE
from graphc.core.registry import NOT_DIFFERENTIABLE, OpDef, bind, register
from graphc.ir.graph import Aval
from graphc.ops import batch_util as bu
from graphc.ops.convert import asarray


def _check_dtype(dt, what):
    if dt.kind not in "iufc":
        raise TypeError(f"gc.bitcast: {what} must be a numeric type (integer, float or "
                        f"complex), got {dt}")


def _out_shape(shape, src, dst):
    """The result's shape (TensorFlow's rule; ``None`` dims unknown)."""
    i, o = src.itemsize, dst.itemsize
    if i == o:
        return tuple(shape)
    if i > o:
        return tuple(shape) + (i // o,)
    if not shape or (shape[-1] is not None and shape[-1] != o // i):
        raise ValueError(f"Cannot bitcast from {src} to {dst}: the last dim of the input "
                         f"(shape {list(shape)}) must be {o // i}")
    return tuple(shape[:-1])


def _infer(x, *, dtype):
    return Aval(_out_shape(x.shape, x.dtype, dtype), dtype)


def _ref(x, *, dtype):
    x = np.asarray(x)
    out = _out_shape(x.shape, x.dtype, dtype)  # run-time check of an unknown last dim
    flat = np.ascontiguousarray(x).reshape(-1)
    return flat.view(dtype).reshape(out).copy()


BITCAST = register(OpDef(name="bitcast", attrs={"dtype": DTYPE}, infer=_infer, ref=_ref))
BITCAST.grad = NOT_DIFFERENTIABLE


def _batch(args, dims, **attrs):
    (x,), (d,) = args, dims
    if bu.example_rank(x, d) is None:
        return NotImplemented
    return bind(BITCAST, bu.to_front(x, d), **attrs), 0


BITCAST.batch = _batch


def bitcast(input, type, name=None):  # noqa: A002 - TensorFlow's argument names
    """``tf.bitcast``: the bits of ``input`` as ``type`` (numeric dtypes only).

    Same itemsize: the shape is kept; a smaller ``type`` adds a last dim of
    ``itemsize(input) // itemsize(type)``; a larger one removes a last dim, which must be
    ``itemsize(type) // itemsize(input)``.
    """
    x = asarray(input)
    dtype = np.dtype(type)
    _check_dtype(x.dtype, "input")
    _check_dtype(dtype, "type")
    try:
        _out_shape(x.shape, x.dtype, dtype)
    except ValueError as e:
        raise ValueError(f"{e}{source_info.where()}") from None
    return bind(BITCAST, x, dtype=dtype)
