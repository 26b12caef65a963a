"""The compiled-program cache (graphc.runtime.cpu.cache): disk hits in a new process,
recovery from corrupted entries, concurrent writers, info/clear.

Each test runs the tiny program of conftest.py in fresh interpreters (Numba's disk cache
only shows across processes) against its own cache directory.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from graphc.runtime.cpu import cache, cache_entry


def program_files(cache_dir):
    files = []
    for base, _dirs, names in os.walk(cache_dir):
        files += [os.path.join(base, n) for n in names
                  if n.startswith("g_") and not n.endswith(".lock")]
    return sorted(files)


def test_second_process_loads_from_disk(tmp_path, cache_program):
    run, check, _ = cache_program
    check(run(tmp_path), "compiled")
    report = run(tmp_path)
    check(report, "disk")
    # Numba's start-up BLAS probe (scipy.linalg, 0.4-0.6 s) is skipped (numba_cpu._start_numba)
    assert not report["scipy_linalg"]


def test_float_matmul_compiles_in_a_fresh_process(tmp_path):
    """With the BLAS probe skipped at start-up, np.dot still types and runs (BLAS)."""
    script = textwrap.dedent("""
        import numpy as np
        import graphc as gc
        from graphc.runtime.cpu import numba_cpu
        numba_cpu.settings.mode = "eager"

        @gc.function
        def mm(a, b):
            return a @ b

        a = np.arange(6.0).reshape(2, 3)
        b = np.arange(12.0).reshape(3, 4)
        out = mm(a, b)
        ex = mm.get_concrete_function(a, b).runtime
        assert ex.backend == "numba", ex.reasons
        np.testing.assert_array_equal(np.asarray(out), a @ b)
        print("ok")
    """)
    env = dict(os.environ, GRAPHC_CACHE_DIR=str(tmp_path))
    res = subprocess.run([sys.executable, "-c", script], env=env, text=True,
                         capture_output=True, timeout=300, check=False)
    assert res.returncode == 0 and res.stdout.strip() == "ok", res.stderr


def test_corrupted_entries_are_rebuilt(tmp_path, cache_program):
    run, check, _ = cache_program
    check(run(tmp_path), "compiled")
    files = program_files(tmp_path)
    kinds = {os.path.splitext(f)[1] for f in files}
    assert {".py", ".nbi", ".nbc"} <= kinds, files
    for f in files:  # garbage in Numba's index and data, a truncated program source
        with open(f, "r+b") as fh:
            data = fh.read()
            fh.seek(0)
            fh.truncate()
            fh.write(data[: len(data) // 2] + b"\x00garbage")
    check(run(tmp_path), "compiled")
    check(run(tmp_path), "disk")


def test_concurrent_writers_leave_a_valid_cache(tmp_path, cache_program, cache_programs):
    run, check, _ = cache_program
    reports = cache_programs(tmp_path, n=2)
    for report in reports:
        check(report, report["origin"])  # whichever got the lock first compiled
    assert "compiled" in {r["origin"] for r in reports}
    check(run(tmp_path), "disk")


def test_info_and_clear(tmp_path, monkeypatch, cache_program):
    monkeypatch.setenv("GRAPHC_CACHE_DIR", str(tmp_path))
    cache_program[0](tmp_path)
    info = cache.info()
    assert info["programs"] == 1 and info["native"] == 1 and info["bytes"] > 0
    assert info["directory"].startswith(str(tmp_path))
    cache.clear()
    assert cache.info()["programs"] == 0 and cache.info()["in_memory"] == 0
    assert not os.path.exists(os.path.join(tmp_path, "numba"))


@pytest.mark.parametrize("text", ["", "def program(:\n"])
def test_source_file_is_rewritten_when_it_differs(tmp_path, monkeypatch, text):
    monkeypatch.setenv("GRAPHC_CACHE_DIR", str(tmp_path))
    source = "# a program\n"
    key = cache.key_for(source)
    assert cache_entry.disk_usable()
    path = cache_entry.source_path(key, source)
    with open(path, "w") as f:
        f.write(text)
    assert cache_entry.source_path(key, source) == path
    with open(path) as f:
        assert f.read() == source
