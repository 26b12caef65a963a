"""NumPy's grid and index tricks: ``mgrid``, ``ogrid``, ``meshgrid``, ``r_``, ``c_``,
``ix_``.

No op of their own: each is built from ``arange``/``linspace``, elementwise arithmetic,
``reshape``, ``broadcast_to``, ``stack`` and ``concatenate``, so gradients, batching and
compiled kernels are those of the ops used. ``mgrid``/``ogrid``/``r_``/``c_`` read Python
slices, whose bounds must be known while tracing (numbers, NumPy scalars or eager
tensors), except the one slice of ``mgrid[a:b]``/``ogrid[a:b]``/``r_[a:b]`` with integer
steps, whose bounds may be traced 0-d tensors (its length is then unknown while tracing,
as ``gnp.arange``'s).
"""

from __future__ import annotations

import math

import numpy as np

from graphc import source_info
from graphc.core.tensor import Tensor
from graphc.dtypes import numpy_literal, result_type
from graphc.ops.convert import asarray
from graphc.ops.creation import arange, linspace
from graphc.ops.gather import nonzero
from graphc.ops.join import concatenate, stack
from graphc.ops.shape import broadcast_to, expand_dims, reshape, shape, transpose
from graphc.ops.shape_args import static_value
from graphc.ops.ufuncs import astype


def _bound(v, name: str):
    """A slice bound as NumPy sees it: Python and NumPy scalars unchanged, an eager or
    constant 0-d tensor as its NumPy scalar; a traced one stays a tensor."""
    if isinstance(v, Tensor):
        known = static_value(v)
        if known is None:
            return v
        if np.ndim(known) != 0:
            raise TypeError(f"{name}: slice bounds must be scalars, got shape "
                            f"{np.shape(known)}{source_info.where()}")
        return np.asarray(known)[()]
    return v


def _is_complex(step) -> bool:
    return isinstance(step, complex | np.complexfloating)


def _slice_parts(item: slice, name: str):
    start, stop, step = (_bound(v, name) for v in (item.start, item.stop, item.step))
    return (0 if start is None else start), stop, step


def _result_type(*values):
    """NumPy's result type of slice bounds; traced ones count by their dtype."""
    if not any(isinstance(v, Tensor) for v in values):
        return np.result_type(*values)
    return result_type(*[v if isinstance(v, Tensor) else numpy_literal(v) for v in values])


def _one_slice(item: slice, name: str):
    """``mgrid[a:b:c]`` (and ``ogrid``'s): ``arange``, or ``linspace``-like points for a
    complex step (``5j``: five points, both ends included)."""
    start, stop, step = _slice_parts(item, name)
    if _is_complex(step):
        count = int(abs(step))
        width = 1 if count == 1 else (stop - start) / float(count - 1)
        dtype = _result_type(start, stop, abs(step))
        return arange(0, count, 1, dtype=dtype) * width + start
    if any(isinstance(v, Tensor) for v in (start, stop, step)):
        bounds = (start, stop, 1 if step is None else step)
        dtype = _result_type(*bounds)
        # bounds of the result's dtype: the compiled ``range`` kernel takes only those
        return arange(*[astype(v, dtype) if isinstance(v, Tensor) else v for v in bounds],
                      dtype=dtype)
    if step == 0:
        raise ZeroDivisionError(f"{name}: a slice step must not be zero{source_info.where()}")
    args = (start, stop) if step is None else (start, stop, step)
    return arange(*args, dtype=np.arange(start, start, *args[2:]).dtype)


