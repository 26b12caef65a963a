"""TensorFlow-style index ops: ``gather``, ``tensor_scatter_nd_update``, and ``argwhere``
(TF's one-argument ``where``; ``gnp.nonzero``). NumPy's ``t[key]``/``take`` are in
``indexing.py``, whose index checks these share.
"""

from __future__ import annotations

import numpy as np

from graphc import source_info
from graphc.core.attr_types import AXIS, INT
from graphc.core.registry import NOT_DIFFERENTIABLE, OpDef, bind, register
from graphc.core.shapes import normalize_axis
from graphc.core.tensor import Tensor
from graphc.dtypes import tf_literal
from graphc.ir.graph import Aval
from graphc.ops.indexing import _check_int
from graphc.ops.shape_args import holds_symbolic, pack, static_value


def _gather_axes(p_ndim, i_ndim, axis, batch_dims):
    bd = batch_dims + i_ndim if batch_dims < 0 else batch_dims
    if not 0 <= bd <= i_ndim:
        raise ValueError(f"batch_dims={batch_dims} is out of range for indices of rank {i_ndim}")
    ax = normalize_axis(bd if axis is None else axis, p_ndim)
    if ax < bd:
        raise ValueError(f"axis ({ax}) must be at least batch_dims ({bd})")
    return ax, bd


def _gather_infer(params, indices, axis=None, batch_dims=0):
    _check_int(indices)
    p, i = params.shape, indices.shape
    if p is None or i is None:
        return Aval(None, params.dtype)
    ax, bd = _gather_axes(len(p), len(i), axis, batch_dims)
    for pd, idim in zip(p[:bd], i[:bd]):
        if pd is not None and idim is not None and pd != idim:
            raise ValueError(f"params.shape[:{bd}] {p[:bd]} and indices.shape[:{bd}] "
                             f"{i[:bd]} must be equal (batch_dims={bd})")
    return Aval(p[:ax] + i[bd:] + p[ax + 1:], params.dtype)


def _gather_ref(params, indices, axis=None, batch_dims=0):
    _check_int(indices)
    ax, bd = _gather_axes(params.ndim, indices.ndim, axis, batch_dims)
    n = params.shape[ax]
    bad = (indices < 0) | (indices >= n)
    if bad.any():  # TensorFlow's check: negative indices are errors too
        at = tuple(int(j) for j in np.argwhere(bad)[0])
        raise IndexError(f"indices[{','.join(map(str, at))}] = {indices[at]} is not in [0, {n})")
    if bd == 0:
        return np.take(params, indices, axis=ax)
    if params.shape[:bd] != indices.shape[:bd]:
        raise ValueError(f"params.shape[:{bd}] {params.shape[:bd]} and indices.shape[:{bd}] "
                         f"{indices.shape[:bd]} must be equal (batch_dims={bd})")
    nb = int(np.prod(indices.shape[:bd]))
    p = params.reshape((nb,) + params.shape[bd:])
    idx = indices.reshape((nb,) + indices.shape[bd:])
    out_shape = params.shape[:ax] + indices.shape[bd:] + params.shape[ax + 1:]
    out = np.empty((nb,) + out_shape[bd:], params.dtype)
    for b in range(nb):  # one take per batch entry: clear, and batch_dims > 0 is rare
        out[b] = np.take(p[b], idx[b], axis=ax - bd)
    return out.reshape(out_shape)


# indices must lie in [0, dim) (TensorFlow's rule)
GATHER = register(OpDef(name="gather",
                        attrs={"axis": AXIS, "batch_dims": INT},
                        infer=_gather_infer, ref=_gather_ref))


def gather(params, indices, axis=None, batch_dims=0, name=None):
    """TensorFlow ``gather``: slices of ``params`` along ``axis`` (default ``batch_dims``).

    An index outside ``[0, params.shape[axis])`` raises ``InvalidArgumentError``.

    >>> gc.gather(gc.constant([[1, 2], [3, 4], [5, 6]]), [2, 0]).numpy()
    array([[5, 6],
           [1, 2]], dtype=int32)
    """
    params, indices = _tf_literals(params), _tf_literals(indices)
    # Spell out the default so equal gathers get equal attrs (one CSE/kernel key).
    return bind(GATHER, params, indices, axis=batch_dims if axis is None else _axis(axis),
                batch_dims=batch_dims)


def _axis(axis):
    """A 0-d integer tensor ``axis`` (TensorFlow takes one) as its value, which must be
    known while tracing (an eager tensor, or one computed from constants)."""
    if not isinstance(axis, Tensor):
        return axis
    known = static_value(axis)
    if known is None or np.ndim(known) or np.asarray(known).dtype.kind not in "iu":
        raise TypeError(f"gather: axis must be an int or a 0-d integer tensor known while "
                        f"tracing, got {axis!r:.80}{source_info.where()}")
    return int(known)


