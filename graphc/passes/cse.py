"""Common-subexpression elimination: nodes with the same op, inputs and attrs merge.

The key is structural, ``(op, inputs, attrs)``, taken after the node's inputs were
rewritten to their representatives, so whole duplicated chains merge in one forward sweep
(a dict lookup per node: linear). Attr values are keyed with their types, so ``axis=1``
and ``axis=True`` (equal in Python) never merge; constants are keyed by dtype, shape and
bytes, so ``0.0`` and ``-0.0`` stay apart. Stateful nodes and nodes threading the effect
token never merge: two ``random.uniform`` draws are two draws. Each branch and loop body
is processed on its own (subgraphs are closed), and a node whose attrs cannot be hashed is
simply left alone.
"""

from __future__ import annotations

from graphc.ir.graph import ConstArray, Graph
from graphc.passes.context import PassContext
from graphc.passes.graphs import is_pure, map_subgraphs, replace_graph, with_inputs


def _attr_key(value):
    """A hashable key that also tells apart values Python calls equal (1, 1.0, True)."""
    if isinstance(value, tuple | list):
        return (type(value).__name__, tuple(_attr_key(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple(sorted((k, _attr_key(v)) for k, v in value.items())))
    if isinstance(value, Graph | ConstArray):
        return value  # identity for graphs; dtype, shape and bytes for constants
    if type(value) is float:
        return (float, value.hex())  # 0.0 and -0.0 (and NaNs) are different attrs
    return (type(value), value)


def node_key(node):
    """The CSE key of ``node``, or None when it must not merge or cannot be keyed."""
    if not is_pure(node):
        return None
    try:
        key = (node.op, tuple(v.id for v in node.inputs),
               tuple(sorted((k, _attr_key(v)) for k, v in (node.attrs or {}).items())))
        hash(key)
    except TypeError:
        return None
    return key


def run(graph, ctx: PassContext):
    """The ``cse`` pass."""
    subst: dict = {}  # value id -> representative value
    seen: dict = {}  # key -> representative node
    nodes = []
    changed = False
    for original in graph.nodes:
        node = with_inputs(original, [subst.get(v.id, v) for v in original.inputs])
        node = map_subgraphs(node, run, ctx)
        key = node_key(node)
        first = None if key is None else seen.get(key)
        if first is not None and len(first.outputs) == len(node.outputs):
            for old, new in zip(node.outputs, first.outputs):
                subst[old.id] = new
            ctx.note(f"merged {ctx.describe(original)} into {_outs(ctx, first)}")
            changed = True
            continue
        if key is not None:
            seen[key] = node
        nodes.append(node)
    if not changed and all(a is b for a, b in zip(nodes, graph.nodes)):
        return graph
    outputs = [subst.get(v.id, v) for v in graph.outputs]
    return replace_graph(graph, nodes, outputs=outputs)


def _outs(ctx, node) -> str:
    return ", ".join(ctx.name(v) for v in node.outputs) or ctx.describe(node)
