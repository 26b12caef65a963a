"""NumPy's scalar types, its type hierarchy and the predicates and facts about dtypes
(``finfo``, ``iinfo``, ``can_cast``, ``isdtype``, ...) for ``graphc.numpy``.

The scalar types *are* NumPy's (``gnp.float32 is np.float32``): called, they make NumPy
scalars (``gnp.float32(1.5)``); as dtype arguments (``dtype=gnp.float32``,
``x.astype(gnp.int8)``) every graphc function normalizes them to ``np.dtype``, and they
compare equal to the dtypes (``t.dtype == gnp.float32``). graphc's TensorFlow-style names
(``gc.float32``, ``graphc.dtypes.float32``) stay ``np.dtype`` objects.

Nothing here is an op: these names answer questions about dtypes and shapes, which are
known while tracing, so they work the same on eager and traced tensors.
"""

from __future__ import annotations

import numpy as np

from graphc.core.tensor import Tensor

# --------------------------------------------------------------------------- scalar types
# NumPy's own scalar type objects (sized names, C names, and the abstract hierarchy)
bool_ = np.bool_
int8, int16, int32, int64 = np.int8, np.int16, np.int32, np.int64
uint8, uint16, uint32, uint64 = np.uint8, np.uint16, np.uint32, np.uint64
float16, float32, float64 = np.float16, np.float32, np.float64
complex64, complex128 = np.complex64, np.complex128
byte, short, intc, int_, long, longlong, intp = (
    np.byte, np.short, np.intc, np.int_, np.long, np.longlong, np.intp)
ubyte, ushort, uintc, uint, ulong, ulonglong, uintp = (
    np.ubyte, np.ushort, np.uintc, np.uint, np.ulong, np.ulonglong, np.uintp)
half, single, double, csingle, cdouble = np.half, np.single, np.double, np.csingle, np.cdouble
generic, number, integer, inexact = np.generic, np.number, np.integer, np.inexact
signedinteger, unsignedinteger = np.signedinteger, np.unsignedinteger
floating, complexfloating = np.floating, np.complexfloating
dtype = np.dtype

euler_gamma = np.euler_gamma


def _dtype_of(x):
    """The dtype a predicate reads from ``x``: a tensor's or array's dtype, else ``x``."""
    if isinstance(x, Tensor | np.ndarray | np.generic):
        return x.dtype
    return x


def _value_of(x, what):
    """The NumPy value of ``x``; a traced tensor has none yet."""
    if isinstance(x, Tensor):
        if x.is_symbolic:
            raise TypeError(
                f"{what} reads the values of its argument, which a traced tensor does not "
                "have while tracing; call it outside gc.function (or on a NumPy value)")
        return x.numpy()
    return x


# --------------------------------------------------------------------------- dtype facts
def finfo(dtype):
    """``np.finfo``: machine limits of a floating dtype (``eps``, ``max``, ``min``,
    ``tiny``/``smallest_normal``, ``resolution``, ``bits``, ``precision``, ``dtype``...).

    Also accepts a tensor or array (the Array API's ``finfo(x)``); complex dtypes give
    their real part's limits, as in NumPy.
    """
    return np.finfo(_dtype_of(dtype))


def iinfo(int_type):
    """``np.iinfo``: ``min``, ``max``, ``bits``, ``dtype``, ``kind`` of an integer dtype;
    also accepts a tensor or array."""
    return np.iinfo(_dtype_of(int_type))


def can_cast(from_, to, casting="safe"):
    """``np.can_cast``: whether a dtype (or a tensor's dtype) casts to ``to`` under
    ``casting`` ('no', 'equiv', 'safe', 'same_kind', 'unsafe'). Python numbers raise
    ``TypeError``, as in NumPy 2."""
    return np.can_cast(_dtype_of(from_), to, casting=casting)


def promote_types(type1, type2):
    """``np.promote_types``: the smallest dtype both cast to safely (no value rules)."""
    return np.promote_types(type1, type2)


