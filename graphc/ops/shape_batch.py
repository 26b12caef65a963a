"""Batching rules (``OpDef.batch``, for gc.vectorized_map) of the shape ops of
graphc/ops/shape.py, of ``tile``/``pad`` (pad_tile.py) and of the joins and splits
(join.py); the end of this module attaches them to the ops.

Each rule moves the batch axis to 0 and re-expresses the op on the batched tensor: the
example's axes shift by one, target shapes gain the batch size in front. A case a rule
does not cover (a shape read at run time, ``order="F"``, unknown ranks) returns
``NotImplemented`` and gc.vectorized_map loops over the batch for that node.
"""

from __future__ import annotations

import numpy as np

from graphc.core.registry import bind
from graphc.core.shapes import normalize_axis
from graphc.ops import batch_util as bu
from graphc.ops import join
from graphc.ops import shape as ops
from graphc.ops.indexing import GETITEM
from graphc.ops.pad_tile import PAD, TILE


def _front(args, dims):
    x = bu.to_front(args[0], dims[0])
    return x, bu.example_rank(x, 0)


def reshape(op):
    def rule(args, dims, shape, order="C"):
        if len(args) > 1 or order != "C" or None in shape:
            return NotImplemented
        x, _ = _front(args, dims)
        lead = bu.shape_of(x)[0]
        if lead is None:
            if -1 in shape:
                known = bu.shape_of(x)[1:]
                if None in known:
                    return NotImplemented
                rest = 1
                for d in shape:
                    rest *= 1 if d == -1 else d
                size = 1
                for d in known:
                    size *= d
                if rest == 0:
                    return NotImplemented
                shape = tuple(size // rest if d == -1 else d for d in shape)
            lead = -1
        return bind(op, x, shape=(lead,) + tuple(shape), order=order), 0
    return rule


def transpose(op):
    def rule(args, dims, axes=None):
        x, n = _front(args, dims)
        if n is None:
            return NotImplemented
        perm = tuple(range(n, 0, -1)) if axes is None else tuple(
            normalize_axis(a, n) + 1 for a in axes)
        return bind(op, x, axes=(0,) + perm), 0
    return rule


def expand_dims(op):
    def rule(args, dims, axis):
        x, n = _front(args, dims)
        if n is None:
            return NotImplemented
        m = n + len(axis)
        return bind(op, x, axis=tuple(normalize_axis(a, m) + 1 for a in axis)), 0
    return rule


def squeeze(op):
    def rule(args, dims, axis=None):
        x, n = _front(args, dims)
        if not n:  # unknown rank, or NumPy's 0-d squeeze rules
            return NotImplemented
        if axis is None:
            example = bu.shape_of(x)[1:]
            if None in example:
                return NotImplemented
            axes = tuple(i + 1 for i, d in enumerate(example) if d == 1)
        elif isinstance(axis, tuple):
            axes = tuple(bu.shift_axis(a, n) for a in axis)
        else:
            axes = bu.shift_axis(axis, n)
        return bind(op, x, axis=axes), 0
    return rule


def broadcast_to(op):
    def rule(args, dims, shape):
        if len(args) > 1 or None in shape:
            return NotImplemented
        x, n = _front(args, dims)
        if n is None or n > len(shape):
            return NotImplemented
        if n < len(shape):
            x = bu.bind_expand(x, *range(1, 1 + len(shape) - n))
        return ops.broadcast_to(x, (bu.batch_size([x], [0]),) + tuple(shape)), 0
    return rule


def along_axis(op, flattens: bool):
    """flip / sort / argsort: ``axis`` shifts; ``axis=None`` means every example axis
    (flip) or a flattened example (sort, argsort: the op then runs on axis 1)."""
    def rule(args, dims, axis=-1 if flattens else None):
        x, n = _front(args, dims)
        if not n:
            return NotImplemented
        if axis is None:
            if flattens:
                x = bu.flatten_examples(x)
                return x if x is NotImplemented else (bind(op, x, axis=1), 0)
            return bind(op, x, axis=tuple(range(1, n + 1))), 0
        if isinstance(axis, tuple):
            return bind(op, x, axis=tuple(bu.shift_axis(a, n) for a in axis)), 0
        return bind(op, x, axis=bu.shift_axis(axis, n)), 0
    return rule


def tile(op):
    """Example reps padded with ones to the example rank, and a 1 for the batch axis."""
    def rule(args, dims, reps):
        x, n = _front(args, dims)
        if len(args) > 1 or n is None:
            return NotImplemented
        reps = (1,) * (n - len(reps)) + tuple(reps)
        if len(reps) > n:  # the example gains leading axes: they go after the batch axis
            x = bu.bind_expand(x, *range(1, 1 + len(reps) - n))
        return bind(op, x, reps=(1,) + reps), 0
    return rule


def repeat(op):
    def rule(args, dims, repeats, axis=None):
        x, n = _front(args, dims)
        if not n and axis is not None:  # NumPy's 0-d rules
            return NotImplemented
        if axis is None:
            x = bu.flatten_examples(x)
            return x if x is NotImplemented else (bind(op, x, repeats=repeats, axis=1), 0)
        return bind(op, x, repeats=repeats, axis=bu.shift_axis(axis, n)), 0
    return rule


def pad(op):
    """Widths ``(0, 0)`` for the batch axis (static widths only)."""
    def rule(args, dims, pad_width, mode="constant", constant_values=0):
        x, n = _front(args, dims)
        if len(args) > 1 or n is None:
            return NotImplemented
        widths = np.broadcast_to(np.asarray(pad_width, np.int64), (n, 2))
        widths = ((0, 0),) + tuple((int(a), int(b)) for a, b in widths)
        return bind(op, x, pad_width=widths, mode=mode, constant_values=constant_values), 0
    return rule


def split(op):
    def rule(args, dims, indices_or_sections, axis=0):
        x, n = _front(args, dims)
        if not n:
            return NotImplemented
        outs = list(bind(op, x, indices_or_sections=indices_or_sections,
                         axis=bu.shift_axis(axis, n)))
        return outs, [0] * len(outs)
    return rule


def join_axis(op, extra: int):
    """concatenate (``extra`` 0) / stack (1): every operand gets the batch axis at 0 (an
    unbatched one is broadcast over the batch: these ops do not broadcast) and the
    example axis shifts by one."""
    def rule(args, dims, axis=0):
        ranks = {bu.example_rank(a, d) for a, d in zip(args, dims)}
        if None in ranks or len(ranks) != 1:
            return NotImplemented  # the op's own error, per example, comes from the loop
        n = ranks.pop() + extra
        if n == 0:
            return NotImplemented
        return bind(op, *bu.all_to_front(args, dims), axis=bu.shift_axis(axis, n)), 0
    return rule


def shape(args, dims, out_type):
    """``gc.shape`` of an example: the batched shape less its batch axis (the same for
    every example, so the result has no batch axis)."""
    x = bu.to_front(args[0], dims[0])
    if bu.rank(x) is None:
        return NotImplemented
    return bind(GETITEM, bind(ops.SHAPE, x, out_type=out_type),
                key=(("slice", 1, None, None),)), None


ops.SHAPE.batch = shape
for _op, _rule in ((ops.RESHAPE, reshape), (ops.TRANSPOSE, transpose),
                   (ops.EXPAND_DIMS, expand_dims), (ops.SQUEEZE, squeeze),
                   (ops.BROADCAST_TO, broadcast_to), (ops.REPEAT, repeat),
                   (TILE, tile), (PAD, pad), (join.SPLIT, split)):
    _op.batch = _rule(_op)
ops.FLIP.batch = along_axis(ops.FLIP, flattens=False)
ops.SORT.batch, ops.ARGSORT.batch = along_axis(ops.SORT, True), along_axis(ops.ARGSORT, True)
join.CONCATENATE.batch = join_axis(join.CONCATENATE, 0)
join.STACK.batch = join_axis(join.STACK, 1)
