"""Builders shared by the pass tests: emit nodes into a graph, run one pass, compare."""

from __future__ import annotations

import numpy as np

import graphc  # noqa: F401  (registers every op)
from graphc.core.interpreter import run_graph
from graphc.core.registry import OpDef, get
from graphc.core.trace import TraceContext, freeze
from graphc.ir.graph import Aval, ConstArray
from graphc.ir.printer import format_graph
from graphc.ir.verify import verify
from graphc.passes.context import Names, PassContext, PassReport
from graphc.passes.pipeline import PASSES

F32, F64 = np.dtype(np.float32), np.dtype(np.float64)
I32, I64 = np.dtype(np.int32), np.dtype(np.int64)
BOOL = np.dtype(bool)


def emit(ctx, op, *values, src=None, **attrs):
    """Append ``op(*values, **attrs)`` (op: a name or an OpDef); return its data outputs."""
    op = get(op) if isinstance(op, str) else op
    attrs = {k: freeze(v) for k, v in attrs.items()}
    avals = op.infer(*[v.aval for v in values], **attrs)
    avals = (avals,) if isinstance(avals, Aval) else tuple(avals)
    outs = ctx.add_node(op, values, attrs, avals, src=src)
    return outs[0] if len(outs) == 1 and not op.multiple_results else outs


def const(ctx, value, dtype=F32):
    return ctx.constant(np.asarray(value, dtype=dtype))


def build(body, *avals, name="f"):
    """Trace ``body(ctx, *inputs)`` (returning a value or a list) into a verified graph."""
    with TraceContext(name) as ctx:
        ins = [ctx.new_input(a) for a in avals]
        outs = body(ctx, *ins)
        outs = list(outs) if isinstance(outs, list | tuple) else [outs]
        return verify(ctx.finish(outs))


def run_pass(g, name):
    """Run the pass ``name`` alone on ``g``; return ``(new graph, its changes)``."""
    fn = {n: f for n, _, f in PASSES}[name]
    names = Names()
    names.add_graph(g)
    entry = PassReport(name)
    out = fn(g, PassContext(entry, names))
    verify(out)
    return out, entry.changes


def text(g) -> str:
    return format_graph(g)


def assert_same_results(a, b, args):
    """Run both graphs on ``args``; outputs must match bit for bit (dtype, shape, bytes)."""
    with np.errstate(all="ignore"):
        ra, rb = run_graph(a, list(args)), run_graph(b, list(args))
    assert len(ra) == len(rb)
    for x, y in zip(ra, rb):
        x, y = np.asarray(x), np.asarray(y)
        assert x.dtype == y.dtype and x.shape == y.shape, (x, y)
        assert x.tobytes() == y.tobytes(), (x, y)


def cond_infer(pred, *xs, true_fn, false_fn):
    return tuple(v.aval for v in true_fn.outputs)


def cond_ref(pred, *xs, true_fn, false_fn):
    return run_graph(true_fn if pred else false_fn, list(xs))


# A stand-in with the layout of graphc/ops/control/flow.py's ``cond`` (pred, *operands), not
# registered: the passes match control flow by op name.
COND = OpDef("cond", infer=cond_infer, ref=cond_ref, multiple_results=True)

__all__ = ["Aval", "BOOL", "COND", "ConstArray", "F32", "F64", "I32", "I64",
           "assert_same_results", "build", "const", "emit", "run_pass", "text"]
