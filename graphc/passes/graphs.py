"""Graph helpers every pass uses: rebuilding nodes, recursing into subgraphs, inlining.

Nodes and graphs are immutable, so a pass builds new ones. Output ``Value`` objects are
reused whenever a node keeps its meaning: a value then keeps its identity (and its name in
the pass report) through the whole pipeline, and only consumers of replaced values need
rebuilding.
"""

from __future__ import annotations

import numpy as np

from graphc.core.registry import get as get_op
from graphc.ir.graph import Aval, ConstArray, FrozenAttrs, Graph, Node, Value
from graphc.passes.context import PassContext, subgraph_items

FUSED_OP = "fused_elementwise"  # its body is already optimized: passes do not recurse into it


def has_token(node) -> bool:
    """Whether ``node`` takes part in the effect chain (its last input is a token)."""
    return bool(node.inputs) and node.inputs[-1].aval.is_token


def is_pure(node) -> bool:
    """A node free of effects: not stateful and not threading the effect token."""
    return not node.op.stateful and not has_token(node)


def const_array(node) -> np.ndarray | None:
    """The array of a ``const`` node, else None."""
    if node is not None and node.op.name == "const":
        return node.attrs["value"].array
    return None


def make_const(array: np.ndarray, src=None) -> Node:
    """A new ``const`` node holding a private, contiguous copy of ``array``."""
    array = np.array(array, copy=True, order="C")
    out = Value(Aval(array.shape, array.dtype))
    return Node(get_op("const"), (), FrozenAttrs({"value": ConstArray(array)}), (out,), src)


def make_node(op, inputs, attrs, src=None) -> Node:
    """A new node with fresh outputs whose avals come from ``op.infer``."""
    attrs = FrozenAttrs(attrs)
    avals = op.infer(*[v.aval for v in inputs], **attrs)
    avals = (avals,) if isinstance(avals, Aval) else tuple(avals)
    return Node(op, tuple(inputs), attrs, tuple(Value(a) for a in avals), src)


def with_inputs(node, inputs) -> Node:
    """``node`` reading ``inputs`` instead (the same object when nothing changes)."""
    inputs = tuple(inputs)
    if all(a is b for a, b in zip(inputs, node.inputs)):
        return node
    return Node(node.op, inputs, node.attrs, node.outputs, node.src)


def with_subgraphs(node, replace: dict) -> Node:
    """``node`` with the Graphs in its attrs swapped by identity through ``replace``."""
    attrs = {}
    for key, value in node.attrs.items():
        if isinstance(value, Graph):
            value = replace.get(id(value), value)
        elif isinstance(value, tuple) and any(isinstance(g, Graph) for g in value):
            value = tuple(replace.get(id(g), g) if isinstance(g, Graph) else g for g in value)
        attrs[key] = value
    return Node(node.op, node.inputs, FrozenAttrs(attrs), node.outputs, node.src)


def map_subgraphs(node, fn, ctx: PassContext) -> Node:
    """Apply the pass ``fn(graph, ctx) -> graph`` to every subgraph of ``node``.

    Generic over control-flow ops: whatever Graph-valued attrs a node has are rebuilt, so
    a new control op needs no code here. Fused bodies are left alone (already optimized).
    """
    if node.op.name == FUSED_OP:
        return node
    items = subgraph_items(node)
    if not items:
        return node
    replace = {}
    for label, sub in items:
        new = fn(sub, ctx.child(node, label, sub))
        if new is not sub:
            replace[id(sub)] = new
    return with_subgraphs(node, replace) if replace else node


def count_ops(graph: Graph) -> int:
    """Nodes in ``graph`` and, recursively, in its branch and loop bodies (fused = one)."""
    total = 0
    for node in graph.nodes:
        total += 1
        if node.op.name != FUSED_OP:
            for _, sub in subgraph_items(node):
                total += count_ops(sub)
    return total


def inline_graph(graph: Graph, inputs, token=None):
    """Copy ``graph``'s nodes so they read ``inputs`` (and ``token`` for its token_in).

    Returns ``(nodes, outputs, token_out)``: the copied nodes in order (every value fresh,
    so one graph can be inlined several times), the values standing for
    ``graph.outputs``, and the token after the copied effects (``token`` itself when the
    graph has none). ``src`` is kept, so errors still name the user's line.

    >>> nodes, outs, _ = inline_graph(branch, [x])     # doctest: +SKIP
    """
    if len(inputs) != len(graph.inputs):
        raise ValueError(f"inline_graph: {graph.name!r} takes {len(graph.inputs)} inputs, "
                         f"got {len(inputs)}")
    env = {v.id: x for v, x in zip(graph.inputs, inputs)}
    if graph.token_in is not None:
        env[graph.token_in.id] = token
    nodes = []
    for node in graph.nodes:
        ins = tuple(env.get(v.id, v) for v in node.inputs)
        outs = tuple(Value(v.aval) for v in node.outputs)
        for old, new in zip(node.outputs, outs):
            env[old.id] = new
        nodes.append(Node(node.op, ins, node.attrs, outs, node.src))
    outputs = [env.get(v.id, v) for v in graph.outputs]
    token_out = token if graph.token_out is None else env.get(graph.token_out.id, token)
    return nodes, outputs, token_out


def replace_graph(graph: Graph, nodes, outputs=None, token_out=None) -> Graph:
    """A graph like ``graph`` with new nodes (and, where given, new outputs / token_out)."""
    return Graph(graph.inputs, nodes, graph.outputs if outputs is None else outputs,
                 name=graph.name, token_in=graph.token_in,
                 token_out=graph.token_out if token_out is None else token_out)


def unfused(graph: Graph) -> Graph:
    """``graph`` with each ``fused_elementwise`` node replaced by the nodes of its body, in
    branch and loop bodies too (for formats that carry no fused nodes: the Dask wire,
    whose graphs are specialized and optimized again where they run). The body's results
    become the fused node's own output values, so readers of them need no change."""
    nodes, changed = [], False
    for node in graph.nodes:
        if node.op.name == FUSED_OP:
            sub = node.attrs["subgraph"]
            outer = {s.id: v for s, v in zip(sub.inputs, node.inputs, strict=True)}
            outer.update((s.id, v) for s, v in zip(sub.outputs, node.outputs, strict=True))
            nodes.extend(Node(n.op, tuple(outer.get(v.id, v) for v in n.inputs), n.attrs,
                              tuple(outer.get(v.id, v) for v in n.outputs), n.src)
                         for n in sub.nodes)
            changed = True
            continue
        items = subgraph_items(node)
        replace = {id(s): new for _, s in items if (new := unfused(s)) is not s}
        if replace:
            node, changed = with_subgraphs(node, replace), True
        nodes.append(node)
    return replace_graph(graph, nodes) if changed else graph
