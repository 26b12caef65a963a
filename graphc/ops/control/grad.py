"""Gradient rules of the control-flow ops ``cond``, ``switch_case`` and ``while_loop``.

Each rule stages control flow whose subgraphs are gradient graphs built by the graph walk
:func:`graphc.transforms.graph_vjp.vjp` (through ``hooks.graph_vjp``; it calls the
ordinary per-op rules), so the backward pass of a branch or a loop is itself a ``cond`` /
``switch_case`` / ``while_loop`` node that both backends run natively, and nests like the
forward. The end of this module attaches the rules to the ops of ``flow.py``.

* ``cond`` / ``switch_case``: one gradient graph per branch, taking the node's operands
  (captured values included) and the outputs' cotangents and returning the operands'
  cotangents; the same predicate / index selects among them. Each branch's gradient
  graph recomputes that branch's forward values it needs.
* ``while_loop`` (reverse mode through a loop whose trip count is known only at run
  time): a *saving* forward loop re-runs the loop with one more loop variable per loop
  variable, a stack of its value at the start of each iteration (``save_stack_push``:
  written in place into a buffer the loop owns, doubled when full, so saving ``n``
  iterations is O(n)), and an int64 iteration counter; then a *backward* loop counts that
  counter down, reads the saved values of iteration ``k`` and applies the body's gradient
  graph to them, carrying the loop variables' cotangents and accumulating those of the
  loop-invariant (captured) operands across iterations. Integer loop variables (counters)
  are saved (the body may depend on them) but carry no cotangent. A loop variable that is
  itself a saving loop's stack (a second derivative), or a TensorArray the body only writes
  to, is not saved: see ``_saving_loop`` and ``_stacks``.
"""

from __future__ import annotations

import numpy as np

from graphc.core import hooks, trace
from graphc.core.registry import Grads, bind
from graphc.core.tensor import _symbolic
from graphc.ir import graph as ir
from graphc.ops import save_stack
from graphc.ops.control.flow import COND, SWITCH_CASE, WHILE_LOOP
from graphc.ops.control.trace import add_control_node, close, enter, scalar_bool, to_value
from graphc.ops.control.values import join_shapes
from graphc.ops.creation import zeros, zeros_like
from graphc.ops.state import read as read_variable
from graphc.ops.tensor_array.grad import _cut_to
from graphc.ops.tensor_array.ops import READ

INDEX = np.dtype(np.int64)


# --------------------------------------------------------------------------- branches
def branch_grad(op, args, outputs, cts, graphs, make_attrs):
    """The cotangents of a ``cond``/``switch_case`` node's arguments (``args[0]`` is the
    predicate or index): an ``op`` node over the branches' gradient graphs."""
    selector, operands = args[0], args[1:]
    wanted = hooks.graph_vjp.wants(operands)
    refs = hooks.graph_vjp.variables_read(graphs)  # variables read inside: more outputs
    ct_at = [j for j, c in enumerate(cts) if c is not None and _float(outputs[j])]
    if not (wanted or refs) or not ct_at:
        return (None,) * len(args)
    ct_avals = [_aval(outputs[j]) for j in ct_at]
    with hooks.unrecorded():
        ctxs, results = [], []
        for g in graphs:
            ctx = enter(f"{g.name}_grad")
            with ctx:
                xs = hooks.graph_vjp.placeholders(ctx, [v.aval for v in g.inputs])
                gs = hooks.graph_vjp.placeholders(ctx, ct_avals)
                full = [None] * len(g.outputs)
                for j, ct in zip(ct_at, gs):
                    full[j] = ct
                found = {}
                grads = hooks.graph_vjp.vjp(g, xs, full, wanted, found)
                results.append([_value_or_zeros(ctx, gr, xs[i]) for gr, i in zip(grads, wanted)]
                               + [_variable_ct(ctx, found.get(r), r) for r in refs])
            ctxs.append(ctx)
        sub, captured = close(ctxs, len(operands) + len(ct_at), results)
    dtypes = [operands[i].dtype for i in wanted] + [r.deref().dtype for r in refs]
    avals = [ir.Aval(_join([s.outputs[k].aval.shape for s in sub]), d)
             for k, d in enumerate(dtypes)]
    outs = _stage(op, [selector, *operands, *[cts[j] for j in ct_at]], captured,
                  make_attrs(sub), avals, sub)
    grads = [None] * len(args)
    for k, i in enumerate(wanted):
        grads[1 + i] = outs[k]
    return Grads(grads, dict(zip(refs, outs[len(wanted):])))


def cond_grad(cts, args, outputs, true_fn, false_fn):
    """``cond``: a ``cond`` over the two branches' gradient graphs."""
    return branch_grad(COND, args, outputs, cts, [true_fn, false_fn],
                       lambda g: {"true_fn": g[0], "false_fn": g[1]})


