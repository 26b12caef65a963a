"""Indexing ops: NumPy ``t[key]``, ``take``, ``take_along_axis``, TF ``gather``,
``tensor_scatter_nd_update`` and ``argwhere`` (TF's one-argument ``where``).

``t[key]`` is one op, ``getitem``. Its ``key`` attr is the static structure of the NumPy
key as a hashable tuple of entries::

    ('int', 2)  ('bool', True)  ('newaxis',)  ('ellipsis',)  ('array', k)
    ('slice', start, stop, step)     # each part: int, None, or ('in', k)

where ``k`` is the position of a tensor input after the indexed tensor. Tensor-valued
parts of the key (index arrays, masks, traced scalars) become those inputs, so a graph
can index with values it only knows at run time. ``ref`` rebuilds the NumPy key and runs
``x[key]``; ``infer`` applies NumPy's rules to avals. A boolean mask always yields a
``None`` dim in a graph, even a constant one: its count is data.

(Over ~400 lines: NumPy's indexing rules take half of it; the gather/scatter ops share
its index checks. ``tensor_scatter_nd_update`` and ``argwhere`` could move out if it grows.)
"""

from __future__ import annotations

import functools
import operator

import numpy as np

from graphc.ops.registry import OpDef, bind, register
from graphc.ops.shapes import broadcast_shapes, normalize_axis, probe_infer
from graphc.tracer import source_info
from graphc.tracer.ir import Aval
from graphc.tracer.tensor import Tensor

_NEWAXIS = ("newaxis",)
_ELLIPSIS = ("ellipsis",)
_FULL = ("slice", None, None, None)
_VALID = ("only integers, slices (`:`), ellipsis (`...`), gnp.newaxis (`None`) and integer "
          "or boolean arrays, lists or tensors are valid indices")


# --------------------------------------------------------------------------- encoding
def _encode(key):
    """``(entries, inputs)``: the key's static structure and its tensor-valued parts."""
    if type(key) is int:  # t[0] in a loop: the common case, kept to one tuple
        return (("int", key),), ()
    inputs = []
    items = key if type(key) is tuple else (key,)
    return tuple(_encode_one(k, inputs) for k in items), inputs


def _encode_one(k, inputs):
    t = type(k)
    if t is int:
        return ("int", k)
    if t is slice:
        return ("slice", _part(k.start, inputs), _part(k.stop, inputs), _part(k.step, inputs))
    if k is None:
        return _NEWAXIS
    if k is Ellipsis:
        return _ELLIPSIS
    if t is bool or t is np.bool_:
        return ("bool", bool(k))
    if isinstance(k, np.integer):
        return ("int", int(k))
    if isinstance(k, Tensor):
        if k._np is None:  # symbolic: its value is an input of the node
            if k.dtype.kind not in "iub":
                raise TypeError(f"{_VALID}; got a {k.dtype} tensor{source_info.where()}")
            inputs.append(k)
            return ("array", len(inputs) - 1)
        arr = k._np
    elif isinstance(k, (list, tuple, np.ndarray)):
        try:
            arr = np.asarray(k)
        except ValueError as e:
            raise TypeError(f"{_VALID}; could not use {k!r:.60} ({e}){source_info.where()}")
        if arr.size == 0 and arr.dtype.kind == "f" and not isinstance(k, np.ndarray):
            arr = arr.astype(np.intp)  # NumPy reads an empty list as an empty int index
    else:
        raise TypeError(f"{_VALID}; got {t.__name__} {k!r:.60}{source_info.where()}")
    if arr.dtype.kind not in "iub":
        raise TypeError(f"{_VALID}; got an array of dtype {arr.dtype}{source_info.where()}")
    if arr.ndim == 0:  # a known 0-d value is as static as a Python scalar
        return ("bool", bool(arr)) if arr.dtype.kind == "b" else ("int", int(arr))
    inputs.append(arr)
    return ("array", len(inputs) - 1)


def _part(p, inputs):
    """One slice bound: int, None, or ``('in', k)`` for a traced 0-d integer tensor."""
    if p is None or type(p) is int:
        return p
    if isinstance(p, Tensor) and p._np is None:
        if p.shape != () or p.dtype.kind not in "iu":
            raise TypeError(f"slice bounds must be 0-d integer tensors, got shape {p.shape} "
                            f"{p.dtype}{source_info.where()}")
        inputs.append(p)
        return ("in", len(inputs) - 1)
    try:
        return operator.index(p)
    except TypeError:
        raise TypeError(f"slice indices must be integers, None or 0-d integer tensors, got "
                        f"{type(p).__name__} {p!r:.40}{source_info.where()}") from None


