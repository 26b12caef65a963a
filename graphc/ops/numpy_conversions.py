"""NumPy's conversion and broadcasting helpers over graphc tensors: ``asanyarray``,
``ascontiguousarray``, ``asfortranarray``, ``asarray_chkfinite``, ``require``,
``copyto``, ``from_dlpack``, ``broadcast_shapes``, ``broadcast_arrays``, ``broadcast``,
``s_``/``index_exp``, ``ndindex``, ``ndenumerate`` and ``fromiter``.

All are compositions of existing ops (``asarray``, ``broadcast_to``, ``where``, ``cast``)
or pure Python. Memory layout has no meaning for a tensor (a value, always C-ordered), so
the layout requests (``order=``, ``'F'``, ``'C'``, ``'A'``) only choose NumPy's
validation; see docs/numpy_api.md.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

from graphc import source_info
from graphc.core.shapes import broadcast_shapes as _graph_broadcast_shapes
from graphc.core.tensor import Tensor
from graphc.ops import effects as _effects
from graphc.ops import inplace as _inplace
from graphc.ops import ufuncs as _u
from graphc.ops.convert import array, asarray
from graphc.ops.reduce import all as _all
from graphc.ops.shape import broadcast_to
from graphc.ops.shape import shape as _shape_op
from graphc.ops.shape_args import holds_symbolic

s_ = np.s_
index_exp = np.index_exp
ndindex = np.ndindex


def asanyarray(a, dtype=None, order=None, *, device=None, copy=None, like=None):
    """``np.asanyarray``: ``asarray`` (graphc has no array subclasses); ``copy=True``
    copies, ``copy=False`` raises where a conversion must copy, as NumPy."""
    _check_device(device)
    if copy:
        return array(a, dtype=dtype)
    if copy is False and not (isinstance(a, Tensor) and (dtype is None or
                                                         np.dtype(dtype) == a.dtype)):
        raise ValueError("Unable to avoid copy while creating an array as requested.")
    return asarray(a, dtype=dtype)


def _check_device(device):
    if device not in (None, "cpu"):
        raise ValueError(f"Device not understood. Only \"cpu\" is allowed, but received: "
                         f"{device}")


def ascontiguousarray(a, dtype=None, *, like=None):
    """``np.ascontiguousarray``: the tensor (at least 1-D, as NumPy); tensors are always
    contiguous."""
    a = asarray(a, dtype=dtype)
    return a.reshape((1,)) if a.ndim == 0 else a


def asfortranarray(a, dtype=None, *, like=None):
    """``np.asfortranarray``: the same values (at least 1-D); tensors have no Fortran
    layout, only the values are kept."""
    return ascontiguousarray(a, dtype=dtype)


def asarray_chkfinite(a, dtype=None, order=None):
    """``np.asarray_chkfinite``: ``asarray``, raising ``ValueError`` if an element is inf
    or NaN. A traced value is checked when the graph runs (an ``assert`` node, raising
    ``InvalidArgumentError`` with the same message)."""
    a = asarray(a, dtype=dtype)
    if a.dtype.kind not in "fc":
        return a
    finite = _all(_u.isfinite(a))
    if a.is_symbolic:
        _effects.assert_op("assert", (finite,), message="array must not contain infs or NaNs")
    elif not bool(finite):
        raise ValueError("array must not contain infs or NaNs")
    return a


_REQUIREMENTS = {"C": "C", "C_CONTIGUOUS": "C", "CONTIGUOUS": "C", "F": "F",
                 "F_CONTIGUOUS": "F", "FORTRAN": "F", "A": "A", "ALIGNED": "A",
                 "W": "W", "WRITEABLE": "W", "O": "O", "OWNDATA": "O", "E": "E",
                 "ENSUREARRAY": "E"}


def require(a, dtype=None, requirements=None, *, like=None):
    """``np.require``: ``asarray(a, dtype)`` after checking ``requirements`` (NumPy's
    names: ``'C'``, ``'F'``, ``'A'``, ``'W'``, ``'O'``, ``'E'`` and the long ones).
    ``'O'`` (own data) copies; the layout flags need nothing of a tensor."""
    reqs = [] if requirements is None else list(requirements)  # "CW": two flags
    flags = set()
    for r in reqs:
        key = str(r).upper()
        if key not in _REQUIREMENTS:
            raise KeyError(r)
        flags.add(_REQUIREMENTS[key])
    if {"C", "F"} <= flags:
        raise ValueError("Cannot specify both \"C\" and \"F\" order")
    return array(a, dtype=dtype) if "O" in flags else asarray(a, dtype=dtype)


def copyto(dst, src, casting="same_kind", where=True):
    """``np.copyto``: write ``src`` (broadcast to ``dst``'s shape, cast to its dtype as
    ``casting`` allows) into ``dst`` where ``where`` holds. ``dst`` is a tensor (an eager
    one is written in place; inside ``gc.function`` a tensor argument is rebound, as for
    ``t[...] = v``) or an ndarray."""
    if isinstance(dst, np.ndarray):
        def values(x):
            return _inplace.eager_operand(x) if isinstance(x, Tensor) else x
        np.copyto(dst, values(src), casting=casting, where=values(where))
        return
    if not isinstance(dst, Tensor):
        raise TypeError(f"copyto() argument 1 must be a tensor or numpy.ndarray, not "
                        f"{type(dst).__name__}")
    src_t = asarray(src)
    if not np.can_cast(src_t.dtype, dst.dtype, casting):
        raise TypeError(f"Cannot cast array data from dtype('{src_t.dtype}') to "
                        f"dtype('{dst.dtype}') according to the rule '{casting}'")
    _inplace.check_writable(dst, "copyto")
    new = broadcast_to(src_t.astype(dst.dtype), tuple(dst.shape))
    if where is True:
        _inplace.write(dst, lambda cur: new)
    else:
        _inplace.write(dst, lambda cur: _u.where(where, new, cur))


def from_dlpack(x, /, *, device=None, copy=None):
    """``np.from_dlpack``: a tensor from any object with ``__dlpack__`` (a graphc tensor
    is returned as it is). The data is copied into the tensor (``copy=False`` cannot be
    honoured for foreign memory and raises ``BufferError``)."""
    _check_device(device)
    if isinstance(x, Tensor):
        return array(x) if copy else x
    if copy is False:
        raise BufferError("from_dlpack: graphc copies foreign memory into its tensors; "
                          "copy=False cannot be honoured")
    return array(np.from_dlpack(x))


# --------------------------------------------------------------------------- broadcasting
def broadcast_shapes(*args):
    """``np.broadcast_shapes``: the shape the given shapes (ints or tuples) broadcast to;
    ``ValueError`` as NumPy when they do not. A ``None`` dim (unknown while tracing)
    gives ``None`` unless another shape fixes it."""
    shapes = [(a,) if isinstance(a, int | np.integer) else tuple(a) for a in args]
    if all(d is not None for s in shapes for d in s):
        return np.broadcast_shapes(*shapes)
    return tuple(_graph_broadcast_shapes(*shapes))


def _run_time_shape(arrays, shape):
    """``shape`` with each unknown dim replaced by the largest run-time size of that dim
    among ``arrays`` (a 0-d tensor; broadcasting makes the others 1)."""
    out = []
    n = len(shape)
    for i, d in enumerate(shape):
        if d is not None:
            out.append(d)
            continue
        sizes = []
        for a in arrays:
            k = i - (n - a.ndim)
            if k >= 0 and a.shape[k] != 1:
                sizes.append(_shape_op(a, out_type=np.int64)[k])
        out.append(functools.reduce(_u.maximum, sizes))
    return out


def broadcast_arrays(*args, subok=False):
    """``np.broadcast_arrays``: a tuple of the arguments broadcast to their common shape
    (dims unknown while tracing are taken from the arrays when the graph runs)."""
    arrays = [asarray(a) for a in args]
    shape = broadcast_shapes(*[tuple(a.shape) for a in arrays])
    if None in shape:
        shape = _run_time_shape(arrays, shape)
    return tuple(a if tuple(a.shape) == tuple(shape) else broadcast_to(a, shape)
                 for a in arrays)


class broadcast:  # noqa: N801 - NumPy's name
    """``np.broadcast``: the broadcast of the arguments (``shape``, ``ndim``/``nd``,
    ``size``, ``numiter``, ``iters``, ``index``, ``reset()``); iterating yields tuples of
    their elements as NumPy scalars, which needs eager values."""

    def __init__(self, *args):
        if len(args) > 64:
            raise ValueError("Need at least 0 and at most 64 array objects.")
        self._args = [a if isinstance(a, Tensor) else asarray(a) for a in args]
        self.shape = broadcast_shapes(*[tuple(a.shape) for a in self._args])
        self.numiter = len(args)
        self._np = None

    @property
    def ndim(self):
        return len(self.shape)

    nd = ndim

    @property
    def size(self):
        return None if None in self.shape else int(np.prod(self.shape, dtype=np.int64))

    def _iter(self):
        if self._np is None:
            if any(a.is_symbolic for a in self._args):
                raise TypeError(f"iterating a broadcast of traced tensors needs their "
                                f"values{source_info.where()}; use broadcast_arrays")
            self._np = np.broadcast(*[a.numpy() for a in self._args])
        return self._np

    @property
    def iters(self):
        return self._iter().iters

    @property
    def index(self):
        return self._iter().index

    def reset(self):
        """Go back to the first element."""
        self._iter().reset()

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._iter())


class ndenumerate:  # noqa: N801 - NumPy's name
    """``np.ndenumerate``: ``(index, value)`` pairs in C order. For an eager tensor the
    values are NumPy scalars (as NumPy); for a traced one of known shape, 0-d tensors."""

    def __init__(self, arr):
        if isinstance(arr, Tensor) and arr.is_symbolic:
            if None in arr.shape:
                raise TypeError(f"ndenumerate of a traced tensor needs its shape known "
                                f"while tracing, not {arr.shape}{source_info.where()}")
            self._it = ((idx, arr[idx]) for idx in np.ndindex(*arr.shape))
        else:
            self._it = np.ndenumerate(np.asarray(arr))

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._it)


def fromiter(iter, dtype, count=-1, *, like=None):  # noqa: A002 - NumPy's name
    """``np.fromiter``: a 1-D tensor of ``dtype`` from an iterable (the first ``count``
    items if ``count >= 0``; ``ValueError`` if it runs short). Inside ``gc.function`` the
    items may be traced scalars (they are stacked)."""
    items = list(iter if count < 0 else itertools.islice(iter, count))
    if 0 <= count and len(items) < count:
        raise ValueError(f"iterator too short: Expected {count} but iterator had only "
                         f"{len(items)} items.")
    if holds_symbolic(items):
        return asarray(items, dtype=dtype)
    return asarray(np.fromiter(items, dtype, len(items)))