def switch_case_grad(cts, args, outputs, branches):
    """``switch_case``: a ``switch_case`` over every branch's gradient graph."""
    return branch_grad(SWITCH_CASE, args, outputs, cts, list(branches),
                       lambda g: {"branches": tuple(g)})


# --------------------------------------------------------------------------- loops
def while_grad(cts, args, outputs, cond, body):
    """``while_loop``: a saving forward loop, then a backward loop over the saved values."""
    n = len(body.outputs)
    state, consts = list(args[:n]), list(args[n:])
    wanted = hooks.graph_vjp.wants(args)
    carried = [j for j in range(n) if _float(body.inputs[j])]   # state with cotangents
    summed = [c for c in range(len(consts)) if n + c in wanted]  # consts with cotangents
    refs = hooks.graph_vjp.variables_read([body])  # variables read in the body: summed too
    if not any(j in wanted for j in carried) and not summed and not refs:
        return (None,) * len(args)
    count, buffers = _saving_loop(cond, body, state, consts, _stacks(body, n))
    init = [cts[j] if cts[j] is not None else _zeros(outputs[j]) for j in carried]
    with hooks.unrecorded():
        init += [_zeros(consts[c]) for c in summed]
        init += [_variable_ct(None, None, r) for r in refs]
    final = _backward_loop(body, state, consts, carried, summed, count, buffers, init, refs)
    grads = [None] * len(args)
    for k, j in enumerate(carried):
        grads[j] = final[k] if j in wanted else None
        if grads[j] is not None and buffers[j][0] == "final":  # back to its first rows
            grads[j] = _cut_to(grads[j], state[j])
    for k, c in enumerate(summed):
        grads[n + c] = final[len(carried) + k]
    return Grads(grads, dict(zip(refs, final[len(carried) + len(summed):])))


def _saving_loop(cond, body, state, consts, stacks=()):
    """Run the loop again, also pushing each loop variable's value at the start of every
    iteration onto a stack the loop owns (``save_stack``: in place, amortized O(1) per
    iteration); returns ``(trip_count, saved)``, ``saved[j]`` being ``("stack", buffer)``,
    or ``("final", value)`` for a loop variable in ``stacks``.

    ``stacks`` are loop variables the body only updates (``_stacks``): a saving loop's
    own stack (the outer gradient of a loop gradient differentiates that saving loop) or
    a TensorArray the body only writes. Such a buffer may grow, so it cannot be stacked
    densely; it need not be: iteration ``k`` only writes rows of it (the write's or
    push's rule reads nothing of the old buffer but its shape), and a row written at
    iteration ``k`` has its cotangent taken and zeroed by the last iteration that wrote
    it, before iteration ``k`` in the backward loop runs (rows never written keep the
    cotangent the code after the loop gave them). So the backward loop is
    given this loop's final value for it in every iteration (cotangents keep the final
    shape; ``while_grad`` cuts the last one to the initial stack's). The replayed push
    then writes into that final value, at row ``k``, the value it already holds
    (recomputed from the same saved inputs); only this loop and the backward loop see it
    (a TensorArray write copies, so the final value itself is never changed).
    """
    n = len(state)
    avals = [v.aval for v in body.inputs[:n]]
    saved = [j for j in range(n) if j not in stacks]
    buf_avals = [ir.Aval((None, *avals[j].shape), avals[j].dtype) for j in saved]
    with hooks.unrecorded():
        empty = [save_stack.empty_like_aval(avals[j]) for j in saved]

    def cond_fn(*vals):
        return hooks.graph_vjp.inline(cond, [*vals[:n], *consts])[0]

    def body_fn(*vals):
        xs, i, bufs = vals[:n], vals[n], vals[n + 1:]
        pushed = [save_stack.push(b, i, xs[j]) for b, j in zip(bufs, saved)]
        return [*hooks.graph_vjp.inline(body, [*xs, *consts]), i + 1, *pushed]

    out = _loop(cond_fn, body_fn, [*state, np.asarray(0, INDEX), *empty],
                [*avals, ir.Aval((), INDEX), *buf_avals], "saving")
    bufs = dict(zip(saved, out[n + 1:]))
    return out[n], [("stack", bufs[j]) if j in bufs else ("final", out[j]) for j in range(n)]


def _stacks(body, n) -> set:
    """The loop variables ``j`` given to the backward loop as their final value, not
    saved per iteration: the body's output ``j`` is an op that updates its operand 0 (it
    declares ``extra["updates_operand0"]``: its result is that operand with some rows
    replaced, and its gradient reads nothing of it but its shape) applied to its input
    ``j`` (or to such an update of it, and so on: two writes in one iteration), which
    nothing else in the body reads. A saving loop's stack (a second
    derivative) and a TensorArray only written in the loop are such variables; a growing
    one could not be saved densely, and saving a fixed one would copy it every iteration.
    """
    made = {o.id: (node, k) for node in body.nodes for k, o in enumerate(node.outputs)}
    readers = {}
    for node in body.nodes:
        for v in node.inputs:
            readers[v.id] = readers.get(v.id, 0) + 1
    for v in body.outputs:
        readers[v.id] = readers.get(v.id, 0) + 1
    out = set()
    for j in range(n):
        node, k = made.get(body.outputs[j].id, (None, None))
        x = body.inputs[j]
        while node is not None and k == 0 and node.op.extra.get("updates_operand0"):
            src = node.inputs[0]  # a chain of updates (two writes in one iteration)
            if src is x:
                if readers.get(x.id) == 1:
                    out.add(j)
                break
            if readers.get(src.id) != 1:
                break
            node, k = made.get(src.id, (None, None))
    return out


