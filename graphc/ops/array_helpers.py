"""Small helpers shared by the NumPy compositions of ``manipulation.py``,
``index_helpers.py``, ``selection.py``, ``set_ops.py``, ``windows.py`` and
``polynomials.py`` (axis checks with NumPy's errors, values known while tracing, shapes
with traced dims, in-place writes with NumPy's meaning)."""

from __future__ import annotations

import operator

import numpy as np

from graphc import source_info
from graphc.core.tensor import Tensor
from graphc.ops import inplace
from graphc.ops.convert import asarray
from graphc.ops.effects import assert_op
from graphc.ops.shape import shape
from graphc.ops.shape_args import static_value


def norm_axis(axis, ndim: int) -> int:
    """``axis`` in ``[0, ndim)``; NumPy's ``AxisError`` otherwise."""
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(axis, ndim)
    return axis % ndim


def known(x):
    """``x`` as a NumPy array when its value is known while tracing (Python values,
    NumPy arrays, eager tensors, traced constants), else ``None``."""
    if isinstance(x, Tensor):
        return static_value(x)
    return np.asarray(x)


def traced(x) -> bool:
    """Whether ``x`` is a tensor whose value is only known when the graph runs."""
    return isinstance(x, Tensor) and static_value(x) is None


def dims(a):
    """``a``'s shape, unknown dims as traced int64 scalars (for shape arguments)."""
    out = list(a.shape)
    if None in out:
        sizes = shape(a, out_type=np.int64)
        out = [sizes[i] if d is None else d for i, d in enumerate(out)]
    return out


def need_static(value, what: str, name: str):
    """``value`` (a known size) or a clear error naming ``name``."""
    if value is None:
        raise ValueError(f"{name}: {what} must be known while tracing{source_info.where()}")
    return value


def rank(a) -> int:
    if a.shape is None:
        raise ValueError(f"this needs a tensor of known rank{source_info.where()}")
    return len(a.shape)


def mutate(a, compute, name: str):
    """NumPy's in-place ``name(a, ...)``: ``a`` gets ``compute(current)``.

    A tensor is written as ``t op= u`` writes it (eagerly into its array, so NumPy views
    see it; while tracing functionalized, so views, argument write-back and gradients
    work); a NumPy array is written in place with the computed (eager) value."""
    if isinstance(a, Tensor):
        inplace.check_writable(a, name)
        inplace.write(a, lambda src: compute(src).astype(a.dtype))
        return None
    if not isinstance(a, np.ndarray):
        raise TypeError(f"{name}: argument must be an ndarray or a tensor, not "
                        f"{type(a).__name__}")
    if not a.flags.writeable:
        raise ValueError("assignment destination is read-only")
    new = compute(asarray(a))
    a[...] = inplace.eager_operand(new).astype(a.dtype, copy=False)
    return None


def check(ok, message):
    """``ok`` must hold everywhere: eagerly (or known while tracing) now, as NumPy's
    ``ValueError``; while tracing when the graph runs (an ``assert`` node, raising
    ``InvalidArgumentError``, a ``ValueError``)."""
    if traced(ok):
        assert_op("assert", (ok,), message=message)
    elif not np.all(known(ok)):
        raise ValueError(message)


def strong(x):
    """NumPy's ``asarray`` of a function argument (Python numbers are not weak here)."""
    return x if isinstance(x, Tensor) else asarray(np.asarray(x))


def dtype_probe(x):
    """What NumPy's ``result_type`` sees for ``x``: Python numbers stay weak."""
    if isinstance(x, bool | int | float | complex):
        return x
    if isinstance(x, Tensor):
        return np.zeros((1,) * len(x.shape or ()), x.dtype)
    return np.asarray(x)
