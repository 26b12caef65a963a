"""``import graphc`` from the folder that holds a clone named ``graphc/``: the current
folder comes first on ``sys.path``, so Python finds the clone's root folder before the
package inside it. It used to be an empty namespace package there (``gc.function``
missing); the repository's root ``__init__.py`` now loads the real package instead."""

import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _python(cwd, *args):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True,
                          env=env, timeout=300)


def _clone_parent(tmp_path, name):
    (tmp_path / name).symlink_to(ROOT, target_is_directory=True)
    return tmp_path


def test_import_graphc_from_the_clones_parent_folder(tmp_path):
    parent = _clone_parent(tmp_path, "graphc")
    res = _python(parent, "-c", "\n".join([
        "import os, numpy as np",
        "import graphc as gc, graphc.numpy as gnp",
        "print(os.path.realpath(gc.__file__))",
        "print(os.path.realpath(gnp.__file__))",
        "def double(x):",
        "    return x * 2",
        "print(gc.function(double, autograph=False)(np.ones(2)).numpy().tolist())"]))
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.splitlines() == [str(ROOT / "graphc" / "__init__.py"),
                                       str(ROOT / "graphc" / "numpy.py"), "[2.0, 2.0]"]


def test_python_m_graphc_from_the_clones_parent_folder(tmp_path):
    parent = _clone_parent(tmp_path, "graphc")
    res = _python(parent, "-m", "graphc", "--help")
    assert res.returncode == 0, res.stderr[-2000:]
    assert "graphc command line: saved graphs" in res.stdout


def test_the_root_folder_under_another_name_does_nothing(tmp_path):
    """pytest (8 and later) imports its root folder's ``__init__.py`` under the folder's
    name: that must load nothing."""
    parent = _clone_parent(tmp_path, "some_clone")
    res = _python(parent, "-c", "import sys, some_clone; "
                  "print(sorted(m for m in sys.modules if m.startswith('graphc')))")
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.strip() == "[]"
