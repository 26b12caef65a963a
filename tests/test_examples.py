"""Every example script runs to completion, and ``import graphc`` stays light."""

import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))


@pytest.mark.parametrize("script", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_runs(script, tmp_path):
    env = {**os.environ, "GRAPHC_CACHE_DIR": str(tmp_path)}
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                            timeout=300, env=env, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip()
    # the test extra installs what every example needs, so none stops early
    assert "is not installed" not in result.stdout, result.stdout[-500:]


def test_import_graphc_does_not_import_numba():
    code = "import sys, graphc, graphc.numpy; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "False"


def test_benchmarks_quick_run(tmp_path):
    """The benchmark runner works end to end (a smoke run; timings are never asserted)."""
    env = {**os.environ, "GRAPHC_CACHE_DIR": str(tmp_path)}
    result = subprocess.run([sys.executable, "-m", "benchmarks", "--quick"], capture_output=True,
                            text=True, timeout=600, env=env, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-3000:]
    for table in ("eager", "function", "passes", "control", "autodiff", "numba", "latency",
                  "vectorize", "dask", "cuda"):
        assert f"{table}:" in result.stdout
