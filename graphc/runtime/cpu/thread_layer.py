"""Starting the threading layer that programs with parallel loops run on, and the lock
held while Numba's modules are imported (or stood in for).

Owned here, below both of their users: ``numba_start`` (importing Numba; its layer for a
program compiled with ``prange``) and ``native_runtime`` (a program's machine code
linked without Numba, which starts the layer library itself or, when Numba is imported,
has Numba start its own). Either way OpenMP's idle threads are told to sleep rather
than spin (:func:`passive_openmp`).
"""

from __future__ import annotations

import contextlib
import threading

from graphc import config

_numba_lock = threading.Lock()


def import_lock() -> threading.Lock:
    """The lock graphc holds while it imports Numba (``native_runtime`` holds it while
    stand-ins for Numba's modules exist)."""
    return _numba_lock


def start_threads() -> None:
    """Load Numba's threading layer for a program with parallel loops, with OpenMP's
    idle threads told to sleep rather than spin (:func:`passive_openmp`).

    GNU OpenMP's default lets each worker spin for a while after a parallel region.
    On a machine where another process keeps a core busy, the spinning workers and the
    caller fight over the cores: a parallel sigmoid of 2^20 float32 values took 8-14 ms
    against 0.6 ms serial; passive: 0.68 ms (docs/runtime.md, "Under load"). A layer
    already loaded (by an earlier program, or libgomp by another library) keeps its
    settings.
    """
    from numba.np.ufunc import parallel  # deferred: imports Numba

    if getattr(parallel, "_is_initialized", False):
        return
    with passive_openmp(), contextlib.suppress(Exception):  # Numba raises its own error
        parallel._launch_threads()                          # when it compiles


@contextlib.contextmanager
def passive_openmp():
    """``OMP_WAIT_POLICY=PASSIVE`` while a threading layer's library loads (OpenMP reads
    it then), unless the user set it or ``GOMP_SPINCOUNT``; removed again after."""
    mine = not config.openmp_wait_policy_set()
    if mine:
        config.set_openmp_passive(True)
    try:
        yield
    finally:
        if mine:
            config.set_openmp_passive(False)
