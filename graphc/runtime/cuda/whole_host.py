"""When a graph runs wholly on the host instead of as CUDA kernels: inputs of unknown
shape or of a dtype the backend does not run, effects anywhere (tokens, variables: they
run on the host, in program order), values whose shape depends on the data. The reason
carries the user's version (op, line) for warnings and ``explain``."""

from __future__ import annotations

from graphc.ir.graph import Graph
from graphc.ir.printer import node_signature
from graphc.ops.state import is_resource
from graphc.runtime import fallback
from graphc.runtime.scalar_templates import SUPPORTED_DTYPES


def reason(graph: Graph) -> str | None:
    """Why ``graph`` runs wholly on the host, or None when its nodes run as kernels."""
    for i, v in enumerate(graph.inputs):
        if v.aval.shape is None or None in v.aval.shape:
            return f"input {i} has an unknown dimension ({v.aval}); CUDA kernels need " \
                   "static shapes"
        if v.aval.dtype not in SUPPORTED_DTYPES:
            return f"input {i} has dtype {v.aval.dtype}, which the CUDA backend does not run"
    for g in _graphs(graph):
        for node in g.nodes:
            for v in (*node.inputs, *node.outputs):
                if v.aval.is_token or is_resource(v.aval):
                    return _for_user(
                        f"{node_signature(g, node)}: op {node.op.name} has effects "
                        "(effects run on the host, in program order)", node,
                        "it has effects (variables, prints, random draws, callbacks run "
                        "on the host, in program order), so the whole graph runs on the "
                        "host")
                if v.aval.shape is None or None in v.aval.shape:
                    return _for_user(
                        f"{node_signature(g, node)}: a value of unknown shape "
                        f"({v.aval}); CUDA kernels need static shapes", node,
                        "its result's shape is unknown until it runs (it depends on the "
                        "data), and CUDA kernels need static shapes, so the whole graph "
                        "runs on the host")
    return None


def _for_user(text: str, node, why: str) -> str:
    """``text`` (IR terms, for ``Program.whole_host``) carrying the user's version of it
    (the op's public name, the line it was traced at) for warnings and ``explain``."""
    reason = fallback.Reason(text)
    reason.item = fallback.Item(fallback.describe(node), node.src or "", why, "fallback")
    return reason


def _graphs(graph: Graph):
    yield graph
    for node in graph.nodes:
        for sub in node.subgraphs():
            yield from _graphs(sub)
