"""``tile`` and ``pad``: shape ops whose parameters (repetitions, widths, the constant)
may be tensors known only at run time.

Each takes its static parameters as attrs, as every op does. A parameter that holds a
traced tensor becomes an operand instead (see ``shape_args``): ``tile(x, reps_t,
reps=template)`` and ``pad(x, [widths_t], [constant_t], pad_width=template,
constant_values=None)``. The attr then says what is known while tracing, ``None`` where
the operand decides: a ``None`` in ``reps``/``pad_width`` means the repetitions/widths
come from the next operand, ``constant_values=None`` that the constant comes from the
last one. ``gnp.tile``/``gnp.pad`` and ``gc.tile``/``gc.pad`` bind them; ``shape.py``
re-exports them.
"""

from __future__ import annotations

import numpy as np

from graphc import source_info
from graphc.core.attr_types import NONE, NUMBER, SHAPE, STR, one_of, tuple_of
from graphc.core.registry import OpDef, bind, get, register
from graphc.core.shapes import probe_infer
from graphc.core.tensor import Tensor
from graphc.ir.graph import Aval
from graphc.ops import shape_args
from graphc.ops.tf_elementwise import _tf_args


# ----------------------------------------------------------------------------- tile
def _tile_ref(x, *reps_operand, reps):
    if reps_operand:
        reps = shape_args.dims(reps_operand[0], reps, "tile")
    return np.tile(x, reps)


def _tile_infer(x, *reps_operand, reps):
    if not reps_operand:
        return probe_infer(_tile_ref, [x], {"reps": reps})
    if reps is None or x.shape is None:
        return Aval(None, x.dtype)
    nd = max(len(x.shape), len(reps))
    dims = (1,) * (nd - len(x.shape)) + tuple(x.shape)
    reps = (1,) * (nd - len(reps)) + tuple(reps)
    return Aval(tuple(0 if d == 0 or r == 0 else None if d is None or r is None else d * r
                      for d, r in zip(dims, reps)), x.dtype)


TILE = register(OpDef(name="tile", attrs={"reps": SHAPE}, infer=_tile_infer, ref=_tile_ref))


# ----------------------------------------------------------------------------- pad
def _dynamic_widths(pad_width) -> bool:
    return any(None in row for row in pad_width)  # a 0-d x keeps rows of one width


def _pad_parameters(operands, pad_width, constant_values):
    """The widths and constant a pad node means, operands read where attrs say so."""
    operands = list(operands)
    if _dynamic_widths(pad_width):
        arr = np.asarray(operands.pop(0))
        widths = shape_args.dims(arr.reshape(-1), None, "pad")  # checks >= 0
        pad_width = np.asarray(widths, np.int64).reshape(arr.shape)
    if constant_values is None:
        constant_values = operands.pop(0)
    return pad_width, constant_values


def _pad_ref(x, *operands, pad_width, mode="constant", constant_values=0):
    if operands:
        pad_width, constant_values = _pad_parameters(operands, pad_width, constant_values)
    if mode == "constant":
        return np.pad(x, pad_width, mode=mode, constant_values=constant_values)
    return np.pad(x, pad_width, mode=mode)


def _pad_infer(x, *operands, pad_width, mode="constant", constant_values=0):
    if x.shape is None:
        return Aval(None, x.dtype)
    if _dynamic_widths(pad_width):
        return Aval(tuple(None if d is None or a is None or b is None else d + a + b
                          for d, (a, b) in zip(x.shape, pad_width)), x.dtype)
    widths = np.broadcast_to(np.asarray(pad_width, dtype=np.int64), (len(x.shape), 2))
    shape = tuple(None if d is None else d + int(a) + int(b) for d, (a, b) in
                  zip(x.shape, widths))
    return Aval(shape, x.dtype)


PAD = register(OpDef(name="pad",
                     attrs={"pad_width": tuple_of(SHAPE), "mode": STR,
                            "constant_values": one_of(NONE, NUMBER)},
                     infer=_pad_infer, ref=_pad_ref))


# ----------------------------------------------------------------------------- API
def _rank(a):
    return len(a.shape) if isinstance(a, Tensor) else np.ndim(a)


def tile(a, reps):
    """``np.tile``. ``reps`` may hold traced 0-d integer tensors or be a 1-D integer
    tensor; the dims they decide are ``None`` in the result's aval."""
    template, operand = shape_args.shape_arg(reps, "tile")
    if operand is None:
        return bind(TILE, a, reps=template)
    return bind(TILE, a, operand, reps=template)


