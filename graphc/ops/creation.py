"""Creation ops: constants, fills, ranges, eye, identity/copy; and tensor conversion.

Conversion is not an op: ``asarray``/``constant`` make an eager tensor (or, while
tracing, a ``const`` node), see ``convert.py`` (re-exported here). Both copy NumPy input
so later changes to the array never change the tensor. ``gnp`` names use NumPy's literal
dtypes; ``gc.constant`` and the other TensorFlow-style names use TensorFlow's (float32 /
int32).
"""

from __future__ import annotations

import operator

import numpy as np

from graphc import config, source_info
from graphc.core import device_scope, placement, trace
from graphc.core.attr_types import BOOL, CONST, DTYPE, INT, NUMBER, OPT_DTYPE, SHAPE
from graphc.core.device_scope import placing as _placing
from graphc.core.device_tensor import made as _made
from graphc.core.registry import NOT_DIFFERENTIABLE, OpDef, bind, register
from graphc.core.tensor import Tensor
from graphc.dtypes import as_dtype, numpy_literal, result_type, tf_literal
from graphc.errors import InvalidArgumentError
from graphc.ir.graph import Aval
from graphc.ops import shape_args
from graphc.ops.blocks import ELEMENTWISE
from graphc.ops.convert import _convert, asarray
from graphc.ops.shape import broadcast_to, reshape

CONST = register(OpDef(
    name="const",
    attrs={"value": CONST},
    infer=lambda value: Aval(value.array.shape, value.array.dtype),
    ref=lambda value: value.array,
    extra={"public": "a constant"},
))


def _shape_attr(shape) -> tuple:
    if isinstance(shape, Tensor):
        shape = shape.numpy().tolist()
    if isinstance(shape, int | np.integer):
        return (int(shape),)
    try:
        dims = tuple(operator.index(d) for d in shape)
    except TypeError:
        raise TypeError(f"shape must be an int or a sequence of ints, got {shape!r}"
                        f"{source_info.where()}") from None
    _check_nonnegative(dims, dims)
    return dims


def _check_nonnegative(dims, shown):
    if any(d is not None and d < 0 for d in dims):
        raise InvalidArgumentError(f"negative dimension in shape {shown}{source_info.where()}")


def _full_infer(value, *shape_operand, shape, dtype):
    return Aval(shape, dtype)


def _full_ref(value, *shape_operand, shape, dtype):
    if shape_operand:  # dynamic: ``shape`` is the template, the operand the dims
        shape = shape_args.dims(shape_operand[0], shape, "full")
    return np.full(shape, value, dtype=dtype)


# with a second operand (a 1-D int64 tensor) the shape is read from it at run time and
# the ``shape`` attr is its template (dims known while tracing, ``None`` for the
# others; ``None``: rank unknown)
FULL = register(OpDef(
    name="full", attrs={"shape": SHAPE, "dtype": DTYPE}, infer=_full_infer, ref=_full_ref,
))


def _bind_full(value, shape, dtype, what):
    """``full`` of ``shape`` (ints, or ints and traced 0-d ints, or a 1-D int tensor)."""
    template, operand = shape_args.shape_arg(shape, what)
    if operand is None:
        _check_nonnegative(template, template)
        return bind(FULL, value, shape=template, dtype=dtype)
    _check_nonnegative(template or (), template)
    return bind(FULL, value, operand, shape=template, dtype=dtype)


def _like_infer(x, value, dtype=None):
    return Aval(x.shape, dtype or x.dtype)


def _full_like_ref(x, value, dtype=None):
    return np.full_like(x, value, dtype=dtype)


FULL_LIKE = register(OpDef(
    name="full_like",
    attrs={"value": NUMBER, "dtype": OPT_DTYPE},
    infer=_like_infer, ref=_full_like_ref,
    blocks=ELEMENTWISE,  # each block's result is full_like of the block
))


def _eye_ref(N, M, k, dtype):
    return np.eye(N, M, k, dtype=dtype)


EYE = register(OpDef(
    name="eye",
    attrs={"N": INT, "M": INT, "k": INT, "dtype": DTYPE},
    infer=lambda N, M, k, dtype: Aval((N, M), dtype), ref=_eye_ref,
))


def _arange_ref(start, stop, step, dtype):
    return np.arange(start, stop, step, dtype=dtype)


def _arange_infer(start, stop, step, dtype):
    return Aval(_arange_ref(start, stop, step, dtype).shape, dtype)


# np.arange with static bounds (``range``: tensor bounds)
ARANGE = register(OpDef(
    name="arange",
    attrs={"start": NUMBER, "stop": NUMBER, "step": NUMBER, "dtype": DTYPE},
    infer=_arange_infer, ref=_arange_ref,
))


def _range_ref(start, stop, step, dtype):
    return np.arange(start, stop, step, dtype=dtype)


# np.arange with tensor bounds: the length is unknown while tracing
RANGE = register(OpDef(
    name="range",
    attrs={"dtype": DTYPE},
    infer=lambda start, stop, step, dtype: Aval((None,), dtype),
    ref=_range_ref, weak=(0, 1, 2),
))


