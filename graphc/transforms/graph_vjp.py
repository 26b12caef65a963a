"""Reverse mode over an ``ir.Graph``: the walk behind the gradients of control flow.

A ``cond`` branch or a ``while_loop`` body is a closed subgraph held in a node's attrs,
not a list of tape records, so its gradient needs a walk over a graph. This module holds
that walk, and nothing op-specific: the same ``OpDef.grad(cts, args, outputs, **attrs)``
rules the tape walk (:mod:`graphc.transforms.autodiff`) calls, and the same two shared
rules (a cotangent in a broadcast shape is summed back to its argument's shape; only
float and complex values carry gradients).

Design: rather than a separate "graph -> gradient graph" compiler, :func:`vjp` works on
*symbolic tensors of the current trace*: it first **replays** the subgraph's nodes into
the current trace context (the primal values the rules need are recomputed there), then
walks the nodes in reverse calling each op's rule through ``bind``, so the backward nodes
land in the same context. A control-flow rule calls it inside a fresh child context
(``ops/control/trace.enter``) to build the branch/body gradient graphs it stages; a nested
control-flow node met on the way is replayed as is and differentiated by its own rule,
so nesting to any depth is plain recursion. Recomputing inside the gradient graph costs
one more forward evaluation of the subgraph, and needs no change to the forward node.

Replay keeps effects honest: a node that only has effects (a print, an assert, an
assignment) is not replayed, since the backward pass must not repeat it; a node with data
outputs and effects (a variable read) is replayed in program order, with the effect token.
"""

from __future__ import annotations

import numpy as np

from graphc.core import trace
from graphc.core.registry import NOT_DIFFERENTIABLE
from graphc.core.tensor import Tensor, _symbolic
from graphc.numpy import asarray
from graphc.ops.control.trace import CLOSED_NOTES
from graphc.ops.creation import zeros_like
from graphc.transforms.autodiff import differentiable, inner_reads, unbroadcast


class Replay:
    """A graph's nodes re-added to the current trace context; ``env`` maps each value id
    of the graph to the tensor standing for it there."""

    def __init__(self, graph, args):
        if len(args) != len(graph.inputs):
            raise TypeError(f"graph {graph.name!r} takes {len(graph.inputs)} inputs, "
                            f"got {len(args)}")
        self.graph = graph
        self.env: dict[int, object] = {v.id: a for v, a in zip(graph.inputs, args)}
        ctx = trace.current()
        for node in graph.nodes:
            data_out = [o for o in node.outputs if not o.aval.is_token]
            effectful = any(v.aval.is_token for v in node.inputs)
            if not data_out and effectful:
                continue  # an effect only: the backward pass must not repeat it
            ins = [ctx.value_of(self.env[v.id]) for v in node.inputs if not v.aval.is_token]
            outs = ctx.add_node(node.op, ins, node.attrs, [o.aval for o in data_out],
                                src=node.src, effectful=effectful)
            for o, v in zip(data_out, outs):
                self.env[o.id] = _symbolic(v)
        ctx.aliases.update((k, t) for k, t in self.env.items() if isinstance(t, Tensor))

    def outputs(self) -> list:
        return [self.env[v.id] for v in self.graph.outputs]

    def __getitem__(self, value):
        return self.env[value.id]


def inline(graph, args) -> list:
    """``graph`` applied to ``args`` (tensors or arrays), its nodes added to the current
    trace context; returns its outputs as tensors of that context."""
    return Replay(graph, args).outputs()


