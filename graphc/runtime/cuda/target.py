"""numba.cuda, imported on first use, and the device-array helpers every CUDA module shares.

``numba.cuda`` comes from the ``numba-cuda`` package (``pip install graphc[cuda]``).
``NUMBA_ENABLE_CUDASIM=1`` (set before the first import) selects Numba's simulator: a
CPU interpretation of the kernels, one Python thread per CUDA thread, used by the tests.
Importing it here also makes the simulator's shared arrays thread-safe
(:func:`_fix_simulator_shared_arrays`).
"""

from __future__ import annotations

import importlib
import os
import sys
import threading

import numpy as np

_lock = threading.Lock()
_cuda = None
_config = None  # numba-cuda's config module, once loaded
_OCCUPANCY_ENV = "NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS"


def cuda():
    """The ``numba.cuda`` module (imported once; ImportError names the extra to install)."""
    global _cuda
    if _cuda is None:
        with _lock:
            if _cuda is None:
                try:
                    mod = importlib.import_module("numba.cuda")
                except ImportError as e:
                    raise ImportError(
                        "the CUDA backend needs numba-cuda, which is not installed: pip "
                        'install "graphc[cuda]" (from a clone of graphc\'s repository: pip '
                        f'install -e ".[cuda]") [{type(e).__name__}: {e}]') from e
                _fix_simulator_shared_arrays()
                _quiet_occupancy_warnings()
                _cuda = mod
    elif _config is not None and _config.CUDA_LOW_OCCUPANCY_WARNINGS and (
            _OCCUPANCY_ENV not in os.environ):
        # numba-cuda's compiler re-reads its config from the environment whenever a
        # NUMBA_* variable changed, which turns the warning back on: off again
        _config.CUDA_LOW_OCCUPANCY_WARNINGS = 0
    return _cuda


def _quiet_occupancy_warnings() -> None:
    """Turn off numba-cuda's "Grid size N will likely result in GPU under-utilization"
    warning, unless ``NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS`` is set: graphc sizes every
    launch's grid from its array, so a small grid means a small array, not a mistake of
    the user's, and the warning would point into numba-cuda rather than the user's code."""
    global _config
    from numba.cuda.core import config  # deferred: imports numba.cuda

    _config = config
    if _OCCUPANCY_ENV not in os.environ:
        config.CUDA_LOW_OCCUPANCY_WARNINGS = 0


_shared_lock = threading.Lock()


def _fix_simulator_shared_arrays() -> None:
    """Under the simulator, make ``cuda.shared.array`` allocate each block's array once.

    The simulator keys a block's shared arrays by the calling source line, and every
    simulated thread of the block calls ``cuda.shared.array`` at its kernel's start, at
    the same time, each looking the line up and, when it is missing, storing a new
    ``np.empty`` array (numba-cuda 0.30's ``FakeCUDAShared.array``, unlocked). Two
    threads between that lookup and that store each get their own array: one of them
    then reduces, sorts or multiplies into an uninitialized private copy the others never
    see, and a reduction, sort or matmul kernel returns garbage now and then (on a loaded
    machine, a fifth of the runs of tests/cuda/test_backend_registry.py), though its
    barriers are right (tests/cuda/test_shared_memory_races.py checks them). Here the
    lookup and the store are one step under a lock; the rest is the simulator's code (the
    array is keyed by the caller's file and line, as there). A real GPU allocates shared
    memory per block statically and is not affected."""
    from numba import config  # deferred: imports Numba

    if not config.ENABLE_CUDASIM:
        return
    from numba.cuda.simulator import kernelapi  # deferred: imports numba.cuda

    shared = getattr(kernelapi, "FakeCUDAShared", None)
    if shared is None or getattr(shared.array, "_graphc_locked", False):
        return
    original = shared.array

    def array(self, shape, dtype, alignment=None):
        allocations = getattr(self, "_allocations", None)
        if shape == 0 or alignment is not None or not isinstance(allocations, dict):
            return original(self, shape, dtype, alignment)  # dynamic shared memory, errors
        from numba.core import types  # deferred: imports Numba
        from numba.np import numpy_support  # deferred: imports Numba

        if isinstance(dtype, types.Type):
            dtype = numpy_support.as_dtype(dtype)
        caller = sys._getframe(1)
        key = (caller.f_code.co_filename, caller.f_lineno)
        with _shared_lock:
            res = allocations.get(key)
            if res is None:
                res = allocations[key] = np.empty(shape, dtype)
        return res

    array._graphc_locked = True
    shared.array = array


