"""The package's import graph, counting every import, function-local ones too.

Run as a script for the numbers the layering work is measured by::

    python tests/layout/import_graph.py

It prints how many internal import lines there are, how many sit inside functions, the
strongly connected sets of modules (modules that import each other, directly or through
others), and every set that spans two packages. ``tests/layout/test_layers.py`` uses the
same walk to fail on a cycle that crosses a package line.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "graphc"


@dataclass(frozen=True)
class ImportLine:
    importer: str  # dotted module name
    imported: str  # dotted module name (a module of the package, resolved)
    lineno: int
    local: bool  # inside a function body


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted((ROOT / PACKAGE).rglob("*.py"))}


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The longest prefix of ``name`` that is a module of the package."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def _is_package(mod: str, modules: dict[str, Path]) -> bool:
    return modules[mod].name == "__init__.py"


def import_lines() -> list[ImportLine]:
    modules = _modules()
    lines = []
    for mod, path in modules.items():
        tree = ast.parse(path.read_text(), str(path))
        local_nodes = set()
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                local_nodes.update(id(n) for n in ast.walk(fn) if n is not fn)
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    pkg = mod if _is_package(mod, modules) else mod.rpartition(".")[0]
                    for _ in range(node.level - 1):
                        pkg = pkg.rpartition(".")[0]
                    base = f"{pkg}.{base}" if base else pkg
                # ``from pkg import mod`` imports the submodule when there is one
                targets = [f"{base}.{a.name}" for a in node.names]
            for t in targets:
                if not (t == PACKAGE or t.startswith(PACKAGE + ".")):
                    continue
                target = _resolve(t, modules)
                if target and target != mod:
                    lines.append(ImportLine(mod, target, node.lineno, id(node) in local_nodes))
    return lines


def package_of(mod: str) -> str:
    modules = _modules()
    return mod if _is_package(mod, modules) else mod.rpartition(".")[0]


def import_graph(lines: list[ImportLine] | None = None) -> nx.DiGraph:
    g = nx.DiGraph()
    g.add_nodes_from(_modules())
    for line in lines if lines is not None else import_lines():
        g.add_edge(line.importer, line.imported)
    return g


def knots(g: nx.DiGraph) -> list[set[str]]:
    """Strongly connected sets of two or more modules, largest first."""
    return sorted((c for c in nx.strongly_connected_components(g) if len(c) > 1),
                  key=len, reverse=True)


def cross_package_knots(g: nx.DiGraph) -> list[set[str]]:
    """Knots whose modules live in more than one package (a cycle across a package line).

    A package's ``__init__`` counts as part of the package it opens.
    """
    return [k for k in knots(g) if len({package_of(m) for m in k}) > 1]


def main() -> None:
    lines = import_lines()
    g = import_graph(lines)
    local = [ln for ln in lines if ln.local]
    print(f"modules: {g.number_of_nodes()}, internal import lines: {len(lines)}, "
          f"inside functions: {len(local)}")
    ks = knots(g)
    print(f"strongly connected sets: {[len(k) for k in ks]}")
    cross = cross_package_knots(g)
    print(f"sets spanning two or more packages: {len(cross)}")
    for k in cross:
        print("  ", len(k), sorted({package_of(m) for m in k}))
    if "-v" in sys.argv:
        for k in ks:
            print(sorted(k))


if __name__ == "__main__":
    main()
