"""NumPy 2's Array API keywords on ``graphc.numpy``'s functions.

NumPy 2 added the standard's keywords to its own functions: ``device=`` on the creation
functions, ``copy=`` on ``asarray``/``astype``/``reshape``, ``correction=`` on
``std``/``var``, ``stable=`` on ``sort``/``argsort``, ``min=``/``max=`` on ``clip``.
Each function here is the ``gnp`` function of the same name (from its op family) with
those keywords added, and ``graphc.numpy`` exports these. Two are the standard's, not
NumPy's: ``descending=`` on ``sort``/``argsort`` (stable, as the standard asks) and
``clip``'s second and third parameters named ``min``/``max`` (``a_min=``/``a_max=``
still work as keywords, as in NumPy).

``device`` is a name of ``gnp.__array_namespace_info__().devices()`` (``"cpu:0"``,
``"cuda:0"``, ...), ``"cpu"`` or a ``gc.device`` spelling; the result is made there as
under ``gc.device`` (docs/devices.md).
"""

from __future__ import annotations

import contextlib

import numpy as np

from graphc.core import device_names, device_scope
from graphc.core.tensor import Tensor
from graphc.dtypes import as_dtype
from graphc.ops import convert, creation, reduce, ufuncs
from graphc.ops import numpy_conversions as _conversions
from graphc.ops import shape as _shape_mod

_NOVALUE = object()


def _placed(device):
    """A ``gc.device`` scope for ``device`` (nothing for None)."""
    if device is None:
        return contextlib.nullcontext()
    return device_scope.device(device_names.resolve(device, "device="))


def _check_like(like):
    if like is not None:
        raise TypeError("like= (NEP 35) is not supported: graphc.numpy makes gc.Tensor")


# --------------------------------------------------------------------------- creation
def asarray(a, dtype=None, order=None, *, device=None, copy=None, like=None):
    """``np.asarray``: ``a`` as a tensor (a tensor of that dtype is returned as it is).
    ``copy=True`` always copies; ``copy=False`` never does and raises ValueError where a
    copy is needed (a dtype change, or memory graphc cannot share: a list, a NumPy
    array: graphc copies NumPy arrays into its tensors). ``device`` places the result."""
    _check_like(like)
    creation._check_order(order, "CFAK")
    if copy is False:
        same = isinstance(a, Tensor) and (dtype is None or as_dtype(dtype) == a.dtype)
        if not same:
            raise ValueError("Unable to avoid copy while creating an array as requested.")
    with _placed(device):
        if copy:
            return convert.array(a, dtype=dtype)
        out = convert.asarray(a, dtype=dtype)
        if device is not None and out.device != device_scope.current():
            return creation.copy(out)
        return out


def arange(start, /, stop=None, step=1, dtype=None, *, device=None, like=None):
    """``np.arange`` with ``device=``."""
    _check_like(like)
    with _placed(device):
        return creation.arange(start, stop, step, dtype)


def eye(N, M=None, k=0, dtype=None, order="C", *, device=None, like=None):  # noqa: N803
    """``np.eye`` with ``order=`` (checked; tensors are C-ordered) and ``device=``."""
    _check_like(like)
    creation._check_order(order, "CF")
    with _placed(device):
        return creation.eye(N, M, k, dtype)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *,
             device=None):
    """``np.linspace`` (Python-number bounds) with ``retstep`` (returns ``(samples,
    step)``), ``axis`` (0 or -1 for these 1-D samples) and ``device=``."""
    if axis not in (0, -1):
        raise np.exceptions.AxisError(axis, 1)
    with _placed(device):
        out = creation.linspace(start, stop, num, endpoint, dtype)
    if not retstep:
        return out
    div = (num - 1) if endpoint else num
    step = (stop - start) / div if div > 0 else float("nan")
    return out, step


def from_dlpack(x, /, *, device=None, copy=None):
    """``np.from_dlpack`` with any device name of graphc (``"cpu:0"`` too)."""
    if device is not None:
        device_names.resolve(device, "from_dlpack")
    with _placed(device):
        out = _conversions.from_dlpack(x, copy=copy)
        if device is not None and out.device != device_scope.current():
            return creation.copy(out)
        return out


