"""Helpers shared by the ops' batching rules (``OpDef.batch``, used by gc.vectorized_map).

A rule receives its operands and, for each, the position of its batch axis (``None``: the
operand is the same for every example). These helpers move a batch axis to the front,
give an operand a batch axis it lacks (broadcast over the batch), and read ranks, so the
rules in the op modules stay a few lines each. All of them go through ``bind``: they work
on eager tensors and while tracing alike.
"""

from __future__ import annotations

import numpy as np

from graphc.core.registry import bind
from graphc.ops.indexing import GETITEM
from graphc.ops.shape import EXPAND_DIMS, RESHAPE, SHAPE, TRANSPOSE, broadcast_to


def rank(x) -> int | None:
    """The number of dims of ``x`` (``None`` when unknown)."""
    shape = np.shape(x) if isinstance(x, np.ndarray) else x.shape
    return None if shape is None else len(shape)


def shape_of(x):
    return np.shape(x) if isinstance(x, np.ndarray) else x.shape


def to_front(x, d):
    """``x`` with its batch axis ``d`` moved to position 0 (unchanged when ``d`` is None
    or 0)."""
    if d is None or d == 0:
        return x
    n = rank(x)
    axes = (d,) + tuple(i for i in range(n) if i != d)
    return bind(TRANSPOSE, x, axes=axes)


def example_rank(x, d) -> int | None:
    """The rank of one example of ``x`` (its rank less the batch axis, if any)."""
    n = rank(x)
    return None if n is None else n - (d is not None)


def batch_size(args, dims):
    """The batch size: an int when some batched operand knows it, else an int64 scalar
    tensor read at run time from the first batched operand."""
    first = None
    for a, d in zip(args, dims):
        if d is not None:
            shape = shape_of(a)
            size = None if shape is None else shape[d]
            if size is not None:
                return int(size)
            if first is None:
                first = (a, d)
    a, d = first
    return bind(GETITEM, bind(SHAPE, a, out_type=np.dtype(np.int64)), key=(("int", d),))


def with_batch(x, d, size):
    """``x`` with its batch axis at 0; an unbatched ``x`` is broadcast over ``size``
    examples (an int or an integer scalar tensor)."""
    if d is not None:
        return to_front(x, d)
    shape = tuple(shape_of(x))
    if None in shape:  # dims unknown while tracing: read when the graph runs
        dyn = bind(SHAPE, x, out_type=np.dtype(np.int64))
        shape = tuple(bind(GETITEM, dyn, key=(("int", k),)) if s is None else s
                      for k, s in enumerate(shape))
    return broadcast_to(bind_expand(x, 0), (size,) + shape)


def bind_expand(x, *axes):
    return bind(EXPAND_DIMS, x, axis=tuple(axes))


def all_to_front(args, dims):
    """Every operand with its batch axis at 0, unbatched operands broadcast over the
    batch (for ops that do not broadcast: concatenate, stack)."""
    size = batch_size(args, dims)
    return [with_batch(a, d, size) for a, d in zip(args, dims)]


def shift_axis(axis, n: int) -> int:
    """Axis ``axis`` of an example of rank ``n`` as an axis of the batched tensor."""
    if not -n <= axis < n:
        raise ValueError(f"axis {axis} is out of bounds for rank {n}")
    return axis % n + 1


def flatten_examples(x):
    """``x`` (batch axis 0) reshaped to ``(batch, example size)``, or ``NotImplemented``
    when an example's size is unknown (or zero with the batch size unknown)."""
    shape = shape_of(x)
    size = 1
    for s in shape[1:]:
        if s is None:
            return NotImplemented
        size *= s
    if shape[0] is None and size == 0:
        return NotImplemented
    lead = -1 if shape[0] is None else shape[0]
    return bind(RESHAPE, x, shape=(lead, size), order="C")
