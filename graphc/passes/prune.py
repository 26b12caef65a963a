"""Pruning: keep exactly the nodes that the outputs and the final effect token need.

This is what makes execution non-strict: an unused pure node never runs, so its run-time
errors never happen (``gc.gather(x, [1])`` whose result is dropped does not fail on a
one-element ``x``). Effects are safe without special cases: every stateful node produces
the token that the next one consumes, up to ``graph.token_out``, so the backward walk from
``token_out`` keeps them all, in order.

Inside control flow the same holds per body, and a live ``cond`` / ``switch_case`` also
loses the outputs nobody reads (removed from every branch, whose now-dead nodes go too)
and then the operands no branch reads; a ``while_loop`` loses the carried values that
neither its outputs, its condition, its effects nor the other live carried values need.
One backward sweep per graph: linear in its size.
"""

from __future__ import annotations

from graphc.ir.graph import FrozenAttrs, Node
from graphc.passes import control
from graphc.passes.context import PassContext
from graphc.passes.graphs import map_subgraphs, replace_graph


def run(graph, ctx: PassContext):
    """The ``pruning`` pass."""
    live = {v.id for v in graph.outputs}
    if graph.token_out is not None:
        live.add(graph.token_out.id)
    kept, dropped = [], []
    for node in reversed(graph.nodes):
        if not any(v.id in live for v in node.outputs):
            dropped.append(node)
            continue
        node = _prune_inside(node, live, ctx)
        live.update(v.id for v in node.inputs)
        kept.append(node)
    kept.reverse()
    consts = []
    for node in reversed(dropped):  # reported in program order, constants on one line
        if node.op.name == "const":
            consts.append(ctx.name(node.outputs[0]))
        else:
            ctx.note(f"pruned {ctx.describe(node)} (result unused)")
    if consts:
        ctx.note(f"pruned {len(consts)} unused constant{'s' * (len(consts) > 1)} "
                 f"{', '.join(consts)}")
    if len(kept) == len(graph.nodes) and all(a is b for a, b in zip(kept, graph.nodes)):
        return graph
    return replace_graph(graph, kept)


def _prune_inside(node, live: set, ctx: PassContext):
    """Prune ``node``'s bodies, and drop its dead outputs where its op allows."""
    layout = control.CONDS.get(node.op.name)
    if layout is not None:
        return _shrink_cond(node, layout, live, ctx)
    loop = control.LOOPS.get(node.op.name)
    if loop is not None:
        return _shrink_loop(node, loop, live, ctx)
    return map_subgraphs(node, run, ctx)


def _shrink_cond(node, layout, live: set, ctx: PassContext):
    data = control.data_outputs(node)
    keep_out = [i for i, v in enumerate(data) if v.id in live]
    branches = layout.branches(node)
    pruned = [run(control.select_outputs(g, keep_out), ctx.child(node, label, g))
              for label, g in branches]
    used = set().union(*(control.used_inputs(g) for g in pruned))
    args = control.operands(node)
    keep_in = [j for j in range(len(args)) if j in used]
    pruned = [control.select_inputs(g, keep_in) for g in pruned]
    if all(a is b for a, (_, b) in zip(pruned, branches)):
        return node
    token = node.inputs[len(node.inputs) - 1:] if control.takes_token(node) else ()
    token_out = node.outputs[len(data):]
    new = Node(node.op, (node.inputs[0], *(args[j] for j in keep_in), *token),
               FrozenAttrs(layout.with_branches(node, pruned)),
               (*(data[i] for i in keep_out), *token_out), node.src)
    _note_dropped(ctx, node, [
        ("unused outputs", [data[i] for i in range(len(data)) if i not in keep_out]),
        ("dead operands", [args[j] for j in range(len(args)) if j not in used])])
    return new


def _shrink_loop(node, loop, live: set, ctx: PassContext):
    n = loop.count(node)
    keep = loop.live_carried(node, live)
    body, cond = node.attrs["body"], node.attrs["cond"]
    body = run(control.select_outputs(body, keep), ctx.child(node, "body", body))
    cond = run(cond, ctx.child(node, "cond", cond))
    consts = loop.consts(node)
    used = control.used_inputs(body) | control.used_inputs(cond)
    keep_consts = [j for j in range(len(consts)) if n + j in used]
    if len(keep) == n and len(keep_consts) == len(consts):
        if body is node.attrs["body"] and cond is node.attrs["cond"]:
            return node
        return Node(node.op, node.inputs, FrozenAttrs({**node.attrs, "body": body,
                                                       "cond": cond}), node.outputs, node.src)
    inputs = keep + [n + j for j in keep_consts]
    attrs = {**node.attrs, "body": control.select_inputs(body, inputs),
             "cond": control.select_inputs(cond, inputs)}
    data = control.data_outputs(node)
    token_in = node.inputs[len(node.inputs) - 1:] if control.takes_token(node) else ()
    new = Node(node.op, (*(node.inputs[i] for i in inputs), *token_in), FrozenAttrs(attrs),
               (*(data[i] for i in keep), *node.outputs[len(data):]), node.src)
    dead = [i for i in range(n) if i not in set(keep)]
    dead_consts = [consts[j] for j in range(len(consts)) if j not in set(keep_consts)]
    variables = [f"{ctx.name(data[i])} (initial value {ctx.name(node.inputs[i])})"
                 for i in dead]
    _note_dropped(ctx, node, [("dead loop variables", variables),
                              ("unused loop constants", [ctx.name(v) for v in dead_consts])])
    return new


def _note_dropped(ctx, node, parts) -> None:
    """One report line: ``dropped unused outputs %4 and dead operands %2 of <node>``."""
    text = [f"{label} " + ", ".join(v if isinstance(v, str) else ctx.name(v) for v in values)
            for label, values in parts if values]
    if text:
        ctx.note(f"dropped {' and '.join(text)} of {ctx.describe(node)}")
