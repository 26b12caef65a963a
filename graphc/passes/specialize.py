"""A graph with unknown dims specialized to its inputs' actual shapes, then optimized again.

Used where the code a backend generates needs static shapes: the Dask backend traces and
splits with ``None`` for chunked dims (no block size can leak into the graph) and runs
one specialization per block signature; the CUDA backend runs a graph traced with
``None`` dims (``input_signature``, ``reduce_retracing``) as one specialization per call
shape. Each copy has its avals re-inferred from the shapes by every op's own ``infer``,
then the pass pipeline runs again, so elementwise fusion fuses chains into loops of
known shapes (a group fused with unknown dims is first taken apart: ``graphs.unfused``).
"""

from __future__ import annotations

from graphc.ir import graph as ir
from graphc.passes.graphs import unfused
from graphc.passes.pipeline import optimize


def specialize(graph, shapes):
    """``graph`` with its inputs' shapes set to ``shapes`` (one tuple per input) and
    every node's outputs re-inferred; subgraphs (loop bodies, branches) are kept, fused
    groups taken apart."""
    graph = unfused(graph)
    env = {}
    inputs = []
    for v, shape in zip(graph.inputs, shapes):
        nv = ir.Value(ir.Aval(tuple(shape), v.aval.dtype))
        env[v.id] = nv
        inputs.append(nv)
    nodes = []
    for node in graph.nodes:
        ins = [env.get(v.id, v) for v in node.inputs]
        data = [v.aval for v in ins if not v.aval.is_token]
        out = node.op.infer(*data, **(node.attrs or {}))
        out = (out,) if isinstance(out, ir.Aval) else tuple(out)
        outs = []
        for v, aval in zip(node.outputs, out):
            nv = ir.Value(aval if not v.aval.is_token else v.aval)
            env[v.id] = nv
            outs.append(nv)
        nodes.append(ir.Node(node.op, ins, node.attrs, outs, node.src))
    return ir.Graph(inputs, nodes, [env.get(v.id, v) for v in graph.outputs],
                    name=graph.name)


def for_shapes(graph, shapes):
    """The optimized specialization of ``graph`` for inputs of ``shapes``."""
    return optimize(specialize(graph, shapes))[0]
