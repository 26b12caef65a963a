"""A float ``sum`` over the last axis folded into the elementwise loop that feeds it.

``sum((a[:, None, :] - c[None, :, :]) ** 2, axis=-1)`` (k-means' distances, N-body's
``r2``) stored the whole broadcast intermediate (1000x16x8 values) and read it back to
sum each row. Folded, each row's elements are computed into one small row buffer,
reused for every row, and summed by the same ``H.pairwise_sum`` the unfused reduction
calls on the same contiguous row, so the bits equal the unfused program's (and NumPy's:
the intermediate is C-contiguous, whose rows NumPy sums pairwise). A row of fewer than 8
values is added inline, as ``pairwise_sum`` adds it, with no buffer and no call; a row of
8 to 128 values (one leaf of the tree) through the buffer with the leaf's steps inline.
A group with other results (N-body's ``d`` beside ``d * d``) stores them in the same
loop: N-body's step 2.8 -> 2.4 ms (`python -m benchmarks.bench_programs nbody`). A summed
result that something else reads too (a softmax's ``exp``, later divided by the row
sums) is stored as well, each row computed into its place and summed from there: one
pass over the values instead of two.
"""

from __future__ import annotations

from graphc.core.shapes import normalize_axes
from graphc.runtime.cpu.kernels import Val, np_type, shape_expr
from graphc.runtime.fused_groups import fused_steps

# rows at least this long have their sum folded into the loop even where the summed
# values are stored for another reader too: a softmax over rows of 128 (attention,
# 4x128x128) 141 -> 120 us; over rows of 10 (the softmax program) 45 -> 48 us, slower
SHARED_MIN = 64


def summed_result(g, node, ins, shared=False):
    """``(sum node, its axes)`` when a float ``sum`` is the only reader of one result of
    ``node`` (an elementwise node or group; ``shared``: or one reader among others, the
    result then stored too) and the two can be one loop: every shape known and nonzero,
    the results of one shape, operands of its rank or scalars; else None. The folds
    below pick the axes they take."""
    red = next((r for v in node.outputs if shared or g.uses.get(v.id) == 1
                for r in g.readers.get(v.id, ()) if r.op.name == "sum"), None)
    if red is None:
        return None
    shape, dtype = red.inputs[0].aval.shape, red.inputs[0].aval.dtype
    if not shape or None in shape or 0 in shape or dtype.kind != "f":
        return None
    if red.outputs[0].aval.dtype != dtype or any(o.aval.shape != shape for o in node.outputs):
        return None
    for x in ins:
        if not x.scalar and (len(x.aval.shape) != len(shape) or None in x.aval.shape):
            return None
    return red, sorted(normalize_axes(red.attrs.get("axis"), len(shape)))


def fusable_row_sum(g, node, ins):
    """The ``sum`` over the last axis of one result of ``node`` (``summed_result``); its
    other results, if any, are stored by the same loop. Else None."""
    found = summed_result(g, node, ins)
    if found is None:  # a sum of values read elsewhere too: folded for long rows only
        found = summed_result(g, node, ins, shared=True)
        if found is not None and found[0].inputs[0].aval.shape[-1] < SHARED_MIN:
            return None
    if found is None or found[1] != [len(found[0].inputs[0].aval.shape) - 1]:
        return None
    return found[0]


