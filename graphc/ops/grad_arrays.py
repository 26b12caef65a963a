"""Gradient rules of the ops that move elements: the joins and splits (``join.py``),
``tile``/``pad`` (``pad_tile.py``), the shape ops (``shape.py``), the indexing ops
(``indexing.py``, ``gather.py``); the end of this module attaches them to the ops. The
rule contract is in ``elementwise.py``'s gradients section; most of these ops are
*selections*, whose rule ``segment.selection`` derives.
"""

from __future__ import annotations

import numpy as np

from graphc.core.registry import bind
from graphc.ops import gather, indexing, join, pad_tile
from graphc.ops import shape as ops
from graphc.ops.creation import zeros_like
from graphc.ops.elementwise import _want
from graphc.ops.reduce import sum as reduce_sum
from graphc.ops.segment import POSITION, positions, scatter_back, selection
from graphc.ops.ufuncs import where


def concatenate_grad(cts, args, outs, axis=0):
    """Each input gets its own stretch of the cotangent along ``axis``."""
    nd = len(outs[0].shape)
    ax = axis % nd
    sizes = [a.shape[ax] for a in args]
    if None in sizes:   # the stretches' bounds read at run time
        at, pieces = 0, []
        for a, n in zip(args, sizes):
            end = at + (ops.shape(a)[ax] if n is None else n)
            pieces.append(cts[0][(slice(None),) * ax + (slice(at, end),)])
            at = end
        return tuple(p if _want(a) else None for p, a in zip(pieces, args))
    bounds, at = [], 0
    for n in sizes[:-1]:
        at += n
        bounds.append(at)
    pieces = join.split(cts[0], bounds, axis=ax)
    return tuple(p if _want(a) else None for p, a in zip(pieces, args))


def stack_grad(cts, args, outs, axis=0):
    ax = axis % len(outs[0].shape)
    pieces = join.split(cts[0], len(args), axis=ax)
    return tuple(ops.squeeze(p, axis=ax) if _want(a) else None for p, a in zip(pieces, args))


def split_grad(cts, args, outs, indices_or_sections, axis=0):
    """The pieces' cotangents joined back (the walk gives zeros for unused pieces)."""
    return (join.concatenate(list(cts), axis=axis),)


def pad_grad(cts, args, outs, pad_width, mode="constant", constant_values=0):
    """A selection from ``x`` (see segment.py) whose padding stands at position -1; a
    constant given as a 0-d tensor operand receives the cotangent of the padding."""
    x, operands = args[0], list(args[1:])
    constant = operands.pop() if constant_values is None else None
    grads = [None] * len(args)
    if not (_want(x) or (constant is not None and _want(constant))):
        return tuple(grads)
    picks = bind(pad_tile.PAD, positions(x, "pad"), *operands, pad_width=pad_width, mode=mode,
                 constant_values=-1)
    if _want(x):
        grads[0] = scatter_back(x.shape, cts[0], picks)
    if constant is not None and _want(constant):
        if tuple(constant.shape) != ():
            raise NotImplementedError("the gradient of pad's constant is implemented for a "
                                      "single (0-d) constant")
        grads[-1] = reduce_sum(where(picks < 0, cts[0], 0))
    return tuple(grads)


def sort_grad(cts, args, outs, axis=-1):
    """The sorted values are picked from ``x`` by its (stable) argsort."""
    x = args[0]
    if not _want(x):
        return (None,)
    ids = positions(x, "sort")
    order = bind(ops.ARGSORT, x, axis=axis)
    picks = indexing.take(ids, order) if axis is None else indexing.take_along_axis(
        ids, order, axis)
    return (scatter_back(x.shape, cts[0], picks),)


def reshape_grad(in_c_order):
    """``reshape``'s rule: ``in_c_order`` (the rearranging ops' shared rule) for C order;
    an order='F' reshape is undone by the same reshape in F order."""
    def grad(cts, args, outs, order="C", **attrs):
        if order == "C":
            return in_c_order(cts, args, outs, **attrs)
        x = args[0]
        if x.shape is None or None in x.shape:
            raise NotImplementedError("the gradient of an order='F' reshape needs the "
                                      "input's dims while tracing")
        back = bind(ops.RESHAPE, cts[0], shape=tuple(x.shape), order=order)
        return (back,) + (None,) * (len(args) - 1)

    return grad