def vjp(graph, args, cts, wanted, variables=None) -> list:
    """Cotangents of ``graph``'s inputs at ``wanted`` positions, given ``cts`` (one per
    output, ``None`` for none) at the point ``args``; built in the current trace context.

    Returns one tensor (or ``None``: no gradient reaches it) per position in ``wanted``.
    With a dict ``variables``, the cotangents of the variable reads inside ``graph`` (and
    its nested subgraphs) that the tape watches (:func:`autodiff.inner_reads`) are added
    to it, ``{variable.ref(): cotangent}``.
    """
    reads = inner_reads() if variables is not None else {}
    replay = Replay(graph, args)
    acc: dict[int, object] = {}
    for v, ct in zip(graph.outputs, cts):
        if ct is not None and _carries(v):
            _add(acc, v, ct)
    custom = _custom_calls(graph)
    for node in reversed(graph.nodes):
        data_out = [o for o in node.outputs if not o.aval.is_token]
        call = custom.pop(data_out[0].id, None) if data_out else None
        if call is not None:  # a custom-gradient call's result: its rule, not the body's
            _apply_custom(call, acc, replay)
        if data_out and data_out[0].id in custom.get("results", ()):
            continue
        outs = [acc.pop(o.id, None) for o in data_out]
        if all(g is None for g in outs):
            continue
        for o, g in zip(data_out, outs):
            if g is not None and o.id in reads:
                add_variable(variables, reads[o.id].ref(), g)
        inputs = [v for v in node.inputs if not v.aval.is_token]
        rule = node.op.grad
        if rule is NOT_DIFFERENTIABLE or not (
                any(_carries(v) for v in inputs) or variables_read(node.subgraphs(), reads)):
            continue  # a constant, or only integer operands: nothing flows further
        if rule is None:
            raise LookupError(
                f"op {node.op.name!r} has no gradient rule, so a gradient cannot flow "
                f"through it{_at(node)} (inside {graph.name!r}); wrap the computation in "
                "gc.stop_gradient if it should not be differentiated, or give it one with "
                "@gc.custom_gradient")
        for i, o in enumerate(data_out):
            if outs[i] is None and _carries(o):
                outs[i] = zeros_like(replay[o])
        args_t = [replay[v] for v in inputs]
        grads = rule(outs, tuple(args_t), tuple(replay[o] for o in data_out),
                     **dict(node.attrs))
        for v, a, g in zip(inputs, args_t, grads):
            if g is not None and _carries(v):
                _add(acc, v, unbroadcast(g, _as_tensor(a)))
        if variables is not None:  # a nested branch or loop read them
            for ref, g in getattr(grads, "variables", {}).items():
                add_variable(variables, ref, g)
    return [acc.get(graph.inputs[i].id) if _carries(graph.inputs[i]) else None
            for i in wanted]


def _custom_calls(graph) -> dict:
    """The ``@gc.custom_gradient`` calls traced into ``graph`` (``CLOSED_NOTES``), keyed
    by the id of the last of the identity values holding a call's results (the reverse
    walk meets it first); ``"results"`` holds every such value's id: the walk passes
    their cotangents to the call's rule, never to the body's own ops."""
    noted = CLOSED_NOTES.get(graph)
    if noted is None:
        return {}
    notes, inner = noted
    out: dict = {"results": set()}
    for _, record, _ in notes:
        outs = [t._sym.id for t in record.outputs]
        args = [None if a._sym is None else inner.get(a._sym.id, a._sym.id)
                for a in record.args]
        if outs:
            out[outs[-1]] = (record, args, outs)
            out["results"].update(outs)
    return out


def _apply_custom(call, acc, replay) -> None:
    """Run a custom-gradient call's rule on its results' cotangents (zeros for those
    that got none), adding what it gives to the call's arguments."""
    record, args, outs = call
    cts = [acc.pop(i, None) for i in outs]
    if all(c is None for c in cts):
        return
    out_t = [replay.env[i] for i in outs]
    cts = [zeros_like(o) if c is None else c for c, o in zip(cts, out_t)]
    args_t = [replay.env.get(i, a) if i is not None else a for i, a in zip(args, record.args)]
    grads = record.op.grad(cts, tuple(args_t), tuple(out_t))
    for i, a, g in zip(args, args_t, grads):
        if g is not None and i in replay.env and differentiable(a):
            prev = acc.get(i)
            g = unbroadcast(g, _as_tensor(a))
            acc[i] = g if prev is None else prev + g


def add_variable(variables, ref, g) -> None:
    prev = variables.get(ref)
    variables[ref] = g if prev is None else prev + g


def variables_read(graphs, reads=None) -> list:
    """The float variables (as refs, first-read order) whose watched reads lie in
    ``graphs`` or their nested subgraphs (``reads``: ``value id -> variable``)."""
    reads = inner_reads() if reads is None else reads
    found: dict = {}
    if reads:
        stack = list(reversed(graphs))
        while stack:
            g = stack.pop()
            for node in g.nodes:
                for o in node.outputs:
                    v = reads.get(o.id)
                    if v is not None and np.dtype(v.dtype).kind in "fc":
                        found.setdefault(v.ref(), None)
                stack.extend(reversed(node.subgraphs()))
    return list(found)


def _carries(v) -> bool:
    return not v.aval.is_token and v.aval.dtype.kind in "fc"


def _add(acc, v, g) -> None:
    prev = acc.get(v.id)
    acc[v.id] = g if prev is None else prev + g


def _as_tensor(a):
    if isinstance(a, Tensor):
        return a

    return asarray(a)


def _at(node) -> str:
    return f" (at {node.src})" if node.src else ""


def wants(args) -> list[int]:
    """Positions of ``args`` that can take a gradient (float or complex tensors)."""
    return [i for i, a in enumerate(args) if isinstance(a, Tensor) and differentiable(a)]


def placeholders(ctx, avals) -> list:
    """New inputs of ``ctx`` (a trace context being built), as symbolic tensors."""
    return [_symbolic(ctx.new_input(a)) for a in avals]
