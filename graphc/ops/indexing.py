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

TensorFlow's ``gather``/``tensor_scatter_nd_update`` and ``argwhere`` live in
``gather.py``.
"""

from __future__ import annotations

import functools
import operator

import numpy as np

from graphc.core.attr_types import AXIS, NEST, STR
from graphc.ops.blocks import BASIC_INDEX
from graphc.core.registry import OpDef, bind, register
from graphc.core.shapes import broadcast_shapes, normalize_axis, probe_infer
from graphc import source_info
from graphc.ir.graph import Aval
from graphc.core.tensor import Tensor

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


GETITEM = register(OpDef(name="getitem",
                         attrs={"key": NEST},
                         infer=_getitem_infer, ref=_getitem_ref, blocks=BASIC_INDEX,
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


TAKE = register(OpDef(name="take",
                      attrs={"axis": AXIS, "mode": STR},
                      infer=_take_infer, ref=_take_ref, doc="np.take"))


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


TAKE_ALONG_AXIS = register(OpDef(name="take_along_axis",
                                 attrs={"axis": AXIS},
                                 infer=_along_infer, ref=_along_ref,
                                 doc="np.take_along_axis"))


def take_along_axis(arr, indices, axis):
    """NumPy ``take_along_axis``: pick along ``axis`` with indices shaped like ``arr``.

    >>> a = gnp.asarray([[10, 30, 20]])
    >>> gnp.take_along_axis(a, gnp.argsort(a, axis=1), axis=1).numpy()
    array([[10, 20, 30]])
    """
    return bind(TAKE_ALONG_AXIS, arr, indices, axis=axis)


# --------------------------------------------------------------------------- gradients
# Selections: the op applied to the input's positions says where each element came
# from, and the cotangent is scatter-added there (duplicates add), see segment.py.
def _declare_gradients():
    from graphc.ops.segment import selection

    for op in (GETITEM, TAKE, TAKE_ALONG_AXIS):
        op.grad = selection(op)


_declare_gradients()


# --------------------------------------------------------------------------- batching
# ``batch(args, dims, key)`` (gc.vectorized_map): a static key (no index tensors) indexes
# each example when a full slice for the batch axis goes in front of it; keys with index
# tensors are looped over (their advanced-indexing axis placement is not handled yet).
def _getitem_batch(args, dims, key):
    if len(args) > 1:
        return NotImplemented
    from graphc.ops import batch_util as bu

    x = bu.to_front(args[0], dims[0])
    return bind(GETITEM, x, key=(("slice", None, None, None),) + tuple(key)), 0


GETITEM.batch = _getitem_batch

# batching (gc.vectorized_map): graphc/ops/index_batch.py
from graphc.ops import index_batch as _ib  # noqa: E402

TAKE.batch, TAKE_ALONG_AXIS.batch = _ib.take, _ib.take_along_axis
