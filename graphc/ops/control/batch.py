"""Batching rules (``OpDef.batch``, for gc.vectorized_map) of ``cond``, ``switch_case``
and ``while_loop`` (graphc/ops/control/flow.py); the end of this module attaches them.

The branch and body subgraphs are batched by the same walk as ``fn``'s graph
(``batching.walk_graph``), so nested control flow batches recursively.

* An unbatched predicate / branch index keeps a ``cond`` / ``switch_case`` whose branches
  are the batched branches.
* A per-example predicate runs *every* branch on the whole batch and selects per example
  with ``where``. Running both branches would run both branches' effects, so a branch
  with effects is refused (``ValueError`` naming the op); gc.vectorized_map never gets
  here with one (a node with effects loops over the batch).
* ``while_loop``: which loop variables carry the batch is a fixed point over the body. An
  unbatched condition keeps a plain loop over the batched variables; a per-example
  condition loops while any example is still running, every variable batched and masked
  (``where(active, new, old)``), so finished examples keep their values.
"""

from __future__ import annotations

from graphc.core import hooks
from graphc.core.registry import bind
from graphc.ir.printer import has_effects
from graphc.ops import batch_util as bu
from graphc.ops.control import flow as control
from graphc.ops.elementwise import EQUAL, NOT_EQUAL, WHERE
from graphc.ops.reduce import ANY


def _walk(graph, args, dims, size) -> list:
    return [bu.with_batch(t, d, size) for t, d in hooks.batch_graph(graph, args, dims, size)]


def _refuse_effects(name, graphs) -> None:
    if any(has_effects(g) for g in graphs):
        raise ValueError(f"gc.vectorized_map: {name} with a per-example predicate would run "
                         "every branch, and a branch has effects (prints, random draws, "
                         "variable reads or writes); move the effect out of the branch")


def _static_shapes(values) -> bool:
    return all(v.aval.shape is not None and None not in v.aval.shape for v in values)


def _select(mask, a, b):
    """``where(mask, a, b)`` with ``mask`` (batch,) broadcast over each example."""
    n = bu.rank(a)
    m = bu.bind_expand(mask, *range(1, n)) if n > 1 else mask
    return bind(WHERE, m, a, b)


def _as_bool(x):
    return x if x.dtype.kind == "b" else bind(NOT_EQUAL, x, 0)


def _branches(name, args, dims, graphs):
    """``cond`` (graphs: true, false) or ``switch_case`` (graphs: the branches)."""
    key, kd = args[0], dims[0]
    ops, odims = list(args[1:]), list(dims[1:])
    size = bu.batch_size(args, dims)
    if kd is None:
        fns = [lambda g=g: _walk(g, ops, odims, size) for g in graphs]
        if name == "cond":
            out = control.cond(key, fns[0], fns[1])
        else:
            out = control.switch_case(key, fns)
        out = list(out)
        return out, [0] * len(out)
    for j in range(len(graphs[0].outputs)):  # where needs one example shape
        outs = [g.outputs[j] for g in graphs]
        if not _static_shapes(outs) or len({v.aval.shape for v in outs}) > 1:
            return NotImplemented
    _refuse_effects(name, graphs)
    results = [_walk(g, ops, odims, size) for g in graphs]
    key = bu.to_front(key, kd)
    if name == "cond":
        mask = _as_bool(key)
        out = [_select(mask, t, f) for t, f in zip(*results)]
    else:  # an index out of range runs the last branch
        out = results[-1]
        for k in range(len(graphs) - 2, -1, -1):
            mask = bind(EQUAL, key, k)
            out = [_select(mask, a, b) for a, b in zip(results[k], out)]
    return out, [0] * len(out)


def cond_rule(args, dims, true_fn, false_fn):
    return _branches("cond", args, dims, [true_fn, false_fn])


def switch_case_rule(args, dims, branches):
    return _branches("switch_case", args, dims, list(branches))


def _propagate(graph, flags) -> list:
    """Which of ``graph``'s outputs depend on a batched input (``flags``: per input)."""
    batched = {v.id for v, f in zip(graph.inputs, flags) if f}
    for node in graph.nodes:
        if any(v.id in batched for v in node.inputs):
            batched.update(o.id for o in node.outputs)
    return [v.id in batched for v in graph.outputs]


def while_rule(args, dims, cond, body):
    n = len(body.outputs)
    flags = [d is not None for d in dims]
    while True:  # a variable is batched once anything it is computed from is
        grown = [f or o for f, o in zip(flags[:n], _propagate(body, flags))] + flags[n:]
        if grown == flags:
            break
        flags = grown
    per_example = _propagate(cond, flags)[0]
    if per_example:
        if not _static_shapes(body.inputs[:n]):  # masking needs a fixed example shape
            return NotImplemented
        _refuse_effects("while_loop", [cond, body])
        flags[:n] = [True] * n
    size = bu.batch_size(args, dims)
    init = [bu.with_batch(a, d, size) if f else a
            for a, d, f in zip(args[:n], dims[:n], flags[:n])]
    consts, cdims = list(args[n:]), list(dims[n:])
    sdims = [0 if f else None for f in flags[:n]]

    def test(state):
        t, d = _walk_one(cond, list(state) + consts, sdims + cdims)
        return _as_bool(bu.to_front(t, d)) if per_example else t

    def cond_fn(*state):
        t = test(state)
        return bind(ANY, t, axis=None, keepdims=False) if per_example else t

    def body_fn(*state):
        outs = hooks.batch_graph(body, list(state) + consts, sdims + cdims)
        new = [bu.with_batch(t, d, size) if f else t for (t, d), f in zip(outs, flags)]
        if per_example:
            active = test(state)
            new = [_select(active, a, b) for a, b in zip(new, state)]
        return new

    final = control.while_loop(cond_fn, body_fn, init)
    return list(final), sdims


def _walk_one(graph, args, dims):
    return hooks.batch_graph(graph, args, dims)[0]


control.COND.batch = cond_rule
control.SWITCH_CASE.batch = switch_case_rule
control.WHILE_LOOP.batch = while_rule