def tf_tile(input, multiples, name=None):  # noqa: A002
    """``tf.tile``: ``multiples`` has one entry per dim of ``input`` (ints, traced 0-d
    ints or a 1-D integer tensor)."""
    return tile(*_tf_args(input), multiples)


def _object_array(p):
    """A nested list/tuple of numbers and tensors as an object array of its leaves."""
    leaves = []

    def walk(q):
        if not isinstance(q, list | tuple):
            leaves.append(q)
            return ()
        shapes = {walk(r) for r in q}
        if len(shapes) > 1:
            raise ValueError("its rows have different lengths")
        return (len(q),) + (shapes.pop() if shapes else ())

    shape = walk(p)
    out = np.empty(len(leaves), object)
    for i, leaf in enumerate(leaves):  # one by one: NumPy would convert a whole list
        out[i] = leaf
    return out.reshape(shape)


def _widths(a, pad_width):
    """``(template, operand)``: the widths as a tuple of ``(before, after)`` pairs, one
    per axis; ``None`` in a pair where a traced tensor decides, and then ``operand`` is
    the ``(n, 2)`` int64 tensor of all widths."""
    nd = max(_rank(a), 1)
    if isinstance(pad_width, Tensor):
        value = shape_args.static_value(pad_width)
        if value is None:
            if pad_width.dtype.kind not in "iu":
                raise TypeError(f"pad: pad_width must be integers, got a {pad_width.dtype} "
                                f"tensor{source_info.where()}")
            t = shape_args.as_int64(pad_width)
            if t.shape != (nd, 2):
                t = bind(get("broadcast_to"), t, shape=(nd, 2))
            return ((None, None),) * nd, t
        pad_width = value
    elif isinstance(pad_width, list | tuple) and shape_args.holds_symbolic(pad_width):
        try:
            cells = np.broadcast_to(_object_array(pad_width), (nd, 2))
        except ValueError as e:
            raise ValueError(f"pad: pad_width {pad_width!r:.60} does not fit a tensor of "
                             f"rank {_rank(a)} ({e}){source_info.where()}") from None
        template, flat = shape_args.shape_arg(list(cells.reshape(-1)), "pad")
        pairs = tuple(zip(template[::2], template[1::2]))
        if flat is None:  # every traced entry was known while tracing
            return pairs, None
        return pairs, bind(get("reshape"), flat, shape=(nd, 2), order="C")
    widths = np.asarray(pad_width, dtype=np.int64)
    if widths.ndim < 2:
        widths = widths.reshape(1, -1)
    if _rank(a):  # a 0-d tensor keeps its widths: NumPy still checks them (>= 0)
        widths = np.broadcast_to(widths, (_rank(a), 2))
    return tuple(map(tuple, widths.tolist())), None


def _static_constant(value):
    if isinstance(value, Tensor | np.ndarray):
        arr = np.asarray(value._np if isinstance(value, Tensor) else value)
        return arr.item() if arr.ndim == 0 else _tuples(arr.tolist())
    return value


def _tuples(v):
    return tuple(_tuples(x) for x in v) if isinstance(v, list) else v


def pad(a, pad_width, mode="constant", constant_values=0):
    """``np.pad``; modes 'constant', 'edge', 'reflect', 'symmetric', 'wrap'.

    Widths may hold traced 0-d integer tensors (or be an integer tensor of shape
    ``(rank, 2)``), and ``constant_values`` may be a traced tensor; both are then
    operands of the node, read at run time.
    """
    operands = []
    if constant_values is None:
        raise TypeError(f"pad: constant_values must be a number or a tensor, not None"
                        f"{source_info.where()}")
    if isinstance(constant_values, Tensor) and mode == "constant":
        value = shape_args.static_value(constant_values)
        if value is None:
            operands.append(constant_values)
            constant_values = None
        else:
            constant_values = _static_constant(value)
    else:
        constant_values = _static_constant(constant_values)
    template, widths = _widths(a, pad_width)
    if widths is not None:
        operands.insert(0, widths)
    return bind(PAD, a, *operands, pad_width=template, mode=mode,
                constant_values=constant_values)


def tf_pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    """``tf.pad``: ``paddings`` is ``(rank, 2)`` (ints, traced 0-d ints or an integer
    tensor); modes "CONSTANT", "REFLECT", "SYMMETRIC"."""
    return pad(*_tf_args(tensor), paddings, mode=str(mode).lower(),
               constant_values=constant_values)


# gradients: graphc/ops/grad_arrays.py (selections, see segment.py; the padding's
# constant stands at position -1); batching: graphc/ops/shape_batch.py
