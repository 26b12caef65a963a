"""Importing Numba once per process, cheaply and so that an interrupted import can be retried.

Also getting ready to load a program (:func:`prewarm`) and SciPy's BLAS table
(:func:`load_blas`); starting a threading layer is ``thread_layer``'s.
"""

from __future__ import annotations

import contextlib
import importlib.util
import sys

from graphc.runtime.cpu import native_runtime
from graphc.runtime.cpu.thread_layer import import_lock

_numba_started = False


def start() -> None:
    """Import Numba once; an import cut short (Ctrl-C) can be tried again.

    A ``KeyboardInterrupt`` in the middle of ``import numba`` leaves half-initialized
    ``numba.*`` modules in ``sys.modules``, and every later import then fails
    (``module 'numba' has no attribute 'core'``); so on any failure the modules that
    this import added are removed and the next call imports from scratch.
    """
    global _numba_started
    if _numba_started:
        return
    with import_lock():
        if _numba_started:
            return
        before = set(sys.modules)
        try:
            _import()
        except BaseException:
            for name in [n for n in sys.modules if n not in before]:
                if name.split(".")[0] in ("numba", "llvmlite"):
                    del sys.modules[name]
            raise
        _numba_started = True
    native_runtime.hand_over()  # a threading layer a loaded program started (its lock:
    # taken after this one is released, native_runtime takes them in the other order)


def _import() -> None:
    """Import Numba, without letting its start-up import ``scipy.linalg`` (0.4-0.6 s here).

    Numba's ``numba.np.arraymath`` asks at import whether BLAS is there by importing
    ``scipy.linalg.cython_blas``; that import is most of the time a fresh process needs
    to load a program from disk. When SciPy is installed (a dependency of graphc) the
    answer is yes, so the probe is skipped while that module imports: typing ``np.dot``
    still calls the real check when a program with a float matmul *compiles*, and a
    loaded program's BLAS calls import SciPy on their first run. Any surprise (another
    Numba version) just imports normally.
    """
    if "numba.np.arraymath" not in sys.modules and importlib.util.find_spec("scipy"):
        try:
            from numba.np import linalg  # deferred: imports Numba
        except Exception:  # noqa: BLE001 - imported normally below
            linalg = None
        if linalg is not None:
            probe = linalg.ensure_blas
            linalg.ensure_blas = lambda: None
            try:
                import numba.np.arraymath  # noqa: F401  (deferred: imports Numba)
            except Exception:  # noqa: BLE001 - imported again, normally, by Numba itself
                pass
            finally:
                linalg.ensure_blas = probe
    import numba  # noqa: F401  (deferred: this function is the import of Numba)
    import numba.core.caching  # noqa: F401  (deferred: imports Numba)


def prewarm(blas: bool = False, native: bool = True) -> None:
    """Get ready to load a program the compile worker is building, so that loading it
    afterwards takes milliseconds: with ``native`` (programs linked from their machine
    code, ``native_runtime``) only that runtime is set up (~20 ms) and Numba is never
    imported; otherwise (or if that runtime cannot start) Numba is imported and its CPU
    target set up (typing and lowering registries, ~0.1 s). ``blas``: the program calls
    BLAS (``np.dot``), whose table :func:`load_blas` loads now."""
    if blas:
        load_blas()
    if native:
        try:
            native_runtime.runtime()
            return
        except Exception:  # noqa: BLE001 - loaded through Numba instead
            pass
    start()
    from numba.core.registry import cpu_target  # deferred: imports Numba

    cpu_target.typing_context.refresh()
    cpu_target.target_context.refresh()


def load_blas() -> None:
    """Load SciPy's BLAS table (``scipy.linalg.cython_blas``), which Numba's ``np.dot``
    fetches its functions from on the first call, without importing ``scipy.linalg``.

    Importing the package costs 0.1-0.3 s (a stall in the first call of a program with a
    matmul, after it was loaded from disk); the extension module alone takes ~10 ms. It
    registers itself under its full name, so Numba's import of it finds it, and a later
    ``import scipy.linalg`` works as usual. Nothing happens if SciPy's layout differs.
    """
    name = "scipy.linalg.cython_blas"
    with contextlib.suppress(Exception):  # Numba imports it itself on the first call
        sys.modules.setdefault(name, native_runtime.load_extension(
            name, "scipy", "linalg/cython_blas"))
