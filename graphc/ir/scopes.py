"""Scopes for pictures: which nodes of a graph belong together, as TensorBoard's name
scopes group ops. The IR keeps no op names, but every node keeps the user's line it was
traced at (``node.src``, ``"path:line"``); the syntax tree of that file (read through
``linecache``, so IPython cells work too) says, for the line:

* the **user function** it belongs to: the innermost ``def`` (or ``lambda``) around it.
  Ops a helper (``dense(x, w, b)``) or a nested ``gc.function`` (inlined when traced)
  adds form one scope per call, named as TensorFlow names repeated scopes (``dense``,
  ``dense_1``, ...); a call ends where the traced lines of that function start over at
  an earlier statement. Ops of the traced function itself are in no scope.
* the **backward pass**: a line calling ``tape.gradient``, ``gc.gradients``,
  ``jacobian``, ... is where the tape added the gradient ops, so they form one scope
  (``gradients``) per such call.

A scope of fewer than ``MIN_NODES`` nodes, or one holding every node of its graph, is
dropped. Nodes without operands (constants, variable handles) join no scope: a scope
reading one draws its own copy (``layout.py``), so no wire crosses into it for them.
"""

from __future__ import annotations

import ast
import linecache
import os
from dataclasses import dataclass, field

GRAD_CALLS = frozenset({"gradient", "gradients", "jacobian", "batch_jacobian", "grad",
                        "value_and_grad", "vjp", "jvp", "hessians"})
MIN_NODES = 2


@dataclass
class Part:
    """What one layout draws: ``inputs`` (values), ``items`` (IR nodes and
    :class:`Scope` s, in execution order) and ``outputs`` (values)."""

    name: str
    inputs: list
    items: list
    outputs: list


@dataclass
class Scope:
    """Nodes drawn as one box. ``kind``: ``"function"`` or ``"backward"``; ``inputs``:
    values from outside it that its nodes read (constants excluded), ``outputs``: its
    values read outside it; ``part``: what its box holds (copies of the constants it
    reads included)."""

    kind: str
    label: str
    title: str
    nodes: list
    inputs: list = field(default_factory=list)
    outputs: list = field(default_factory=list)
    part: Part | None = None
    sid: str = ""  # the same scope's id in every picture of the graph


class _FileIndex(ast.NodeVisitor):
    """Per file: its ``def`` spans (with qualified names), the lines of gradient calls
    and the first line of each simple statement."""

    def __init__(self, text: str):
        self.defs: list = []       # (first line, last line, qualified name)
        self.grads: list = []      # (first line, last line) of a gradient call
        self.stmts: list = []      # (first line, last line) of a simple statement
        self._stack: list = []
        self.visit(ast.parse(text))

    def _scope(self, node, name, is_def=True):
        if is_def:
            self.defs.append((node.lineno, node.end_lineno, ".".join(self._stack + [name])))
        self._stack.append(name)
        self.generic_visit(node)
        self._stack.pop()

    def visit_FunctionDef(self, node):
        self._scope(node, node.name)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node):
        self._scope(node, "<lambda>")

    def visit_ClassDef(self, node):
        self._scope(node, node.name, is_def=False)

    def visit_Call(self, node):
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
        if name in GRAD_CALLS:
            self.grads.append((node.lineno, node.end_lineno))
        self.generic_visit(node)

    def generic_visit(self, node):
        if isinstance(node, ast.stmt) and not hasattr(node, "body"):
            self.stmts.append((node.lineno, node.end_lineno))
        super().generic_visit(node)

    def where(self, line: int):
        """``(def's qualified name or None, statement's first line, in a gradient call)``."""
        inside = [d for d in self.defs if d[0] <= line <= d[1]]
        qual = max(inside, key=lambda d: d[0])[2] if inside else None
        stmts = [s for s in self.stmts if s[0] <= line <= s[1]]
        start = max(stmts, key=lambda s: s[0])[0] if stmts else line
        grad = next((g[0] for g in self.grads if g[0] <= line <= g[1]), None)
        return qual, start, grad


