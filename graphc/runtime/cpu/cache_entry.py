"""One compiled program's files on disk, from the directory check to the manifest.

:class:`Entry` is what ``numba_cpu.compile_program`` holds while Numba loads or builds a
program; the layout and the in-memory table are in :mod:`graphc.runtime.cpu.cache`, the
file rules (owners, modes, digests, markers) in :mod:`graphc.runtime.cpu.cache_files`.
"""

from __future__ import annotations

import contextlib
import os

from graphc import config, errors
from graphc.runtime.cpu import cache_files as files
from graphc.runtime.cpu.cache import directory, path_for, version_tag
from graphc.runtime.cpu.cache_files import CacheWarning
from graphc.runtime.cpu.native import SUFFIXES


def disk_usable() -> bool:
    """True when this version's cache directories are yours and private (created 0700
    when missing). Otherwise one :class:`CacheWarning` per process and directory says
    why and how to fix it, and programs compile in memory."""
    base = config.cache_dir()
    found = files.private_tree(base, ["numba", version_tag(), "__pycache__"])
    if found is None:
        return True
    kind, why = found
    if kind == "unsafe":
        text = (f"graphc does not use its compile cache in {base}: {why}, so another user "
                "could plant code there that graphc would run. Programs compile in memory "
                f"and nothing is cached on disk. Fix: make it yours and private (chmod 700 "
                f"{base} and the directories below it that graphc made) or set "
                "GRAPHC_CACHE_DIR to a private directory.")
    else:
        text = unwritable_text(base, why)
    files.warn_once(base, text)
    return False


def unwritable_text(base: str, why: str) -> str:
    return (f"graphc cannot write its compile cache in {base} ({why}): programs compile "
            "in memory and are not cached on disk. Fix: free space or make the directory "
            "writable, or set GRAPHC_CACHE_DIR to a writable private directory.")


def warn_unwritable(error: OSError) -> None:
    """Say once that the cache could not be written (read-only or full disk)."""
    base = config.cache_dir()
    files.warn_once(base, unwritable_text(base, f"{error.strerror or error}"))


@contextlib.contextmanager
def locked(key: str):
    """Hold the per-program lock; yields True when a lock is held (False without
    ``fcntl``, e.g. on Windows, where Numba's atomic writes still keep files whole)."""
    try:
        import fcntl  # deferred: optional (POSIX only)
    except ImportError:
        yield False
        return
    fd = os.open(os.path.join(directory(), f"g_{key}.lock"),
                 os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield True
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def source_path(key: str, source: str) -> str:
    """The program's file, (re)written atomically unless it already holds ``source``
    (and is a private file of yours); a rewrite deletes what Numba cached for it."""
    path = path_for(key)
    with contextlib.suppress(OSError, files.UnsafeFile, UnicodeDecodeError):
        if files.read_checked(path).decode("utf-8") == source:
            return path
    purge_files(key)
    files.write_private(path, source.encode("utf-8"))
    return path


def numba_files(key: str) -> list[str]:
    """Every file in ``__pycache__`` named for this program, relative to directory()
    (Numba's index and data files, and anything else planted under that name)."""
    pycache = os.path.join(directory(), "__pycache__")
    try:
        names = os.listdir(pycache)
    except OSError:
        return []
    return sorted(os.path.join("__pycache__", n) for n in names if n.startswith(f"g_{key}."))


NATIVE_SUFFIXES = SUFFIXES  # the program's machine code (cpu/native.py)


def native_files(key: str) -> list[str]:
    """The program's machine-code files that exist, relative to directory()."""
    return [f"g_{key}{s}" for s in NATIVE_SUFFIXES
            if os.path.lexists(os.path.join(directory(), f"g_{key}{s}"))]


def purge_files(key: str, source_too: bool = False) -> None:
    """Delete one program's Numba files, machine code, manifest and marker (and its
    source)."""
    d = directory()
    for rel in numba_files(key):
        files.remove(os.path.join(d, rel))
    for suffix in (".sums", ".loading") + NATIVE_SUFFIXES + ((".py",) if source_too else ()):
        files.remove(os.path.join(d, f"g_{key}{suffix}"))


class Entry:
    """One program's files on disk while Numba loads or builds them, under its lock.

    ``open()`` writes the source, checks every file against the manifest (deleting the
    entry on any mismatch, a missing manifest, or a marker a crashed load left) and marks
    the entry as loading; False means: compile in memory (the cache cannot be written).
    After the load, ``keep(loaded, save_error)`` records what Numba wrote, or
    ``discard()`` deletes it; ``close()`` removes the marker and unlocks.
    """

    def __init__(self, key: str, source: str):
        self.key, self.source = key, source
        self.path = path_for(key)
        self._lock = None       # the entered locked() context, once held
        self._marked = False    # this process wrote the loading marker
        self.had_files = False  # Numba's files were there (and verified) when opened
        self.digests = {}       # ... with the sha256 the manifest records for each
        self.has_native = False  # ... and the program's machine code (cpu/native.py)
        d = directory()
        self._manifest = os.path.join(d, f"g_{key}.sums")
        self._marker = os.path.join(d, f"g_{key}.loading")

    def open(self) -> bool:
        """Lock, write and check the entry, mark it loading; False: compile in memory."""
        if not disk_usable():
            return False
        try:
            lock = locked(self.key)
            held = lock.__enter__()
            self._lock = lock
            if files.marker_is_stale(self._marker, held):
                errors.warn(f"graphc rebuilds {self.path}: an earlier process stopped "
                            "while loading it (crashed or was killed), so it is never "
                            "loaded again.", CacheWarning)
                purge_files(self.key, source_too=True)
            self.path = source_path(self.key, self.source)
            present = numba_files(self.key)
            if present:
                native = native_files(self.key)
                rels = [os.path.basename(self.path)] + present + native
                if files.verify_manifest(self._manifest, directory(), rels) is not None:
                    purge_files(self.key)
                else:
                    self.had_files = True
                    self.has_native = len(native) == len(NATIVE_SUFFIXES)
                    self.digests = files.recorded_digests(self._manifest)
            files.write_marker(self._marker)
            self._marked = True
        except OSError as e:
            warn_unwritable(e)
            self.close()
            return False
        return True

    def keep(self, loaded: bool, save_error: OSError | None, native=None) -> None:
        """Record the digests of what Numba wrote (nothing to do when it ``loaded``),
        with the program's machine code ``native`` (``(object, description)`` bytes,
        from ``native_build.describe``) written beside it when given."""
        if loaded and native is None:
            return
        if save_error is not None:
            warn_unwritable(save_error)
            purge_files(self.key)  # maybe half written: an index without its data
            return
        try:
            d = directory()
            if native is not None:
                for suffix, data in zip(NATIVE_SUFFIXES, native):
                    files.write_private(os.path.join(d, f"g_{self.key}{suffix}"), data)
            rels = [os.path.basename(self.path)] + numba_files(self.key) + native_files(
                self.key)
            files.write_manifest(self._manifest, d, rels)
        except (OSError, files.UnsafeFile) as e:
            purge_files(self.key)
            if isinstance(e, OSError):
                warn_unwritable(e)

    def discard(self) -> None:
        """Delete what Numba cached (it failed to load); the marker stays until close."""
        for rel in numba_files(self.key) + native_files(self.key):
            files.remove(os.path.join(directory(), rel))
        files.remove(self._manifest)

    def close(self) -> None:
        """Remove this process's marker (the load is over) and release the lock."""
        if self._marked:
            self._marked = False
            files.remove(self._marker)
        if self._lock is not None:
            lock, self._lock = self._lock, None
            lock.__exit__(None, None, None)


