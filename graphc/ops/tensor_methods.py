"""``gc.Tensor``'s remaining ``numpy.ndarray`` methods and the Array API's array methods.

``install_methods(Tensor, gnp)`` is called once by the face (``graphc/__init__``), like
``core/tensor.install``: each method here is served by ``graphc.numpy`` (``t.conj()`` is
``gnp.conj(t)``), so it runs eagerly, records while tracing, and has the gradient and
batching of the functions it calls. The in-place ones (``t.partition``, ``t.put``,
``t.resize``, ``t.flat[k] = v``, ``t.real = v``) follow docs/mutation.md: eagerly a
write into the tensor's array, while tracing a functionalized rebinding
(``ops/inplace.write``).

Array API: ``t.__array_namespace__()`` is ``graphc.numpy``, ``t.mT`` the stack of
matrices transposed, ``t.to_device(d)`` a copy on device ``d`` (``t`` itself when it is
there already), ``__dlpack__``/``__dlpack_device__`` NumPy's on the eager value.
"""

from __future__ import annotations

import numpy as np

from graphc import source_info
from graphc.core import contexts, device_scope, hooks, mutation
from graphc.core import device_names as _names
from graphc.ops import inplace as _inplace

# The Array API versions graphc.numpy answers to (``__array_namespace__(api_version=)``).
API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")

_gnp = None  # graphc.numpy, given by install_methods


# --------------------------------------------------------------------------- Array API
def __array_namespace__(self, /, *, api_version=None):  # noqa: N807 - the standard's name
    """The Array API namespace of the tensor: ``graphc.numpy``. ``api_version`` (a
    string such as ``"2023.12"``) must be one graphc.numpy supports, else ValueError."""
    if api_version is not None and api_version not in API_VERSIONS:
        raise ValueError(f'Version "{api_version}" of the Array API Standard is not '
                         f"supported (supported: {', '.join(API_VERSIONS)})")
    return _gnp


def mT(self):  # noqa: N802 - the standard's name
    """The transpose of each matrix of the stack (the last two axes swapped); NumPy's
    ValueError for fewer than two dimensions."""
    if self.ndim < 2:
        raise ValueError("matrix transpose with ndim < 2 is undefined")
    return _gnp.swapaxes(self, -1, -2)


def to_device(self, device, /, *, stream=None):
    """The tensor on ``device`` (``"cpu"``, ``"cpu:0"``, ``"cuda:0"``, a name of
    ``gnp.__array_namespace_info__().devices()``): ``self`` when it is there already,
    else a copy made there (``gnp.copy`` under ``gc.device``, docs/devices.md).
    ``stream`` is not supported (must be None), as in NumPy."""
    if stream is not None:
        raise ValueError("to_device: the stream argument is not supported")
    target = _names.resolve(device, "to_device")
    if target == self.device:
        return self
    with device_scope.device(target):
        return _gnp.copy(self)


def __dlpack__(self, /, *, stream=None, max_version=None, dl_device=None, copy=None):  # noqa: N807
    """DLPack export of the eager value (NumPy's ``ndarray.__dlpack__`` on the tensor's
    array, which it shares unless ``copy=True``); a traced tensor has no memory to
    share and raises ``SymbolicTensorError``."""
    arr = self._concrete("__dlpack__()")
    return arr.__dlpack__(stream=stream, max_version=max_version, dl_device=dl_device,
                          copy=copy)


def __dlpack_device__(self, /):  # noqa: N807
    """``(device type, device id)`` of the exported memory: ``(1, 0)``, the CPU (a GPU
    tensor's value is exported from its host copy)."""
    return (1, 0)


# --------------------------------------------------------------------------- Python protocols
def __contains__(self, value):  # noqa: N807
    """``value in t``: NumPy's ``(t == value).any()``, a Python bool (eager only)."""
    return bool(_gnp.any(_gnp.equal(self, value)))


def __copy__(self):  # noqa: N807
    """``copy.copy(t)``: a new tensor with the same value (NumPy's ``ndarray.__copy__``)."""
    return _gnp.copy(self)


def __deepcopy__(self, memo, /):  # noqa: N807
    """``copy.deepcopy(t)``: a new tensor with the same value (numbers only, so a deep
    copy is a copy)."""
    return _gnp.copy(self)


# --------------------------------------------------------------------------- ndarray methods
def argpartition(self, kth, axis=-1, kind="introselect", order=None):
    """``ndarray.argpartition``: ``gnp.argpartition(t, kth, axis, kind, order)``."""
    return _gnp.argpartition(self, kth, axis=axis, kind=kind, order=order)