# --------------------------------------------------------------------------- getitem
def _bound(p, arrays):
    return operator.index(arrays[p[1]]) if type(p) is tuple else p


def _decode(key, arrays):
    out = []
    for e in key:
        tag = e[0]
        if tag == "int" or tag == "bool":
            out.append(e[1])
        elif tag == "slice":
            out.append(slice(_bound(e[1], arrays), _bound(e[2], arrays), _bound(e[3], arrays)))
        elif tag == "array":
            out.append(arrays[e[1]])
        else:
            out.append(None if tag == "newaxis" else Ellipsis)
    return tuple(out)


@functools.lru_cache(maxsize=1024)
def _static_key(key):
    out = _decode(key, ())
    # A trailing ``...`` makes NumPy return a 0-d array instead of a scalar, which saves
    # the scalar-to-array conversion; after every other entry it changes nothing.
    return out if _ELLIPSIS in key else out + (Ellipsis,)


def _getitem_ref(x, *arrays, key):
    if arrays:
        return x[_decode(key, arrays)]
    if len(key) == 1 and key[0][0] == "int":  # t[i] in a loop
        return x[key[0][1], ...]
    return x[_static_key(key)]


def _slice_len(d, start, stop, step):
    if step == 0:
        raise ValueError("slice step cannot be zero")
    if type(start) is tuple or type(stop) is tuple or type(step) is tuple:
        return None  # a bound known only at run time
    if d is not None:
        return len(range(*slice(start, stop, step).indices(d)))
    step = 1 if step is None else step
    if step > 0 and start is None:
        start = 0
    if start is None or stop is None or (start < 0) != (stop < 0):
        return None
    # Bounds of the same sign are clamped alike, so an empty range is empty for every d.
    return 0 if (stop <= start if step > 0 else stop >= start) else None


def _expand(key, idx, ndim):
    """``(key, advanced)``: ``...`` (or the implicit trailing one) spelled out as full
    slices, and whether the key has an advanced (array, mask or bool) index."""
    used, advanced = 0, False
    for e in key:
        if e[0] == "array":
            a = idx[e[1]]
            if a.dtype.kind not in "iub":
                raise TypeError(f"{_VALID}; got a {a.dtype} index")
            mask = a.dtype.kind == "b"
            used += len(a.shape) if mask else 1
            advanced |= mask or len(a.shape) > 0
        else:
            used += e[0] == "int" or e[0] == "slice"
            advanced |= e[0] == "bool"
    if key.count(_ELLIPSIS) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if used > ndim:
        raise IndexError(f"too many indices for tensor: tensor is {ndim}-dimensional, but "
                         f"{used} were indexed")
    at = key.index(_ELLIPSIS) + 1 if _ELLIPSIS in key else len(key)
    return key[:at] + (_FULL,) * (ndim - used) + key[at:], advanced


def _getitem_infer(x, *idx, key):
    shape = x.shape
    if shape is None or any(a.shape is None for a in idx):
        return Aval(None, x.dtype)
    key, advanced = _expand(key, idx, len(shape))
    out, adv, dim = [], [], 0  # adv: (position in key, position in out, index shape)
    for i, e in enumerate(key):
        tag = e[0]
        if tag == "newaxis" or tag == "slice":
            out.append(1 if tag == "newaxis" else _slice_len(shape[dim], *e[1:]))
            dim += tag == "slice"
            continue
        if tag == "ellipsis":
            continue  # it still separates advanced indices, as in NumPy
        a = idx[e[1]] if tag == "array" else None
        if tag == "int":
            d = shape[dim]
            if d is not None and not -d <= e[1] < d:
                raise IndexError(f"index {e[1]} is out of bounds for axis {dim} with size {d}")
            ishape, dim = (), dim + 1
        elif tag == "bool":
            ishape = (int(e[1]),)
        elif a.dtype.kind == "b":
            for j, (got, want) in enumerate(zip(a.shape, shape[dim:])):
                # NumPy lets a mask dim of size 0 stand against any axis (x[:, []] of a
                # (2, 2) array is (2, 0)); every other size must match
                if got is not None and want is not None and got != want and got != 0:
                    raise IndexError(
                        f"boolean index did not match indexed tensor along axis {dim + j}; "
                        f"size of axis is {want} but size of corresponding boolean axis "
                        f"is {got}")
            ishape, dim = (None,), dim + len(a.shape)  # the count is data
        else:
            ishape, dim = a.shape, dim + 1
        if advanced:  # otherwise a scalar index (static int or traced 0-d) drops its dim
            adv.append((i, len(out), ishape))
    if not adv:
        return Aval(out, x.dtype)
    try:
        bshape = broadcast_shapes(*[s for _, _, s in adv])
    except ValueError:
        raise IndexError("shape mismatch: indexing arrays could not be broadcast together "
                         f"with shapes {[s for _, _, s in adv]}") from None
    if adv[-1][0] - adv[0][0] == len(adv) - 1:  # adjacent: the new dims stay in place
        at = adv[0][1]
        return Aval(out[:at] + list(bshape) + out[at:], x.dtype)
    return Aval(list(bshape) + out, x.dtype)  # separated: NumPy puts them first


