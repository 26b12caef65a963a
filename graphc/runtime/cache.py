"""The compiled-program cache: in memory by program hash, on disk as real source files.

Layout under ``config.cache_dir()`` (``GRAPHC_CACHE_DIR`` overrides)::

    numba/<tag>/g_<key>.py          generated program (codegen text, never edited)
    numba/<tag>/g_<key>.lock        flock'ed while writing and compiling that program
    numba/<tag>/__pycache__/...     Numba's own cache (``cache=True``) of that program

``tag`` names the Python / NumPy / Numba / graphc versions and the CPU, so an upgrade
or another machine sharing a home directory never sees a stale entry. ``key`` hashes the
generated *source* (which holds the graph, its dtypes and shapes, and every helper it
uses inlined) together with the tag. Hashing the source rather than the printed graph is
deliberate: the printer abbreviates big constants and rounds floats, the source does
not (inlined 0-d constants are exact there), and large constants are arguments, so
graphs that differ only in their large constants share one compiled program.

Safety: source files are written to a temp file and ``os.replace``d; a per-key
``flock`` serializes processes compiling the same program (different programs compile
in parallel); Numba writes its index and data files atomically itself. A source file
that does not match what codegen produces (truncated, edited) is rewritten; a Numba
cache entry that fails to load is deleted and rebuilt. Nothing here raises on a broken
cache: the worst case is a recompile.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import platform
import re
import shutil
import sys
import tempfile
import threading

from graphc import config

_memory: dict[str, object] = {}   # key -> compiled Numba dispatcher
_memory_lock = threading.Lock()
_tag: str | None = None


def version_tag() -> str:
    """A directory name for this interpreter, the library versions and the CPU.

    Computed without importing Numba (its version comes from package metadata), so an
    executor can look for a cached program before deciding to pay for that import.
    Numba's own index also records the exact CPU features and recompiles on mismatch.
    """
    global _tag
    if _tag is None:
        import numpy as np

        import graphc

        py = f"py{sys.version_info[0]}{sys.version_info[1]}"
        _tag = (f"{py}-np{np.__version__}-nb{_numba_version()}-"
                f"gc{getattr(graphc, '__version__', '0')}-{_linked_sources()}-"
                f"{platform.machine()}-{_cpu_id()}")
    return _tag


def _numba_version() -> str:
    """Numba's version without importing it: read from its ``_version.py`` (one small
    file; ``importlib.metadata`` costs 25 ms of a first call), else package metadata."""
    with contextlib.suppress(Exception):
        spec = importlib.util.find_spec("numba")
        path = os.path.join(os.path.dirname(spec.origin), "_version.py")
        with open(path, encoding="utf-8") as f:
            found = re.search(r'"version":\s*"([^"]+)"', f.read())
        if found:
            return found.group(1)
    from importlib.metadata import version

    return version("numba")


def _linked_sources() -> str:
    """A hash of the modules whose compiled code programs link in (``H.``, ``V.``):
    Numba's cache of a program does not notice when they change, so the directory does."""
    h = hashlib.sha256()
    here = os.path.dirname(os.path.abspath(__file__))
    linked = sorted(n for n in os.listdir(here)
                    if n.startswith(("vmath", "numba_helpers")) and n.endswith(".py"))
    for name in linked:
        with contextlib.suppress(OSError), open(os.path.join(here, name), "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:8]


def _cpu_id() -> str:
    """A short hash of the CPU model and feature flags (Linux), else the processor name."""
    text = platform.processor()
    with contextlib.suppress(OSError):
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            lines = [ln for ln in f.read(200_000).splitlines()
                     if ln.startswith(("model name", "flags", "Features"))]
        text = "\n".join(dict.fromkeys(lines))
    return hashlib.sha256(text.encode()).hexdigest()[:10]


def root() -> str:
    """The directory holding every cached program of every version."""
    return os.path.join(config.cache_dir(), "numba")


def directory() -> str:
    """The directory for programs of this version tag."""
    return os.path.join(root(), version_tag())


def key_for(source: str) -> str:
    return hashlib.sha256((version_tag() + "\n" + source).encode()).hexdigest()[:32]


def lookup(key: str):
    """The in-memory compiled dispatcher for ``key``, or None."""
    return _memory.get(key)


def remember(key: str, dispatcher) -> None:
    with _memory_lock:
        _memory[key] = dispatcher


@contextlib.contextmanager
def locked(key: str):
    """Hold the per-program lock (a no-op where ``fcntl`` does not exist)."""
    d = directory()
    os.makedirs(d, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # Windows: Numba's atomic writes still keep files valid
        yield
        return
    with open(os.path.join(d, f"g_{key}.lock"), "a+") as f:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)


def path_for(key: str) -> str:
    """Where the program with this key lives (whether or not it was written yet)."""
    return os.path.join(directory(), f"g_{key}.py")


def source_path(key: str, source: str) -> str:
    """The program's file, (re)written atomically unless it already holds ``source``."""
    path = path_for(key)
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == source:
                return path
    except (OSError, UnicodeDecodeError):
        pass
    _purge_numba_files(key)  # whatever Numba cached for a different text is invalid
    os.makedirs(directory(), exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory(), prefix=f".g_{key}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(source)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return path


def import_program(key: str, path: str, name: str):
    """Execute the program file as a module and return its function ``name``."""
    # Registered in sys.modules because Numba's cached code re-imports its module by
    # name when it is loaded (to rebuild the function's environment).
    modname = f"graphc_program_{key}"
    spec = importlib.util.spec_from_file_location(modname, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[modname] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(modname, None)
        raise
    return getattr(module, name)


def _purge_numba_files(key: str) -> None:
    """Delete Numba's cache files (index and data) for one program."""
    pycache = os.path.join(directory(), "__pycache__")
    with contextlib.suppress(OSError):
        for entry in os.listdir(pycache):
            if entry.startswith(f"g_{key}."):
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(pycache, entry))


def purge(key: str) -> None:
    """Forget one program everywhere (used when its cache entry is found broken)."""
    with _memory_lock:
        _memory.pop(key, None)
    _purge_numba_files(key)


def info() -> dict:
    """What the cache holds: ``{"directory", "programs", "bytes", "in_memory",
    "other_versions", "recycled_bytes"}`` (the last: big results kept for reuse).

    >>> gc.cache.info()["programs"]      # doctest: +SKIP
    3
    """
    d = directory()
    programs, size = 0, 0
    for base, _dirs, files in os.walk(d):
        for name in files:
            with contextlib.suppress(OSError):
                size += os.path.getsize(os.path.join(base, name))
            if base == d and name.startswith("g_") and name.endswith(".py"):
                programs += 1
    try:
        others = sorted(e for e in os.listdir(root()) if e != version_tag())
    except OSError:
        others = []
    recycle = sys.modules.get("graphc.runtime.recycle")
    return {"directory": d, "programs": programs, "bytes": size,
            "in_memory": len(_memory), "other_versions": others,
            "recycled_bytes": recycle.held_bytes() if recycle else 0}


def clear(memory: bool = True, disk: bool = True) -> None:
    """Delete compiled programs: the in-memory table and every version's files on disk.

    Executors already built keep their compiled code; new ones compile again. With
    ``memory=True`` the big result arrays kept for reuse are released too (recycle.py).

    >>> gc.cache.clear()                 # doctest: +SKIP
    """
    if memory:
        with _memory_lock:
            _memory.clear()
        if "graphc.runtime.recycle" in sys.modules:  # never import Numba just to clear
            sys.modules["graphc.runtime.recycle"].release_all()
    if disk:
        shutil.rmtree(root(), ignore_errors=True)