_array_types = None


def kernel_decorator():
    """What generated modules call ``_kernel``: ``cuda.jit`` on a GPU. Under the simulator,
    ``cuda.jit`` wrapped so that every launch checks its arrays' dtypes against the
    kernel's declared signature: a GPU reinterprets an int64 buffer passed as int32[::1]
    (the values come out as garbage), while the simulator's Python assignment converts
    silently, so without this check the simulated tests pass code a GPU gets wrong."""
    jit = cuda().jit
    if not simulator():
        return jit

    def decorator(sig):
        def wrap(fn):
            return _CheckedKernel(jit(sig)(fn), fn.__name__, sig)
        return wrap
    return decorator


class _CheckedKernel:
    """A simulated kernel whose launches check their arrays' dtypes (kernel_decorator)."""

    def __init__(self, kernel, name, sig):
        from numba.core import sigutils  # deferred: imports Numba
        from numba.np import numpy_support  # deferred: imports Numba

        self._kernel, self._name = kernel, name
        # (argument index, declared element dtype) of each array parameter
        self._arrays = [(i, numpy_support.as_dtype(t.dtype))
                        for i, t in enumerate(sigutils.normalize_signature(sig)[0])
                        if hasattr(t, "dtype")]

    def __getitem__(self, config):
        launch = self._kernel[config]

        def run(*args):
            for i, want in self._arrays:
                if args[i].dtype != want:
                    raise TypeError(f"kernel {self._name}: argument {i} is a "
                                    f"{args[i].dtype} array, declared {want}[::1] (a GPU "
                                    "would misread it)")
            return launch(*args)
        return run


def device_array_types() -> tuple:
    """The classes of numba.cuda device arrays (the simulator's fake arrays included;
    imported here, deferred: they import numba.cuda)."""
    global _array_types
    if _array_types is None:
        if simulator():
            from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray  # deferred

            _array_types = (FakeCUDAArray,)
        else:
            from numba.cuda.cudadrv.devicearray import DeviceNDArrayBase  # deferred

            _array_types = (DeviceNDArrayBase,)
    return _array_types


def simulator() -> bool:
    """Whether numba.cuda is Numba's CPU simulator (``NUMBA_ENABLE_CUDASIM=1``)."""
    from numba import config  # deferred: imports Numba

    cuda()
    return bool(config.ENABLE_CUDASIM)


def flat(x):
    """The device array ``x`` as a 1-D C-contiguous view (a copy when it is strided)."""
    if x.ndim == 1:
        return x
    if x.size == 0:
        return cuda().device_array(0, x.dtype)
    if not x.is_c_contiguous():
        x = copy_contiguous(x)
    return x.reshape(x.size)


def copy_contiguous(x):
    """A C-contiguous device copy of a strided device array (through the host: rare;
    device arrays graphc makes are always contiguous)."""
    return cuda().to_device(np.ascontiguousarray(x.copy_to_host()))


def shaped(x, shape):
    """A flat device array ``x`` viewed with ``shape`` (``()`` included)."""
    shape = tuple(shape)
    if x.shape == shape:
        return x
    if not shape:
        return x.reshape(())
    return x.reshape(shape)


def to_device_flat(a, dtype):
    """A host array (or scalar) as a new flat device array of ``dtype``."""
    arr = np.ascontiguousarray(np.asarray(a, dtype=dtype)).reshape(-1)
    if arr.size == 0:
        return cuda().device_array(0, dtype)
    return cuda().to_device(arr)


def to_host(x, shape):
    """A flat device array as a host NumPy array of ``shape``."""
    if x.size == 0:
        return np.empty(shape, x.dtype)
    return x.copy_to_host().reshape(shape)
