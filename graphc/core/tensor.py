"""``gc.Tensor``: the one tensor type users see, eager or symbolic.

An *eager* tensor holds a ``numpy.ndarray`` (``_np``); a *symbolic* tensor names an
``ir.Value`` in the graph being traced (``_sym``). Both share every operator and method:
each one calls an op through ``bind``, which runs it now or records it.

Tensors follow NumPy's mutation semantics: ``t[k] = v``, ``t += u``, ``t.sort()`` write
into ``t`` (eagerly into its array, which NumPy views of it share; while tracing by
rebinding ``_sym`` to an update op's result: ``graphc.core.mutation``).
``t.numpy()`` returns a copy of the data (a NumPy scalar for rank 0, like
``np.asarray(a)[()]``), so changing it never changes the tensor; ``np.asarray(t)`` returns
the tensor's own array (a view: writes into it change the tensor).

The arithmetic and comparison operators are attached by ``graphc/ops/operators.py``.
"""

from __future__ import annotations

import numpy as np

from graphc import source_info
from graphc.core import contexts
from graphc.dtypes import numpy_literal
from graphc.errors import SymbolicTensorError
from graphc.ir.graph import Aval

_OPERAND_TYPES = (int, float, bool, complex, np.ndarray, list, tuple, np.generic)