def min_scalar_type(a):
    """``np.min_scalar_type``: the smallest dtype holding the value of ``a`` (for arrays,
    its dtype). Reads values: a traced scalar raises ``TypeError``."""
    if isinstance(a, Tensor) and a.ndim != 0:
        return np.dtype(a.dtype)
    return np.min_scalar_type(_value_of(a, "min_scalar_type"))


def isdtype(dtype, kind):
    """``np.isdtype`` (Array API): is ``dtype`` of ``kind``, a dtype, a kind name
    ('bool', 'signed integer', 'unsigned integer', 'integral', 'real floating',
    'complex floating', 'numeric') or a tuple of them. ``dtype`` must be a dtype (or a
    scalar type); anything else raises ``TypeError``, as in NumPy."""
    return np.isdtype(dtype, kind)


def issubdtype(arg1, arg2):
    """``np.issubdtype``: is ``arg1`` lower than or equal to ``arg2`` in the type
    hierarchy (``issubdtype(gnp.float32, gnp.floating)``)."""
    return np.issubdtype(arg1, arg2)


# --------------------------------------------------------------------------- objects
def iscomplexobj(x):
    """``np.iscomplexobj``: does ``x`` have a complex dtype (values are not read)."""
    dt = getattr(x, "dtype", None)
    if isinstance(dt, np.dtype):
        return issubclass(dt.type, np.complexfloating)
    return np.iscomplexobj(x)


def isrealobj(x):
    """``np.isrealobj``: not :func:`iscomplexobj`."""
    return not iscomplexobj(x)


def isscalar(element):
    """``np.isscalar``: Python and NumPy scalars are; tensors (0-d included) are not."""
    if isinstance(element, Tensor):
        return False
    return np.isscalar(element)


def iterable(y):
    """``np.iterable``: can ``iter(y)`` work; a tensor is iterable unless it is 0-d."""
    if isinstance(y, Tensor):
        return y.ndim is None or y.ndim > 0
    return np.iterable(y)


def ndim(a):
    """``np.ndim``: the number of dimensions (known while tracing)."""
    if isinstance(a, Tensor):
        return a.ndim
    return np.ndim(a)


def shape(a):
    """``np.shape``: the shape tuple; while tracing a dim unknown until run time is
    ``None`` (``gnp.shape(x)`` is static: use ``gc.shape(x)`` for the run-time shape)."""
    if isinstance(a, Tensor):
        return tuple(a.shape)
    return np.shape(a)


def size(a, axis=None):
    """``np.size``: the number of elements, or along ``axis`` (an int or a tuple of
    ints); ``None`` while tracing where a dim counted is unknown."""
    if not isinstance(a, Tensor):
        return np.size(a, axis)
    dims = tuple(a.shape)
    if axis is None:
        axes = range(len(dims))
    else:
        axes = axis if isinstance(axis, tuple) else (axis,)
        axes = [_axis(ax, len(dims)) for ax in axes]
    n = 1
    for ax in axes:
        if dims[ax] is None:
            return None
        n *= dims[ax]
    return n


def _axis(ax, ndim):
    if not -ndim <= ax < ndim:
        raise np.exceptions.AxisError(ax, ndim)
    return ax % ndim


def isfortran(a):
    """``np.isfortran``: Fortran-ordered and not C-ordered. Tensors are always C-ordered:
    ``False``."""
    if isinstance(a, Tensor):
        return False
    return np.isfortran(a)


def _memory(x, what):
    if isinstance(x, Tensor):
        _value_of(x, what)  # raises for a traced tensor
        return np.asarray(x)  # the tensor's own array (a view), not a copy
    return x


def may_share_memory(a, b, max_work=None):
    """``np.may_share_memory`` of eager tensors' (or arrays') buffers; a traced tensor has
    none yet (``TypeError``)."""
    w = "may_share_memory"
    return np.may_share_memory(_memory(a, w), _memory(b, w), max_work=max_work)


def shares_memory(a, b, max_work=None):
    """``np.shares_memory`` of eager tensors' (or arrays') buffers (exact test)."""
    w = "shares_memory"
    return np.shares_memory(_memory(a, w), _memory(b, w), max_work=max_work)


__all__ = [n for n in list(globals()) if not n.startswith("_")
           and n not in ("annotations", "np", "Tensor")]