class _Grid:
    """``mgrid`` (dense) and ``ogrid`` (sparse), as NumPy's ``nd_grid``."""

    __slots__ = ("sparse", "name")

    def __init__(self, sparse: bool, name: str):
        self.sparse = sparse
        self.name = name

    def __getitem__(self, key):
        if isinstance(key, slice):
            return _one_slice(key, self.name)
        if not isinstance(key, tuple) or not all(isinstance(k, slice) for k in key):
            raise TypeError(f"{self.name}[...] takes slices (start:stop:step), got "
                            f"{key!r}{source_info.where()}")
        parts = [_slice_parts(k, self.name) for k in key]
        sizes, numbers = [], [0]
        for start, stop, step in parts:
            if any(isinstance(v, Tensor) for v in (start, stop, step)):
                raise TypeError(
                    f"{self.name}[...] with several slices needs bounds known while tracing "
                    "(Python numbers), got a traced tensor; build the grid with "
                    f"gnp.meshgrid(gnp.arange(...), ..., indexing='ij'){source_info.where()}")
            if stop is None:
                raise TypeError(f"{self.name}[...] with several slices needs a stop in "
                                f"every slice{source_info.where()}")
            step = 1 if step is None else step
            if _is_complex(step):
                step = abs(step)
                sizes.append(int(step))
            else:
                if step == 0:
                    raise ZeroDivisionError(f"{self.name}: a slice step must not be zero"
                                            f"{source_info.where()}")
                sizes.append(math.ceil((stop - start) / step))
            numbers += [start, stop, step]
        if any(s < 0 for s in sizes):
            raise ValueError(f"negative dimensions are not allowed ({self.name} sizes "
                             f"{tuple(sizes)}){source_info.where()}")
        dtype = np.result_type(*numbers)
        axes = []
        for k, (start, stop, step) in enumerate(parts):
            step = 1 if step is None else step
            if _is_complex(step):
                count = int(abs(step))
                step = 1 if count == 1 else (stop - start) / float(count - 1)
            axes.append(arange(0, sizes[k], 1, dtype=dtype) * step + start)
        n = len(sizes)
        if self.sparse:
            return tuple(reshape(v, (1,) * k + (-1,) + (1,) * (n - k - 1))
                         for k, v in enumerate(axes))
        if not axes:
            return arange(0, 0, 1, dtype=dtype)
        dense = [broadcast_to(reshape(astype(v, dtype), (1,) * k + (-1,) + (1,) * (n - k - 1)),
                              tuple(sizes)) for k, v in enumerate(axes)]
        return stack(dense, axis=0)

    def __repr__(self):
        return f"gnp.{self.name}"


mgrid = _Grid(False, "mgrid")
ogrid = _Grid(True, "ogrid")


# --------------------------------------------------------------------------- meshgrid
def _length(v):
    """The length of a 1-D tensor: its static dim, else a traced int64 scalar."""
    n = v.shape[0]
    return n if n is not None else shape(v, out_type=np.int64)[0]


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """``np.meshgrid``: coordinate arrays from 1-D coordinate vectors (each input is
    flattened). ``indexing='xy'`` (Cartesian, default) swaps the first two axes of the
    result; ``'ij'`` keeps matrix order. ``sparse=True`` returns broadcastable arrays.

    Tensors are values here, so ``copy`` changes nothing but the container NumPy
    returns: a list for ``sparse=True, copy=False``, a tuple otherwise.
    """
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    n = len(xi)
    flat = [reshape(asarray(x), (-1,)) for x in xi]
    place = list(range(n))
    if indexing == "xy" and n > 1:
        place[0], place[1] = 1, 0
    out = [reshape(v, (1,) * p + (-1,) + (1,) * (n - p - 1)) for v, p in zip(flat, place)]
    if not sparse:
        dims = [None] * n
        for v, p in zip(flat, place):
            dims[p] = _length(v)
        out = [broadcast_to(v, dims) for v in out]
    return out if sparse and not copy else tuple(out)


# --------------------------------------------------------------------------- r_, c_
_SCALARS = (int, float, complex, bool, bytes, str, memoryview, np.generic)


def _prepend_ones(t, ndmin):
    """``np.array(t, ndmin=ndmin)``: ones put in front of the shape."""
    missing = ndmin - len(t.shape)
    return expand_dims(t, tuple(range(missing))) if missing > 0 else t