def partition(self, kth, axis=-1, kind="introselect", order=None):
    """``ndarray.partition``: ``t`` partitioned in place around ``kth`` (returns None;
    ``gnp.partition`` returns a copy). Here the partition is a full sort along ``axis``,
    one of the orders NumPy may give."""
    if axis is None:
        raise ValueError("axis=None is not supported by ndarray.partition (use "
                         "gnp.partition)")
    _inplace.check_writable(self, "t.partition()")
    _inplace.write(self, lambda src: _gnp.partition(src, kth, axis=axis, kind=kind,
                                                    order=order))


def choose(self, choices, out=None, mode="raise"):
    """``ndarray.choose``: ``gnp.choose(t, choices, out, mode)``."""
    return _gnp.choose(self, choices, out=out, mode=mode)


def compress(self, condition, axis=None, out=None):
    """``ndarray.compress``: ``gnp.compress(condition, t, axis, out)``."""
    return _gnp.compress(condition, self, axis=axis, out=out)


def conj(self):
    """``ndarray.conj``: the complex conjugate, elementwise (a real tensor's values)."""
    return _gnp.conjugate(self)


def conjugate(self):
    """``ndarray.conjugate``: the complex conjugate, elementwise."""
    return _gnp.conjugate(self)


def diagonal(self, offset=0, axis1=0, axis2=1):
    """``ndarray.diagonal``: ``gnp.diagonal(t, offset, axis1, axis2)`` (a copy)."""
    return _gnp.diagonal(self, offset=offset, axis1=axis1, axis2=axis2)


def searchsorted(self, v, side="left", sorter=None):
    """``ndarray.searchsorted``: ``gnp.searchsorted(t, v, side, sorter)``."""
    return _gnp.searchsorted(self, v, side=side, sorter=sorter)


def put(self, indices, values, mode="raise"):
    """``ndarray.put``: ``t.flat[indices] = values`` in place, ``values`` repeated
    (``gnp.put``); returns None."""
    return _gnp.put(self, indices, values, mode=mode)


def resize(self, *new_shape, refcheck=True):
    """``ndarray.resize``: change ``t``'s shape and size in place; the flattened values
    are kept in order, cut or padded with zeros (unlike ``gnp.resize``, which repeats
    them). Eagerly NumPy's own method, with its checks (a tensor whose array is shared
    with views or other arrays raises ValueError unless ``refcheck=False``). While
    tracing ``t`` is rebound to the new value; as for ``t.shape = s``, an argument, a
    loop variable, a view or a tensor with views raises ``AliasError``."""
    if len(new_shape) == 1 and (new_shape[0] is None or isinstance(new_shape[0], tuple | list)):
        new_shape = new_shape[0] or ()
    shape = tuple(int(d) for d in new_shape)
    if any(d < 0 for d in shape):
        raise ValueError("negative dimensions not allowed")
    _inplace.check_writable(self, "t.resize()")
    if self._np is not None:
        if hooks.tapes:
            raise ValueError("t.resize() while a GradientTape records is not supported: "
                             f"use t = gnp.resize(...) or a new tensor{source_info.where()}")
        self._np.resize(shape, refcheck=refcheck)
        return None
    total = int(np.prod(shape))
    flat = _gnp.ravel(_gnp.copy(self))  # a copy: no view of self is left behind
    n = self.size
    if n is None:
        raise ValueError(f"t.resize(){source_info.where()}: the tensor's size is unknown "
                         "while tracing")
    if total <= n:
        new = flat[:total]
    else:
        new = _gnp.concatenate([flat, _gnp.zeros(total - n, self.dtype)])
    mutation.reshape_in_place(contexts.current(), self, _gnp.reshape(new, shape))
    return None


# --------------------------------------------------------------------------- attributes
def itemsize(self):
    """The size of one element in bytes (``t.dtype.itemsize``)."""
    return self.dtype.itemsize


def nbytes(self):
    """The bytes the elements take (``t.size * t.itemsize``); None when the size is
    unknown while tracing."""
    n = self.size
    return None if n is None else n * self.dtype.itemsize


def _real(self):
    """The real part (``gnp.real``): ``t`` itself for a real dtype, as NumPy returns
    the array itself. ``t.real = v`` writes the real part in place."""
    return _gnp.real(self)


