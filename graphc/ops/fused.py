"""``fused_elementwise``: a group of elementwise ops that runs as one node.

The elementwise fusion pass (``graphc/passes/fusion.py``) builds these nodes. The node's
``subgraph`` attr holds the fused ops themselves, in order, on their original avals:
``subgraph.inputs`` stand for the node's inputs one to one, ``subgraph.outputs`` for its
outputs. Every output has the same, fully known shape (the loop shape); inputs broadcast
to it. A compiled backend turns the subgraph into one loop from the ops' ``scalar``
templates; the reference (``ref``) simply runs the subgraph with the interpreter on the
whole arrays, calling the very same ``ref`` of each op as the unfused graph would, so
fused and unfused results are bit-identical.

    %4:f32[8], %5:f32[8] = fused_elementwise %0 %1
      subgraph = fused(%0:f32[8], %1:f32[]) {
        %2:f32[8] = multiply %0 %1
        %3:f32[8] = exp %2
        %4:f32[8] = add %3 %0
        return %3, %4
      }
"""

from __future__ import annotations

from graphc.core import hooks
from graphc.core.attr_types import GRAPH
from graphc.core.interpreter import run_graph
from graphc.core.registry import OpDef, bind, register
from graphc.ir.graph import Aval
from graphc.ops.blocks import ELEMENTWISE
from graphc.ops.elementwise import _want


def _infer(*avals, subgraph):
    """Propagate ``avals`` through the subgraph with each op's own ``infer``."""
    if len(avals) != len(subgraph.inputs):
        raise ValueError(f"fused_elementwise takes {len(subgraph.inputs)} inputs, "
                         f"got {len(avals)}")
    env = {v.id: a for v, a in zip(subgraph.inputs, avals)}
    for node in subgraph.nodes:
        out = node.op.infer(*[env[v.id] for v in node.inputs], **(node.attrs or {}))
        out = (out,) if isinstance(out, Aval) else tuple(out)
        for v, a in zip(node.outputs, out):
            env[v.id] = a
    return tuple(env[v.id] for v in subgraph.outputs)


def _ref(*arrays, subgraph):
    return run_graph(subgraph, list(arrays))


FUSED_ELEMENTWISE = register(OpDef(
    name="fused_elementwise",
    attrs={"subgraph": GRAPH},
    infer=_infer, ref=_ref, multiple_results=True, blocks=ELEMENTWISE,
    # runs_subgraph: the node is exactly its subgraph run on its inputs, so the
    # interpreter splices the subgraph's steps into the caller's plan (no nested call)
    extra={"named_by_body": True, "runs_subgraph": "subgraph"},
))


# --------------------------------------------------------------------------- gradients
def _fused_grad(cts, args, outs, subgraph):
    """The fusion pass builds these nodes after tracing, so a tape records them only
    when a user binds one: the subgraph's ops are applied again on a tape of their own
    and walked back with the cotangents (each op by its own rule)."""
    wrt = [a for a in args if _want(a)]
    if not wrt:
        return (None,) * len(args)
    with hooks.gradient_tape() as tape:
        tape.watch(wrt)
        env = {v.id: a for v, a in zip(subgraph.inputs, args)}
        for node in subgraph.nodes:
            out = bind(node.op, *[env[v.id] for v in node.inputs], **(node.attrs or {}))
            for v, o in zip(node.outputs, out if isinstance(out, list | tuple) else [out]):
                env[v.id] = o
    seeded = [(env[v.id], g) for v, g in zip(subgraph.outputs, cts) if g is not None]
    grads = tape.gradient([y for y, _ in seeded], wrt,
                          output_gradients=[g for _, g in seeded])
    by_id = {id(a): g for a, g in zip(wrt, grads)}
    # an input passed twice has one gradient (the tape's), given to its first position
    return tuple(by_id.pop(id(a), None) if _want(a) else None for a in args)


FUSED_ELEMENTWISE.grad = _fused_grad
