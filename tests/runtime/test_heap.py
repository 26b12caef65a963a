"""``runtime/cpu/heap.py``: glibc's malloc keeps a compiled program's freed temporaries
for the next call (no page faults per call), and ``GRAPHC_HEAP_KEEP_MB`` controls it."""

import os
import platform
import subprocess
import sys
import textwrap

import pytest

from graphc.runtime.cpu import heap

GLIBC = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"

PROBE = textwrap.dedent("""
    import resource
    import numpy as np
    import graphc as gc
    import graphc.numpy as gnp
    from graphc.runtime.cpu import numba_cpu
    numba_cpu.settings.mode = "eager"

    @gc.function
    def f(x):  # two 3.2 MB temporaries and a result per call
        return gnp.cumsum(x) + gnp.cumsum(x * 2.0)[::-1]

    x = np.linspace(0.0, 1.0, 400_000)
    for _ in range(3):
        f(x)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(10):
        f(x)
    print((resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) // 10)
""")


def faults_per_call(keep_mb, tmp_path):
    env = dict(os.environ, GRAPHC_HEAP_KEEP_MB=keep_mb, GRAPHC_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True,
                         text=True, timeout=300, check=True)
    return int(out.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not GLIBC, reason="tunes glibc's malloc only")
def test_a_compiled_programs_temporaries_are_reused_without_page_faults(tmp_path):
    untuned = faults_per_call("0", tmp_path)
    tuned = faults_per_call("", tmp_path)
    assert untuned > 700  # each 3.2 MB temporary faulted in again: 781 pages
    assert tuned < untuned / 10


@pytest.mark.parametrize("text,message", [("lots", "whole number"), ("-1", "negative")])
def test_a_bad_setting_is_refused_with_what_to_write(monkeypatch, text, message):
    monkeypatch.setenv("GRAPHC_HEAP_KEEP_MB", text)
    with pytest.raises(ValueError, match=message):
        heap._keep_bytes()


def test_the_setting_in_mib(monkeypatch):
    monkeypatch.setenv("GRAPHC_HEAP_KEEP_MB", "64")
    assert heap._keep_bytes() == 64 << 20
    monkeypatch.delenv("GRAPHC_HEAP_KEEP_MB")
    assert heap._keep_bytes() == heap.KEEP_MIB << 20