def _backward_loop(body, state, consts, carried, summed, count, buffers, init, refs):
    """Count the iterations down, applying the body's gradient graph to the values saved
    for each; returns the final cotangents (``carried`` state, then ``summed`` consts,
    then the variables ``refs`` read in the body)."""
    n, m = len(state), len(carried)
    wanted = [*carried, *[n + c for c in summed]]
    avals = [body.inputs[j].aval for j in carried] + [_aval(consts[c]) for c in summed] \
        + [ir.Aval(tuple(r.deref().shape), r.deref().dtype) for r in refs]

    def cond_fn(*vals):
        return vals[m] > 0

    def body_fn(*vals):
        ct_state, k, acc = vals[:m], vals[m] - 1, vals[m + 1:]
        xs = [bind(READ, b, count, k) if how == "stack" else b for how, b in buffers]
        full = [None] * len(body.outputs)
        for j, ct in zip(carried, ct_state):
            full[j] = ct
        found = {}
        grads = hooks.graph_vjp.vjp(body, [*xs, *consts], full, wanted, found)
        new_ct = [g if g is not None else _zeros(x) for g, x in
                  zip(grads[:m], [xs[j] for j in carried])]
        grads = [*grads[m:], *[found.get(r) for r in refs]]
        new_acc = [a if g is None else a + g for a, g in zip(acc, grads)]
        return [*new_ct, k, *new_acc]

    out = _loop(cond_fn, body_fn, [*init[:m], count, *init[m:]],
                [*avals[:m], ir.Aval((), INDEX), *avals[m:]], "backward")
    return out[:m] + out[m + 1:]


def _loop(cond_fn, body_fn, init, avals, name):
    """A ``while_loop`` node over Python ``cond_fn``/``body_fn`` with fixed loop-variable
    avals (the caller knows them: no relaxation), staged in the current context."""
    with hooks.unrecorded():
        ctx_c = enter(f"{name}_cond")
        with ctx_c:
            pred = scalar_bool(ctx_c, cond_fn(*hooks.graph_vjp.placeholders(ctx_c, avals)),
                               f"the condition of the {name} loop")
        ctx_b = enter(f"{name}_body")
        with ctx_b:
            outs = body_fn(*hooks.graph_vjp.placeholders(ctx_b, avals))
            outs = [to_value(ctx_b, o, a.dtype) for o, a in zip(outs, avals)]
        graphs, captured = close([ctx_c, ctx_b], len(avals), [[pred], outs])
    return _stage(WHILE_LOOP, init, captured, {"cond": graphs[0], "body": graphs[1]},
                  avals, graphs, dtypes=[a.dtype for a in avals])


def _stage(op, operands, captured, attrs, avals, graphs, dtypes=None):
    """Add the node in the current trace (it is recorded by any tape watching its
    operands, so gradients of gradients work), or run it now when nothing traces."""
    if not trace.active():
        values = [*operands, *[_symbolic(v) for v in captured]]
        return list(bind(op, *values, **attrs))
    ctx = trace.current()
    dtypes = dtypes or [None] * len(operands)
    inputs = [to_value(ctx, x, d) for x, d in zip(operands, dtypes)]
    return add_control_node(op, inputs + list(captured), attrs, avals, graphs)


def _value_or_zeros(ctx, g, like):
    return to_value(ctx, zeros_like(like) if g is None else g, like.dtype)


def _variable_ct(ctx, g, ref):
    """A variable's cotangent from a subgraph (zeros where it has none), as a value of
    ``ctx`` (or a tensor of the current trace when ``ctx`` is None)."""
    v = ref.deref()
    if g is None:
        known = v.shape is not None and None not in v.shape
        g = zeros(tuple(v.shape), v.dtype) if known else zeros_like(read_variable(v))
    return g if ctx is None else to_value(ctx, g, v.dtype)


def _zeros(like):
    with hooks.unrecorded():
        return zeros_like(like)


def _float(x) -> bool:
    aval = x.aval if hasattr(x, "aval") else None
    return aval is not None and not aval.is_token and aval.dtype.kind in "fc"


def _aval(x) -> ir.Aval:
    return x.aval


def _join(shapes):
    out = shapes[0]
    for s in shapes[1:]:
        out = join_shapes(out, s)
    return out


COND.grad = cond_grad
SWITCH_CASE.grad = switch_case_grad
WHILE_LOOP.grad = while_grad
