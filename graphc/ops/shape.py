"""Shape ops: reshape, transpose, axes moves, broadcasts, repeats, flips, sort, and
TensorFlow's ``shape``/``size``/``rank`` (``tile`` and ``pad`` live in ``pad_tile.py``,
joins and splits in ``join.py``). Shapes may hold tensors: see ``shape_args.py``. The
ops' gradient rules are attached by ``grad_arrays.py``, their batching rules by
``shape_batch.py``.
"""

from __future__ import annotations

import builtins

import numpy as np

from graphc import source_info
from graphc.core.attr_types import AXES, AXIS, DTYPE, INT_OR_INTS, INTS, OPT_INTS, SHAPE, STR
from graphc.core.registry import NOT_DIFFERENTIABLE, OpDef, bind, register
from graphc.core.shapes import _fmt, normalize_axes, normalize_axis, num_elements, probe_infer
from graphc.core.tensor import Tensor
from graphc.errors import InvalidArgumentError
from graphc.ir.graph import Aval
from graphc.ops import shape_args
from graphc.ops.blocks import NEW_AXES, SHAPE_OF, TRANSPOSE
from graphc.ops.convert import convert_to_tensor
from graphc.ops.pad_tile import PAD, TILE, pad, tf_tile, tile  # noqa: F401 - re-exported
from graphc.ops.reduce import prod


def _same(x, **attrs):
    return Aval(x.shape, x.dtype)


# ----------------------------------------------------------------------------- reshape
def _reshape_infer(x, *shape_operand, shape, order="C"):
    known = None if x.shape is None else num_elements(x.shape)
    if shape is None:  # a 1-D shape tensor of unknown length: rank unknown
        return Aval(None, x.dtype)
    if shape.count(-1) > 1:
        raise ValueError(f"can only specify one unknown dimension (-1) in {shape}")
    if None in shape:
        return _reshape_partial(x, known, shape)
    if -1 in shape:
        rest = num_elements([d for d in shape if d != -1])
        if known is None:
            fill = None
        elif rest == 0 or known % rest:
            raise ValueError(f"cannot reshape a tensor of size {known} into shape {shape}")
        else:
            fill = known // rest
        return Aval(tuple(fill if d == -1 else d for d in shape), x.dtype)
    if known is not None and known != num_elements(shape):
        raise ValueError(f"cannot reshape a tensor of size {known} into shape {shape}")
    return Aval(shape, x.dtype)


