"""Getting a generated program's compiled code: from memory, from its machine code on
disk (:mod:`native`, without Numba), through Numba's disk cache, or compiled by Numba
(then written to the disk cache, machine code included). :mod:`numba_cpu` decides when;
this module does it, in the caller's process or in the compile worker's.
"""

from __future__ import annotations

import contextlib
import os

import numpy as np

from graphc.runtime.cpu import (
    cache,
    cache_entry,
    cache_files,
    codegen,
    native,
    native_build,
    numba_start,
    thread_layer,
)
from graphc.runtime.cpu.kernels import uses_blas
from graphc.runtime.cpu.settings import setting as _setting


def compile_source(source, key, spec):
    """:func:`compile_program` for a program's ``source`` and :func:`signature_spec`
    (what the compile worker process receives).

    An entry on disk with the program's machine code is linked without importing Numba
    (:mod:`native`); otherwise Numba loads or compiles it, and its machine code is
    written beside the entry for the next process."""
    key = key or cache.key_for(source)
    hit = cache.lookup(key)
    if hit is not None:
        return hit
    parallel = codegen.PARALLEL_DECORATOR in source
    entry = cache_entry.Entry(key, source)
    if entry.open():
        try:
            dispatcher = None
            if entry.has_native and _setting("native"):
                dispatcher = native.load(cache.directory(), key, spec, entry.digests)
            if dispatcher is None:
                dispatcher, loaded, save_error = _numba_load(key, entry, source, spec)
                code = None
                # written after a compile (a program Numba loaded from its own cache no
                # longer has its object code; the cache tag names native.FORMAT, so an
                # entry of this tag without machine code is one that cannot have it)
                if save_error is None and not loaded:
                    with contextlib.suppress(Exception):  # without it: loaded by Numba
                        code = native_build.describe(dispatcher, spec, parallel)
                entry.keep(loaded, save_error, code)
        finally:
            entry.close()
        result = (dispatcher, entry.path)
    else:
        _start_numba(parallel)
        result = (_load(key, None, sig=_signature(spec), source=source)[0], None)
    if uses_blas(source):
        numba_start.load_blas()
    cache.remember(key, result)
    return result


def _numba_load(key, entry, source, spec):
    """``(dispatcher, loaded from disk, save_error)`` through Numba, for an open entry."""
    _start_numba(codegen.PARALLEL_DECORATOR in source)
    sig = _signature(spec)
    try:
        dispatcher, save_error = _load(key, entry.path, sig, source)
    except Exception:  # noqa: BLE001 - maybe an entry Numba cannot load: rebuild once
        if not entry.had_files:
            raise
        entry.discard()
        entry.has_native = False
        dispatcher, save_error = _load(key, entry.path, sig, source)
    return dispatcher, origin(dispatcher) == "disk", save_error


def _start_numba(parallel: bool) -> None:
    numba_start.start()
    if parallel:
        thread_layer.start_threads()


def _load(key, path, sig, source):
    """``(dispatcher, save_error)``: the program compiled for ``sig``, loaded from
    Numba's disk cache beside ``path`` when it is there; ``path=None`` compiles in
    memory without reading or writing any file. ``save_error``: the OSError that kept
    Numba from saving (read-only or full disk), else None; the program works either way.
    """
    fn = cache.import_program(key, path, codegen.FN_NAME, source)
    save_errors = []
    if path is not None:
        _cache_beside(fn, path, save_errors)
    from graphc.runtime.vmath_base import interleaved_loops  # deferred: imports Numba

    with interleaved_loops():  # unrolled vector loops (vmath_base.INTERLEAVE)
        fn.compile(sig)      # loads from Numba's on-disk cache when it is there
    fn.disable_compile()     # one signature: never a surprise compile on a call
    return fn, (save_errors[0] if save_errors else None)


def _cache_beside(fn, path, save_errors) -> None:
    """Turn on Numba's disk cache for ``fn`` in ``__pycache__`` beside ``path`` (the
    directory graphc checked), never elsewhere: if Numba would use another directory
    (``NUMBA_CACHE_DIR``, or the program's own is not writable), the program is not
    cached. Save errors are collected in ``save_errors`` instead of failing the compile.
    """
    from numba.core.caching import NullCache  # deferred: imports Numba

    want = os.path.join(os.path.dirname(path), "__pycache__")
    try:
        fn.enable_caching()
        where = fn._cache.cache_path
    except Exception:  # noqa: BLE001 - no usable cache locator: compile without one
        where = None
    if where is None or os.path.realpath(where) != os.path.realpath(want):
        fn._cache = NullCache()
        if where is not None:
            cache_files.warn_once(where, (
                f"Numba would cache graphc's programs in {where} (NUMBA_CACHE_DIR, or "
                f"{want} is not writable), which graphc does not check; they are compiled "
                "in memory and not cached. Fix: unset NUMBA_CACHE_DIR or make the graphc "
                "cache directory writable."))
        return
    save = fn._cache.save_overload

    def save_or_skip(sig, data):
        try:
            save(sig, data)
        except OSError as e:  # read-only or full disk: keep the compiled program
            save_errors.append(e)

    fn._cache.save_overload = save_or_skip


def origin(dispatcher) -> str:
    """``"disk"`` when the program was loaded from the cache (by Numba or from its
    machine code), else ``"compiled"``."""
    if isinstance(dispatcher, native.NativeProgram):
        return dispatcher.origin
    return "disk" if sum(dispatcher.stats.cache_hits.values()) else "compiled"


def _signature(spec) -> tuple:
    from numba import from_dtype, types  # deferred: imports Numba

    return tuple(types.Array(from_dtype(np.dtype(dt)), ndim, "C", readonly=bool(ro))
                 for dt, ndim, ro in spec)