GETITEM = register(OpDef(name="getitem", infer=_getitem_infer, ref=_getitem_ref,
                         doc="x[key] with NumPy's basic and advanced indexing"))


def getitem(tensor, key):
    """``tensor[key]`` with NumPy's indexing rules (``Tensor.__getitem__`` calls this).

    >>> t = gc.Tensor(np.arange(24).reshape(2, 3, 4))
    >>> t[:, ::-1, [0, 2]].shape
    (2, 3, 2)
    >>> t[t > 20].shape  # eager: the mask's count is known
    (3,)
    """
    entries, inputs = _encode(key)
    return bind(GETITEM, tensor, *inputs, key=entries)


# --------------------------------------------------------------------------- take / gather
def _check_int(aval, what="indices"):
    if aval.dtype.kind not in "iu":
        raise TypeError(f"{what} must be integers, got {aval.dtype}")


def _check_take_indices(aval):
    if aval.dtype.kind not in "iub":  # np.take reads bools as 0/1, unlike gather
        raise TypeError(f"indices must be integers, got {aval.dtype}")


def _take_infer(a, indices, axis=None, mode="raise"):
    _check_take_indices(indices)
    if a.shape is None or indices.shape is None:
        return Aval(None, a.dtype)
    if axis is None:
        return Aval(indices.shape, a.dtype)
    if not a.shape:  # NumPy takes axis=0/-1 on a 0-d array (as if it were 1-d)
        return probe_infer(_take_ref, [a, indices], {"axis": axis, "mode": mode})
    ax = normalize_axis(axis, len(a.shape))
    return Aval(a.shape[:ax] + indices.shape + a.shape[ax + 1:], a.dtype)


def _take_ref(a, indices, axis=None, mode="raise"):
    _check_take_indices(indices)
    if (mode == "wrap" and indices.size and axis is not None and -a.ndim <= axis < a.ndim
            and a.shape[axis] == 0):
        # NumPy's own error for this; np.take loops forever here when the result is empty
        # (x of shape (0, 0), axis=0: it wraps the index into a 0-long axis)
        raise IndexError("cannot do a non-empty take from an empty axes.")
    return np.take(a, indices, axis=axis, mode=mode)


TAKE = register(OpDef(name="take", infer=_take_infer, ref=_take_ref, doc="np.take"))


def take(a, indices, axis=None, mode="raise"):
    """NumPy ``take``: elements of ``a`` (flattened when ``axis`` is None) at ``indices``.

    Out-of-range indices raise ``InvalidArgumentError`` (``mode="raise"``); ``"wrap"``
    and ``"clip"`` work as in NumPy.

    >>> gnp.take(gnp.asarray([4, 5, 6]), [2, 0]).numpy()
    array([6, 4])
    """
    if mode not in ("raise", "wrap", "clip"):
        from graphc.errors import InvalidArgumentError

        raise InvalidArgumentError(f"take: mode must be 'raise', 'wrap' or 'clip', got "
                                   f"{mode!r}{source_info.where()}")
    if isinstance(indices, list | tuple) and np.size(indices) == 0:
        indices = np.zeros(np.shape(indices), np.intp)  # NumPy reads [] as integer indices
    return bind(TAKE, a, indices, axis=axis, mode=mode)


