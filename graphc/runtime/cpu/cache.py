"""The compiled-program cache: in memory by program hash, on disk as real source files.

Layout under ``config.cache_dir()`` (``GRAPHC_CACHE_DIR`` overrides), every directory
mode 0700 and every file 0600::

    numba/<tag>/g_<key>.py          generated program (codegen text, never edited)
    numba/<tag>/g_<key>.sums        sha256 of each file of the entry (cache_files.py)
    numba/<tag>/g_<key>.lock        flock'ed while writing, loading and compiling it
    numba/<tag>/g_<key>.loading     present only while the entry is being loaded
    numba/<tag>/g_<key>.native.o / .native.json   its machine code (cpu/native.py)
    numba/<tag>/__pycache__/g_<key>.*.nbi / .nbc   Numba's own cache of that program

``tag`` names the Python / NumPy / Numba / graphc versions and the CPU, so an upgrade
or another machine sharing a home directory never sees a stale entry. ``key`` hashes the
generated *source* (which holds the graph, its dtypes and shapes, and every helper it
uses inlined) together with the tag. Hashing the source rather than the printed graph is
deliberate: the printer abbreviates big constants and rounds floats, the source does
not (inlined 0-d constants are exact there), and large constants are arguments, so
graphs that differ only in their large constants share one compiled program.

Trust: nothing on disk is run or handed to Numba (which unpickles it) unless the
directories are yours and private and every file of the entry matches the digests
graphc recorded when it wrote them (``cache_entry.Entry``); a directory that fails the check is
not used at all (programs compile in memory, one :class:`CacheWarning`). Damage: a file
that does not match is deleted and the program rebuilt; an entry whose load never
finished (the process died) is rebuilt, never loaded again. Concurrency: a per-key
``flock`` serializes processes on one program (different programs in parallel); files
are written to temp files and ``os.replace``d. Nothing here raises on a broken or
unwritable cache: the worst case is a compile in memory. docs/runtime.md has the model.
"""

from __future__ import annotations

import collections
import contextlib
import hashlib
import importlib.util
import linecache
import os
import platform
import re
import sys
import threading
import types

import numpy as np

from graphc import config, version
from graphc.runtime.cpu import cache_files as files
from graphc.runtime.cpu.cache_files import CacheWarning
from graphc.runtime.cpu.native import FORMAT

__all__ = ["CacheWarning", "clear", "info", "settings"]


class Settings:
    """``max_programs``: compiled programs the in-memory table keeps (least recently
    used dropped first). Executors hold their own program, so this bounds what the
    cache keeps alive for *future* executors, not what live functions use."""

    max_programs = 256


settings = Settings()
_memory: collections.OrderedDict[str, object] = collections.OrderedDict()
_memory_lock = threading.Lock()
_tag: str | None = None


