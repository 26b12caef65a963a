"""Batching rules (``OpDef.batch``, for gc.vectorized_map) of ``getitem``, ``take``,
``take_along_axis`` (graphc/ops/indexing.py), ``gather`` and ``tensor_scatter_nd_update``
(gather.py); the end of this module attaches them to the ops.

``getitem`` with a static key (no index tensors) indexes each example when a full slice
for the batch axis goes in front of it; keys with index tensors are looped over (their
advanced-indexing axis placement is not handled yet).

Batched params alone: the axis shifts (``axis=None``: each example flattened). Batched
indices alone: the op as it is, the batch axis landing where the indices go. Both: a
``gather`` with one more batch dim (``take``'s negative / wrapped / clipped indices are
normalized first, so an out-of-range index still raises)."""

from __future__ import annotations

import numpy as np

from graphc.core.registry import bind
from graphc.ops import batch_util as bu
from graphc.ops import elementwise as ew
from graphc.ops.gather import GATHER, TENSOR_SCATTER_ND_UPDATE
from graphc.ops.indexing import GETITEM, SETITEM, TAKE, TAKE_ALONG_AXIS
from graphc.ops.join import CONCATENATE


def getitem(args, dims, key):
    if len(args) > 1:
        return NotImplemented
    x = bu.to_front(args[0], dims[0])
    return bind(GETITEM, x, key=(("slice", None, None, None),) + tuple(key)), 0


def setitem(args, dims, key):
    """``t[key] = v`` per example: the key behind a full slice over the batch axis; a
    batched ``v`` gets 1s after its batch axis up to the region's rank (so its example
    dims broadcast against the region's, as NumPy's write does), an unbatched ``t`` is
    broadcast over the batch. Keys with index tensors loop."""
    if len(args) > 2:
        return NotImplemented
    (x, dx), (v, dv) = zip(args, dims)
    region = bind(GETITEM, x if dx is None else bu.to_front(x, dx), key=(
        ("slice", None, None, None),) + tuple(key) if dx is not None else tuple(key))
    r = bu.rank(region) - (dx is not None)
    x = bu.with_batch(x, dx, bu.batch_size(args, dims))
    if dv is not None:
        v = bu.to_front(v, dv)
        extra = r - bu.example_rank(v, 0)
        if extra > 0:
            v = bu.bind_expand(v, *range(1, 1 + extra))
        elif extra < 0:
            return NotImplemented  # leading 1s NumPy drops from an example of v
    return bind(SETITEM, x, v, key=(("slice", None, None, None),) + tuple(key)), 0


def _normalized(idx, n, mode):
    if mode == "wrap":
        return bind(ew.REMAINDER, idx, n)
    if mode == "clip":
        return bind(ew.MINIMUM, bind(ew.MAXIMUM, idx, 0), n - 1)
    return bind(ew.WHERE, bind(ew.LESS, idx, 0), bind(ew.ADD, idx, n), idx)


def take(args, dims, axis=None, mode="raise"):
    (a, da), (idx, di) = zip(args, dims)
    n = bu.example_rank(a, da)
    if n is None or (n == 0 and axis is not None):
        return NotImplemented
    if da is None:  # only the indices carry the batch
        return bind(TAKE, a, idx, axis=axis, mode=mode), (di if axis is None else
                                                          axis % n + di)
    a = bu.to_front(a, da)
    if axis is None:
        a, ax = bu.flatten_examples(a), 1
        if a is NotImplemented:
            return NotImplemented
    else:
        ax = bu.shift_axis(axis, n)
    if di is None:
        return bind(TAKE, a, idx, axis=ax, mode=mode), 0
    size = bu.shape_of(a)[ax]
    if size is None or (size == 0 and mode != "raise"):
        return NotImplemented
    idx = _normalized(bu.to_front(idx, di), size, mode)
    return bind(GATHER, a, idx, axis=ax, batch_dims=1), 0


def take_along_axis(args, dims, axis):
    (a, da), (idx, di) = zip(args, dims)
    n = bu.example_rank(a, da)
    if n is None or (n == 0 and axis is not None):
        return NotImplemented
    a = bu.to_front(a, da) if da is not None else bu.bind_expand(a, 0)
    idx = bu.to_front(idx, di) if di is not None else bu.bind_expand(idx, 0)
    if axis is None:
        a = bu.flatten_examples(a)
        if a is NotImplemented:
            return NotImplemented
        return bind(TAKE_ALONG_AXIS, a, idx, axis=1), 0
    return bind(TAKE_ALONG_AXIS, a, idx, axis=bu.shift_axis(axis, n)), 0


def gather(args, dims, axis=None, batch_dims=0):
    (p, dp), (idx, di) = zip(args, dims)
    n, m = bu.example_rank(p, dp), bu.example_rank(idx, di)
    if n is None or m is None or n == 0:
        return NotImplemented
    bd = batch_dims + m if batch_dims < 0 else batch_dims
    ax = (bd if axis is None else axis) % n
    if bd and None in (dp, di):  # batch_dims > 0, one operand shared: broadcast it
        shared = p if dp is None else idx
        if None in bu.shape_of(shared):
            return NotImplemented
        size = bu.batch_size(args, dims)
        p, idx = (bu.with_batch(a, d, size) for a, d in zip(args, dims))
        return bind(GATHER, p, idx, axis=ax + 1, batch_dims=bd + 1), 0
    if dp is None:  # indices alone: a leading batch dim of the indices, no batch_dims
        return bind(GATHER, p, idx, axis=ax, batch_dims=0), ax + di
    p = bu.to_front(p, dp)
    if di is None:
        return bind(GATHER, p, idx, axis=ax + 1, batch_dims=0), 0
    return bind(GATHER, p, bu.to_front(idx, di), axis=ax + 1, batch_dims=bd + 1), 0


GETITEM.batch, TAKE.batch, TAKE_ALONG_AXIS.batch = getitem, take, take_along_axis
SETITEM.batch = setitem
GATHER.batch = gather


def tensor_scatter_nd_update(args, dims):
    """One scatter into the batched tensor: each example's index rows get its batch
    index in front (``[b, i...]``), so its updates land in its own slice. Indices of
    unknown shape or a batch size known only at run time: looped."""
    size = bu.batch_size(args, dims)
    if not isinstance(size, int):
        return NotImplemented
    t, idx, upd = (bu.with_batch(a, d, size) for a, d in zip(args, dims))
    shape = tuple(bu.shape_of(idx))
    if any(s is None for s in shape):
        return NotImplemented
    rows = np.arange(size, dtype=idx.dtype).reshape((size,) + (1,) * (len(shape) - 1))
    rows = np.broadcast_to(rows, shape[:-1] + (1,))
    idx = bind(CONCATENATE, rows, idx, axis=-1)
    return bind(TENSOR_SCATTER_ND_UPDATE, t, idx, upd), 0


TENSOR_SCATTER_ND_UPDATE.batch = tensor_scatter_nd_update