def _linspace_ref(start, stop, num, endpoint, dtype):
    return np.linspace(start, stop, num, endpoint=endpoint, dtype=dtype)


# np.linspace with static bounds
LINSPACE = register(OpDef(
    name="linspace",
    attrs={"start": NUMBER, "stop": NUMBER, "num": INT, "endpoint": BOOL, "dtype": DTYPE},
    infer=lambda start, stop, num, endpoint, dtype: Aval((num,), dtype),
    ref=_linspace_ref,
))


def _identity_ref(x):
    return x.copy()


IDENTITY = register(OpDef(
    name="identity", attrs={}, infer=lambda x: Aval(x.shape, x.dtype), ref=_identity_ref,
    elementwise=True, scalar="{0}",
))


# ----------------------------------------------------------------------------- API
def constant(value, dtype=None, shape=None, name=None) -> Tensor:
    """TensorFlow's ``tf.constant``: Python floats become float32, ints int32.

    >>> gc.constant([1, 2]).dtype
    dtype('int32')
    """
    t = _convert(value, dtype, tf_literal)
    if shape is not None:
        shape = _shape_attr(shape)
        if t.size == 1 and int(np.prod(shape)) != 1:
            return full(shape, reshape(t, ()), dtype=t.dtype)
        return reshape(t, shape)
    return t


def _default_float():
    return np.dtype(np.float32) if config.state.prefer_float32 else np.dtype(np.float64)


# NumPy's allocation signatures: ``order`` is checked as NumPy checks it and otherwise
# ignored (a tensor's elements are read in logical order, so a Fortran-ordered array
# reads the same); ``device`` places the new tensor as a ``gc.device`` scope would
# ("cpu" as NumPy); ``like`` and ``subok`` are accepted and ignored (the result is a
# tensor).
def full(shape, fill_value, dtype=None, order="C", *, device=None, like=None) -> Tensor:
    """``np.full``: a tensor of ``shape`` filled with ``fill_value``.

    ``shape`` may hold traced 0-d integer tensors (``[n, 3]``) or be a 1-D integer
    tensor; dims known only at run time are ``None`` in the result's aval (the same for
    ``zeros``, ``ones``, ``empty`` and ``gc.fill``).
    """
    if device is not None:
        with device_scope.device(device):
            return full(shape, fill_value, dtype, order)
    _check_order(order, "CF")
    value = asarray(fill_value, dtype)
    return _bind_full(value, shape, value.dtype, "full")


def zeros(shape, dtype=None, order="C", *, device=None, like=None) -> Tensor:
    """``np.zeros`` (float64 by default; ``gc.zeros`` defaults to float32); ``shape`` as
    in :func:`full`."""
    if device is not None:
        with device_scope.device(device):
            return zeros(shape, dtype, order)
    _check_order(order, "CF")
    dtype = as_dtype(dtype) or _default_float()
    return _bind_full(np.zeros((), dtype), shape, dtype, "zeros")


def ones(shape, dtype=None, order="C", *, device=None, like=None) -> Tensor:
    """``np.ones`` (float64 by default; ``gc.ones`` defaults to float32); ``shape`` as
    in :func:`full`."""
    if device is not None:
        with device_scope.device(device):
            return ones(shape, dtype, order)
    _check_order(order, "CF")
    dtype = as_dtype(dtype) or _default_float()
    return _bind_full(np.ones((), dtype), shape, dtype, "ones")


def empty(shape, dtype=None, order="C", *, device=None, like=None) -> Tensor:
    """``np.empty``; graphc fills it with zeros so results are deterministic."""
    return zeros(shape, dtype, order, device=device)


def zeros_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None) -> Tensor:
    """``np.zeros_like``; ``shape`` overrides ``a``'s shape (``dtype`` defaults to
    ``a``'s either way)."""
    return full_like(a, 0, dtype, order, shape=shape, device=device)


def ones_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None) -> Tensor:
    """``np.ones_like``; ``shape`` as in :func:`zeros_like`."""
    return full_like(a, 1, dtype, order, shape=shape, device=device)


def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *,
              device=None) -> Tensor:
    """``np.full_like``; ``shape`` as in :func:`zeros_like`."""
    if device is not None:
        with device_scope.device(device):
            return full_like(a, fill_value, dtype, order, shape=shape)
    _check_order(order, "CFAK")
    if shape is not None:
        if dtype is None:
            dtype = a.dtype if isinstance(a, Tensor | np.ndarray) else asarray(a).dtype
        return full(shape, fill_value, dtype)
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.numpy()
    if isinstance(fill_value, np.ndarray):
        fill_value = fill_value.item()
    return bind(FULL_LIKE, a, value=fill_value, dtype=as_dtype(dtype))


def empty_like(prototype, /, dtype=None, order="K", subok=True, shape=None, *,
               device=None) -> Tensor:
    """``np.empty_like``; graphc fills it with zeros, as :func:`empty`."""
    return full_like(prototype, 0, dtype, order, shape=shape, device=device)