# --------------------------------------------------------------------------- scatter
def _scatter_check(tensor, indices, updates):
    """Shared by ``infer`` and ``ref``: eager calls run only ``ref``."""
    _check_int(indices)
    if not np.can_cast(updates.dtype, tensor.dtype, "same_kind"):
        raise TypeError(f"updates of dtype {updates.dtype} cannot be written into a "
                        f"{tensor.dtype} tensor; cast them first")
    t, i, u = tensor.shape, indices.shape, updates.shape
    if t is None or i is None or u is None:
        return
    if len(i) < 1:
        raise ValueError("indices must have shape [..., k] (rank >= 1)")
    k = i[-1]
    if k is None:
        return
    if k > len(t):
        raise ValueError(f"indices.shape[-1] = {k} exceeds the tensor rank {len(t)}")
    want = tuple(i[:-1]) + tuple(t[k:])
    if len(u) != len(want) or any(
            a is not None and b is not None and a != b for a, b in zip(u, want)):
        raise ValueError(f"updates must have shape indices.shape[:-1] + tensor.shape[{k}:] "
                         f"= {want}, got {tuple(u)}")


def _scatter_infer(tensor, indices, updates):
    _scatter_check(tensor, indices, updates)
    return Aval(tensor.shape, tensor.dtype)


def _scatter_ref(tensor, indices, updates):
    _scatter_check(tensor, indices, updates)
    k = indices.shape[-1]
    idx = indices.reshape(int(np.prod(indices.shape[:-1])), k)
    bad = ((idx < 0) | (idx >= np.asarray(tensor.shape[:k], dtype=np.int64))).any(axis=1)
    if bad.any():
        row = int(np.argmax(bad))
        at = ",".join(str(int(j)) for j in np.unravel_index(row, indices.shape[:-1]))
        raise IndexError(f"indices[{at}] = {idx[row].tolist()} does not index into a tensor "
                         f"of shape {tensor.shape}")
    out = tensor.copy()
    upd = updates.reshape((idx.shape[0],) + tensor.shape[k:])
    if k == 0:  # each update replaces the whole tensor; the last one wins
        if len(upd):
            out[...] = upd[-1]
        return out
    out[tuple(idx.T)] = upd
    return out


# a new tensor; indices [..., k] index the first k dims
TENSOR_SCATTER_ND_UPDATE = register(OpDef(
    name="tensor_scatter_nd_update", attrs={}, infer=_scatter_infer, ref=_scatter_ref,
))


def tensor_scatter_nd_update(tensor, indices, updates, name=None):
    """A copy of ``tensor`` with ``updates`` written at ``indices`` (TensorFlow semantics).

    ``indices`` has shape ``[..., k]`` and addresses the first ``k`` dims; ``updates``
    has shape ``indices.shape[:-1] + tensor.shape[k:]``. Out-of-range indices raise
    ``InvalidArgumentError``.

    >>> gc.tensor_scatter_nd_update(gnp.zeros(5), [[1], [3]], [9, 10]).numpy()
    array([ 0.,  9.,  0., 10.,  0.])
    """
    return bind(TENSOR_SCATTER_ND_UPDATE, _tf_literals(tensor), _tf_literals(indices),
                _tf_literals(updates))


def _tf_literals(value):
    """TensorFlow-style names convert Python lists with TensorFlow's dtypes (int32...);
    a list holding traced tensors (``[[i], [i + 1]]``) is packed into one, as TensorFlow
    packs it."""
    if isinstance(value, list | tuple) and holds_symbolic(value):
        from graphc.ops.join import _tf_pack  # deferred: join imports this module's users
        return pack(value, _tf_pack)
    if isinstance(value, list | tuple | int | float):
        return tf_literal(value)
    return value


# --------------------------------------------------------------------------- argwhere
def _argwhere_infer(a):
    return Aval((None, None if a.shape is None else len(a.shape)), np.dtype(np.int64))


def _argwhere_ref(a):
    return np.argwhere(a).astype(np.int64, copy=False)


ARGWHERE = register(OpDef(name="argwhere", attrs={}, infer=_argwhere_infer, ref=_argwhere_ref))


def argwhere(a):
    """Coordinates of the nonzero elements, int64 of shape ``[n, a.ndim]``.

    This is TensorFlow's one-argument ``where(cond)``; ``n`` is ``None`` in a graph.

    >>> gnp.argwhere(gnp.asarray([[0, 1], [1, 0]])).numpy()
    array([[0, 1],
           [1, 0]])
    """
    return bind(ARGWHERE, a)


def nonzero(a):
    """NumPy ``nonzero``: a tuple of int64 index vectors, one per dim of ``a``.

    >>> [v.numpy() for v in gnp.nonzero(gnp.asarray([0, 3, 0, 4]))]
    [array([1, 3])]
    """
    coords = argwhere(a)
    ndim = coords.shape[1]
    if not ndim:  # NumPy 2 refuses 0-d input; unknown rank has no tuple length
        raise ValueError("nonzero needs a tensor of known rank >= 1 (not 0-d); use "
                         f"argwhere{source_info.where()}")
    return tuple(coords[:, i] for i in range(ndim))


# gradients: graphc/ops/grad_arrays.py; batching: graphc/ops/index_batch.py
ARGWHERE.grad = NOT_DIFFERENTIABLE  # integer coordinates
