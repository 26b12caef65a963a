"""Keeping freed memory for the next call: glibc's ``malloc`` tuned once per process.

A compiled program allocates its temporaries with ``malloc`` and frees them on return.
glibc serves a block of a few MiB from the heap (once such a block has been freed: its
dynamic mmap threshold), but when the free space at the top of the heap passes its trim
threshold (twice that block size) it hands the memory back to the kernel, so the next
call pays a page fault per 4 KiB page again: NPBench's azimint_hist (ten 3.2 MB
temporaries) took 3874 page faults and 13.1 ms per call, 4.7 ms without them (measured on
the 2-core development VM, where a fault costs about a microsecond). TensorFlow and JAX
keep such memory in allocator pools of their own; graphc sets glibc's thresholds instead,
when the first compiled program loads: blocks under 32 MiB (glibc's own ceiling for its
dynamic threshold) come from the heap, and up to :data:`KEEP_MIB` MiB of freed heap stay
in the process. Bigger results are recycled by ``recycle.py``.

``GRAPHC_HEAP_KEEP_MB`` sets the amount (``0`` leaves ``malloc`` as it is). Other C
libraries (macOS, musl) are left alone.
"""

from __future__ import annotations

import ctypes
import os
import platform
import threading

KEEP_MIB = 256
MMAP_THRESHOLD = 32 << 20  # glibc's DEFAULT_MMAP_THRESHOLD_MAX on 64-bit systems
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters (malloc.h)

_lock = threading.Lock()
_done = False


def keep_freed_memory() -> bool:
    """Tune glibc's ``malloc`` once (see the module docstring); True if it was tuned
    now or before, False where it is left alone."""
    global _done
    with _lock:
        if _done:
            return True
        keep = _keep_bytes()
        if keep == 0 or platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
            return False
        try:
            mallopt = ctypes.CDLL(None).mallopt
        except (OSError, AttributeError):
            return False
        mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
        _done = bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)
                     and mallopt(_M_TRIM_THRESHOLD, keep))
        return _done


def _keep_bytes() -> int:
    text = os.environ.get("GRAPHC_HEAP_KEEP_MB", "").strip()
    try:
        mib = int(text) if text else KEEP_MIB
    except ValueError:
        raise ValueError(f"GRAPHC_HEAP_KEEP_MB must be a whole number of MiB (0 leaves "
                         f"malloc as it is), got {text!r}") from None
    if mib < 0:
        raise ValueError(f"GRAPHC_HEAP_KEEP_MB must not be negative, got {mib}")
    return min(mib, 2047) << 20  # mallopt takes an int