# --------------------------------------------------------------------------- conversions
def astype(x, dtype, /, *, copy=True, device=None):
    """``np.astype``: ``x`` as ``dtype``; ``copy=False`` returns ``x`` itself when it has
    that dtype already; ``device`` puts the result there."""
    if not isinstance(x, Tensor):
        raise TypeError(f"Input should be a gc.Tensor (or NumPy array), got {type(x)}")
    dtype = as_dtype(dtype)
    out = x if (not copy and x.dtype == dtype) else ufuncs.astype(x, dtype)
    if device is not None:
        return out.to_device(device)
    return out


def reshape(a, /, shape=None, order="C", *, newshape=None, copy=None):  # noqa: A002
    """``np.reshape`` with ``copy=``: True gives a new tensor, False or None the
    reshaped tensor (a view eagerly: a tensor's memory is always contiguous)."""
    if shape is None:
        shape, newshape = newshape, None
    elif newshape is not None:
        raise TypeError("You cannot specify 'newshape' and 'shape' arguments at the "
                        "same time.")
    if shape is None:
        raise TypeError("reshape() missing 1 required positional argument: 'shape'")
    out = _shape_mod.reshape(a, shape, order=order)
    return creation.copy(out) if copy else out



# --------------------------------------------------------------------------- statistics
def _ddof(ddof, correction):
    if correction is _NOVALUE:
        return ddof
    if ddof != 0:
        raise ValueError("ddof and correction can't be provided simultaneously.")
    return correction


def std(a, axis=None, dtype=None, ddof=0, keepdims=False, *, correction=_NOVALUE):
    """``np.std`` with ``correction=`` (the standard's name for ``ddof``)."""
    return reduce.std(a, axis=axis, dtype=dtype, ddof=_ddof(ddof, correction),
                      keepdims=keepdims)


def var(a, axis=None, dtype=None, ddof=0, keepdims=False, *, correction=_NOVALUE):
    """``np.var`` with ``correction=`` (the standard's name for ``ddof``)."""
    return reduce.var(a, axis=axis, dtype=dtype, ddof=_ddof(ddof, correction),
                      keepdims=keepdims)


# --------------------------------------------------------------------------- sorting
def _sort_args(kind, order, stable):
    if order is not None:
        raise ValueError("Cannot specify order when the array has no fields.")
    if kind is not None and stable is not None:
        raise ValueError("`kind` and `stable` parameters can't be provided at the same "
                         "time. Use only one of them.")


def _flipped(a, axis):
    return _shape_mod.flip(a, axis=axis)


def sort(a, axis=-1, kind=None, order=None, *, stable=None, descending=False):
    """``np.sort`` (always stable here) with the standard's ``descending=``."""
    _sort_args(kind, order, stable)
    out = _shape_mod.sort(a, axis=axis)
    if descending:
        return _flipped(out, -1 if axis is None else axis)
    return out


def argsort(a, axis=-1, kind=None, order=None, *, stable=None, descending=False):
    """``np.argsort`` (always stable) with the standard's ``descending=``: equal
    elements keep their order (the indices of a stable descending sort)."""
    _sort_args(kind, order, stable)
    if not descending:
        return _shape_mod.argsort(a, axis=axis)
    a = convert.asarray(a)
    if axis is None:
        a, axis = _shape_mod.ravel(a), -1
    n = a.shape[axis] if a.ndim else 1
    if n is None:
        n = _shape_mod.shape(a)[axis]
    back = _shape_mod.argsort(_flipped(a, axis), axis=axis)
    return (n - 1) - _flipped(back, axis)


# --------------------------------------------------------------------------- clip
def clip(a, min=_NOVALUE, max=_NOVALUE, out=None, *, a_min=_NOVALUE,  # noqa: A002
         a_max=_NOVALUE):
    """``np.clip``: ``a`` limited to ``[min, max]`` (either may be None). NumPy names
    the bounds ``a_min``/``a_max`` and takes ``min=``/``max=`` too; the standard names
    them ``min``/``max``: both spellings work, not both at once. ``out=`` writes the
    result into a tensor (docs/mutation.md)."""
    if a_min is not _NOVALUE or a_max is not _NOVALUE:
        if min is not _NOVALUE or max is not _NOVALUE:
            raise ValueError("Passing `min` or `max` keyword argument when `a_min` and "
                             "`a_max` are provided is forbidden.")
        min, max = a_min, a_max  # noqa: A001
    lo = None if min is _NOVALUE else min
    hi = None if max is _NOVALUE else max
    result = ufuncs.clip(a, lo, hi)
    if out is None:
        return result
    out[...] = result
    return out


__all__ = ["arange", "argsort", "asarray", "astype", "clip", "eye", "from_dlpack",
           "linspace", "reshape", "sort", "std", "var"]
