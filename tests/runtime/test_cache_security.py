"""The compile cache loads nothing another user could have written: private modes
whatever the umask, directories someone else owns or can write are not used at all,
and a ``.pyc`` planted beside a program is never run."""

from __future__ import annotations

import importlib.util
import os
import py_compile
import stat

import pytest

from graphc.runtime.cpu import cache_entry, cache_files


def _modes(root):
    """``{relative path: mode}`` of everything below ``root``."""
    found = {}
    for base, dirs, names in os.walk(root):
        for n in dirs + names:
            p = os.path.join(base, n)
            found[os.path.relpath(p, root)] = stat.S_IMODE(os.lstat(p).st_mode)
    return found


def test_tree_is_private_whatever_the_umask(tmp_path, cache_program):
    run, check, _ = cache_program
    base = tmp_path / "cache"
    check(run(base, prelude="os.umask(0)"), "compiled")
    modes = _modes(base)
    assert any(p.endswith(".nbc") for p in modes) and any(p.endswith(".sums") for p in modes)
    wrong = {p: f"{m:04o}" for p, m in modes.items()
             if m != (0o700 if os.path.isdir(base / p) else 0o600)}
    assert not wrong, wrong
    assert stat.S_IMODE(os.stat(base).st_mode) == 0o700


LEVELS = ["base", "numba", "tag", "__pycache__"]


def _level(base, level):
    found = str(base)
    for part in LEVELS[1:LEVELS.index(level) + 1]:
        found = os.path.join(found, next(iter(os.listdir(found))) if part == "tag" else part)
    return found


def _snapshot(root):
    return {p: (s.st_mtime_ns, s.st_size) for p, s in
            ((os.path.join(b, n), os.lstat(os.path.join(b, n)))
             for b, _d, ns in os.walk(root) for n in ns)}


@pytest.mark.parametrize("how", ["writable by others", "owned by another user"])
@pytest.mark.parametrize("level", LEVELS)
def test_unsafe_directory_is_not_used(tmp_path, cache_program, level, how):
    run, check, record = cache_program
    base = tmp_path / "shared"
    check(run(base), "compiled")
    target = _level(base, level)
    if how == "writable by others":
        os.chmod(target, 0o777)
    elif os.geteuid() == 0:
        os.chown(target, 65534, 65534)
    else:
        pytest.skip("only root can give a directory to another user")
    before = _snapshot(base)
    report = run(base, prelude=record)
    check(report, "compiled")  # compiled in memory: the entry on disk was not loaded
    assert report["path"] is None and report["numba_read"] == []
    assert _snapshot(base) == before  # ... and nothing was written there
    (warning,) = [w for w in report["warnings"] if w.startswith("CacheWarning")]
    assert str(base) in warning and "chmod 700" in warning and "GRAPHC_CACHE_DIR" in warning
    assert target in warning


def test_warned_once_per_directory(tmp_path, monkeypatch, session_cache_dir):
    base = tmp_path / "open"
    base.mkdir()
    os.chmod(base, 0o777)
    monkeypatch.setenv("GRAPHC_CACHE_DIR", str(base))
    monkeypatch.setattr(cache_files, "_warned", set())
    with pytest.warns(cache_files.CacheWarning) as record:
        assert not cache_entry.disk_usable()
        assert not cache_entry.disk_usable()
    assert len(record) == 1 and os.listdir(base) == []


def test_symlinked_directory_is_not_used(tmp_path, monkeypatch):
    base, elsewhere = tmp_path / "cache", tmp_path / "elsewhere"
    base.mkdir(mode=0o700)
    elsewhere.mkdir(mode=0o700)
    os.symlink(elsewhere, base / "numba")
    monkeypatch.setenv("GRAPHC_CACHE_DIR", str(base))
    monkeypatch.setattr(cache_files, "_warned", set())
    with pytest.warns(cache_files.CacheWarning, match="symbolic link"):
        assert not cache_entry.disk_usable()


def test_planted_pyc_is_never_executed(tmp_path, cache_program):
    """Python would run an unchecked-hash .pyc beside a module instead of its source."""
    run, check, _ = cache_program
    base = tmp_path / "cache"
    report = run(base)
    check(report, "compiled")
    marker = tmp_path / "pwned"
    evil = tmp_path / "evil.py"
    evil.write_text(f"open({str(marker)!r}, 'w').close()\n"
                    "raise SystemExit('the planted .pyc ran')\n")
    pyc = importlib.util.cache_from_source(report["path"])
    py_compile.compile(str(evil), cfile=pyc, doraise=True,
                       invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
    for _ in range(2):
        report = run(base)
        check(report, report["origin"])
        assert not marker.exists()
    assert report["origin"] == "disk"  # the entry was rebuilt without the stranger
    assert not os.path.exists(pyc)
