"""The ``key`` attr of ``getitem``: a NumPy index key as a hashable tuple of entries.

Each entry is one of::

    ('int', 2)  ('bool', True)  ('newaxis',)  ('ellipsis',)  ('array', k)
    ('slice', start, stop, step)     # each part: int, None, or ('in', k)

where ``k`` is the position of a tensor input after the indexed tensor. ``_encode``
turns a Python key into entries and inputs, ``_decode`` rebuilds the NumPy key at run
time, ``_expand`` spells out ``...`` (used by ``getitem``'s ``infer``, its block rule and
its Numba kernel). Nothing here binds an op.
"""

from __future__ import annotations

import functools
import operator

import numpy as np

from graphc import source_info
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


# --------------------------------------------------------------------------- decoding
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