def fused_row_sum(g, node, red, ins) -> Val:
    """``red`` (see :func:`fusable_row_sum`) of ``node``'s elements, row by row; the
    node's other results stored (their Vals set in ``g.vals``)."""
    steps, results = fused_steps(node, complex_ok=True)
    at = [v.id for v in node.outputs].index(red.inputs[0].id)
    res = results[at]
    gi, elem, body = g.loop_body(ins, steps)
    shape = node.outputs[0].aval.shape
    aval = red.outputs[0].aval
    T, o = np_type(aval.dtype), g._var(red.outputs[0])
    full = shape_expr([str(d) for d in shape])
    src, per_row = {}, {}  # operands read element by element; read once per row
    for j, x in enumerate(ins):
        if x.scalar:
            continue
        xs = tuple(x.aval.shape)
        if xs == tuple(shape):
            src[j] = x.name
        elif xs[-1] == 1:  # constant along the row (a softmax's max): one read per row
            per_row[j] = [f"_i{d}" if n != 1 else "0" for d, n in enumerate(xs[:-1])] + ["0"]
        else:
            src[j] = f"_b{gi}_{j}"
            g.line(f"{src[j]} = np.broadcast_to({x.name}, {full})")
    row, acc = f"_row{gi}", f"_acc{gi}"
    short = shape[-1] < 8  # NumPy adds fewer than 8 values one by one: inline, no buffer
    kept = [f"_i{d}" for d in range(len(shape) - 1)]
    kept += ["0"] if red.attrs.get("keepdims") else []
    if kept:  # else the sum is a scalar
        g.line(f"{o} = np.empty({shape_expr([str(d) for d in aval.shape])}, {T})")
    # the summed values are stored too where something else reads them (a softmax's
    # exp, also divided by the sums): each row is computed into its place in that array
    # and summed from there, no row buffer
    keep = g.uses.get(red.inputs[0].id, 0) > 1
    others = [(j, v) for j, v in enumerate(node.outputs) if j != at or keep]
    stored = [(g._var(v), results[j]) for j, v in others]
    for (_j, v), (name, _r) in zip(others, stored):
        g.line(f"{name} = np.empty({full}, {np_type(v.aval.dtype)})")
    if not short and not keep:
        g.line(f"{row} = np.empty({shape[-1]}, {T})")
    outer = [f"_i{d}" for d in range(len(shape) - 1)]
    for d, i in enumerate(outer):
        g.line(f"{'    ' * d}for {i} in range({shape[d]}):")
    pad = "    " * len(outer)
    if keep and not short:  # this row of the stored values
        whole = g._var(red.inputs[0])
        g.line(f"{pad}{row} = {whole}[{', '.join(outer)}]" if outer else f"{pad}{row} = {whole}")
        stored = [(name, r) for name, r in stored if name != whole]  # written as the row
    if short:
        g.line(f"{pad}{acc} = {T}(0)")
    for j, idx in per_row.items():
        g.line(f"{pad}_p{gi}_{j} = {ins[j].name}[{', '.join(idx)}]")
    for j in src:  # this row of each operand and stored result: 1-d views
        row_of = f"{src[j]}[{', '.join(outer)}]" if outer else src[j]
        g.line(f"{pad}_r{gi}_{j} = {row_of}")
    for n, (name, _r) in enumerate(stored):
        g.line(f"{pad}_o{gi}_{n} = {name}[{', '.join(outer)}]" if outer
               else f"{pad}_o{gi}_{n} = {name}")
    g.line(f"{pad}for _k in range({shape[-1]}):")
    for j, x in enumerate(ins):
        g.line(f"{pad}    {elem[j]} = _r{gi}_{j}[_k]" if j in src else
               f"{pad}    {elem[j]} = _p{gi}_{j}" if j in per_row else
               f"{pad}    {elem[j]} = {x.name}")
    for ln in body:
        g.line(f"{pad}    {ln}")
    for n, (_name, r) in enumerate(stored):
        g.line(f"{pad}    _o{gi}_{n}[_k] = _s{gi}_{r}")
    if short:  # H.pairwise_sum's own steps for n < 8: res = 0; res += 0 + a[i]
        g.line(f"{pad}    {acc} += {T}(0) + _s{gi}_{res}")
        total = acc
    else:
        g.line(f"{pad}    {row}[_k] = _s{gi}_{res}")
        total = f"H.pairwise_sum({row}, {T}(0), False)"
        if shape[-1] <= 128:  # one leaf of NumPy's tree: its steps here, no call per row
            for ln in leaf_sum(row, shape[-1], T, acc):
                g.line(f"{pad}{ln}")
            total = acc
    g.line(f"{pad}{o}[{', '.join(kept)}] = {total}" if kept else f"{pad}{o} = {total}")
    for _j, v in others:
        g.vals[v.id] = Val(g._var(v), v.aval, contig=True)
    return Val(o, aval)


def leaf_sum(row, n, T, res) -> list[str]:
    """Lines setting ``res`` to the sum of ``row`` (``8 <= n <= 128`` values of type
    ``T``) in the order of one leaf of NumPy's pairwise sum (``H._block``): eight
    running sums over blocks of 8, added as a tree, then the last ``n % 8`` one by one
    (``T(0) +`` first, as NumPy does: a -0.0 sum comes out +0.0)."""
    m = n - n % 8  # names with a trailing _: never made by g.tmp, so never a clash
    lines = [f"_pw{j}_ = {T}(0) + {row}[{j}]" for j in range(8)]
    if m > 8:
        lines.append(f"for _pwb_ in range(8, {m}, 8):")
        lines += [f"    _pw{j}_ += {row}[_pwb_ + {j}]" for j in range(8)]
    lines.append(f"{res} = ((_pw0_ + _pw1_) + (_pw2_ + _pw3_)) + "
                 "((_pw4_ + _pw5_) + (_pw6_ + _pw7_))")
    lines += [f"{res} += {T}(0) + {row}[{i}]" for i in range(m, n)]
    return lines


def short_rows(op, dims, in_t, acc_t):
    """The row length when a float ``sum``/``mean`` reduces rows of fewer than 8 values
    (static dims, no cast), which ``H.pairwise_sum`` adds one by one; else None. (Rows
    of 8 to 128 are inlined as a leaf only where the sum is folded into its loop: there
    the row is in cache and the call was most of the time; elsewhere the longer code
    costs more compile time than the call costs.)"""
    n = 1
    for d in dims:
        if d is None:
            return None
        n *= d
    if op not in ("sum", "mean") or acc_t.kind != "f" or in_t != acc_t or not 0 < n < 8:
        return None
    return n


def add_short_rows(g, m, res, k, n, acc_t) -> None:
    """``res[j]`` = the sum of row ``j`` of ``m`` (``n`` < 8 values), as
    ``H.pairwise_sum`` adds it (``res = 0; res += 0 + a[i]``), without a call per row."""
    T, a = np_type(acc_t), g.tmp("a")
    g.line(f"for _j in range({k}):")
    g.line(f"    {a} = {T}(0)")
    g.line(f"    for _i in range({n}):")
    g.line(f"        {a} += {T}(0) + {m}[_j, _i]")
    g.line(f"    {res}[_j] = {a}")
