"""Indexing ops: NumPy ``t[key]``, ``take``, ``take_along_axis``, TF ``gather``,
``tensor_scatter_nd_update`` and ``argwhere`` (TF's one-argument ``where``).

``t[key]`` is one op, ``getitem``. Its ``key`` attr is the static structure of the NumPy
key as a hashable tuple of entries::

    ('int', 2)  ('bool', True)  ('newaxis',)  ('ellipsis',)  ('array', k)
    ('slice', start, stop, step)     # each part: int, None, or ('in', k)

where ``k`` is the position of a tensor input after the indexed tensor. Tensor-valued
parts of the key (index arrays, masks, traced scalars) become those inputs, so a graph
can index with values it only knows at run time (the encoding: ``index_keys.py``).
``ref`` rebuilds the NumPy key and runs
``x[key]``; ``infer`` applies NumPy's rules to avals. A boolean mask always yields a
``None`` dim in a graph, even a constant one: its count is data.

TensorFlow's ``gather``/``tensor_scatter_nd_update`` and ``argwhere`` live in
``gather.py``.
"""

from __future__ import annotations

import numpy as np

from graphc import source_info
from graphc.core import hooks
from graphc.core.attr_types import AXIS, NEST, STR
from graphc.core.registry import OpDef, bind, register
from graphc.core.shapes import broadcast_shapes, normalize_axis, probe_infer
from graphc.core.tensor import Tensor
from graphc.errors import InvalidArgumentError
from graphc.ir.graph import Aval
from graphc.ops import inplace
from graphc.ops.blocks import BASIC_INDEX
from graphc.ops.index_keys import (
    _decode,
    _encode,
    _expand,
    _slice_len,
    _static_key,
)


def _getitem_ref(x, *arrays, key):
    if arrays:
        return x[_decode(key, arrays)]
    if len(key) == 1 and key[0][0] == "int":  # t[i] in a loop
        return x[key[0][1], ...]
    return x[_static_key(key)]



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
                         infer=_getitem_infer, ref=_getitem_ref, blocks=BASIC_INDEX))


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


# --------------------------------------------------------------------------- t[key] = v
def _setitem_infer(x, v, *idx, key):
    region = _getitem_infer(x, *idx, key=key)
    if region.shape is not None and v.shape is not None:
        vs = list(v.shape)
        while len(vs) > len(region.shape) and vs[0] in (1, None):  # NumPy drops leading 1s
            vs.pop(0)
        fits = len(vs) <= len(region.shape) and all(
            a is None or b is None or a in (1, b)
            for a, b in zip(vs[::-1], region.shape[::-1]))
        if not fits:
            raise ValueError(f"could not broadcast input array from shape {tuple(v.shape)} "
                             f"into shape {tuple(region.shape)}")
    return Aval(x.shape, x.dtype)


def _setitem_ref(x, v, *arrays, key):
    out = x.copy()
    out[_decode(key, arrays) if arrays else _static_key(key)] = v  # NumPy's unsafe cast
    return out


# ``t[key] = v`` as a value: ``t`` with the indexed region replaced (a traced write is
# this op and a rebinding of ``t``: graphc.core.mutation). ``v`` is weak: a Python number
# takes ``t``'s kind, as NumPy writes it.
SETITEM = register(OpDef(name="setitem", attrs={"key": NEST}, weak=(0, 1),
                         infer=_setitem_infer, ref=_setitem_ref))


def setitem(tensor, key, value) -> None:
    """``tensor[key] = value`` with NumPy's meaning (``Tensor.__setitem__`` calls this):
    eagerly a write into the tensor's array (its views see it); while tracing an update
    op, and ``tensor`` (and its views) stand for the result (``graphc.core.mutation``)."""
    inplace.check_writable(tensor, "t[key] = v")
    if tensor._np is not None and not hooks.tapes:  # NumPy's own write, views and all
        if isinstance(value, Tensor):
            value = inplace.eager_operand(value)
        tensor._np[_numpy_key(key)] = value
        return
    entries, inputs = _encode(key)
    inplace.write(tensor, lambda src: bind(SETITEM, src, value, *inputs, key=entries))


def _numpy_key(key):
    """The key with eager tensors replaced by their arrays (NumPy indexes with it)."""
    if isinstance(key, Tensor):
        return inplace.eager_operand(key)
    if type(key) is tuple:
        return tuple(_numpy_key(k) for k in key)
    if type(key) is list:
        return [_numpy_key(k) for k in key]
    if type(key) is slice and any(isinstance(p, Tensor) for p in (key.start, key.stop,
                                                                    key.step)):
        return slice(*(_numpy_key(p) for p in (key.start, key.stop, key.step)))
    return key


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
                      infer=_take_infer, ref=_take_ref))


def take(a, indices, axis=None, mode="raise"):
    """NumPy ``take``: elements of ``a`` (flattened when ``axis`` is None) at ``indices``.

    Out-of-range indices raise ``InvalidArgumentError`` (``mode="raise"``); ``"wrap"``
    and ``"clip"`` work as in NumPy.

    >>> gnp.take(gnp.asarray([4, 5, 6]), [2, 0]).numpy()
    array([6, 4])
    """
    if mode not in ("raise", "wrap", "clip"):
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
                                 infer=_along_infer, ref=_along_ref))


def take_along_axis(arr, indices, axis):
    """NumPy ``take_along_axis``: pick along ``axis`` with indices shaped like ``arr``.

    >>> a = gnp.asarray([[10, 30, 20]])
    >>> gnp.take_along_axis(a, gnp.argsort(a, axis=1), axis=1).numpy()
    array([[10, 20, 30]])
    """
    return bind(TAKE_ALONG_AXIS, arr, indices, axis=axis)


# gradients: graphc/ops/grad_arrays.py (selections, see segment.py); batching:
# graphc/ops/index_batch.py
