"""NumPy's selection names: ``choose``, ``compress``, ``extract``, ``select``,
``piecewise``, and the in-place writes ``place``, ``put``, ``put_along_axis``,
``putmask``, built from ``take``/``take_along_axis``, ``where``, masks and ``t[key] = v``
(no op of their own).

The in-place names follow docs/mutation.md: a tensor is written as ``t[key] = v`` or
``t op= u`` would write it (eagerly into its array; while tracing functionalized, so
views, argument write-back and gradients work); a NumPy array is written in place. Values
are cast to the target's dtype as NumPy's assignments cast them (unsafe casting).
``compress``/``extract`` with a traced condition have a length unknown until the graph
runs (``argwhere``).
"""

from __future__ import annotations

import collections.abc
import operator

import numpy as np

from graphc import source_info
from graphc.core.tensor import Tensor
from graphc.ops import inplace
from graphc.ops.array_helpers import (
    check,
    dtype_probe,
    known,
    mutate,
    norm_axis,
    rank,
    strong,
    traced,
)
from graphc.ops.convert import asarray
from graphc.ops.creation import arange, zeros_like
from graphc.ops.gather import nonzero
from graphc.ops.index_helpers import unravel_index
from graphc.ops.indexing import take, take_along_axis
from graphc.ops.join import stack
from graphc.ops.reduce import any as _any
from graphc.ops.reduce import cumsum
from graphc.ops.shape import broadcast_to, expand_dims, ravel, reshape
from graphc.ops.ufuncs import clip, logical_and, logical_not, remainder, where


def _to_out(out, result, name):
    """``out=``: ``result`` written into ``out`` (a tensor or an ndarray), ``out``
    returned; no ``out``: ``result``."""
    if out is None:
        return result
    if tuple(out.shape) != tuple(result.shape):
        raise ValueError(f"{name}: output array has the wrong shape")
    mutate(out, lambda src: result, name)
    return out


def _fix_index(idx, n, mode, message):
    """Indices into a length-``n`` axis by NumPy's ``mode`` (``raise`` checks them)."""
    if mode in ("wrap",):
        return remainder(idx, n)
    if mode == "clip":
        return clip(idx, 0, n - 1)
    if mode != "raise":
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    check(logical_and(idx >= 0, idx < n), message)
    return idx


# --------------------------------------------------------------------------- choose
def choose(a, choices, out=None, mode="raise"):
    """``np.choose``: ``choices[a[i]][i]`` for every ``i`` (all broadcast together);
    ``mode`` ``'raise'`` (out-of-range entries raise), ``'wrap'`` or ``'clip'``."""
    a = strong(a)
    if a.dtype.kind not in "iub":
        raise TypeError(f"Cannot cast array data from dtype('{a.dtype}') to "
                        "dtype('int64') according to the rule 'safe'")
    if isinstance(choices, Tensor | np.ndarray):
        items = [choices[i] for i in range(choices.shape[0])]
    else:
        items = list(choices)
    if not items:
        raise ValueError("0-length sequence.")
    dtype = np.result_type(*[dtype_probe(c) for c in items])
    items = [strong(c).astype(dtype) for c in items]
    shape = np.broadcast_shapes(tuple(a.shape), *[tuple(c.shape) for c in items])
    n = len(items)
    idx = _fix_index(a.astype(np.int64), n, mode, "invalid entry in choice array")
    stacked = stack([broadcast_to(c, shape) for c in items])
    picked = take_along_axis(stacked, expand_dims(broadcast_to(idx, shape), 0), 0)[0]
    return _to_out(out, picked, "choose")


# --------------------------------------------------------------------------- compress
def compress(condition, a, axis=None, out=None):
    """``np.compress``: the slices of ``a`` along ``axis`` (of the flattened ``a`` when
    None) where the 1-D ``condition`` is true; a shorter ``condition`` stops early."""
    cond = strong(condition)
    if rank(cond) != 1:
        raise ValueError("condition must be a 1-d array")
    a = strong(a)
    if axis is None:
        a, axis = ravel(a), 0
    axis = norm_axis(axis, rank(a))
    picks = nonzero(cond)[0]
    n = a.shape[axis]
    values = known(picks) if not traced(picks) else None
    if values is not None and n is not None and values.size and values[-1] >= n:
        raise IndexError(f"index {int(values[-1])} is out of bounds for axis {axis} "
                         f"with size {n}")
    return _to_out(out, take(a, picks, axis=axis), "compress")