def back_to_shape(cts, args, outs, **_):
    """Ops that only rearrange: the cotangent reshaped to the input's shape (one dim
    unknown while tracing is inferred; several are read at run time)."""
    dims = args[0].shape
    if dims is None:
        raise NotImplementedError("the gradient of a reshape of a tensor of unknown rank "
                                  "is not implemented yet")
    if sum(d is None for d in dims) > 1:
        return (ops.reshape(cts[0], ops.shape(args[0], out_type=np.int64)),)
    return (ops.reshape(cts[0], tuple(-1 if d is None else d for d in dims)),)


def transpose_grad(cts, args, outs, axes=None, **_):
    inverse = None if axes is None else tuple(int(i) for i in np.argsort(axes))
    return (ops.transpose(cts[0], inverse),)


def flip_grad(cts, args, outs, axis=None, **_):
    return (bind(ops.FLIP, cts[0], axis=axis),)


def scatter_grad(cts, args, outs):
    """``tensor_scatter_nd_update``: the result's elements come from the tensor or from
    the updates (the last of duplicate indices wins, so earlier duplicates get no
    gradient): the op applied to the positions of both, numbered one after the other,
    says which."""
    tensor, indices, updates = args
    if not (_want(tensor) or _want(updates)):
        return None, None, None
    what = "tensor_scatter_nd_update"
    ids_t, ids_u = positions(tensor, what), positions(updates, what)
    n_t = int(np.prod(tensor.shape, dtype=np.int64))
    picks = bind(gather.TENSOR_SCATTER_ND_UPDATE, ids_t, indices,
                 ids_u + np.asarray(n_t, POSITION))
    n_u = int(np.prod(updates.shape, dtype=np.int64))
    flat = scatter_back((n_t + n_u,), cts[0], picks)
    return (ops.reshape(flat[:n_t], tuple(tensor.shape)) if _want(tensor) else None, None,
            ops.reshape(flat[n_t:], tuple(updates.shape)) if _want(updates) else None)


def setitem_grad(cts, args, outs, key):
    """``t[key] = v``: the overwritten region of ``t`` gets no gradient; ``v`` gets the
    result's gradient over that region (summed back over broadcast dims by the walk)."""
    x, value, *idx = args
    g = cts[0]
    gx = bind(indexing.SETITEM, g, np.zeros((), g.dtype), *idx, key=key) if _want(x) else None
    gv = None
    if _want(value):
        gv = bind(indexing.GETITEM, g, *idx, key=key)
        extra = len(value.shape) - len(gv.shape)  # leading 1s NumPy dropped from v
        if extra > 0:
            gv = ops.reshape(gv, (1,) * extra + tuple(gv.shape))
    return (gx, gv) + (None,) * len(idx)


def getitem_grad(cts, args, outs, key):
    """``t[key]``: the cotangent scattered back to the picked positions. When ``t``'s
    shape is known only at run time (a loop's saved stack, cut to its used rows inside a
    gradient loop) and the key picks each element at most once (slices, ints, new axes,
    0-d indices), that is ``zeros_like(t)`` with the region set to the cotangent; other
    keys take the positions route of ``selection``, which needs the shape."""
    x, *idx = args
    basic = all(e[0] in ("int", "slice", "newaxis", "ellipsis")
                or (e[0] == "array" and idx[e[1]].shape == ()) for e in key)
    if x.shape is None or None not in x.shape or not basic or not _want(x):
        return _getitem_selection(cts, args, outs, key=key)
    zero = zeros_like(x)
    return (bind(indexing.SETITEM, zero, cts[0], *idx, key=key),) + (None,) * len(idx)


# --------------------------------------------------------------------------- the rules
join.CONCATENATE.grad = concatenate_grad
join.STACK.grad = stack_grad
join.SPLIT.grad = split_grad
pad_tile.TILE.grad = selection(pad_tile.TILE)
pad_tile.PAD.grad = pad_grad
ops.RESHAPE.grad = reshape_grad(back_to_shape)  # F order too
ops.EXPAND_DIMS.grad = ops.SQUEEZE.grad = back_to_shape
ops.BROADCAST_TO.grad = lambda cts, args, outs, **_: (cts[0],)  # the walk sums it back
ops.TRANSPOSE.grad = transpose_grad
ops.FLIP.grad = flip_grad
ops.SORT.grad, ops.REPEAT.grad = sort_grad, selection(ops.REPEAT)
for _op in (indexing.TAKE, indexing.TAKE_ALONG_AXIS, gather.GATHER):
    _op.grad = selection(_op)
_getitem_selection = selection(indexing.GETITEM)
indexing.GETITEM.grad = getitem_grad
gather.TENSOR_SCATTER_ND_UPDATE.grad = scatter_grad
indexing.SETITEM.grad = setitem_grad
