"""Numba emitters for the saving loop's stack (``graphc/ops/save_stack.py``).

A push writes the row into the loop's own buffer when it fits and allocates a doubled one
otherwise, exactly as the op's ``ref`` does; the module docstring there says why writing
into the operand is safe for these ops (and only these). In the generated ``while`` the
stack is a loop variable typed ``array(dtype, rank, 'C')``: the result of a push is either
that variable itself or a fresh ``np.empty``, both of that type, so the assignment back to
the loop variable is a plain rebinding (no copy). A failed check raises inside the
program; the executor then reruns the graph on the interpreter, whose ``ref`` raises the
user-facing error.
"""

from __future__ import annotations

from graphc.runtime.cpu.kernels import Val, emitter, np_type, shape_expr


@emitter("save_stack_empty")
def empty(g, node, ins, outs):
    """``np.zeros((0, *element_shape))``: a fresh, writable array of the loop's type."""
    aval = node.outputs[0].aval
    dims = ["0", *("0" if d is None else str(d) for d in node.attrs["element_shape"])]
    g.line(f"{outs[0]} = np.zeros({shape_expr(dims)}, {np_type(aval.dtype)})")
    return [Val(outs[0], aval)]


@emitter("save_stack_push")
def push(g, node, ins, outs):
    """Row ``index`` of the buffer set to the value, in place when ``index < capacity``;
    else a buffer of ``max(2 * capacity, index + 1, initial)`` rows with the old rows."""
    b, ix, v = ins
    aval = node.outputs[0].aval
    rank = len(b.aval.shape)
    vdims = [f"{v.name}.shape[{k}]" for k in range(rank - 1)]
    cap, i, new, out = g.tmp("cap"), g.tmp("i"), g.tmp("cap"), outs[0]
    g.line(f"{cap} = {b.name}.shape[0]")
    g.line(f"{i} = np.int64({ix.name})")
    g.line(f"if {i} < 0:")
    g.line("    raise ValueError('save stack: negative index')")
    if vdims:
        same = " and ".join(f"{b.name}.shape[{j + 1}] == {d}" for j, d in enumerate(vdims))
        g.line(f"if {cap} > 0 and not ({same}):")
        g.line("    raise ValueError('save stack: the loop variable changed shape')")
    g.line(f"if {i} < {cap}:")
    g.line(f"    {out} = {b.name}")
    g.line("else:")
    g.line(f"    {new} = max(2 * {cap}, {i} + 1, {int(node.attrs['initial'])})")
    g.line(f"    {out} = np.empty({shape_expr([new, *vdims])}, {np_type(aval.dtype)})")
    g.line(f"    if {cap} > 0:")  # a capacity-0 stack may have 0 for unknown dims
    g.line(f"        {out}[:{cap}] = {b.name}")
    g.line(f"{out}[{i}] = {v.name}")
    return [Val(out, aval)]