class Tensor:
    """An n-dimensional array, eager or symbolic, with NumPy's in-place semantics.

    >>> import graphc as gc, graphc.numpy as gnp
    >>> t = gnp.ones([2, 3]) * 2
    >>> t.shape, t.dtype
    ((2, 3), dtype('float64'))
    """

    __slots__ = ("_np", "_sym", "__weakref__")
    __array_priority__ = 1000.0
    __hash__ = None  # unhashable, like NumPy arrays and TensorFlow 2 tensors

    def __init__(self, value, dtype=None):

        if isinstance(value, Tensor):
            value = value._np if value._np is not None else value
        self._np = np.array(numpy_literal(value, dtype), copy=True)
        self._sym = None

    # -- attributes -----------------------------------------------------------------
    @property
    def is_symbolic(self) -> bool:
        """True while tracing: the tensor stands for a value of a future call."""
        return self._np is None

    @property
    def aval(self):

        if self._np is not None:
            return Aval(self._np.shape, self._np.dtype)
        return self._sym.aval

    @property
    def shape(self) -> tuple:
        """Tuple of dims; a symbolic tensor's unknown dims are ``None``."""
        if self._np is not None:
            return self._np.shape
        return self._sym.aval.shape

    @shape.setter
    def shape(self, value) -> None:
        """``t.shape = s``: NumPy's in-place reshape, the same memory under a new shape
        (``ops/inplace.set_shape``)."""
        _inplace.set_shape(self, value)

    @property
    def dtype(self) -> np.dtype:
        if self._np is not None:
            return self._np.dtype
        return self._sym.aval.dtype

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self):
        """Number of elements, or ``None`` if a dim is unknown."""
        if self._np is not None:
            return self._np.size
        n = 1
        for d in self.shape:
            if d is None:
                return None
            n *= d
        return n

    @property
    def device(self) -> str:
        """The short name of the device holding the value: ``"cpu:0"`` here; tensors on
        a GPU (``graphc.core.device_tensor``) say ``"cuda:0"`` and so on."""
        return "cpu:0"

    @property
    def backing_device(self) -> str:
        """TensorFlow's name for where the data lives: the same as ``device`` here."""
        return self.device

    @property
    def T(self):
        return _gnp.transpose(self)

    # -- concrete values ---------------------------------------------------------------
    def _concrete(self, what: str) -> np.ndarray:
        if self._np is None:
            raise SymbolicTensorError(symbolic_message(self, what))
        return self._np

    def numpy(self):
        """A copy of the value as a ``numpy.ndarray`` (a NumPy scalar for rank 0)."""
        arr = self._concrete(".numpy()")
        return arr[()] if arr.ndim == 0 else arr.copy()

    def item(self, *args):
        return self._concrete(".item()").item(*args)

    def tolist(self):
        return self._concrete(".tolist()").tolist()

    def __array__(self, dtype=None, copy=None):
        arr = self._concrete("np.asarray()")
        if dtype is not None and arr.dtype != dtype:
            return arr.astype(dtype)
        if copy:
            return arr.copy()
        return arr  # np.asarray(t) is a view of t, as for an ndarray

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """NumPy ufuncs on tensors (NEP 13): ``ndarray op tensor`` and ``np.exp(t)`` give
        graphc's op and a tensor; with ``out=`` (``ndarray += tensor`` is ``np.add(a, t,
        out=a)``) the result is written into ``out``, as NumPy does."""
        out = kwargs.get("out")
        if out is not None:
            return _inplace.ufunc_out(ufunc, method, inputs, kwargs, _gnp)
        fn = getattr(_gnp, ufunc.__name__, None) if method == "__call__" else None
        if fn is not None and not kwargs:
            return fn(*inputs)
        return getattr(ufunc, method)(*_to_numpy(inputs), **_to_numpy(kwargs))

    def __array_function__(self, func, types, args, kwargs):
        # NumPy functions called on tensors (np.sum(t), np.concatenate([t, a])) run NumPy's
        # own implementation on the arrays and return NumPy values, as documented.
        return func(*_to_numpy(args), **_to_numpy(kwargs))

    def __bool__(self):
        arr = self._concrete("bool()")
        return bool(arr)

    def __float__(self):
        return float(self._concrete("float()"))

    def __int__(self):
        return int(self._concrete("int()"))

    def __index__(self):
        arr = self._concrete("an integer index")
        return arr.__index__()

    def __complex__(self):
        return complex(self._concrete("complex()"))

    def __len__(self):
        shape = self.shape
        if not shape:
            raise TypeError("len() of a 0-d tensor (a scalar) is undefined")
        if shape[0] is None:
            raise SymbolicTensorError(symbolic_message(self, "len()"))
        return shape[0]

    def __iter__(self):
        shape = self.shape
        if not shape:
            raise TypeError("iteration over a 0-d tensor (a scalar)")
        n = len(self)
        return (self[i] for i in range(n))

    def __setitem__(self, key, value):
        _indexing.setitem(self, key, value)

    def __repr__(self):
        if self._np is None:
            return f"<gc.Tensor shape={self.shape} dtype={self.dtype.name} (symbolic)>"
        return (f"<gc.Tensor: shape={self.shape}, dtype={self.dtype.name}, "
                f"numpy={np.array_repr(self._np)}>")

    def __str__(self):
        if self._np is None:
            return repr(self)
        return str(self._np)

    def __format__(self, spec):
        if self._np is not None and self._np.ndim == 0:
            return format(self._np[()], spec)
        return format(str(self), spec)

    def __getitem__(self, key):
        return _indexing.getitem(self, key)

    # -- ndarray-style methods ----------------------------------------------------------
    def reshape(self, *shape, order="C"):
        if len(shape) == 1 and isinstance(shape[0], list | tuple):
            shape = shape[0]
        return _gnp.reshape(self, shape, order=order)

    def ravel(self):
        return _gnp.ravel(self)

    def flatten(self):
        return _gnp.ravel(self)

    def astype(self, dtype):
        return _gnp.astype(self, dtype)

    def transpose(self, *axes):
        if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], list | tuple)):
            axes = axes[0]
        return _gnp.transpose(self, axes or None)

    def swapaxes(self, a, b):
        return _gnp.swapaxes(self, a, b)

    def squeeze(self, axis=None):
        return _gnp.squeeze(self, axis)

    def sum(self, axis=None, dtype=None, keepdims=False):
        return _gnp.sum(self, axis=axis, dtype=dtype, keepdims=keepdims)

    def prod(self, axis=None, dtype=None, keepdims=False):
        return _gnp.prod(self, axis=axis, dtype=dtype, keepdims=keepdims)

    def mean(self, axis=None, dtype=None, keepdims=False):
        return _gnp.mean(self, axis=axis, dtype=dtype, keepdims=keepdims)

    def std(self, axis=None, dtype=None, ddof=0, keepdims=False):
        return _gnp.std(self, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims)

    def var(self, axis=None, dtype=None, ddof=0, keepdims=False):
        return _gnp.var(self, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims)

    def max(self, axis=None, keepdims=False):
        return _gnp.max(self, axis=axis, keepdims=keepdims)

    def min(self, axis=None, keepdims=False):
        return _gnp.min(self, axis=axis, keepdims=keepdims)

    def argmax(self, axis=None, keepdims=False):
        return _gnp.argmax(self, axis=axis, keepdims=keepdims)

    def argmin(self, axis=None, keepdims=False):
        return _gnp.argmin(self, axis=axis, keepdims=keepdims)

    def nonzero(self):
        return _gnp.nonzero(self)

    def any(self, axis=None, keepdims=False):
        return _gnp.any(self, axis=axis, keepdims=keepdims)

    def all(self, axis=None, keepdims=False):
        return _gnp.all(self, axis=axis, keepdims=keepdims)

    def cumsum(self, axis=None, dtype=None):
        return _gnp.cumsum(self, axis=axis, dtype=dtype)

    def cumprod(self, axis=None, dtype=None):
        return _gnp.cumprod(self, axis=axis, dtype=dtype)

    def clip(self, min=None, max=None):
        return _gnp.clip(self, min, max)

    def round(self, decimals=0):
        return _gnp.round(self, decimals)

    def copy(self):
        return _gnp.copy(self)

    def repeat(self, repeats, axis=None):
        return _gnp.repeat(self, repeats, axis=axis)

    def take(self, indices, axis=None):
        return _gnp.take(self, indices, axis=axis)

    def sort(self, axis=-1):
        """Sort in place along ``axis`` (NumPy's method; ``gnp.sort(t)`` returns a copy)."""
        _inplace.sort(self, _gnp.sort, axis)

    def fill(self, value):
        """Set every element to ``value`` in place (NumPy's method)."""
        _inplace.fill(self, value, _gnp.full_like)

    def argsort(self, axis=-1):
        return _gnp.argsort(self, axis=axis)

    def dot(self, other):
        return _gnp.dot(self, other)

    def trace(self, offset=0, axis1=0, axis2=1):
        return _gnp.trace(self, offset=offset, axis1=axis1, axis2=axis2)