def _check_order(order, allowed: str) -> None:
    """NumPy's check of an ``order`` argument (graphc then ignores it)."""
    if order is None:
        return
    if not isinstance(order, str):
        raise TypeError(f"order must be str, not {type(order).__name__}")
    if order.upper() not in ("C", "F", "A", "K") or len(order) != 1:
        raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    if order.upper() not in allowed:
        raise ValueError("only 'C' or 'F' order is permitted")


def eye(N, M=None, k=0, dtype=None) -> Tensor:
    """``np.eye`` (float64 by default; ``gc.eye`` defaults to float32)."""
    dtype = as_dtype(dtype) or _default_float()
    return bind(EYE, N=operator.index(N), M=operator.index(N if M is None else M),
                k=operator.index(k), dtype=dtype)


def identity(n, dtype=None) -> Tensor:
    """``np.identity``: the ``n x n`` identity matrix."""
    return eye(n, dtype=dtype)


def _static_number(v):
    if isinstance(v, Tensor) and not v.is_symbolic:
        return v.numpy().item()
    if isinstance(v, np.generic):
        return v.item()
    return v


def arange(start, stop=None, step=1, dtype=None) -> Tensor:
    """``np.arange``; with symbolic bounds the length is unknown while tracing."""
    if stop is None:
        start, stop = 0, start
    start, stop, step = (_static_number(v) for v in (start, stop, step))
    if any(isinstance(v, Tensor) for v in (start, stop, step)):
        return _dynamic_range(start, stop, step, dtype)
    if step == 0:
        raise ValueError("arange: step must not be zero")
    if dtype is None:
        dtype = np.result_type(start, stop, step)
        if dtype == np.float64:
            dtype = _default_float()
    dtype = as_dtype(dtype)
    return bind(ARANGE, start=start, stop=stop, step=step, dtype=dtype)


def _dynamic_range(start, stop, step, dtype):
    dtype = as_dtype(dtype) or result_type(*[
        v if isinstance(v, Tensor) else numpy_literal(v) for v in (start, stop, step)
    ])
    return bind(RANGE, start, stop, step, dtype=dtype)


def tf_range(start, limit=None, delta=1, dtype=None, name=None) -> Tensor:
    """TensorFlow's ``tf.range``: Python ints give int32, Python floats float32."""
    if limit is None:
        start, limit = 0, start
    vals = [_static_number(v) for v in (start, limit, delta)]
    if dtype is None:
        if any(isinstance(v, Tensor) for v in vals):
            dtype = np.result_type(*[v.dtype for v in vals if isinstance(v, Tensor)])
        else:
            dtype = tf_literal(vals).dtype
    return arange(*vals, dtype=dtype)


def linspace(start, stop, num=50, endpoint=True, dtype=None) -> Tensor:
    """``np.linspace`` with Python-number bounds."""
    start, stop = _static_number(start), _static_number(stop)
    dtype = as_dtype(dtype) or _default_float()
    return bind(LINSPACE, start=start, stop=stop, num=operator.index(num),
                endpoint=bool(endpoint), dtype=dtype)


def copy(a) -> Tensor:
    """``np.copy``: a tensor with the same value. Eagerly, under a ``gc.device`` scope
    the copy is made on that device (from whichever device ``a`` is on); this is how
    tensors move between devices (docs/devices.md)."""
    if (_placing or _made) and not trace.active():
        moved = placement.copy(a)
        if moved is not None:
            return moved
    return bind(IDENTITY, a)


# --------------------------------------------------------------------------- gradients
# (the rule contract is in graphc/ops/elementwise.py's gradients section)
# every element is the value: its cotangent is the result's, summed back to the value's
# shape by the walk (shape operands are integers: no gradient)
FULL.grad = lambda cts, args, outs, **_: (cts[0],) + (None,) * (len(args) - 1)
IDENTITY.grad = lambda cts, args, outs, **_: (cts[0],)
# values that depend on no input value (full_like keeps only x's shape and dtype; range's
# length depends on its operands' values, as in TensorFlow: no gradient)
for _op in (CONST, FULL_LIKE, EYE, ARANGE, RANGE, LINSPACE):
    _op.grad = NOT_DIFFERENTIABLE

# batching (gc.vectorized_map): identity is elementwise, and gets the shared rule with
# the elementwise ops (graphc/ops/elementwise_batch.py)


def _full_batch(args, dims, shape, dtype):
    """``full`` of a per-example value (``gc.fill(dims, i)``): the values, one per
    example, broadcast over the static shape. A shape read at run time: looped."""
    from graphc.ops import batch_util as bu  # deferred: batch_util imports shape ops
    if len(args) > 1 or dims[0] is None or None in shape:
        return NotImplemented
    value = bu.to_front(args[0], dims[0])
    size = bu.shape_of(value)[0]
    if size is None or bu.example_rank(value, 0):
        return NotImplemented
    value = reshape(value, (size,) + (1,) * len(shape)).astype(dtype)
    return broadcast_to(value, (size,) + tuple(shape)), 0


# full_like keeps only x's shape and dtype: the same op on the batched x
FULL.batch = _full_batch
FULL_LIKE.batch = lambda args, dims, **attrs: (bind(FULL_LIKE, *args, **attrs), dims[0])