def _set_real(self, value):
    _inplace.check_writable(self, "t.real = ...")
    if self.dtype.kind != "c":
        _inplace.write(self, lambda src: _gnp.astype(_gnp.broadcast_to(value, src.shape),
                                                     src.dtype))
        return
    if self._np is not None and not hooks.tapes:
        self._np.real = _operand(value)
        return
    _inplace.write(self, lambda src: _complex(src, value, _gnp.imag(src)))


def _imag(self):
    """The imaginary part (``gnp.imag``; zeros for a real dtype). ``t.imag = v`` writes
    it in place; a real tensor has none to write (TypeError, as NumPy)."""
    return _gnp.imag(self)


def _set_imag(self, value):
    if self.dtype.kind != "c":
        raise TypeError("array does not have imaginary part to set")
    _inplace.check_writable(self, "t.imag = ...")
    if self._np is not None and not hooks.tapes:
        self._np.imag = _operand(value)
        return
    _inplace.write(self, lambda src: _complex(src, _gnp.real(src), value))


def _operand(value):
    return value._concrete("a written value") if hasattr(value, "_concrete") else value


def _complex(src, re, im):
    """``re + i im`` as ``src``'s dtype and shape (``re`` and ``im`` broadcast)."""
    part = _gnp.real(src).dtype
    re = _gnp.broadcast_to(_gnp.astype(_gnp.asarray(re), part), src.shape)
    im = _gnp.broadcast_to(_gnp.astype(_gnp.asarray(im), part), src.shape)
    return _gnp.astype(re, src.dtype) + _gnp.astype(im, src.dtype) * src.dtype.type(1j)


# --------------------------------------------------------------------------- t.flat
class flatiter:  # noqa: N801 - NumPy's name
    """``t.flat``: the tensor's elements in C order. ``t.flat[k]`` reads (a scalar
    tensor for an int ``k``, else 1-D), ``t.flat[k] = v`` writes into ``t`` in place
    with ``v`` repeated as NumPy does (``gnp.put``); iterating gives the elements and
    ``len`` is the size."""

    __slots__ = ("base",)

    def __init__(self, base):
        self.base = base

    def __getitem__(self, key):
        return _gnp.ravel(self.base)[key]

    def __setitem__(self, key, value):
        t = self.base
        index = _gnp.arange(t.size if t.size is not None else _gnp.size(t))[key]
        _gnp.put(t, index, value)

    def __iter__(self):
        flat = _gnp.ravel(self.base)
        return (flat[i] for i in range(len(self)))

    def __len__(self):
        n = self.base.size
        if n is None:
            raise TypeError("len(t.flat) needs the size, unknown while tracing")
        return n

    def __array__(self, dtype=None, copy=None):
        return np.asarray(_gnp.ravel(self.base), dtype=dtype)

    def copy(self):
        """The elements as a new 1-D tensor (``flatiter.copy``)."""
        return _gnp.copy(_gnp.ravel(self.base))


def _flat(self):
    """A ``flatiter`` over ``t`` (read ``t.flat[k]``, write ``t.flat[k] = v``)."""
    return flatiter(self)


def _set_flat(self, value):
    flatiter(self)[...] = value


_METHODS = (__array_namespace__, to_device, __dlpack__, __dlpack_device__, __contains__,
            __copy__, __deepcopy__, argpartition, partition, choose, compress, conj,
            conjugate, diagonal, searchsorted, put, resize)
_PROPERTIES = {
    "mT": property(mT, doc=mT.__doc__),
    "itemsize": property(itemsize, doc=itemsize.__doc__),
    "nbytes": property(nbytes, doc=nbytes.__doc__),
    "real": property(_real, _set_real, doc=_real.__doc__),
    "imag": property(_imag, _set_imag, doc=_imag.__doc__),
    "flat": property(_flat, _set_flat, doc=_flat.__doc__),
}


def install_methods(tensor_class, numpy_namespace) -> None:
    """Attach the methods and attributes above to ``tensor_class`` (``gc.Tensor``),
    served by ``numpy_namespace`` (``graphc.numpy``); called once by the face."""
    global _gnp
    _gnp = numpy_namespace
    for fn in _METHODS:
        fn.__qualname__ = f"Tensor.{fn.__name__}"
        setattr(tensor_class, fn.__name__, fn)
    for name, prop in _PROPERTIES.items():
        setattr(tensor_class, name, prop)


__all__ = ["install_methods", "flatiter"]
