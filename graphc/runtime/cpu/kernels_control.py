"""Native control flow: ``cond``, ``switch_case`` and ``while_loop`` as Python ``if`` /
``elif`` / ``while`` inside the one generated program; registered into ``kernels.EMITTERS``.

Each branch or loop body is inlined (``codegen._Gen.inline``) with its own variable names,
so nesting to any depth is plain recursion. Numba types every variable once for the
whole function, so the values that cross a branch or loop boundary are made to have one
type on every path:

* a rank-0 value stays a Numba scalar, cast to the node's dtype on every path;
* an array is stored C-contiguous (a view such as a transpose is copied), so every path
  assigns ``array(dtype, ndim, 'C')``; Numba unifies read-only (a program input) and
  writable arrays of that type into a read-only one, which is all the code after the
  branch does with it (nothing writes into a value once its node is done).

A loop's state lives in the ``while_loop`` node's own output variables; the body's
results are assigned to them with one tuple assignment, so a body that swaps two loop
variables is right. A control-flow node whose subgraphs have effects takes and returns
the effect token, which carries no data here: variable reads and writes inside compile
(``kernels_state``: variables are function-wide locals, so a write in a loop body is seen
by the next iteration), any other effect leaves the node to Python (``segments``).
"""

from __future__ import annotations

import numpy as np

from graphc.runtime.cpu import loop_reuse, tiny
from graphc.runtime.cpu.kernels import Unsupported, Val, cast, emitter, np_type
from graphc.runtime.cpu.kernels_state import TOKEN_NAME


def _truth(v: Val, what: str) -> str:
    """``v`` as a Python condition; the predicate of a branch or loop must be 0-d."""
    if not v.scalar:
        raise Unsupported(f"{what} is not a scalar ({v.aval})")
    return v.name if v.aval.dtype == np.bool_ else f"({v.name} != 0)"


def _carried(v: Val, aval) -> str:
    """Source for ``v`` as the value a branch/loop variable of ``aval`` holds on every
    path: a scalar of the node's dtype, or a C-contiguous array of it."""
    if aval.shape == ():
        if not v.scalar:
            raise Unsupported(f"a branch gives an array {v.aval} where a scalar is expected")
        return v.name if v.aval.dtype == aval.dtype else cast(v.name, aval.dtype)
    if v.scalar or len(v.aval.shape) != len(aval.shape):
        raise Unsupported(f"a branch gives {v.aval} where {aval} is expected")
    src = v.name
    if v.aval.dtype != aval.dtype:
        return f"{src}.astype({np_type(aval.dtype)})"  # a fresh C-contiguous array
    return src if v.contig else f"{src}.copy()"


def _assign(g, outs, vals, avals, copy=(), scalars=None) -> None:
    """``outs = vals`` for the data values (an effect token, last, carries nothing); the
    values at indices ``copy`` are copied (a loop writes their buffers in place); those
    in ``scalars`` (index -> element variables: ``tiny.carried``) go element by
    element into their variables."""
    scalars = scalars or {}
    targets, srcs = [], []
    for k, (o, v, a) in enumerate(zip(outs, vals, avals)):
        if a.is_token:
            continue
        if k in scalars:
            targets += scalars[k]
            srcs += [cast(e, a.dtype) for e in tiny.elements(v)]
            continue
        src = _carried(v, a)
        targets.append(o)
        srcs.append(f"{src}.copy()" if k in copy and src == v.name else src)
    outs = targets
    if len(outs) == 1:
        g.line(f"{outs[0]} = {srcs[0]}")
    elif outs:  # one tuple assignment: every right-hand side is read before any write
        g.line(f"{', '.join(outs)} = {', '.join(srcs)}")


def _branches(g, node, tests, graphs, operands, outs) -> list[Val]:
    """``if tests[0]: graphs[0] elif ...: ... else: graphs[-1]``, each assigning ``outs``."""
    avals = [v.aval for v in node.outputs]
    for k, graph in enumerate(graphs):
        if k == 0:
            g.line(f"if {tests[0]}:")
        elif k < len(graphs) - 1:
            g.line(f"elif {tests[k]}:")
        else:
            g.line("else:")
        g.depth += 1
        g.line("pass")  # a branch with no nodes and no outputs is still a block
        _assign(g, outs, g.inline(graph, operands, g.ownership.branches.get(node, ())),
                avals)
        g.depth -= 1
    return [Val(o, a, contig=True) for o, a in zip(outs, avals)]


@emitter("cond")
def _cond(g, node, ins, outs):
    pred = _truth(ins[0], "the predicate of cond")
    attrs = node.attrs
    return _branches(g, node, [pred], [attrs["true_fn"], attrs["false_fn"]], ins[1:], outs)


@emitter("switch_case")
def _switch_case(g, node, ins, outs):
    index = ins[0]
    if not index.scalar or index.aval.dtype.kind not in "iub":
        raise Unsupported(f"switch_case index {index.aval} is not an integer scalar")
    branches = list(node.attrs["branches"])
    # an index out of range runs the last branch (TensorFlow), which the else gives
    tests = [f"{index.name} == {k}" for k in range(len(branches) - 1)]
    return _branches(g, node, tests, branches, ins[1:], outs)


@emitter("while_loop")
def _while_loop(g, node, ins, outs):
    cond, body = node.attrs["cond"], node.attrs["body"]
    n = len(body.outputs)
    avals = [v.aval for v in node.outputs]
    extra = ins[n:]  # loop-invariant operands (captured values; then the effect token)
    owned, copy = g.ownership.loops.get(node, ((), ()))  # arrays written in place
    scalars = {k: [g.tmp("c") for _ in range(tiny.size(avals[k]))]
               for k in tiny.carried(body, owned)}  # tiny arrays kept as scalars
    spares = loop_reuse.start(g, {k: avals[k] for k in loop_reuse.slots(
        body, set(owned) | set(scalars))})  # states made in the buffers of earlier ones
    _assign(g, outs, ins[:n], avals, copy, scalars)
    state = [tiny.TinyVal(o, a, scalars[k]) if k in scalars else Val(o, a, contig=True)
             for k, (o, a) in enumerate(zip(outs[:n], avals))]
    g.line("while True:")
    g.depth += 1
    (pred,) = g.inline(cond, state + extra)
    g.line(f"if not {_truth(pred, 'the condition of while_loop')}:")
    g.line("    break")
    results = g.inline(body, state + extra, owned, keep=scalars,
                       reuse={k: names[0] for k, names in spares.items()})
    loop_reuse.rotate(g, spares, results)
    _assign(g, outs, results, avals, (), scalars)
    g.depth -= 1
    return state + [Val(TOKEN_NAME, a) for a in avals[n:]]