class _Sources:
    """Where each ``node.src`` is in its file, parsed once per file per picture."""

    def __init__(self):
        self.files: dict = {}
        self.lines: dict = {}

    def __call__(self, src):
        if not src or src in self.lines:
            return self.lines.get(src)
        path, _, num = src.rpartition(":")
        found = None
        if num.isdigit():
            index = self.files.get(path, 0)
            if index == 0:
                text = "".join(linecache.getlines(path))
                try:
                    index = _FileIndex(text) if text else None
                except (SyntaxError, ValueError, RecursionError):
                    index = None
                self.files[path] = index
            if index is not None:
                found = (path, *index.where(int(num)))
        self.lines[src] = found
        return found


def is_source(node) -> bool:
    """A node without operands and bodies (a constant, a variable handle)."""
    return not node.inputs and not node.subgraphs()


def group(graph, home: str | None = None, sources=None) -> Part:
    """``graph``'s nodes with scope members replaced by :class:`Scope` s (each at its
    first member's place); ``home`` is the traced function's name (default: the
    graph's), whose own ops are in no scope."""
    sources = sources or _Sources()
    home = graph.name if home is None else home
    runs, current, last = [], None, 0
    for node in graph.nodes:
        if is_source(node):
            continue
        key, stmt = _key(sources(node.src), home)
        if key is None or key != current or (key[0] == "function" and stmt < last):
            runs.append((key, []))
        runs[-1][1].append(node)
        current, last = key, stmt
    scoped = [(k, ns) for k, ns in runs if k is not None and len(ns) >= MIN_NODES]
    members = sum(len(ns) for _k, ns in scoped)
    if not scoped or members == sum(not is_source(n) for n in graph.nodes):
        return Part(graph.name, graph.inputs, graph.nodes, graph.outputs)
    scopes, first = _scopes(scoped), {}
    for s in scopes:
        first.update((id(n), s) for n in s.nodes)
    _wire(graph, scopes, first)
    items, placed = [], set()
    for node in graph.nodes:
        s = first.get(id(node))
        if s is None:
            items.append(node)
        elif id(s) not in placed:
            placed.add(id(s))
            items.append(s)
    return Part(graph.name, graph.inputs, items, graph.outputs)


def _key(where, home):
    """``(scope key or None, statement line)`` of one node's source position."""
    if where is None:
        return None, 0
    path, qual, stmt, grad = where
    if grad is not None:
        return ("backward", path, grad), stmt
    if qual is None or qual.rsplit(".", 1)[-1] == home:
        return None, stmt
    return ("function", path, qual), stmt


def _scopes(scoped) -> list:
    seen: dict = {}
    out = []
    for key, nodes in scoped:
        kind, path, what = key
        base = "gradients" if kind == "backward" else what.rsplit(".", 1)[-1]
        n = seen[base] = seen.get(base, -1) + 1
        label = base if n == 0 else f"{base}_{n}"
        at = f"{os.path.basename(path)}:{what}"
        title = (f"{label}: backward pass, the gradient ops of the call at {at}"
                 if kind == "backward" else
                 f"{label}: ops traced in {what} ({os.path.basename(path)})")
        out.append(Scope(kind, label, f"{title}, {len(nodes)} ops", nodes,
                         sid=f"s{len(out)}"))
    return out


def _wire(graph, scopes, owner) -> None:
    """Each scope's inputs, outputs and inner part."""
    made = {v.id: n for n in graph.nodes for v in n.outputs}
    read_from: dict = {v.id: {0} for v in graph.outputs}  # value -> its readers' scopes
    for node in graph.nodes:
        s = owner.get(id(node))
        for v in node.inputs:
            read_from.setdefault(v.id, set()).add(0 if s is None else id(s))
    for s in scopes:
        ins, inner, seen = [], [], {v.id for n in s.nodes for v in n.outputs}
        for node in s.nodes:
            for v in node.inputs:
                if v.id in seen:
                    continue
                seen.add(v.id)
                p = made.get(v.id)
                if p is not None and is_source(p):
                    inner.append(p)  # a copy of the constant, drawn inside
                else:
                    ins.append(v)
            inner.append(node)
        outs = [v for n in s.nodes for v in n.outputs
                if read_from.get(v.id, set()) - {id(s)}]
        s.inputs, s.outputs = ins, outs
        s.part = Part(s.label, ins, inner, outs)
