"""The Numba backend's compile policy: when a graph's program is compiled, where, and how
a program on disk is loaded.

One instance, :data:`settings`, read on every decision (``numba_cpu`` re-exports it as
``numba_cpu.settings``; tests and benchmarks set its attributes). Its defaults come from
the environment through ``graphc.config`` (``GRAPHC_JIT``, ``GRAPHC_COMPILE_WORKER``,
``GRAPHC_NATIVE_LOAD``). ``numba_cpu`` (which executor compiles when) and ``programs``
(how a program is loaded) both read it, so it lives below them.
"""

from __future__ import annotations

from graphc import config


class Settings:
    """The compile policy (tests set ``mode = "eager"``; ``GRAPHC_JIT`` sets the mode)."""

    mode = config.jit_mode()  # "lazy" (default) | "eager" | "off"
    compile_after = 2      # interpreter calls before a lazy compile starts
    background = True      # lazy compiles run in a thread instead of blocking a call
    # ... and that thread has a worker process compile into the disk cache, then loads
    # the program from there (compile_worker.py); GRAPHC_COMPILE_WORKER=0: in the thread
    worker = config.compile_worker_enabled()
    segments = True        # split graphs with uncompilable nodes (else interpret them whole)
    # a program on disk is linked from its machine code without importing Numba
    # (native.py); GRAPHC_NATIVE_LOAD=0: always loaded through Numba
    native = config.native_load_enabled()


settings = Settings()


def setting(name: str):
    """The current value of ``settings.<name>``."""
    return getattr(settings, name)
