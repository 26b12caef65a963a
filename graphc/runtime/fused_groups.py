"""A ``fused_elementwise`` node flattened into the steps of one elementwise loop.

Shared by both backends: the Numba CPU loops (``cpu/loops.py``, ``cpu/kernels_reduce.py``)
and the CUDA elementwise kernels (``cuda/kernels_elementwise.py``) take a fused group in
this one form, so a group the fusion pass made runs as one loop (or one kernel) on
either. This module owns that form; how each backend writes the loop is its own.
"""

from __future__ import annotations

from graphc.runtime.scalar_templates import Unsupported, check_dtype


def fused_steps(node, complex_ok: bool = False):
    """A ``fused_elementwise`` node's subgraph as ``(steps, results)`` for a loop.

    ``steps`` are ``(op, attrs, refs, aval)``, one per node of the subgraph, where each
    ref is ``("in", j)`` (the node's j-th operand) or ``("step", s)`` (an earlier step's
    element); ``results`` are the indices of the steps the subgraph returns, in order.
    Raises :class:`Unsupported` for a subgraph that is not single-output elementwise ops.
    A plain elementwise node (no ``subgraph``) is a group of one step. ``complex_ok``:
    the backend compiles complex steps (the CPU one, where ``scalar_expr`` decides op by
    op); else a complex step raises :class:`Unsupported`.
    """
    if "subgraph" not in node.attrs:
        if not node.op.elementwise or node.op.multiple_results or len(node.outputs) != 1:
            raise Unsupported(f"{node.op.name} is not a single-output elementwise op")
        steps = [(node.op, node.attrs, [("in", j) for j in range(len(node.inputs))],
                  node.outputs[0].aval)]
        return steps, [0]
    sub = node.attrs["subgraph"]
    where = {v.id: ("in", i) for i, v in enumerate(sub.inputs)}
    steps = []
    for n in sub.nodes:
        if not n.op.elementwise or n.op.multiple_results or len(n.outputs) != 1:
            raise Unsupported(f"fused op {n.op.name} is not a single-output elementwise op")
        check_dtype(n.outputs[0].aval.dtype, f"fused {n.op.name}'s result", complex_ok)
        where[n.outputs[0].id] = ("step", len(steps))
        steps.append((n.op, n.attrs, [where[v.id] for v in n.inputs], n.outputs[0].aval))
    results = []
    for v in sub.outputs:
        kind, j = where[v.id]
        if kind != "step":
            raise Unsupported("a fused subgraph returns one of its inputs")
        results.append(j)
    return steps, results