def extract(condition, arr):
    """``np.extract``: the elements of the flattened ``arr`` where the flattened
    ``condition`` is true."""
    return compress(ravel(strong(condition)), ravel(strong(arr)))


# --------------------------------------------------------------------------- select
def select(condlist, choicelist, default=0):
    """``np.select``: from the first ``choicelist[i]`` whose ``condlist[i]`` is true,
    else ``default`` (all broadcast together; NumPy's result dtype)."""
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if len(condlist) == 0:
        raise ValueError("select with an empty condition list is not possible")
    try:
        dtype = np.result_type(*[dtype_probe(c) for c in choicelist], dtype_probe(default))
    except TypeError as e:
        raise TypeError(f"Choicelist and default value do not have a common dtype: {e}") \
            from None
    conds = [strong(c) for c in condlist]
    for i, c in enumerate(conds):
        if c.dtype != np.bool_:
            raise TypeError(f"invalid entry {i} in condlist: should be boolean ndarray")
    result = strong(default).astype(dtype)
    for cond, choice in zip(conds[::-1], list(choicelist)[::-1]):
        result = where(cond, strong(choice).astype(dtype), result)
    shape = np.broadcast_shapes(*[tuple(x.shape) for x in conds],
                                *[tuple(strong(c).shape) for c in choicelist],
                                tuple(strong(default).shape))
    return result if tuple(result.shape) == shape else broadcast_to(result, shape)


# --------------------------------------------------------------------------- piecewise
def piecewise(x, condlist, funclist, *args, **kw):
    """``np.piecewise``: ``funclist[i]`` (a function of the selected elements, or a
    value) where ``condlist[i]`` holds; one function more than conditions is the
    'otherwise' case; elsewhere 0. The result has ``x``'s dtype."""
    x = strong(x)
    n_funcs = len(funclist)
    if isinstance(condlist, Tensor) and rank(condlist) == 0 or np.isscalar(condlist):
        single = True
    else:  # NumPy's test: a list whose first entry is not an array is one condition
        first = condlist[0]
        single = rank(x) != 0 and not (isinstance(first, list | np.ndarray) or isinstance(
            first, Tensor) and rank(first) > 0)
    conds = [condlist] if single else list(condlist)
    conds = [strong(c).astype(np.bool_) for c in conds]
    if len(conds) == n_funcs - 1:
        other = logical_not(_any(stack(conds), axis=0))
        conds.append(other)
    elif len(conds) != n_funcs:
        raise ValueError(f"with {len(conds)} condition(s), either {len(conds)} or "
                         f"{len(conds) + 1} functions are expected")
    y = zeros_like(x)
    for cond, func in zip(conds, funclist):
        cond = broadcast_to(cond, tuple(x.shape)) if tuple(cond.shape) != tuple(x.shape) \
            else cond
        if not isinstance(func, collections.abc.Callable):
            y[cond] = func
            continue
        vals = x[cond]
        if traced(vals) or vals.shape[0] is None or vals.shape[0] > 0:
            y[cond] = func(vals, *args, **kw)
    return y


# --------------------------------------------------------------------------- writes
def _ndarray_target(a, name):
    if not isinstance(a, Tensor | np.ndarray):
        raise TypeError(f"{name}: argument 1 must be numpy.ndarray or a tensor, not "
                        f"{type(a).__name__}")
    return a


def _cycled(values, count, dtype):
    """``values`` flattened and repeated to ``count`` entries (NumPy's cycling)."""
    flat = ravel(strong(values)).astype(dtype)
    n = flat.shape[0]
    if n is None:
        raise ValueError(f"the number of values must be known while tracing"
                         f"{source_info.where()}")
    return take(flat, remainder(arange(count), n)) if n else None


def place(arr, mask, vals):
    """``np.place``: ``arr[mask]`` set, in place, to the first ``mask.sum()`` values of
    ``vals`` (repeated as needed)."""
    arr = _ndarray_target(arr, "place")
    mask = strong(mask).astype(np.bool_)
    size = int(np.prod(arr.shape))
    if int(np.prod(mask.shape)) != size:
        raise ValueError("place: mask and data must be the same size")
    flat_vals = ravel(strong(vals))
    if flat_vals.shape[0] == 0:
        if not traced(mask) and np.any(known(mask)):
            raise ValueError("Cannot insert from an empty array!")
        return None
    mask = reshape(mask, tuple(arr.shape))
    k = cumsum(ravel(mask).astype(np.int64)) - 1
    picks = take(flat_vals.astype(arr.dtype), remainder(k, flat_vals.shape[0]))
    mutate(arr, lambda src: where(mask, reshape(picks, tuple(arr.shape)), src), "place")
    return None


