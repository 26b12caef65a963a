"""``DeviceTensor``: an eager ``gc.Tensor`` whose data lives on an accelerator.

It holds the backend's device array (``_dev``) and the short device name (``_device``,
e.g. ``"cuda:0"``). Every ``gc.Tensor`` method works on it: shape and dtype come from the
device array; anything that needs the values on the host (``t.numpy()``,
``np.asarray(t)``, ``float(t)``, printing, a tensor used as a shape or as a ``cond``
predicate) copies them to the host once and keeps that copy (tensors are immutable).

Eager ops on device tensors never reach that host copy: ``registry.bind`` sends them to
``graphc.core.placement``, which runs them on the device. The hot CPU paths test
``type(x) is Tensor``, so a device tensor always takes the slower, device-aware path.
"""

from __future__ import annotations

import numpy as np

from graphc.core import device_names as names
from graphc.core.tensor import Tensor
from graphc.ir.graph import Aval

made: list[bool] = []  # [True] once any device tensor was made (a cheap test for bind)


class DeviceTensor(Tensor):
    """An eager tensor on a device other than the CPU; create it with ``wrap``."""

    __slots__ = ("_dev", "_device", "_host", "_shape", "_dtype")

    @property
    def _np(self) -> np.ndarray:
        """The value on the host (copied from the device on first use, then kept)."""
        host = self._host
        if host is None:
            host = to_host(self._dev)
            host.flags.writeable = False
            self._host = host
        return host

    @property
    def is_symbolic(self) -> bool:
        return False

    @property
    def aval(self):
        return Aval(self._shape, self._dtype)

    @property
    def shape(self) -> tuple:
        return self._shape

    @property
    def dtype(self) -> np.dtype:
        return self._dtype

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def device(self) -> str:
        """The short name of the device holding the data, e.g. ``"cuda:0"``."""
        return self._device

    def __repr__(self):
        return (f"<gc.Tensor: shape={self.shape}, dtype={self.dtype.name}, "
                f"device={self._device}, numpy={np.array_repr(self._np)}>")

    def __reduce__(self):
        """Copies and pickles: the host values, put back on the same device (the
        default slot state would try to set the ``_np`` property)."""
        return _on_device, (np.array(self._np), self._device)


def _on_device(values: np.ndarray, device: str) -> Tensor:
    """``values`` as a new tensor on ``device`` (a ``DeviceError`` if it is missing)."""
    device = names.resolve(device)  # a DeviceError if it is missing here
    return wrap(to_device(values, device), device)


def index(device: str) -> int:
    """The device number of a short name (``"cuda:1"`` -> 1)."""
    return int(device.partition(":")[2])


def to_host(dev_array) -> np.ndarray:
    """Copy a device array to a new host ``ndarray``."""
    return np.asarray(names.cuda_backend().to_host(dev_array))


def to_device(array, device: str):
    """Copy a host array to ``device``; its device array."""
    return names.cuda_backend().to_device(np.asarray(array), index(device))


def wrap(dev_array, device: str) -> DeviceTensor:
    """A ``DeviceTensor`` holding ``dev_array`` (not copied) on ``device``."""
    if not made:
        made.append(True)
    t = object.__new__(DeviceTensor)
    t._sym = None
    t._dev = dev_array
    t._device = device
    t._host = None
    t._shape = tuple(dev_array.shape)
    t._dtype = np.dtype(dev_array.dtype)
    return t
