"""A float ``sum`` over axes before the last one, folded into the elementwise loop that
feeds it.

N-body's ``sum(d * inv[:, :, None], axis=1)`` stored the 256x256x3 product and read it
back to add its rows. Folded, the loop runs over the product's index space in C order
and adds each element into the result where it lands: ``0 + `` the first element of each
output position (a sum of -0.0s is +0.0, as NumPy's), then the next ones, in C order of
the reduced axes, which is the order the unfused reduction adds them in
(``kernels_reduce._row_loops``, NumPy's order for reduced axes that are not a trailing
run), so the bits are the same. The group's
other results, if any, are stored by the same loop.
"""

from __future__ import annotations

from graphc.core.shapes import normalize_axes
from graphc.runtime.cpu.kernels import Val, np_type, shape_expr
from graphc.runtime.cpu.kernels_row_sum import summed_result
from graphc.runtime.fused_groups import fused_steps


def fusable_axis_sum(g, node, ins):
    """The ``sum`` over one block of consecutive axes, not including the last, of one
    result of ``node`` (``kernels_row_sum.summed_result``); else None."""
    found = summed_result(g, node, ins)
    if found is None:
        return None
    red, axes = found
    last = len(red.inputs[0].aval.shape) - 1
    if not axes or axes[-1] >= last or axes != list(range(axes[0], axes[-1] + 1)):
        return None
    return red


def fused_axis_sum(g, node, red, ins) -> Val:
    """``red`` (see :func:`fusable_axis_sum`) of ``node``'s elements, in one loop nest."""
    steps, results = fused_steps(node, complex_ok=True)
    at = [v.id for v in node.outputs].index(red.inputs[0].id)
    gi, elem, body = g.loop_body(ins, steps)
    shape = tuple(node.outputs[0].aval.shape)
    nd = len(shape)
    axes = sorted(normalize_axes(red.attrs.get("axis"), nd))
    kept = [d for d in range(nd) if d not in axes]
    full = shape_expr([str(d) for d in shape])
    src = {}
    for j, x in enumerate(ins):
        if x.scalar:
            continue
        if tuple(x.aval.shape) == shape:
            src[j] = x.name
        else:
            src[j] = f"_b{gi}_{j}"
            g.line(f"{src[j]} = np.broadcast_to({x.name}, {full})")
    aval = red.outputs[0].aval
    T, o = np_type(aval.dtype), g._var(red.outputs[0])
    acc = f"_sum{gi}"
    g.line(f"{acc} = np.empty({shape_expr([str(shape[d]) for d in kept])}, {T})")
    others = [(j, v, g._var(v)) for j, v in enumerate(node.outputs) if j != at]
    for _j, v, name in others:
        g.line(f"{name} = np.empty({full}, {np_type(v.aval.dtype)})")
    index = [f"_i{d}" for d in range(nd)]
    for d in range(nd):
        g.line(f"{'    ' * d}for _i{d} in range({shape[d]}):")
    pad = "    " * nd
    for j, x in enumerate(ins):
        g.line(f"{pad}{elem[j]} = {src[j]}[{', '.join(index)}]" if j in src
               else f"{pad}{elem[j]} = {x.name}")
    for ln in body:
        g.line(f"{pad}{ln}")
    for j, _v, name in others:
        g.line(f"{pad}{name}[{', '.join(index)}] = _s{gi}_{results[j]}")
    target = f"{acc}[{', '.join(index[d] for d in kept)}]"
    first = " and ".join(f"_i{d} == 0" for d in axes)
    g.line(f"{pad}if {first}:")  # 0 + the first element, as NumPy adds to its identity
    g.line(f"{pad}    {target} = {T}(0) + _s{gi}_{results[at]}")
    g.line(f"{pad}else:")
    g.line(f"{pad}    {target} = {target} + _s{gi}_{results[at]}")
    g.line(f"{o} = {acc}.reshape({shape_expr([str(d) for d in aval.shape])})")
    for _j, v, name in others:
        g.vals[v.id] = Val(name, v.aval, contig=True)
    return Val(o, aval)