def putmask(a, mask, values):
    """``np.putmask``: ``a.flat[n] = values[n % len(values)]`` wherever ``mask.flat[n]``
    is true, in place."""
    a = _ndarray_target(a, "putmask")
    mask = strong(mask).astype(np.bool_)
    size = int(np.prod(a.shape))
    if int(np.prod(mask.shape)) != size:
        raise ValueError("putmask: mask and data must be the same size")
    cycled = _cycled(values, size, a.dtype)
    if cycled is None:
        return None
    mask = reshape(mask, tuple(a.shape))
    mutate(a, lambda src: where(mask, reshape(cycled, tuple(a.shape)), src), "putmask")
    return None


def _write_key(a, key, values, name):
    """``a[key] = values`` for a tensor (views, tracing and tapes as for any write) or
    an ndarray (NumPy writes it)."""
    if isinstance(a, Tensor):
        inplace.check_writable(a, name)
        a[key] = values
        return
    if not a.flags.writeable:
        raise ValueError("assignment destination is read-only")
    key = tuple(inplace.eager_operand(k) if isinstance(k, Tensor) else k for k in key)
    a[key] = inplace.eager_operand(values) if isinstance(values, Tensor) else values


def put(a, ind, v, mode="raise"):
    """``np.put``: ``a.flat[ind] = v`` in place, ``v`` repeated over ``ind``; ``mode``
    ``'raise'`` (negative indices count from the end), ``'wrap'`` or ``'clip'``."""
    a = _ndarray_target(a, "put")
    ind = ravel(strong(ind))
    if ind.dtype.kind not in "iu":
        raise TypeError(f"Cannot cast array data from dtype('{ind.dtype}') to "
                        "dtype('int64') according to the rule 'safe'")
    count = ind.shape[0]
    size = int(np.prod(a.shape))
    if count == 0:
        return None
    vals = _cycled(v, count if count is not None else 0, a.dtype)
    if vals is None:
        return None
    ind = ind.astype(np.int64)
    if mode == "raise":
        if not traced(ind):
            bad = known(ind)[(known(ind) < -size) | (known(ind) >= size)]
            if bad.size:
                raise IndexError(f"index {int(bad[0])} is out of bounds for axis 0 with "
                                 f"size {size}")
        else:
            check(logical_and(ind >= -size, ind < size),
                  f"put: index out of bounds for axis 0 with size {size}")
        ind = where(ind < 0, ind + size, ind)
    else:
        ind = _fix_index(ind, size, mode, "")
    if not a.shape:  # a 0-d array: its one element gets the last value
        _write_key(a, (), vals[-1], "put")
        return None
    _write_key(a, unravel_index(ind, tuple(a.shape)), vals, "put")
    return None


def put_along_axis(arr, indices, values, axis):
    """``np.put_along_axis``: ``values`` written, in place, at ``indices`` along
    ``axis`` (the flattened array for ``axis=None``, with 1-D ``indices``); the
    counterpart of ``take_along_axis``."""
    arr = _ndarray_target(arr, "put_along_axis")
    indices = strong(indices)
    if axis is None:
        if rank(indices) != 1:
            raise ValueError("when axis=None, `indices` must have a single dimension.")
        size = int(np.prod(arr.shape))
        flat = indices.astype(np.int64)
        flat = where(flat < 0, flat + size, flat)
        key = unravel_index(flat, tuple(arr.shape))
        _write_key(arr, key, broadcast_to(strong(values).astype(arr.dtype),
                                          tuple(indices.shape)), "put_along_axis")
        return None
    if indices.dtype.kind not in "iu":
        raise IndexError("`indices` must be an integer array")
    nd = len(arr.shape)
    if rank(indices) != nd:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    axis = norm_axis(axis, nd)
    key = []
    for i in range(nd):
        if i == axis:
            key.append(indices.astype(np.int64))
        else:
            line = np.arange(operator.index(arr.shape[i])).reshape(
                (1,) * i + (-1,) + (1,) * (nd - i - 1))
            key.append(asarray(line))
    _write_key(arr, tuple(key), strong(values).astype(arr.dtype), "put_along_axis")
    return None
