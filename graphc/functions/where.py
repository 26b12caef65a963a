"""What runs where, for one trace: which nodes are compiled, which run in Python by
design (the ops documented as Python-side, and what only follows from them) and which
fall back to Python although they should compile, as ``runtime/fallback.py`` sorts
them for ``explain()`` and the fallback warning; and how the graph runs now (the
runtime's own ``explain()``)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from graphc.functions import placement
from graphc.ir.printer import node_signature
from graphc.runtime import fallback


@dataclass
class Where:
    """``compiled``: count of top-level nodes compiled; ``python`` / ``fallback``:
    ``(node, signature, line)`` for the others (``line``: public name, traced line,
    why); ``status``: lines on how the graph runs; ``kinds``: IR node ->
    ``"python"``/``"fallback"`` (for colouring pictures)."""

    backend: str
    compiled: int = 0
    python: list = field(default_factory=list)
    fallback: list = field(default_factory=list)
    status: str = ""
    kinds: dict = field(default_factory=dict)
    compile: str = ""  # how long compiling took, once it did
    jit_off: bool = False  # GRAPHC_JIT=off: nothing is compiled, whatever could be


def where_it_runs(function, concrete) -> Where:
    """Classify ``concrete``'s optimized graph for ``function``'s backend."""
    graph = concrete.optimized_graph
    if function._backend == "numpy":
        return Where("numpy", status="backend: numpy (the reference interpreter runs "
                     "every node; gc.function(backend='numba') compiles)")
    where = Where("numba")
    from graphc.runtime.cpu import codegen  # deferred: the CPU backend (see numba_cpu)

    try:
        blocked = codegen.generate(graph).blocked
    except Exception as e:  # noqa: BLE001 - the report must still be written
        blocked = [(n, f"code generation failed: {type(e).__name__}: {e}")
                   for n in graph.nodes]
    for (node, _reason), item in zip(blocked, fallback.classify(graph, blocked)):
        kind = "fallback" if item.kind == "fallback" else "python"  # "follows": by design
        at = f" at {short_path(item.where)}" if item.where else ""
        line = f"{item.name}{at}: {item.why}"
        getattr(where, kind).append((node, node_signature(graph, node), line))
        where.kinds[node] = kind
    where.compiled = len(graph.nodes) - len(blocked)
    runtime = concrete.runtime
    from graphc.runtime.cpu import numba_cpu  # deferred: the CPU backend loads on first compile

    if numba_cpu.settings.mode == "off":
        where.jit_off = True
        where.status = ("compiling is off (GRAPHC_JIT=off): the NumPy interpreter runs "
                        "every node\n")
    if runtime is None:
        where.status += ("not called yet: the program is generated and compiled on the "
                         "first calls (see docs/runtime.md)")
    else:
        where.status += runtime.explain()
        where.compile = compile_text(runtime)
    where.status += placement.runtime_text(concrete)  # accelerators it ran on, if any
    return where


def short_path(path: str) -> str:
    """``path`` relative to the working directory when it is under it, else as given."""
    try:
        rel = os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        return path
    return path if rel.startswith("..") else rel


def compile_text(runtime) -> str:
    """``"412.0 ms (compiled)"``, summed over a segmented graph's compiled programs;
    ``"not yet"`` while nothing is compiled."""
    parts = getattr(runtime, "segments", None) or [runtime]
    done = [ex for ex in parts if getattr(ex, "compile_seconds", None) is not None]
    if not done:
        return "not yet"
    total = sum(ex.compile_seconds for ex in done)
    origins = ", ".join(sorted({str(ex.origin) for ex in done}))
    some = f", {len(done)} of {len(parts)} segments" if len(parts) > 1 else ""
    return f"{total * 1e3:.1f} ms ({origins}{some})"