def _along_infer(arr, indices, axis):
    _check_int(indices)
    if arr.shape is None or indices.shape is None:
        return Aval(None, arr.dtype)
    if axis is None:
        if len(indices.shape) != 1:
            raise ValueError("take_along_axis with axis=None needs 1-d indices")
        return Aval(indices.shape, arr.dtype)
    if len(indices.shape) != len(arr.shape):
        raise ValueError(f"indices (rank {len(indices.shape)}) and arr (rank "
                         f"{len(arr.shape)}) must have the same rank")
    ax = normalize_axis(axis, len(arr.shape))
    # Other axes broadcast; the indexed one takes the indices' length.
    out = [i if k == ax else broadcast_shapes((d,), (i,))[0]
           for k, (d, i) in enumerate(zip(arr.shape, indices.shape))]
    return Aval(out, arr.dtype)


def _along_ref(arr, indices, axis):
    _check_int(indices)
    return np.take_along_axis(arr, indices, axis=axis)


TAKE_ALONG_AXIS = register(OpDef(name="take_along_axis", infer=_along_infer, ref=_along_ref,
                                 doc="np.take_along_axis"))


def take_along_axis(arr, indices, axis):
    """NumPy ``take_along_axis``: pick along ``axis`` with indices shaped like ``arr``.

    >>> a = gnp.asarray([[10, 30, 20]])
    >>> gnp.take_along_axis(a, gnp.argsort(a, axis=1), axis=1).numpy()
    array([[10, 20, 30]])
    """
    return bind(TAKE_ALONG_AXIS, arr, indices, axis=axis)


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


GATHER = register(OpDef(name="gather", infer=_gather_infer, ref=_gather_ref,
                        doc="tf.gather (indices must lie in [0, dim))"))


def gather(params, indices, axis=None, batch_dims=0, name=None):
    """TensorFlow ``gather``: slices of ``params`` along ``axis`` (default ``batch_dims``).

    An index outside ``[0, params.shape[axis])`` raises ``InvalidArgumentError``.

    >>> gc.gather(gc.constant([[1, 2], [3, 4], [5, 6]]), [2, 0]).numpy()
    array([[5, 6],
           [1, 2]], dtype=int32)
    """
    params, indices = _tf_literals(params), _tf_literals(indices)
    # Spell out the default so equal gathers get equal attrs (one CSE/kernel key).
    return bind(GATHER, params, indices, axis=batch_dims if axis is None else axis,
                batch_dims=batch_dims)


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


TENSOR_SCATTER_ND_UPDATE = register(OpDef(
    name="tensor_scatter_nd_update", infer=_scatter_infer, ref=_scatter_ref,
    doc="tf.tensor_scatter_nd_update (a new tensor; indices [..., k] index the first k dims)",
))


def tensor_scatter_nd_update(tensor, indices, updates, name=None):
    """A copy of ``tensor`` with ``updates`` written at ``indices`` (TensorFlow semantics).

    ``indices`` has shape ``[..., k]`` and addresses the first ``k`` dims; ``updates``
    has shape ``indices.shape[:-1] + tensor.shape[k:]``. Out-of-range indices raise
    ``InvalidArgumentError``.

    >>> gc.tensor_scatter_nd_update(gnp.zeros(5), [[1], [3]], [9, 10]).numpy()
    array([ 0.,  9.,  0., 10.,  0.])
    """
    return bind(TENSOR_SCATTER_ND_UPDATE, _tf_literals(tensor), _tf_literals(indices), updates)


def _tf_literals(value):
    """TensorFlow-style names convert Python lists with TensorFlow's dtypes (int32...)."""
    if isinstance(value, list | tuple | int | float):
        from graphc.dtypes import tf_literal

        return tf_literal(value)
    return value


# --------------------------------------------------------------------------- argwhere
def _argwhere_infer(a):
    return Aval((None, None if a.shape is None else len(a.shape)), np.dtype(np.int64))


def _argwhere_ref(a):
    return np.argwhere(a).astype(np.int64, copy=False)


ARGWHERE = register(OpDef(name="argwhere", infer=_argwhere_infer, ref=_argwhere_ref,
                          doc="np.argwhere / one-argument tf.where: int64 [n, ndim]"))


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
