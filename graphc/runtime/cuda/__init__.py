"""The CUDA backend: graphs run as numba.cuda kernels generated per graph.

Imported only when a device is asked for (``import graphc`` imports neither this package
nor Numba); needs the ``numba-cuda`` package (``pip install 'graphc[cuda]'``). Numba's
simulator (``NUMBA_ENABLE_CUDASIM=1`` before numba.cuda is first imported) counts as one
GPU. How graphs become kernels: docs/cuda.md.

The interface the device code (``graphc/core/placement.py``, ``graphc/functions/placement.py``)
calls, through ``hooks.cuda_backend``; stable:

``available() -> bool``
    numba-cuda imports and sees a GPU (or the simulator).
``gpu_count() -> int``
    how many GPUs (0 when not ``available()``).
``to_device(np_array, index=0)`` / ``to_host(dev_array) -> np.ndarray``
    copies across the bus (``to_device`` of a device array copies it to device ``index``).
``is_device_array(x) -> bool``
    ``x`` is a numba.cuda device array (never imports numba).
``executor_for(graph, index=0, strict=False) -> Executor``
    ``Executor(arrays) -> list`` with ``interpreter.run_graph``'s contract, taking device
    arrays (host NumPy arrays are copied in) and returning device arrays. Attributes:
    ``backend`` (``"cuda"``; ``"cuda+host"`` when some nodes run on the host, ``"host"``
    when the whole graph does), ``reasons``, ``explain()``. Nodes without a CUDA kernel
    are reported like the CPU backend's fallbacks: one ``FallbackWarning`` per executor,
    ``strict=True`` (``jit_compile=True``) raises ``FallbackError`` instead. A graph
    with unknown input dims gets one such executor per call shape (``Specializing``).
``run_op(opdef, attrs, arrays)``
    one op eagerly on the GPU ``arrays`` (device arrays) live on: a one-node graph through
    ``executor_for``, cached by (op, attrs, operand shapes and dtypes). Returns a device
    array (a list for ops with several results). Ops without a kernel run on the host
    silently (the eager path has no executor to explain them).
"""

from __future__ import annotations

import sys
import threading

import numpy as np

from graphc.runtime.cuda import eager, target
from graphc.runtime.cuda.executor import Executor, Specializing
from graphc.runtime.cuda.executor import is_device_array as _is_device_array

_eager: dict = {}
_eager_lock = threading.Lock()


def available() -> bool:
    """Whether numba-cuda is installed and sees a GPU (or runs the simulator)."""
    try:
        return bool(target.cuda().is_available())
    except Exception:  # noqa: BLE001 - no numba-cuda, no driver: no GPU
        return False


def gpu_count() -> int:
    """The number of GPUs (the simulator counts as one); 0 when none is usable."""
    if not available():
        return 0
    return len(target.cuda().gpus)


def to_device(np_array, index: int = 0):
    """A device copy of ``np_array`` on GPU ``index``."""
    cuda = target.cuda()
    with cuda.gpus[index]:
        if is_device_array(np_array):
            return cuda.to_device(np_array.copy_to_host())
        arr = np.asarray(np_array)  # (np.ascontiguousarray would make a 0-d array 1-d)
        return cuda.to_device(arr if arr.flags.c_contiguous else arr.copy())


def to_host(dev_array):
    """The device array's contents as a NumPy array."""
    return dev_array.copy_to_host()


def is_device_array(x) -> bool:
    """Whether ``x`` is a numba.cuda device array (False whenever numba.cuda is not loaded)."""
    if "numba.cuda" not in sys.modules:
        return False
    return _is_device_array(x)


def executor_for(graph, index: int = 0, strict: bool = False):
    """The CUDA :class:`~graphc.runtime.cuda.executor.Executor` for ``graph`` on GPU
    ``index``; ``strict=True`` raises ``FallbackError`` if a node cannot run as a kernel."""
    if any(v.aval.shape is None or None in v.aval.shape for v in graph.inputs):
        return Specializing(graph, index, strict=strict)  # one program per call shape
    return Executor(graph, index, strict=strict)


def run_op(opdef, attrs, arrays):
    """``opdef(*arrays, **attrs)`` on the device holding ``arrays`` (device arrays)."""
    return eager.run_op(opdef, attrs, arrays)
