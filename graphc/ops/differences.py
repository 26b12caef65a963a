"""``np.diff`` and ``np.roll``, built from slicing, ``subtract``/``not_equal``,
``concatenate`` and ``take`` (no op of their own: gradients, batching and compiled
kernels are those of the ops they use).

``roll`` with a static shift is two slices joined; a shift given as a traced tensor
gathers with ``(arange(n) - shift) mod n`` instead, so it works inside ``gc.function``
when the shift is only known at run time.
"""

from __future__ import annotations

import numpy as np

from graphc import source_info
from graphc.core.tensor import Tensor
from graphc.ops.convert import asarray
from graphc.ops.creation import arange
from graphc.ops.indexing import take
from graphc.ops.join import concatenate
from graphc.ops.shape import broadcast_to, ravel, reshape, shape
from graphc.ops.shape_args import static_value
from graphc.ops.ufuncs import not_equal, remainder, subtract

_NO_VALUE = object()


def _axis_error(axis, ndim):
    return np.exceptions.AxisError(axis, ndim)


def _normalize_axis(axis, ndim: int) -> int:
    axis = int(axis)
    if not -ndim <= axis < ndim:
        raise _axis_error(axis, ndim)
    return axis % ndim


def _dims(a):
    """``a``'s shape, unknown dims as traced int64 scalars (for ``broadcast_to``)."""
    dims = list(a.shape)
    if None in dims:
        sizes = shape(a, out_type=np.int64)
        dims = [sizes[i] if d is None else d for i, d in enumerate(dims)]
    return dims


def _along(ndim, axis, index):
    key = [slice(None)] * ndim
    key[axis] = index
    return tuple(key)


def diff(a, n=1, axis=-1, prepend=_NO_VALUE, append=_NO_VALUE):
    """``np.diff``: the ``n``-th discrete difference along ``axis``, after joining
    ``prepend``/``append`` (scalars are broadcast to one slice along ``axis``).
    Booleans differ by ``!=``, as in NumPy."""
    if n == 0:
        return asarray(a)
    if n < 0:
        raise ValueError("order must be non-negative but got " + repr(n))
    a = asarray(a)
    nd = len(a.shape)
    if nd == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    axis = _normalize_axis(axis, nd)
    parts = []
    for extra in (prepend, None, append):
        if extra is None:
            parts.append(a)
            continue
        if extra is _NO_VALUE:
            continue
        extra = asarray(extra)
        if len(extra.shape) == 0:
            dims = _dims(a)
            dims[axis] = 1
            extra = broadcast_to(extra, dims)
        parts.append(extra)
    if len(parts) > 1:
        a = concatenate(parts, axis=axis)
    later, earlier = _along(nd, axis, slice(1, None)), _along(nd, axis, slice(None, -1))
    op = not_equal if a.dtype == np.bool_ else subtract
    for _ in range(int(n)):
        a = op(a[later], a[earlier])
    return a


# --------------------------------------------------------------------------- roll
def _shift_value(shift):
    """``shift`` as a NumPy value when known while tracing, else the traced tensor."""
    if isinstance(shift, Tensor):
        known = static_value(shift)
        if known is None:
            if shift.dtype.kind not in "iu":
                raise TypeError(f"roll: a traced shift must be integers, got {shift.dtype}"
                                f"{source_info.where()}")
            return shift
        return known
    return shift


def _totals(shift, axes, ndim):
    """Per axis, the sum of the shifts given for it (NumPy's broadcasting of ``shift``
    against ``axis``)."""
    if np.ndim(axes):
        axes_arg = [_normalize_axis(ax, ndim) for ax in np.asarray(axes).ravel()]
    else:
        axes_arg = _normalize_axis(axes, ndim)
    if isinstance(shift, Tensor):
        if len(shift.shape) > 1:
            raise ValueError("'shift' and 'axis' should be scalars or 1D sequences")
        count = 1 if len(shift.shape) == 0 else shift.shape[0]
        if count is None:
            raise ValueError(f"roll: a traced 1-D shift needs a length known while tracing"
                             f"{source_info.where()}")
        pairs = np.broadcast(np.arange(count).reshape(tuple(shift.shape)), axes_arg)
        if pairs.nd > 1:
            raise ValueError("'shift' and 'axis' should be scalars or 1D sequences")
        totals: dict = {}
        for i, ax in pairs:
            piece = shift if len(shift.shape) == 0 else shift[int(i)]
            totals[int(ax)] = piece if int(ax) not in totals else totals[int(ax)] + piece
        return totals
    pairs = np.broadcast(shift, axes_arg)
    if pairs.nd > 1:
        raise ValueError("'shift' and 'axis' should be scalars or 1D sequences")
    totals = {}
    for sh, ax in pairs:
        totals[int(ax)] = totals.get(int(ax), 0) + int(sh)
    return totals


def roll(a, shift, axis=None):
    """``np.roll``: elements shifted along ``axis`` (all of them, flattened, when
    ``axis`` is None), those pushed past the end coming back at the start. ``shift``
    and ``axis`` may be tuples (shifts for one axis add up); ``shift`` may be a traced
    integer tensor."""
    a = asarray(a)
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), _dims(a))
    nd = len(a.shape)
    totals = _totals(_shift_value(shift), axis, nd)
    out = a
    for ax, total in totals.items():
        n = a.shape[ax]
        if n is None and not isinstance(total, Tensor):
            total = asarray(np.int64(total))
        if isinstance(total, Tensor):
            if n == 0:
                continue
            size = n if n is not None else shape(a, out_type=np.int64)[ax]
            index = remainder(arange(size) - total.astype(np.int64), size)
            out = take(out, index, axis=ax)
            continue
        if n == 0:
            continue
        cut = n - total % n
        if cut == n:
            continue
        out = concatenate([out[_along(nd, ax, slice(cut, None))],
                           out[_along(nd, ax, slice(None, cut))]], axis=ax)
    return out
