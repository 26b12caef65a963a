"""Without an optional extra, graphc and its examples say which one to install (the Dask
example died with a bare ``No module named 'dask'`` after the README's plain install)."""

import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]

# Run code as if some top-level packages were not installed: importing them raises
# ModuleNotFoundError exactly as a missing package does.
HIDE = """
import importlib.abc, sys
HIDDEN = set(sys.argv[1].split(","))
for name in list(sys.modules):
    if name.split(".")[0] in HIDDEN:
        del sys.modules[name]

class Missing(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in HIDDEN:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, Missing())
sys.argv = sys.argv[2:]
"""


def _run_without(packages, code, *args):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", HIDE + textwrap.dedent(code),
                           ",".join(packages), *args], capture_output=True, text=True,
                          env=env, timeout=300, cwd=ROOT)


def test_dask_example_says_how_to_install_the_extra():
    script = ROOT / "examples" / "dask_scale_out.py"
    res = _run_without(["dask", "distributed"], """
        import runpy
        runpy.run_path(sys.argv[0], run_name="__main__")
    """, str(script))
    assert res.returncode == 1
    err = res.stderr.strip()
    assert err.startswith("dask_scale_out.py needs Dask and distributed (No module named "
                          "'dask'): install graphc's dask extra"), err
    assert 'pip install "graphc[dask]"' in err and 'pip install -e ".[dask]"' in err
    assert "Traceback" not in err
    doc = script.read_text().split('"""')[1]
    assert 'pip install "graphc[dask]"' in doc and 'pip install -e ".[dask]"' in doc


def test_every_example_importing_an_extra_says_how_to_install_it():
    for script in sorted((ROOT / "examples").glob("*.py")):
        text = script.read_text()
        for extra, module in (("dask", "dask"), ("cuda", "numba.cuda")):
            if f"import {module}" in text or f"from {module} import" in text:
                assert f'pip install "graphc[{extra}]"' in text, script.name
                assert f'pip install -e ".[{extra}]"' in text, script.name


def test_map_blocks_without_dask_names_the_extra():
    res = _run_without(["dask"], """
        import numpy as np
        import graphc as gc
        try:
            gc.dask.map_blocks(lambda x: x + 1, np.ones(2))
        except ImportError as e:
            print(e)
    """)
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.startswith('gc.dask needs Dask, which is not installed: pip install '
                                 '"graphc[dask]" (from a clone of graphc\'s repository: '
                                 'pip install -e ".[dask]")'), res.stdout


def test_cuda_backend_without_numba_cuda_names_the_extra(monkeypatch):
    from graphc.runtime.cuda import target

    monkeypatch.setattr(target, "_cuda", None)
    monkeypatch.setitem(sys.modules, "numba.cuda", None)  # importing it now fails
    with pytest.raises(ImportError, match=r'numba-cuda, which is not installed: pip install '
                       r'"graphc\[cuda\]" \(from a clone of graphc\'s repository: pip '
                       r'install -e "\.\[cuda\]"\)'):
        target.cuda()