def _operand(other) -> bool:
    """Whether a Tensor operator takes ``other``: numbers, arrays, lists and anything that
    converts itself (a ``gc.Variable``: ``t * v`` reads it, like ``v * t``)."""
    return (isinstance(other, _OPERAND_TYPES) or isinstance(other, Tensor)  # subclasses
            or hasattr(other, "_graphc_tensor_"))


def _to_numpy(obj):
    if isinstance(obj, Tensor):
        return obj.__array__()
    if type(obj) in (list, tuple):
        return type(obj)(_to_numpy(o) for o in obj)
    if type(obj) is dict:
        return {k: _to_numpy(v) for k, v in obj.items()}
    return obj


def symbolic_message(t: Tensor, what: str) -> str:
    """The SymbolicTensorError text for asking a traced tensor for its value via ``what``."""
    where = source_info.where()
    origin = ""
    if t._sym is not None and contexts.active():
        args = contexts.current().source_arguments(t._sym)
        if args:
            origin = f", computed from argument {', '.join(repr(a) for a in args)}"
    return (
        f"{what} needs a concrete value, but this tensor (shape={t.shape}, "
        f"dtype={t.dtype.name}{origin}) is symbolic: its value is unknown while gc.function "
        f"traces{where}. Use graphc ops on it instead; to run NumPy or Python code on the value "
        f"at run time, use gc.numpy_function or gc.py_function; to print it, gc.print; to "
        f"debug step by step, gc.run_functions_eagerly(True)."
    )


def _eager(arr) -> Tensor:
    """Wrap a NumPy result as an eager Tensor without copying."""
    if type(arr) is not np.ndarray:
        arr = np.asarray(arr)
    t = object.__new__(Tensor)
    t._np = arr
    t._sym = None
    return t


def _symbolic(value) -> Tensor:
    t = object.__new__(Tensor)
    t._np = None
    t._sym = value
    return t


_gnp = _indexing = _inplace = None


def install(numpy_namespace, indexing, inplace, install_operators) -> None:
    """Connect Tensor to the layers above the core; the face (``graphc/__init__``) calls it
    once: ``numpy_namespace`` (``graphc.numpy``) serves the NumPy-named methods
    (``t.sum()``), ``indexing`` (``graphc.ops.indexing``) ``t[...]`` and ``t[...] = v``,
    ``inplace`` (``graphc.ops.inplace``) the in-place methods, and
    ``install_operators(Tensor)`` attaches the Python operators (in-place ones too)."""
    global _gnp, _indexing, _inplace
    _gnp, _indexing, _inplace = numpy_namespace, indexing, inplace
    install_operators(Tensor)
