"""The compile cache's files: private directories, checked owners and modes, sha256
manifests and "loading" markers (used by :mod:`graphc.runtime.cpu.cache`).

Every rule here serves one promise: graphc hands a file to Numba (which unpickles it) or
runs a program file only if *you* wrote it, no other user can have changed it, and its
bytes are the ones graphc recorded after writing it. See "The cache's security model and
limits" in docs/runtime.md for what that does and does not protect against.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import tempfile
import threading
import time

from graphc import errors

MANIFEST_FORMAT = 1
_UID = os.geteuid() if hasattr(os, "geteuid") else None  # None: no owners (Windows)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_warned: set[str] = set()
_warned_lock = threading.Lock()


class CacheWarning(RuntimeWarning):
    """The on-disk compile cache could not be used; programs compile in memory instead.

    Issued once per process and directory. The message says what was wrong (a directory
    another user owns or can write, a read-only or full disk) and how to fix it: make the
    directory yours and private (``chmod 700 DIR``) or set ``GRAPHC_CACHE_DIR`` to a
    private directory. Results are unaffected; only compile time is lost.
    """


class UnsafeFile(Exception):
    """A cache file that must not be loaded (wrong owner, writable by others, a link)."""


def warn_once(directory: str, text: str) -> None:
    """A :class:`CacheWarning` with ``text``, at most once per process for ``directory``."""
    with _warned_lock:
        if directory in _warned:
            return
        _warned.add(directory)
    errors.warn(text, CacheWarning)


def problem(st: os.stat_result, path: str, directory: bool) -> str | None:
    """Why a file or directory with status ``st`` is not safe to trust, or None."""
    if stat.S_ISLNK(st.st_mode):
        return f"{path} is a symbolic link"
    if directory and not stat.S_ISDIR(st.st_mode):
        return f"{path} is not a directory"
    if not directory and not stat.S_ISREG(st.st_mode):
        return f"{path} is not a regular file"
    if _UID is not None and st.st_uid != _UID:
        return f"{path} is owned by user id {st.st_uid}, not by you (user id {_UID})"
    if _UID is not None and st.st_mode & 0o022:
        return (f"{path} can be written by other users (mode "
                f"{stat.S_IMODE(st.st_mode):04o})")
    return None


def private_tree(base: str, parts: list[str]) -> tuple[str, str] | None:
    """Check (creating what is missing, mode 0700) ``base`` and each nested directory of
    ``parts`` below it. None when all are private; else ``(kind, text)`` with kind
    ``"unsafe"`` (someone else could plant files) or ``"unwritable"`` (cannot create).

    ``base`` may be a symbolic link to a directory you own (``stat``); the directories
    below it are graphc's own and must be real directories (``lstat``).
    """
    path = base
    for depth, part in enumerate([""] + list(parts)):
        path = os.path.join(path, part) if part else path
        try:
            st = os.stat(path) if depth == 0 else os.lstat(path)
        except FileNotFoundError:
            try:
                _mkdir_private(path, parents=depth == 0)
                st = os.lstat(path)
            except OSError as e:
                return "unwritable", f"cannot create {path}: {e.strerror or e}"
        except OSError as e:
            return "unwritable", f"cannot read {path}: {e.strerror or e}"
        why = problem(st, path, directory=True)
        if why:
            return "unsafe", why
    return None


def _mkdir_private(path: str, parents: bool) -> None:
    """Create ``path`` with mode 0700 whatever the umask (a race with another creator
    leaves theirs, which the caller then checks)."""
    if parents:
        os.makedirs(os.path.dirname(os.path.abspath(path)), mode=0o700, exist_ok=True)
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        return
    os.chmod(path, 0o700)


def read_checked(path: str) -> bytes:
    """The bytes of ``path`` if it is a regular file you own that others cannot write
    (checked on the opened file, so a swap after the check is seen); else UnsafeFile."""
    fd = os.open(path, os.O_RDONLY | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as f:
        why = problem(os.fstat(f.fileno()), path, directory=False)
        if why:
            raise UnsafeFile(why)
        return f.read()


def digest(path: str) -> str:
    """The sha256 (hex) of a checked file (see :func:`read_checked`)."""
    return hashlib.sha256(read_checked(path)).hexdigest()


def write_private(path: str, data: bytes, durable: bool = True) -> None:
    """Write ``data`` to ``path`` atomically (temp file + ``os.replace``), mode 0600;
    ``durable``: on the disk (fsync) before it replaces ``path``."""
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path),
                               prefix="." + os.path.basename(path) + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            os.chmod(tmp, 0o600)  # mkstemp's default, made explicit
            f.write(data)
            f.flush()
            if durable:
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def make_private(path: str) -> None:
    """Set a file someone else's code wrote for us (Numba's) to mode 0600."""
    st = os.lstat(path)
    if stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) != 0o600:
        os.chmod(path, 0o600)


def write_manifest(path: str, base: str, relpaths: list[str]) -> None:
    """Record the sha256 of each file (``relpaths`` below ``base``) in ``path``; each
    file is made private (0600) first."""
    files = {}
    for rel in sorted(relpaths):
        full = os.path.join(base, rel)
        make_private(full)
        files[rel] = digest(full)
    text = json.dumps({"graphc-cache-manifest": MANIFEST_FORMAT, "files": files}, indent=1)
    write_private(path, text.encode())


def verify_manifest(path: str, base: str, relpaths: list[str]) -> str | None:
    """None if the manifest at ``path`` lists exactly ``relpaths`` (below ``base``) with
    their current digests; else what does not match (a missing or foreign manifest, a
    file missing, added or changed, a file someone else could have written)."""
    try:
        data = json.loads(read_checked(path).decode())
        if data.get("graphc-cache-manifest") != MANIFEST_FORMAT:
            return f"{path}: not a manifest graphc {MANIFEST_FORMAT} wrote"
        files = data["files"]
        for rel in files:
            if os.path.isabs(rel) or os.path.normpath(rel) != rel or rel.startswith(".."):
                return f"{path}: bad file name {rel!r}"
    except FileNotFoundError:
        return f"{path} is missing"
    except (OSError, UnsafeFile, ValueError, KeyError, AttributeError, TypeError) as e:
        return f"{path} is unreadable: {e}"
    if sorted(files) != sorted(relpaths):
        return (f"the files {sorted(relpaths)} differ from those recorded in {path} "
                f"({sorted(files)})")
    for rel, want in files.items():
        try:
            got = digest(os.path.join(base, rel))
        except (OSError, UnsafeFile) as e:
            return f"{rel}: {e}"
        if got != want:
            return f"{rel}: its sha256 differs from the one recorded when it was written"
    return None


def recorded_digests(path: str) -> dict:
    """``{relative path: sha256}`` as the manifest at ``path`` records them (call after
    :func:`verify_manifest` passed)."""
    return dict(json.loads(read_checked(path).decode())["files"])


def write_marker(path: str) -> None:
    """Mark an entry as being loaded by this process (removed once it loaded)."""
    # not fsync'ed (5-10 ms of a load): after a machine crash no process is loading
    write_private(path, json.dumps({"pid": os.getpid(), "time": time.time()}).encode(),
                  durable=False)


def marker_is_stale(path: str, locked: bool, max_age: float = 600.0) -> bool | None:
    """None if no marker is at ``path``; True if it was left by a load that never
    finished (the process crashed or was killed); False if a load may still run.

    Under the per-entry lock (``locked``) every marker is stale: a live loader would
    hold that lock. Without locks (no ``fcntl``) a marker is stale once its process is
    gone or it is older than ``max_age`` seconds.
    """
    try:
        raw = read_checked(path)
    except FileNotFoundError:
        return None
    except (OSError, UnsafeFile):
        return True
    if locked:
        return True
    try:
        data = json.loads(raw.decode())
        pid, when = int(data["pid"]), float(data["time"])
    except (ValueError, KeyError, TypeError, AttributeError):
        return True
    return not _alive(pid) or time.time() - when > max_age


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, but belongs to someone else
        return True
    return True


def remove(path: str) -> None:
    """Delete a file if it is there (never a directory, never following a link)."""
    with contextlib.suppress(OSError):  # gone already, a directory, a read-only disk
        os.unlink(path)