class _Concatenator:
    """``r_`` and ``c_``, as NumPy's ``AxisConcatenator`` (no ``np.matrix`` forms)."""

    __slots__ = ("axis", "ndmin", "trans1d", "name")

    def __init__(self, axis, ndmin, trans1d, name):
        self.axis, self.ndmin, self.trans1d, self.name = axis, ndmin, trans1d, name

    def __getitem__(self, key):
        if isinstance(key, str):
            raise NotImplementedError(f"{self.name}['...'] builds an np.matrix, which "
                                      f"graphc does not have{source_info.where()}")
        if not isinstance(key, tuple):
            key = (key,)
        axis, ndmin, trans1d = self.axis, self.ndmin, self.trans1d
        objs, kinds = [], []
        for k, item in enumerate(key):
            if isinstance(item, str):
                if k != 0:
                    raise ValueError("special directives must be the first entry.")
                axis, ndmin, trans1d = self._directive(item, axis, ndmin, trans1d)
                continue
            if isinstance(item, slice):
                obj = self._slice(item)
                if ndmin > 1:
                    obj = _prepend_ones(obj, ndmin)
                    if trans1d != -1:
                        obj = _swap(obj, -1, trans1d)
                objs.append(obj)
                kinds.append(obj.dtype)
            elif isinstance(item, _SCALARS):
                objs.append(item)
                kinds.append(item)
            else:
                obj = asarray(item)
                nd = len(obj.shape)
                obj = _prepend_ones(obj, ndmin)
                if trans1d != -1 and nd < ndmin:
                    k2, k1 = ndmin - nd, trans1d
                    if k1 < 0:
                        k1 += k2 + 1
                    order = list(range(ndmin))
                    obj = transpose(obj, order[:k1] + order[k2:] + order[k1:k2])
                objs.append(obj)
                kinds.append(obj.dtype)
        if not objs:
            raise ValueError("need at least one array to concatenate")
        dtype = np.result_type(*kinds)
        objs = [_prepend_ones(asarray(o, dtype=dtype), ndmin) for o in objs]
        return concatenate(objs, axis=axis)

    def _slice(self, item):
        start, stop, step = _slice_parts(item, self.name)
        if _is_complex(step):
            count = int(abs(step))
            return linspace(start, stop, count,
                            dtype=np.linspace(start, stop, 0).dtype)
        return _one_slice(slice(start, stop, step), self.name)

    @staticmethod
    def _directive(item, axis, ndmin, trans1d):
        if item in ("r", "c"):
            raise NotImplementedError(f"the {item!r} directive builds an np.matrix, which "
                                      f"graphc does not have{source_info.where()}")
        if "," in item:
            parts = item.split(",")
            try:
                axis, ndmin = (int(x) for x in parts[:2])
                if len(parts) == 3:
                    trans1d = int(parts[2])
            except Exception as e:  # noqa: BLE001 - NumPy's error for any bad directive
                raise ValueError(f"unknown special directive {item!r}") from e
            return axis, ndmin, trans1d
        try:
            return int(item), ndmin, trans1d
        except (ValueError, TypeError) as e:
            raise ValueError(f"unknown special directive {item!r}") from e

    def __len__(self):
        return 0

    def __repr__(self):
        return f"gnp.{self.name}"


def _swap(t, a, b):
    order = list(range(len(t.shape)))
    a, b = order[a], order[b]
    order[a], order[b] = order[b], order[a]
    return transpose(t, order)


r_ = _Concatenator(0, 1, -1, "r_")
c_ = _Concatenator(-1, 2, 0, "c_")


# --------------------------------------------------------------------------- ix_
def ix_(*args):
    """``np.ix_``: open-mesh index arrays; boolean vectors become the indices of their
    true entries (a length known only at run time while tracing)."""
    out = []
    n = len(args)
    for k, new in enumerate(args):
        if not isinstance(new, Tensor | np.ndarray):
            new = np.asarray(new)
            if new.size == 0:
                new = new.astype(np.intp)
        new = asarray(new)
        if len(new.shape) != 1:
            raise ValueError("Cross index must be 1 dimensional")
        if new.dtype == np.bool_:
            (new,) = nonzero(new)
        out.append(reshape(new, (1,) * k + (-1,) + (1,) * (n - k - 1)))
    return tuple(out)
