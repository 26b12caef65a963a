"""The package's floors hold: import-linter's contracts (pyproject.toml) are kept, no
import cycle crosses a package line, and each function-local import says why it is one.

Function-local imports count: grimp (import-linter's graph) and ``import_graph.py`` both
read every import statement, inside functions too.
"""

from __future__ import annotations

import ast
import subprocess
import sys

import import_graph
import pytest

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def test_import_linter_contracts_are_kept():
    """``lint-imports`` (the contracts in pyproject.toml), in a process of its own."""
    run = subprocess.run(
        [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports; "
         "sys.exit(lint_imports(no_cache=True))"],
        capture_output=True, text=True, cwd=import_graph.ROOT, timeout=300)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert " 0 broken." in run.stdout


def test_no_import_cycle_spans_two_packages():
    graph = import_graph.import_graph()
    assert import_graph.cross_package_knots(graph) == []


def test_no_module_imports_the_face():
    """Only the face (graphc/__init__.py) may know the whole package: a module below it
    importing ``graphc`` itself would reach every layer."""
    lines = [ln for ln in import_graph.import_lines()
             if ln.imported == "graphc" and ln.importer != "graphc.__main__"]
    assert lines == []


def test_each_function_local_import_says_why():
    """A function-local import only defers an optional or heavy dependency, and the
    line says so in a comment (``# deferred: ...``)."""
    silent = []
    for path in sorted((import_graph.ROOT / "graphc").rglob("*.py")):
        source = path.read_text()
        lines = source.splitlines()
        tree = ast.parse(source)
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.Import | ast.ImportFrom) and node is not fn:
                    text = " ".join(lines[node.lineno - 1:node.end_lineno])
                    if "#" not in text:
                        silent.append(f"{path.relative_to(import_graph.ROOT)}:{node.lineno}")
    assert silent == []
