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

from graphc.ops.registry import OpDef, register
from graphc.tracer.ir import Aval


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
    from graphc.runtime.interpreter import run_graph

    return run_graph(subgraph, list(arrays))


FUSED_ELEMENTWISE = register(OpDef(
    name="fused_elementwise", infer=_infer, ref=_ref, multiple_results=True,
    doc="elementwise ops fused by the fusion pass; runs its subgraph",
))
