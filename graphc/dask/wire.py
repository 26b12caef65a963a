"""Graphs on the wire: a graph as saved-graph JSON text plus its constant arrays.

The text is the ``graphs`` list of ``graph.json`` (docs/saved_model.md), subgraphs first
and the graph itself last; constants are plain arrays named as the text refers to them.
Reading validates exactly as ``gc.saved_model.load`` does (op names in the registry,
attrs by the attr table, references before use, ``verify``): nothing read is evaluated,
imported or unpickled.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np

from graphc.core import registry
from graphc.errors import SavedModelError
from graphc.ir.verify import VerificationError, verify
from graphc.passes.graphs import unfused
from graphc.saved_model import schema
from graphc.saved_model.build import build_graph, check_calls
from graphc.saved_model.save import _Writer

FORMAT = "graphc.dask.graph"


def dumps(graph) -> tuple[str, dict]:
    """``(json text, {name: ndarray})`` for ``graph`` (refuses what a saved graph does);
    fused nodes go as the ops they fuse (the wire has none; the graph is optimized again
    where it runs)."""
    graph = unfused(graph)
    writer = _Writer()
    writer.graph_index(graph)
    if writer.refs.variables:
        raise SavedModelError("a graph reading gc.Variables cannot run block by block")
    doc = {"format": FORMAT, "version": list(schema.VERSION), "graphs": writer.graphs}
    arrays = {name: np.array(a, order="C") for name, a in writer.refs.constants.values()}
    return json.dumps(doc, separators=(",", ":"), allow_nan=False), arrays


def digest(text: str, arrays: dict) -> str:
    """A content hash of a wire graph (its text and every constant's dtype/shape/bytes)."""
    h = hashlib.sha256(text.encode())
    for name in sorted(arrays):
        a = arrays[name]
        h.update(f"{name}:{a.dtype.str}:{a.shape}".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def loads(text: str, arrays: dict):
    """The graph of ``dumps``' output, validated; ``SavedModelError`` when malformed."""
    try:
        doc = json.loads(text)
    except ValueError as e:
        raise SavedModelError(f"wire graph: not valid JSON ({e})") from None
    if type(doc) is not dict or doc.get("format") != FORMAT or type(doc.get("graphs")) \
            is not list or not doc["graphs"] or list(doc.get("version", ())) != list(
            schema.VERSION):
        raise SavedModelError(f"wire graph: not a {FORMAT} document of this version")
    for name, a in arrays.items():
        if type(a) is not np.ndarray or a.dtype.name not in schema.DTYPES:
            raise SavedModelError(f"wire graph: constant {name!r} is not a plain array")
    refs = schema.LoadRefs([], dict(arrays), [])
    ops = registry.all_ops()
    for i, entry in enumerate(doc["graphs"]):  # each checked before a later one uses it
        where = f"wire graph: graphs[{i}]"
        built = build_graph(entry, refs, ops, where)
        try:
            verify(built)
        except VerificationError as e:
            raise SavedModelError(f"{where} fails verification: {e}") from None
        check_calls(built, where)
        refs.graphs.append(built)
    return refs.graphs[-1]
