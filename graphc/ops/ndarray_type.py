"""``gnp.ndarray``: NumPy's array class as graphc spells it. Calling it allocates, as
``np.ndarray(shape, dtype)`` does; every ``gc.Tensor`` is an instance of it."""

from __future__ import annotations

from graphc import source_info
from graphc.core.tensor import Tensor
from graphc.ops.creation import _check_order, zeros


class _NdarrayType(type):
    """The metaclass of ``gnp.ndarray``: every ``gc.Tensor`` is an instance (and
    ``gc.Tensor`` a subclass), calling the class allocates as NumPy's constructor does,
    and other class attributes are ``gc.Tensor``'s (``gnp.ndarray.sum(t)``)."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor)

    def __subclasscheck__(cls, sub):
        return sub is cls or issubclass(sub, Tensor)

    def __getattr__(cls, name):
        return getattr(Tensor, name)

    def __call__(cls, shape, dtype=None, buffer=None, offset=0, strides=None, order=None):
        if buffer is not None:
            raise NotImplementedError(
                "gnp.ndarray(shape, dtype, buffer=...) is not supported: a tensor cannot "
                "share memory with a Python buffer; copy it with "
                f"gnp.asarray(np.ndarray(shape, dtype, buffer, ...)){source_info.where()}")
        _check_order(order, "CFAK")
        return zeros(shape, dtype)


class ndarray(metaclass=_NdarrayType):  # noqa: N801 - NumPy's name
    """``np.ndarray``: ``gnp.ndarray(shape, dtype=float, buffer=None, offset=0,
    strides=None, order=None)`` allocates a tensor of ``shape`` as NumPy's constructor
    does (uninitialized in NumPy; graphc fills it with zeros, as ``gnp.empty``), eagerly
    and while tracing; ``strides`` and ``offset`` are ignored without a ``buffer``, as in
    NumPy, and a ``buffer`` is refused. ``isinstance(t, gnp.ndarray)`` holds for every
    ``gc.Tensor``; the tensors' class itself is ``gc.Tensor``
    (``type(t) is gnp.ndarray`` is false)."""

    __module__ = "graphc.numpy"
