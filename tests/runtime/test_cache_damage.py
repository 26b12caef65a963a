"""A damaged compile cache costs a compile, never a crash or a wrong answer: entries are
checked against their sha256 manifest before Numba reads a byte, an entry whose load
killed a process is rebuilt, and a read-only or full disk just skips the caching."""

from __future__ import annotations

import errno
import json
import os

import pytest


def _entry_file(base, suffix):
    for b, _d, names in os.walk(base):
        for n in names:
            if n.startswith("g_") and n.endswith(suffix):
                return os.path.join(b, n)
    raise AssertionError(f"no {suffix} file under {base}")


@pytest.mark.parametrize("suffix", [".nbc", ".nbi", ".py", ".native.o", ".native.json"])
def test_one_flipped_byte_is_rebuilt_not_loaded(tmp_path, cache_program, suffix):
    run, check, record = cache_program
    check(run(tmp_path), "compiled")
    path = _entry_file(tmp_path, suffix)
    with open(path, "r+b") as f:
        data = bytearray(f.read())
        data[len(data) * 2 // 3] ^= 0x01  # one bit, well inside the file
        f.seek(0)
        f.write(data)
    report = run(tmp_path, prelude=record)
    check(report, "compiled")
    # not one byte of the damaged entry was unpickled or linked
    assert report["numba_read"] == [] and report["native_read"] == []
    report = run(tmp_path, prelude=record)
    check(report, "disk")
    assert report["native_read"] == [report["key"]] and report["numba_read"] == []
    report = run(tmp_path, prelude=NUMBA_ONLY + record)
    check(report, "disk")
    assert report["numba_read"] and report["native_read"] == []


def test_missing_manifest_is_rebuilt(tmp_path, cache_program):
    run, check, record = cache_program
    check(run(tmp_path), "compiled")
    os.unlink(_entry_file(tmp_path, ".sums"))
    report = run(tmp_path, prelude=record)
    check(report, "compiled")
    assert report["numba_read"] == []
    check(run(tmp_path), "disk")


NUMBA_ONLY = "numba_cpu.settings.native = False  # loaded through Numba\n"

CRASH_WHILE_LOADING = {"numba": NUMBA_ONLY + """
import numba.core.caching as _caching
def _die(self, name):
    os._exit(70)  # as a segfault in LLVM would: no cleanup at all
_caching.IndexDataCacheFile._load_data = _die
""", "native": """
from graphc.runtime.cpu import native as _native
def _die(*args):
    os._exit(70)
_native._link = _die
"""}


@pytest.mark.parametrize("how", ["numba", "native"])
def test_entry_whose_load_crashed_is_rebuilt(tmp_path, cache_program, how):
    run, check, record = cache_program
    check(run(tmp_path), "compiled")
    run(tmp_path, prelude=CRASH_WHILE_LOADING[how], returncode=70)
    assert os.path.exists(_entry_file(tmp_path, ".loading"))
    report = run(tmp_path, prelude=record)
    check(report, "compiled")
    assert report["numba_read"] == [] and report["native_read"] == []
    assert any("stopped while loading" in w for w in report["warnings"]), report["warnings"]
    report = run(tmp_path)
    check(report, "disk")
    assert report["warnings"] == []


def test_stale_marker_from_a_dead_process(tmp_path, cache_program):
    run, check, record = cache_program
    report = run(tmp_path)
    marker = os.path.join(os.path.dirname(report["path"]), f"g_{report['key']}.loading")
    with open(marker, "w") as f:
        json.dump({"pid": 2**22 + 12345, "time": 0}, f)
    report = run(tmp_path, prelude=record)
    check(report, "compiled")
    assert report["numba_read"] == [] and not os.path.exists(marker)


# A read-only file system for the cache directory, as the OS would refuse: used when
# chmod cannot refuse (root ignores permission bits).
READ_ONLY_FS = """
import builtins, errno
_root = os.path.realpath(os.environ["GRAPHC_CACHE_DIR"])
def _inside(p):
    return not isinstance(p, int) and os.path.realpath(os.fsdecode(p)).startswith(_root)
def _refuse(p):
    raise OSError(errno.EROFS, os.strerror(errno.EROFS), os.fsdecode(p))
def _guard(fn, writes=lambda *a, **k: True):
    def guarded(p, *a, **k):
        if _inside(p) and writes(*a, **k):
            _refuse(p)
        return fn(p, *a, **k)
    return guarded
builtins.open = _guard(builtins.open, lambda mode="r", *a, **k: any(c in mode for c in "wax+"))
os.open = _guard(os.open, lambda flags, *a, **k: flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT))
for _name in ("mkdir", "unlink", "chmod", "rmdir"):
    setattr(os, _name, _guard(getattr(os, _name)))
os.replace = _guard(os.replace)
"""


def _writes_refused(directory) -> bool:
    try:
        with open(os.path.join(directory, "probe"), "w"):
            pass
    except PermissionError:
        return True
    os.unlink(os.path.join(directory, "probe"))
    return False


@pytest.mark.parametrize("populated", [False, True])
def test_read_only_directory_compiles_without_caching(tmp_path, cache_program, populated):
    """``jit_compile=True`` still compiles; nothing is written, and with an entry there
    nothing is loaded either (no "loading" marker could be written for it)."""
    run, check, record = cache_program
    base = tmp_path / "ro"
    base.mkdir(mode=0o700)
    if populated:
        check(run(base), "compiled")
    before = sorted(os.path.join(b, n) for b, _d, ns in os.walk(base) for n in ns)
    os.chmod(base, 0o500)
    for b, dirs, _n in os.walk(base):
        for d in dirs:
            os.chmod(os.path.join(b, d), 0o500)
    prelude = record if _writes_refused(base) else READ_ONLY_FS + record
    try:
        report = run(base, prelude=prelude)
    finally:
        for b, dirs, _n in os.walk(base):
            os.chmod(b, 0o700)
    check(report, "compiled")
    assert report["path"] is None and report["numba_read"] == []
    (warning,) = [w for w in report["warnings"] if w.startswith("CacheWarning")]
    assert str(base) in warning and "GRAPHC_CACHE_DIR" in warning
    assert sorted(os.path.join(b, n) for b, _d, ns in os.walk(base) for n in ns) == before


NUMBA_DISK_FULL = """
import errno, numba.core.caching as _caching
def _full(self, filepath):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), filepath)
_caching.IndexDataCacheFile._open_for_write = _full
"""


def test_full_disk_while_numba_saves(tmp_path, cache_program):
    run, check, _ = cache_program
    report = run(tmp_path, prelude=NUMBA_DISK_FULL)
    check(report, "compiled")
    assert any(w.startswith("CacheWarning") and os.strerror(errno.ENOSPC) in w
               for w in report["warnings"]), report["warnings"]
    assert not [n for _b, _d, ns in os.walk(tmp_path) for n in ns if n.endswith(".sums")]
    check(run(tmp_path), "compiled")  # space again: compiled and saved this time
    check(run(tmp_path), "disk")
