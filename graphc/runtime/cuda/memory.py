"""Device buffers for generated programs: one stream-ordered CUDA memory pool per device.

numba-cuda's ``cuda.device_array`` calls ``cuMemAlloc`` for every array; on an H100 that
took 29 us for 4 bytes and 147 us for 40 MB, several times the cost of the kernel that
fills it (a 20-op chain over 1e7 float32 runs in about 40 us). Programs here allocate
every result and intermediate with :func:`empty` instead: ``cuMemAllocFromPoolAsync``
from graphc's own pool (``cuMemPoolCreate``, one per device, so other libraries' pools
are left alone) whose release threshold keeps freed memory cached, as CuPy's and JAX's
allocators do. Allocation and free are ordered on the legacy default stream, where every
graphc kernel and copy runs: a buffer freed when its array is collected is reused only by
work queued after the last work that used it. The arrays are ordinary numba-cuda device
arrays (``DeviceNDArray`` over a ``MemoryPointer`` whose finalizer frees to the pool).

When the pool has no room left, its cached memory is released and the allocation tried
again; then numba's own ``device_array`` (which flushes numba's pending frees) is the
last resort. Under Numba's simulator :func:`empty` is ``cuda.device_array``.
"""

from __future__ import annotations

import threading
import weakref

import numpy as np

from graphc.runtime.cuda import target

_lock = threading.Lock()
_pools: dict = {}  # device id -> CUmemoryPool
_STREAM = 0  # the legacy default stream: numba-cuda's launches and copies without one


def empty(n: int, dtype):
    """A new flat device array of ``n`` elements of ``dtype`` on the current device."""
    cuda = target.cuda()
    dtype = np.dtype(dtype)
    if n == 0 or target.simulator():
        return cuda.device_array(n, dtype)
    from numba.cuda.cudadrv import devicearray, driver  # deferred: imports numba.cuda

    ctx = cuda.current_context()
    size = n * dtype.itemsize
    ptr = _alloc(size, ctx.device.id)
    if ptr is None:
        return cuda.device_array(n, dtype)
    mem = driver.MemoryPointer(weakref.proxy(ctx), ptr, size, finalizer=_freer(ptr))
    return devicearray.DeviceNDArray((n,), (dtype.itemsize,), dtype, gpu_data=mem)


def _alloc(size: int, device: int):
    """A device pointer from the pool, or None when the pool cannot provide one."""
    from cuda.bindings import driver as cu  # deferred: numba-cuda's CUDA bindings

    pool = _pool(device)
    if pool is False:
        return None
    err, ptr = cu.cuMemAllocFromPoolAsync(size, pool, _STREAM)
    if err == cu.CUresult.CUDA_ERROR_OUT_OF_MEMORY:
        target.cuda().synchronize()
        cu.cuMemPoolTrimTo(pool, 0)
        err, ptr = cu.cuMemAllocFromPoolAsync(size, pool, _STREAM)
    if err != cu.CUresult.CUDA_SUCCESS:
        return None
    return ptr


def _pool(device: int):
    """The device's pool; False where the driver cannot make one (numba's allocator then)."""
    pool = _pools.get(device)
    if pool is None:
        with _lock:
            pool = _pools.get(device)
            if pool is None:
                try:
                    pool = _create_pool(device)
                except RuntimeError:  # no stream-ordered allocator on this driver/device
                    pool = False
                _pools[device] = pool
    return pool


def _create_pool(device: int):
    from cuda.bindings import driver as cu  # deferred: numba-cuda's CUDA bindings

    props = cu.CUmemPoolProps()
    props.allocType = cu.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
    props.location.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    props.location.id = device
    err, pool = cu.cuMemPoolCreate(props)
    _check(err, "cuMemPoolCreate")
    keep_all = cu.cuuint64_t(2**64 - 1)  # never give cached memory back on a sync
    (err,) = cu.cuMemPoolSetAttribute(
        pool, cu.CUmemPool_attribute.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, keep_all)
    _check(err, "cuMemPoolSetAttribute")
    return pool


def _freer(ptr):
    def free():
        from cuda.bindings import driver as cu  # deferred: numba-cuda's CUDA bindings

        cu.cuMemFreeAsync(ptr, _STREAM)  # at exit the context may be gone: nothing to do
    return free


def _check(err, what: str) -> None:
    from cuda.bindings import driver as cu  # deferred: numba-cuda's CUDA bindings

    if err != cu.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"{what} failed: {err}")