def _reshape_partial(x, known, shape):
    """Some target dims are run-time values (``None``; each may also turn out -1). With
    the size known and one such dim alone, it is the only value that fits."""
    fixed = [d for d in shape if d is not None and d != -1]
    rest = num_elements(fixed)
    if known is not None and rest and known % rest:
        raise ValueError(f"cannot reshape a tensor of size {known} into shape "
                         f"{_fmt(shape)}: {known} is not a multiple of {rest}")
    open_dims = sum(d is None or d == -1 for d in shape)
    if known is not None and rest and open_dims == 1:
        return Aval(tuple(known // rest if d is None else d for d in shape), x.dtype)
    return Aval(tuple(None if d == -1 else d for d in shape), x.dtype)


def _reshape_ref(x, *shape_operand, shape, order="C"):
    if shape_operand:
        shape = shape_args.dims(shape_operand[0], shape, "reshape", allow_minus_one=True)
    return np.reshape(x, shape, order=order)


# with a second operand (1-D int64) the shape is read from it at run time (the
# ``shape`` attr: its template)
RESHAPE = register(OpDef(name="reshape",
                         attrs={"shape": SHAPE, "order": STR},
                         infer=_reshape_infer, ref=_reshape_ref, extra={"reshapes": True}))


def _transpose_infer(x, axes=None):
    if x.shape is None:  # unknown rank: so is the result (rank len(axes) when given)
        return Aval(None if axes is None else (None,) * len(axes), x.dtype)
    n = len(x.shape)
    if axes is None:
        return Aval(x.shape[::-1], x.dtype)
    if sorted(normalize_axis(a, n) for a in axes) != list(range(n)):
        raise ValueError(f"axes {axes} are not a permutation of the {n} axes")
    return Aval(tuple(x.shape[a] for a in axes), x.dtype)


def _transpose_ref(x, axes=None):
    return np.transpose(x, axes)


TRANSPOSE = register(OpDef(name="transpose",
                           attrs={"axes": OPT_INTS},
                           infer=_transpose_infer, ref=_transpose_ref, blocks=TRANSPOSE))


def _expand_dims_infer(x, axis):
    n = len(x.shape) + len(axis)
    axes = normalize_axes(axis, n)
    it = iter(x.shape)
    return Aval(tuple(1 if i in axes else next(it) for i in range(n)), x.dtype)


def _expand_dims_ref(x, axis):
    """``np.expand_dims`` (its errors for bad axes), as one reshape: NumPy's own call costs
    ~3 us of axis normalization, more than the reshape on the interpreter's hot path."""
    x = np.asarray(x)
    n = x.ndim + len(axis)
    axes = {a + n if a < 0 else a for a in axis}
    if len(axes) != len(axis) or not all(0 <= a < n for a in axes):
        return np.expand_dims(x, axis)
    it = iter(x.shape)
    return x.reshape(tuple(1 if i in axes else next(it) for i in range(n)))


EXPAND_DIMS = register(OpDef(name="expand_dims", attrs={"axis": INTS}, infer=_expand_dims_infer,
                             ref=_expand_dims_ref, blocks=NEW_AXES, extra={"reshapes": True}))


def _squeeze_infer(x, axis=None):
    if not x.shape:  # NumPy lets axis=0/-1 squeeze a 0-d array: ask it
        return probe_infer(_squeeze_ref, [x], {"axis": axis})
    if axis is None:
        if None in x.shape:
            raise ValueError("squeeze without axis needs known dims; pass axis=")
        return Aval(tuple(d for d in x.shape if d != 1), x.dtype)
    axes = normalize_axes(axis, len(x.shape))
    for a in axes:
        if x.shape[a] not in (1, None):
            raise ValueError(f"cannot squeeze axis {a} of size {x.shape[a]}")
    return Aval(tuple(d for i, d in enumerate(x.shape) if i not in axes), x.dtype)


def _squeeze_ref(x, axis=None):
    return np.squeeze(x, axis)


SQUEEZE = register(OpDef(name="squeeze",
                         attrs={"axis": AXES},
                         infer=_squeeze_infer, ref=_squeeze_ref, blocks=NEW_AXES,
                         extra={"reshapes": True}))


def _broadcast_to_infer(x, *shape_operand, shape):
    if shape is None or x.shape is None:
        return Aval(None, x.dtype)
    # Checked dim by dim rather than with broadcast_shapes: an unknown input dim may turn
    # out to be 1 or the target dim, so it is compatible with any target, even a 1.
    ok = len(x.shape) <= len(shape) and all(
        d is None or d == 1 or t is None or d == t for d, t in zip(x.shape[::-1], shape[::-1]))
    if not ok:
        raise ValueError(f"cannot broadcast shape {x.shape} to {shape}")
    # a run-time target dim facing a known input dim other than 1 can only equal it
    lead = (None,) * (len(shape) - len(x.shape))
    return Aval(tuple(d if t is None and d not in (None, 1) else t
                      for d, t in zip(lead + tuple(x.shape), shape)), x.dtype)


def _broadcast_to_ref(x, *shape_operand, shape):
    if shape_operand:
        shape = shape_args.dims(shape_operand[0], shape, "broadcast_to")
    return np.broadcast_to(x, shape)


# with a second operand (1-D int64) the shape is read from it at run time
BROADCAST_TO = register(OpDef(name="broadcast_to",
                              attrs={"shape": SHAPE},
                              infer=_broadcast_to_infer,
                              ref=_broadcast_to_ref))


def _repeat_ref(x, repeats, axis=None):
    return np.repeat(x, repeats, axis=axis)


def _repeat_infer(x, repeats, axis=None):
    if not x.shape:  # NumPy takes axis=0/-1 on a 0-d array: its own rules on a stand-in
        return probe_infer(_repeat_ref, [x], {"repeats": repeats, "axis": axis})
    if not isinstance(repeats, int) and len(repeats) == 1:
        repeats = repeats[0]  # one count broadcasts over the axis, like an int
    if axis is None:
        n = num_elements(x.shape)
        total = (None if n is None else n * repeats) if isinstance(repeats, int) else (
            builtins.sum(repeats))
        return Aval((total,), x.dtype)
    axis = normalize_axis(axis, len(x.shape))
    d = x.shape[axis]
    size = (None if d is None else d * repeats) if isinstance(repeats, int) else (
        builtins.sum(repeats))
    return Aval(x.shape[:axis] + (size,) + x.shape[axis + 1:], x.dtype)


# static repeats
REPEAT = register(OpDef(name="repeat",
                        attrs={"repeats": INT_OR_INTS, "axis": AXIS},
                        infer=_repeat_infer, ref=_repeat_ref))


def _flip_infer(x, axis=None):
    normalize_axes(axis, len(x.shape))
    return Aval(x.shape, x.dtype)


FLIP = register(OpDef(name="flip", attrs={"axis": AXES}, infer=_flip_infer,
                      ref=lambda x, axis=None: np.flip(x, axis)))


def _sort_infer(x, axis=-1):
    if not x.shape:  # np.argsort takes axis=0/-1 on a 0-d array, np.sort does not
        return probe_infer(_sort_ref, [x], {"axis": axis})
    if axis is None:
        return Aval((num_elements(x.shape),), x.dtype)
    normalize_axis(axis, len(x.shape))
    return Aval(x.shape, x.dtype)


def _argsort_infer(x, axis=-1):
    if not x.shape:
        return probe_infer(_argsort_ref, [x], {"axis": axis})
    return Aval(_sort_infer(x, axis).shape, np.dtype(np.intp))


def _sort_ref(x, axis=-1):
    return np.sort(x, axis=axis, kind="stable")


def _argsort_ref(x, axis=-1):
    return np.argsort(x, axis=axis, kind="stable")


SORT = register(OpDef(name="sort",
                      attrs={"axis": AXIS},
                      infer=_sort_infer, ref=_sort_ref))
ARGSORT = register(OpDef(name="argsort",
                         attrs={"axis": AXIS},
                         infer=_argsort_infer, ref=_argsort_ref))


def _shape_infer(x, out_type):
    return Aval((None if x.shape is None else len(x.shape),), out_type)


SHAPE = register(OpDef(name="shape", attrs={"out_type": DTYPE}, infer=_shape_infer,
                       ref=lambda x, out_type: np.array(x.shape, dtype=out_type), blocks=SHAPE_OF))


# ----------------------------------------------------------------------------- API
def reshape(a, newshape=None, order="C", shape=None):
    """``np.reshape``; one dim may be -1. The shape may hold traced 0-d integer tensors
    or be a 1-D integer tensor (read at run time; a traced entry may be -1 too)."""
    template, operand = shape_args.shape_arg(shape if newshape is None else newshape,
                                             "reshape")
    if operand is None:
        return bind(RESHAPE, a, shape=template, order=order)
    return bind(RESHAPE, a, operand, shape=template, order=order)


def ravel(a):
    """``np.ravel``."""
    return bind(RESHAPE, a, shape=(-1,), order="C")


def transpose(a, axes=None):
    """``np.transpose``."""
    return bind(TRANSPOSE, a, axes=None if axes is None else tuple(axes))


def _axes_error(name, e):
    """A bad axis found by a wrapper (before any op runs), named like an op's error."""
    kind = TypeError if isinstance(e, TypeError) else InvalidArgumentError
    return kind(f"{name}: {e}{source_info.where()}")


def swapaxes(a, axis1, axis2):
    """``np.swapaxes``."""
    n = _rank(a)
    axes = list(range(n))
    try:
        i, j = normalize_axis(axis1, n), normalize_axis(axis2, n)
    except (TypeError, ValueError) as e:
        raise _axes_error("swapaxes", e) from None
    axes[i], axes[j] = axes[j], axes[i]
    return transpose(a, axes)


def moveaxis(a, source, destination):
    """``np.moveaxis``."""
    n = _rank(a)
    try:
        src = [normalize_axis(s, n) for s in np.atleast_1d(source).tolist()]
        dst = [normalize_axis(d, n) for d in np.atleast_1d(destination).tolist()]
        if len(src) != len(dst):
            raise ValueError("`source` and `destination` arguments must have the same "
                             "number of elements")
        for what, axes in (("source", src), ("destination", dst)):
            if len(set(axes)) != len(axes):
                raise ValueError(f"repeated axis in `{what}` argument")
    except (TypeError, ValueError) as e:
        raise _axes_error("moveaxis", e) from None
    order = [i for i in range(n) if i not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return transpose(a, order)


def _rank(a):
    return len(a.shape) if isinstance(a, Tensor) else np.ndim(a)


def expand_dims(a, axis):
    """``np.expand_dims``."""
    return bind(EXPAND_DIMS, a, axis=tuple(axis) if isinstance(axis, list | tuple) else (axis,))


def squeeze(a, axis=None):
    """``np.squeeze``."""
    return bind(SQUEEZE, a, axis=tuple(axis) if isinstance(axis, list) else axis)


def broadcast_to(a, shape):
    """``np.broadcast_to``; ``shape`` may hold traced 0-d integer tensors or be a 1-D
    integer tensor (dims known only at run time are ``None`` in the aval)."""
    template, operand = shape_args.shape_arg(shape, "broadcast_to")
    if operand is None:
        return bind(BROADCAST_TO, a, shape=template)
    return bind(BROADCAST_TO, a, operand, shape=template)


def repeat(a, repeats, axis=None):
    """``np.repeat`` with Python-int (or list of int) repeats."""
    repeats = int(repeats) if isinstance(repeats, int | np.integer) else tuple(
        int(r) for r in np.asarray(repeats).ravel())
    return bind(REPEAT, a, repeats=repeats, axis=axis)


def flip(a, axis=None):
    """``np.flip``."""
    return bind(FLIP, a, axis=tuple(axis) if isinstance(axis, list) else axis)


def sort(a, axis=-1):
    """``np.sort`` (stable)."""
    return bind(SORT, a, axis=axis)


def argsort(a, axis=-1):
    """``np.argsort`` (stable)."""
    return bind(ARGSORT, a, axis=axis)


def shape(input, out_type=np.int32, name=None):  # noqa: A002
    """``tf.shape``: the dims as an int32 tensor (known at run time)."""
    return bind(SHAPE, input, out_type=np.dtype(out_type))


def size(input, out_type=np.int32, name=None):  # noqa: A002
    """``tf.size``: number of elements as an int32 tensor."""
    return prod(shape(input, out_type=np.int64), dtype=np.dtype(out_type))


def rank(input, name=None):  # noqa: A002
    """``tf.rank``: the number of dims as an int32 tensor (static)."""
    return convert_to_tensor(_rank(input), dtype=np.int32)


# gradients: graphc/ops/grad_arrays.py; batching: graphc/ops/shape_batch.py
ARGSORT.grad = SHAPE.grad = NOT_DIFFERENTIABLE
