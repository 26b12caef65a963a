"""Gradient rules of the TensorArray ops (``ops.py``): ``tensor_array_write``, ``_read``
and ``_stack``; the end of this module attaches them to the ops.

A second derivative through a loop differentiates the loop gradients' own machinery (the
saving loop writes buffers, the backward loop reads them), so these ops have rules.
Sizes and indices are integers: they get no cotangent.
"""

from __future__ import annotations

import numpy as np

from graphc.core.registry import bind
from graphc.ops.convert import asarray
from graphc.ops.creation import arange, zeros, zeros_like
from graphc.ops.join import concatenate
from graphc.ops.linalg import tensordot
from graphc.ops.shape import reshape, shape
from graphc.ops.tensor_array.ops import INDEX, READ, STACK, WRITE, ZEROS
from graphc.ops.ufuncs import where


def _write_grad(cts, args, outputs, *, mode, dynamic, provisional=False):
    """The written value gets the cotangent at the positions it was written to (a
    duplicate index of a scatter: only the write that won); the old buffer gets the
    rest, with the written slots zeroed, cut back to its own shape (before growing)."""
    buffer, _, index, value = args
    ct, size = cts[0], outputs[1]
    if ct is None:
        return None, None, None, None
    got = bind(READ, ct, size, _positions(mode, index, value))
    if mode == "many":  # last write wins: mask the rows another row overwrote
        got = _where_won(got, index, size)
    cleared = bind(WRITE, ct, size, index, zeros_like(value), mode=mode, dynamic=False)[0]
    return _cut_to(cleared, buffer), None, None, got


def _positions(mode, index, value):
    if mode != "block":
        return index
    rows = value.shape[0] if value.shape[0] is not None else _dims(value)[0]
    return index + arange(rows, dtype=INDEX)


def _where_won(got, index, size):
    """Zero the rows of ``got`` whose index a later row of the scatter wrote again."""
    rows = arange(index.shape[0] if index.shape[0] is not None else _dims(index)[0],
                  dtype=INDEX)
    owner = bind(WRITE, bind(ZEROS, size, dtype=INDEX, element_shape=()), size, index,
                 rows, mode="many", dynamic=False)[0]
    won = bind(READ, owner, size, index) == rows
    won = reshape(won, (-1,) + (1,) * (len(got.shape) - 1))
    return where(won, got, zeros((), got.dtype))


def _cut_to(ct, buffer):
    """``ct`` (the cotangent of a write's result) sliced to ``buffer``'s shape: a grown
    buffer's extra rows, and the data a provisional empty buffer never held, drop."""
    have, want = tuple(ct.shape), tuple(buffer.shape)
    if have == want and None not in want:
        return ct
    dims, key = None, []
    for k, (h, w) in enumerate(zip(have, want)):
        if w is not None and h == w:
            key.append(slice(None))
        elif w is not None:
            key.append(slice(None, w))
        else:
            dims = _dims(buffer) if dims is None else dims
            key.append(slice(None, dims[k]))
    return ct[tuple(key)]


def _dims(x):
    return shape(x, out_type=INDEX)


def _read_grad(cts, args, outputs):
    """Scatter-add the cotangent into a zero buffer (a gather's duplicate indices add)."""
    buffer, size, index = args
    if len(index.shape) == 0:
        ct = bind(WRITE, zeros_like(buffer), size, index, cts[0], mode="one", dynamic=False)
        return ct[0], None, None
    cap = buffer.shape[0] if buffer.shape[0] is not None else _dims(buffer)[0]
    hot = arange(cap, dtype=INDEX)[:, None] == reshape(index, (1, -1))
    return tensordot(asarray(hot, dtype=buffer.dtype), cts[0], axes=1), None, None


def _stack_grad(cts, args, outputs, *, concat=False):
    """Unstack the cotangent into the first ``size`` slots of a zero buffer."""
    buffer, size = args
    ct = cts[0]
    if concat:
        elem = tuple(buffer.shape[1:])
        ct = reshape(ct, (-1, *elem)) if None not in elem else \
            reshape(ct, concatenate([asarray([-1], INDEX), _dims(buffer)[1:]]))
    out = bind(WRITE, zeros_like(buffer), size, np.asarray(0, INDEX), ct, mode="block",
               dynamic=False)
    return out[0], None


WRITE.grad, READ.grad, STACK.grad = _write_grad, _read_grad, _stack_grad