def version_tag() -> str:
    """A directory name for this interpreter, the library versions, the format of the
    programs' machine-code description (native.FORMAT) and the CPU.

    Computed without importing Numba (its version comes from package metadata), so an
    executor can look for a cached program before deciding to pay for that import.
    Numba's own index also records the exact CPU features and recompiles on mismatch.
    """
    global _tag
    if _tag is None:
        py = f"py{sys.version_info[0]}{sys.version_info[1]}"
        _tag = (f"{py}-np{np.__version__}-nb{_numba_version()}-"
                f"gc{version.__version__}n{FORMAT}-{_linked_sources()}-"
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
    from importlib.metadata import version  # deferred: 25 ms to import, a rare fallback

    return version("numba")


def _linked_sources() -> str:
    """A hash of the modules whose compiled code programs link in (``H.``, ``V.``):
    Numba's cache of a program does not notice when they change, so the directory does."""
    h = hashlib.sha256()
    cpu = os.path.dirname(os.path.abspath(__file__))
    linked = sorted(os.path.join(d, n) for d in (os.path.dirname(cpu), cpu)
                    for n in os.listdir(d)
                    if n.startswith(("vmath", "numba_helpers")) and n.endswith(".py"))
    for path in linked:
        with contextlib.suppress(OSError), open(path, "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:8]


def _cpu_id() -> str:
    """A short hash of the CPU model and feature flags (Linux), else the processor name
    (``platform.processor()`` runs ``uname -p`` on some systems: only when needed)."""
    text = None
    with contextlib.suppress(OSError):
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            lines = [ln for ln in f.read(200_000).splitlines()
                     if ln.startswith(("model name", "flags", "Features"))]
        text = "\n".join(dict.fromkeys(lines))
    if text is None:
        text = platform.processor()
    return hashlib.sha256(text.encode()).hexdigest()[:10]


def root() -> str:
    """The directory holding every cached program of every version."""
    return os.path.join(config.cache_dir(), "numba")


def directory() -> str:
    """The directory for programs of this version tag."""
    return os.path.join(root(), version_tag())


def key_for(source: str) -> str:
    return hashlib.sha256((version_tag() + "\n" + source).encode()).hexdigest()[:32]


def path_for(key: str) -> str:
    """Where the program with this key lives (whether or not it was written yet)."""
    return os.path.join(directory(), f"g_{key}.py")


def on_disk(key: str) -> bool:
    """True if a finished entry (its manifest) is on disk; not yet checked."""
    return os.path.exists(os.path.join(directory(), f"g_{key}.sums"))


# --- memory --------------------------------------------------------------------------

def lookup(key: str):
    """The in-memory ``(dispatcher, path)`` for ``key`` (now the most recently used)."""
    with _memory_lock:
        hit = _memory.get(key)
        if hit is not None:
            _memory.move_to_end(key)
        return hit


def remember(key: str, compiled) -> None:
    """Keep ``compiled`` for ``key``, dropping the least recently used beyond
    ``settings.max_programs``."""
    with _memory_lock:
        _memory[key] = compiled
        _memory.move_to_end(key)
        while len(_memory) > max(0, settings.max_programs):
            _memory.popitem(last=False)


def import_program(key: str, path: str | None, name: str, source: str):
    """Run ``source`` as module ``graphc_program_<key>`` and return its function ``name``.

    The text is compiled here, never read back from ``path`` and never from bytecode
    (a ``.pyc`` beside it is ignored); ``path`` only names the file (``__file__``, so
    Numba can cache next to it). Numba's ``cache=True`` is switched off in the text:
    the caller enables Numba's disk cache itself once the directory is checked. Without
    ``path`` (compiling in memory) the module is named ``<graphc program KEY>``.
    """
    # Registered in sys.modules because Numba's cached code re-imports its module by
    # name when it is loaded (to rebuild the function's environment).
    modname = f"graphc_program_{key}"
    filename = path or f"<graphc program {key}>"
    text = source.replace("@numba.njit(cache=True", "@numba.njit(cache=False")
    if path is None:
        linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    module = types.ModuleType(modname, "graphc generated program")
    module.__file__ = filename
    sys.modules[modname] = module
    try:
        exec(compile(text, filename, "exec", dont_inherit=True), module.__dict__)
    except BaseException:
        sys.modules.pop(modname, None)
        raise
    return getattr(module, name)


def info() -> dict:
    """What the cache holds: ``{"directory", "programs", "native", "bytes", "in_memory",
    "other_versions", "recycled_bytes"}``; ``native``: the programs on disk with their
    machine code (linked without importing Numba, cpu/native.py); ``recycled_bytes``:
    big results kept for reuse.

    >>> gc.cache.info()["programs"]      # doctest: +SKIP
    3
    """
    d = directory()
    programs, native, size = 0, 0, 0
    for base, _dirs, names in os.walk(d):
        for name in names:
            with contextlib.suppress(OSError):
                size += os.path.getsize(os.path.join(base, name))
            if base == d and name.startswith("g_"):
                programs += name.endswith(".py")
                native += name.endswith(".native.o")
    try:
        others = sorted(e for e in os.listdir(root()) if e != version_tag())
    except OSError:
        others = []
    recycle = sys.modules.get("graphc.runtime.cpu.recycle")
    return {"directory": d, "programs": programs, "native": native, "bytes": size,
            "in_memory": len(_memory), "other_versions": others,
            "recycled_bytes": recycle.held_bytes() if recycle else 0}


def clear(memory: bool = True, disk: bool = True) -> None:
    """Delete compiled programs: the in-memory table and graphc's files on disk (every
    version's); files graphc did not write there are left alone.

    Executors already built keep their compiled code; new ones compile again. With
    ``memory=True`` the big result arrays kept for reuse are released too (recycle.py).
    ``gc.clear_caches()`` calls ``clear(disk=False)``.

    >>> gc.cache.clear()                 # doctest: +SKIP
    """
    if memory:
        with _memory_lock:
            _memory.clear()
        if "graphc.runtime.cpu.recycle" in sys.modules:  # never import Numba just to clear
            sys.modules["graphc.runtime.cpu.recycle"].release_all()
    if disk:
        _clear_tree(root(), depth=0)


_OURS = re.compile(r"^\.?g_[0-9a-f]{32}\.")  # a program's files and their temp files


def _clear_tree(path: str, depth: int) -> None:
    """Delete graphc's files below ``numba/`` (``<tag>/`` and ``<tag>/__pycache__/``),
    then each of those directories if that left it empty. Links are never followed."""
    try:
        entries = list(os.scandir(path))
    except OSError:
        return
    for e in entries:
        if e.is_dir(follow_symlinks=False):
            if depth == 0 or (depth == 1 and e.name == "__pycache__"):
                _clear_tree(e.path, depth + 1)
        elif depth > 0 and _OURS.match(e.name):
            files.remove(e.path)
    with contextlib.suppress(OSError):  # not empty: foreign files stay, so does it
        os.rmdir(path)
