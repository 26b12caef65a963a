"""Elementwise CUDA kernels: one grid-stride kernel per fused group, with broadcasting.

A ``fused_elementwise`` node (the fusion pass) and a plain elementwise node alike become
one kernel: thread ``i`` of the grid-stride loop reads each operand's element (its own
index when the operand has the result's shape, element 0 for a one-element operand, else
the broadcast index from the output coordinates and the operand's literal strides),
computes every step with the shared per-op templates (``scalar_expr``, each element cast
to NumPy's loop dtype and each result to the node's dtype) and stores the group's results.
A 0-d constant is inlined as a literal.
"""

from __future__ import annotations

import math

from graphc.runtime.cuda.lowering import DVal, emitter, launch_1d, strides
from graphc.runtime.fused_groups import fused_steps
from graphc.runtime.scalar_templates import Unsupported, literal, scalar_expr

# Where a device cannot do what the CPU template does. Integer power with a signed
# exponent raises NumPy's ValueError for a negative one; a kernel cannot raise, so the
# node runs on the host (which raises exactly like NumPy).
CUDA_OVERRIDES = {
    "power": lambda ins, out, attrs: _power(out),
}


def _power(out):
    if out.kind == "f":
        return "({0} ** {1})"
    if out.kind == "u":
        return f"H.ipow({{0}}, {{1}}, {literal(1, out)})"
    raise Unsupported(f"integer power on {out} (a negative exponent must raise "
                      "ValueError, which a CUDA kernel cannot)")


def index_expr(out_shape, in_shape, coord) -> str:
    """The flat index into an operand of ``in_shape`` broadcast to ``out_shape``, from
    the output coordinates ``coord(d)`` (source names)."""
    if tuple(in_shape) == tuple(out_shape):
        return "i"
    if math.prod(in_shape) == 1:
        return "0"
    off = len(out_shape) - len(in_shape)
    terms = [f"{coord(d + off)} * {s}" if s != 1 else coord(d + off)
             for d, (n, s) in enumerate(zip(in_shape, strides(in_shape))) if n != 1]
    return " + ".join(terms) or "0"


def coord_lines(shape, needed) -> list[str]:
    """``c{d} = (i // P) % n`` for each output dim ``d`` in ``needed``."""
    out = []
    for d in sorted(needed):
        p = math.prod(shape[d + 1:])
        q = "i" if p == 1 else f"(i // {p})"
        out.append(f"c{d} = {q}" if d == 0 else f"c{d} = {q} % {shape[d]}")
    return out


def elementwise(g, ins: list[DVal], steps, results, outs) -> list[DVal]:
    """One kernel computing ``steps`` over ``ins`` (``fused_groups.fused_steps``' form) and
    storing the steps in ``results`` into new arrays named ``outs``."""
    shape = tuple(steps[results[0]][3].shape)
    n = math.prod(shape)
    body, elem = [], []
    args = [x for x in ins if x.lit is None]
    needed: set = set()
    loads = []
    for j, x in enumerate(ins):
        if x.lit is not None:
            elem.append(x.lit)
            continue
        if len(x.shape) > len(shape) or any(
                a not in (1, b) for a, b in zip(x.shape[::-1], shape[::-1])):
            raise Unsupported(f"operand {x.aval} does not broadcast to {shape}")
        idx = index_expr(shape, x.shape, lambda d: f"c{d}")
        off = len(shape) - len(x.shape)
        if idx not in ("i", "0"):
            needed |= {d + off for d, m in enumerate(x.shape) if m != 1}
        loads.append(f"x{j} = a{args.index(x)}[{idx}]")
        elem.append(f"x{j}")
    body += coord_lines(shape, needed) + loads
    for s, (op, attrs, refs, aval) in enumerate(steps):
        a, dts = [], []
        for kind, j in refs:
            a.append(elem[j] if kind == "in" else f"s{j}")
            dts.append(ins[j].aval.dtype if kind == "in" else steps[j][3].dtype)
        body.append(f"s{s} = {scalar_expr(op, attrs, dts, aval.dtype, a, CUDA_OVERRIDES)}")
    for k, r in enumerate(results):
        body.append(f"o{k}[i] = s{r}")
    loop = ["i = cuda.grid(1)", "st = cuda.gridsize(1)", f"while i < {n}:",
            *("    " + b for b in body), "    i += st"]
    out_avals = [steps[r][3] for r in results]
    params = [f"a{k}" for k in range(len(args))] + [f"o{k}" for k in range(len(results))]
    dtypes = [x.aval.dtype for x in args] + [a.dtype for a in out_avals]
    vals = [g.alloc(o, a) for o, a in zip(outs, out_avals)]
    if n:
        kname = g.kernel(params, dtypes, loop, *launch_1d(n))
        g.line(f"{kname}({', '.join([x.name for x in args] + list(outs))})")
    return vals


@emitter("<elementwise>")
def _plain(g, node, ins, outs):
    step = (node.op, node.attrs, [("in", j) for j in range(len(ins))], node.outputs[0].aval)
    return elementwise(g, ins, [step], [0], outs)


@emitter("fused_elementwise")
def _fused(g, node, ins, outs):
    steps, results = fused_steps(node)
    return elementwise(g, ins, steps, results, outs)


@emitter("cast", "identity", "stop_gradient")
def _cast(g, node, ins, outs):
    x, aval = ins[0], node.outputs[0].aval
    if x.aval.dtype == aval.dtype and node.op.name != "cast":
        return [DVal(x.name, aval, x.lit)]  # values are immutable: share the buffer
    step = (node.op, node.attrs, [("in", 0)], aval)
    return elementwise(g, ins[:1], [step], [0], outs)

