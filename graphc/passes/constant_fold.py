"""Constant folding: a pure node whose inputs are all constants becomes a constant.

The value comes from the op's own ``ref`` (the one source of semantics eager mode and the
interpreter also use), so a folded result is bit-for-bit what the graph would compute.
What is never folded, and why:

* stateful ops and anything threading the effect token (random, print, asserts,
  variables): they must run on every call, in order;
* ops that run user Python (``numpy_function``, ``py_function``, even when declared
  stateless: ``extra["runs_user_code"]``) or that opt out (``extra["no_fold"]``, e.g. the
  ``variable`` handle);
* a node whose ``ref`` raises or warns (division by zero, an out-of-range gather): it is
  left in the graph so the error or warning happens at run time, as without folding
  (and not at all if pruning finds the node unused);
* results above ``FOLD_MAX_BYTES`` (1 MiB per node, e.g. ``zeros((1000, 1000))``), so
  constants never bloat the graph;
* results whose traced shape has unknown dims (the folded constant would have a known
  shape, and its consumers were typed for the unknown one).

``shape(x)`` folds whenever ``x``'s shape is fully known, whatever ``x`` is. A ``cond``
whose predicate is a constant becomes its taken branch, inlined (and folded in turn).
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from graphc.ir.graph import ConstArray
from graphc.ir.printer import format_attr
from graphc.passes import control
from graphc.passes.context import PassContext
from graphc.passes.graphs import inline_graph, is_pure, make_const
from graphc.passes.rewrite import rewrite

FOLD_MAX_BYTES = 1 << 20  # largest folded result, per node (all its outputs together)
NEVER_FOLD = frozenset({"const"})  # besides extra["no_fold"] / extra["runs_user_code"]
SHAPE_ONLY = frozenset({"shape"})  # ops whose result depends only on the input's aval


def _known(aval) -> bool:
    # object arrays (variable handles) are references, not data: never constants
    return (aval.shape is not None and None not in aval.shape and aval.dtype is not None
            and aval.dtype.kind != "O")


def _nbytes(aval) -> int:
    return math.prod(aval.shape) * aval.dtype.itemsize


def _inputs(node, rw):
    """The input arrays to fold with, or None when some input is not constant."""
    if node.op.name in SHAPE_ONLY and all(_known(v.aval) for v in node.inputs):
        # a zero-strided stand-in: carries the shape and dtype, allocates nothing
        return [np.broadcast_to(np.zeros((), v.aval.dtype), v.aval.shape) for v in node.inputs]
    arrays = []
    for v in node.inputs:
        a = rw.const(v)
        if a is None:
            return None
        arrays.append(a)
    return arrays


def evaluate(node, arrays):
    """``node``'s results on ``arrays`` via its ``ref``; None if it raises or warns."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with np.errstate(all="raise"):
                out = node.op.ref(*arrays, **(node.attrs or {}))
    except Exception:  # noqa: BLE001 - any failure is left for run time, where it belongs
        return None
    results = list(out) if node.op.multiple_results else [out]
    if len(results) != len(node.outputs):
        return None
    results = [np.asarray(r) for r in results]
    for r, v in zip(results, node.outputs):
        if r.dtype != v.aval.dtype or r.shape != v.aval.shape:
            return None  # ref and infer disagree: not ours to paper over
    return results


def fold_rule(node, rw):
    """The rewrite rule: replace a foldable node by const nodes."""
    name = node.op.name
    if name in control.CONDS:
        return _fold_cond(node, rw)
    arrays = _inputs(node, rw)  # first: most nodes fail here, cheaply
    if arrays is None or not node.outputs:
        return None
    extra = node.op.extra
    if (name in NEVER_FOLD or extra.get("no_fold") or extra.get("runs_user_code")
            or not is_pure(node) or node.subgraphs()):
        return None
    avals = [v.aval for v in node.outputs]
    if not all(_known(a) for a in avals) or sum(map(_nbytes, avals)) > FOLD_MAX_BYTES:
        return None
    results = evaluate(node, arrays)
    if results is None:
        return None
    consts = [rw.add(make_const(r, node.src))[0] for r in results]
    shown = ", ".join(f"{rw.ctx.name(c)} = {format_attr(ConstArray(r))}"
                      for c, r in zip(consts, results))
    return consts, f"folded {{node}} -> {shown}"


def _fold_cond(node, rw):
    """A ``cond`` (or ``switch_case``) with a constant selector becomes the taken branch."""
    layout = control.CONDS[node.op.name]
    selector = rw.const(node.inputs[0])
    if selector is None or selector.size != 1:
        return None
    label, branch = layout.taken(node, selector.reshape(()).item())
    data_outs = control.data_outputs(node)
    if [v.aval for v in branch.outputs] != [v.aval for v in data_outs]:
        return None  # the branch is typed more precisely than the cond: keep the cond
    token = node.inputs[-1] if control.takes_token(node) else None
    nodes, outs, token_out = inline_graph(branch, control.operands(node), token)
    for inner in nodes:
        rw.add(inner)
    replacements = [rw.get(v) for v in outs]
    if token is not None:
        replacements.append(rw.get(token_out))
    return replacements, (f"folded {{node}}: its selector is the constant "
                          f"{format_attr(ConstArray(selector))}, so {label} was inlined "
                          f"({len(nodes)} ops)")


def run(graph, ctx: PassContext):
    """The ``constant_folding`` pass."""
    return rewrite(graph, ctx, fold_rule, subgraph_pass=run)
