"""Numba kernels (as source) for reductions; registered into ``kernels.EMITTERS``.

Reductions reproduce NumPy's summation order so float results match bit for bit in the
common layouts: a reduction over the *trailing* axes of a C-contiguous array is NumPy's
pairwise sum per output element (blocks of 8 accumulators, halving above 128 elements;
chunks of 8192 when the input is cast to a wider accumulator, as NumPy's buffered
iterator does); over *leading* or *middle* axes it adds whole rows in order, as NumPy
does. Other axis sets are transposed first (a copy; float sums may differ from NumPy's
in the last bits). prod/max/min/any/all are order-independent or sequential in both.
"""

from __future__ import annotations

import numpy as np

from graphc.core.shapes import normalize_axes
from graphc.ir.graph import Aval
from graphc.runtime.cpu.kernels import (
    Unsupported,
    Val,
    cast,
    contiguous,
    emitter,
    np_type,
    permuted,
    shape_expr,
    to_array,
)
from graphc.runtime.cpu.kernels_row_sum import add_short_rows, short_rows

# How rows combine in the rows form: ``acc`` is the running row, ``v`` the next element.
# No cast of the result: storing into the accumulator array casts (and wraps ints), and
# redundant ``np.float32(...)`` calls can make Numba/LLVM compiles 6x slower (measured).
_COMBINE = {
    "sum": "({acc} + {v})", "mean": "({acc} + {v})", "prod": "({acc} * {v})",
    "max": "({v} if ({v} > {acc} or {v} != {v}) else {acc})",
    "min": "({v} if ({v} < {acc} or {v} != {v}) else {acc})",
    "any": "({acc} or {v} != 0)", "all": "({acc} and {v} != 0)",
}
_IDENTITY = {"sum": "0", "mean": "0", "prod": "1", "any": "False", "all": "True"}


def _row_call(op, row, in_t, acc_t, chunked) -> str:
    """The helper call reducing one contiguous row to an ``acc_t`` scalar."""
    T = np_type(acc_t)
    if op in ("sum", "mean"):
        if acc_t.kind == "f":
            if np.promote_types(acc_t, in_t) != acc_t:
                # ``zero + a[i]`` would add in Numba's wider type (float32 + int32 or
                # + float64 is float64); NumPy adds in the accumulator's dtype
                row = f"{row}.astype({T})"
            return f"H.pairwise_sum({row}, {T}(0), {chunked})"
        # integers: any order gives the same bits; cast the row where NumPy would
        row = row if in_t == acc_t else f"{row}.astype({T})"
        return f"{T}(H.int_sum({row}, {T}(0)))"
    if op == "prod":
        row = row if in_t == acc_t else f"{row}.astype({T})"
        return f"{T}(H.prod({row}, {T}(1)))"
    if op in ("max", "min"):
        return f"{T}(H.{'f' if in_t.kind == 'f' else ''}a{op}({row}))"
    return f"H.{op}_({row})"


def _rows(g, x, op, acc_t, reduced, kept, n, k, res) -> None:
    """Reduce whole rows in C order of the reduced axes (the last axis is kept). When
    the reduced axes are one block after some kept ones (``sum(d, axis=1)`` of a 3-d
    C-contiguous ``d``), each leading index's rows are reduced in place: the same order
    as moving the reduced axes first, without that transposed copy."""
    lead = [i for i in kept if i < reduced[0]]
    if lead and x.contig and reduced == list(range(reduced[0], reduced[0] + len(reduced))):
        p, t = g.tmp("p"), g.tmp("t")
        g.line(f"{p} = {_prod([x.dim(i) for i in lead])}")
        g.line(f"{t} = {_prod([x.dim(i) for i in kept if i > reduced[-1]])}")
        _row_loops(g, x, op, acc_t, (p, n, t), n, k, res)
        return
    src = x.name
    if reduced != list(range(len(reduced))) or not x.contig:
        src = f"{permuted(x.name, reduced + kept)}.copy()"
    _row_loops(g, Val(src, x.aval, x.contig), op, acc_t, ("1", n, k), n, k, res)


def _row_loops(g, x, op, acc_t, pnk, n, k, res) -> None:
    """``res[p, j] = fold over i of m[p, i, j]`` (in order) with ``m`` = ``x`` reshaped
    to ``pnk``; ``res`` is made with ``k`` elements."""
    m = g.tmp("m")
    T = np_type(acc_t)
    acc, v = g.tmp("acc"), g.tmp("v")
    comb = _COMBINE[op].format(acc=acc, v=v)
    rows = g.tmp("rr")
    g.line(f"{m} = {x.name}.reshape(({pnk[0]}, {pnk[1]}, {pnk[2]}))")
    g.line(f"{res} = np.empty({k}, {T})")
    g.line(f"{rows} = {res}.reshape(({pnk[0]}, {pnk[2]}))")
    # an if statement, not ``a if n > 0 else b``: with a literal ``n`` Numba 0.68 takes
    # ~13 s to compile that conditional expression (measured)
    first = f"({m}[_p, 0, _j] != 0)" if op in ("any", "all") else f"{m}[_p, 0, _j]"
    if op in ("sum", "mean"):  # NumPy adds to its identity: a sum of -0.0s is +0.0
        first = f"{T}(0) + {first}" if x.aval.dtype == acc_t else f"{T}(0) + {T}({first})"
    if op not in ("max", "min"):  # max/min of nothing raised above
        g.line(f"if {n} == 0:")
        g.line(f"    {res}[:] = {_IDENTITY[op]}")
    g.line(f"for _p in range({pnk[0]} if {n} else 0):")
    g.line(f"    for _j in range({pnk[2]}):")
    g.line(f"        {rows}[_p, _j] = {first}")
    g.line(f"    for _i in range(1, {n}):")
    g.line(f"        for _j in range({pnk[2]}):")
    g.line(f"            {acc} = {rows}[_p, _j]")
    same = op in ("any", "all") or x.aval.dtype == acc_t
    elem = f"{m}[_p, _i, _j]" if same else f"{T}({m}[_p, _i, _j])"
    g.line(f"            {v} = {elem}")
    g.line(f"            {rows}[_p, _j] = {comb}")


def _prod(dims) -> str:
    return " * ".join(dims) if dims else "1"


@emitter("sum", "prod", "mean", "max", "min", "any", "all")
def _reduce(g, node, ins, outs):
    x, op = ins[0], node.op.name
    aval = node.outputs[0].aval
    out_t = aval.dtype
    # NumPy accumulates in the result dtype (an integer mean(dtype=int32) sums in int32
    # and divides in float64)
    acc_t = out_t
    o = outs[0]
    nd = len(x.aval.shape)
    if nd == 0:
        expr = x.name if op not in ("any", "all") else f"({x.name} != 0)"
        g.line(f"{o} = {cast(expr, out_t)}")
        return [Val(o, aval)]
    axes = tuple(sorted(normalize_axes(node.attrs.get("axis"), nd)))
    kept = [i for i in range(nd) if i not in axes]
    chunked = x.aval.dtype != acc_t
    rdims = [x.dim(i) for i in axes]
    kdims = [x.dim(i) for i in kept]
    n, k = g.tmp("n"), g.tmp("k")
    g.line(f"{n} = {_prod(rdims)}")
    g.line(f"{k} = {_prod(kdims)}")
    if op in ("max", "min"):
        g.line(f"if {n} == 0:")
        g.line(f"    raise ValueError('zero-size array to reduction operation {op} "
               "which has no identity')")
    res = g.tmp("r")
    # NumPy's order on a C-contiguous input: a maximal trailing run of reduced axes is
    # summed pairwise per row; any other reduced axes are added in C order, one row (or
    # one pairwise row sum) after another. Moving the kept axes first and the reduced
    # ones after (in order) keeps exactly that order.
    run = []
    for i in reversed(range(nd)):
        if i not in axes:
            break
        run.insert(0, i)
    outer = [i for i in axes if i not in run]
    perm = kept + outer + run
    if not run:
        _rows(g, x, op, acc_t, outer, kept, n, k, res)
    else:
        src = contiguous(g, x)
        if perm != list(range(nd)):
            src = f"{permuted(x.name, perm)}.copy()"
        m = g.tmp("m")
        r1 = _prod([x.dim(i) for i in outer])
        r2 = _prod([x.dim(i) for i in run])
        if outer and op in ("sum", "mean"):
            call = _row_call(op, f"{m}[_j, 0]", x.aval.dtype, acc_t, chunked)
            g.line(f"{m} = {src}.reshape(({k}, {r1}, {r2}))")
            g.line(f"{res} = np.empty({k}, {np_type(acc_t)})")
            g.line(f"for _j in range({k}):")
            g.line(f"    {res}[_j] = {call}")
            g.line(f"    for _i in range(1, {r1}):")
            g.line(f"        {res}[_j] += {call.replace('[_j, 0]', '[_j, _i]')}")
        else:
            g.line(f"{m} = {src}.reshape(({k}, {n}))")
            g.line(f"{res} = np.empty({k}, {np_type(acc_t)})")
            short = short_rows(op, [x.aval.shape[i] for i in run], x.aval.dtype, acc_t)
            if short is not None:  # rows of < 8 values: added inline, no call per row
                add_short_rows(g, m, res, k, short, acc_t)
            else:
                g.line(f"for _j in range({k}):")
                g.line(f"    {res}[_j] = "
                       f"{_row_call(op, f'{m}[_j]', x.aval.dtype, acc_t, chunked)}")
    if op == "mean":
        div = f"{np_type(acc_t)}({n})" if acc_t.kind == "f" else f"np.float64({n})"
        g.line(f"for _j in range({k}):")
        g.line(f"    {res}[_j] = {res}[_j] / {div}")
    final = res if acc_t == out_t else f"{res}.astype({np_type(out_t)})"
    if not aval.shape:
        g.line(f"{o} = {final}[0]")
        return [Val(o, aval)]
    dims = [str(d) if d is not None else None for d in aval.shape]
    fill = iter(kdims)
    keep = node.attrs.get("keepdims", False)
    src_dims = [("1" if (keep and i in axes) else next(fill)) for i in range(nd)
                if keep or i not in axes]
    dims = [d if d is not None else s for d, s in zip(dims, src_dims)]
    g.line(f"{o} = {final}.reshape({shape_expr(dims)})")
    return [Val(o, aval)]


def _split_axis(g, x, axis):
    """``x`` as a C-contiguous ``(pre, n, post)`` array around ``axis`` (None: flattened):
    the three dim sources and the array's name."""
    nd = len(x.aval.shape)
    src = contiguous(g, x)
    if axis is None:
        pre, n, post = "1", _prod([x.dim(i) for i in range(nd)]), "1"
    else:
        a = normalize_axes(axis, nd)[0]
        pre = _prod([x.dim(i) for i in range(a)])
        n = x.dim(a)
        post = _prod([x.dim(i) for i in range(a + 1, nd)])
    names = [g.tmp(p) for p in ("pre", "n", "post")]
    for name, dim in zip(names, (pre, n, post)):
        g.line(f"{name} = {dim}")
    m = g.tmp("m")
    g.line(f"{m} = {src}.reshape(({names[0]}, {names[1]}, {names[2]}))")
    return (*names, m)


@emitter("argmax", "argmin")
def _argmax(g, node, ins, outs):
    """NumPy's argmax/argmin: the first extreme element along the axis; among floats the
    first NaN wins."""
    x, op = ins[0], node.op.name
    aval = node.outputs[0].aval
    o = outs[0]
    nd = len(x.aval.shape)
    if nd == 0:
        zero = cast("0", aval.dtype)
        if aval.shape:
            g.line(f"{o} = np.full({shape_expr(['1'] * len(aval.shape))}, {zero})")
        else:
            g.line(f"{o} = {zero}")
        return [Val(o, aval)]
    axis = node.attrs.get("axis")
    pre, n, post, m = _split_axis(g, x, axis)
    res, best, bv, v = g.tmp("r"), g.tmp("b"), g.tmp("bv"), g.tmp("v")
    better = ">" if op == "argmax" else "<"
    isf = x.aval.dtype.kind == "f"
    g.line(f"if {n} == 0:")
    g.line(f"    raise ValueError('attempt to get {op} of an empty sequence')")
    g.line(f"{res} = np.empty(({pre}, {post}), {np_type(aval.dtype)})")
    g.line(f"for _p in range({pre}):")
    g.line(f"    for _q in range({post}):")
    g.line(f"        {best} = 0")
    g.line(f"        {bv} = {m}[_p, 0, _q]")
    g.line(f"        for _i in range(1, {n}):")
    if isf:
        g.line(f"            if {bv} != {bv}:")
        g.line("                break")
    g.line(f"            {v} = {m}[_p, _i, _q]")
    cond = f"{v} {better} {bv}" + (f" or {v} != {v}" if isf else "")
    g.line(f"            if {cond}:")
    g.line(f"                {bv} = {v}")
    g.line(f"                {best} = _i")
    g.line(f"        {res}[_p, _q] = {best}")
    if not aval.shape:
        g.line(f"{o} = {res}[0, 0]")
        return [Val(o, aval)]
    keep = node.attrs.get("keepdims", False)
    if axis is None:
        dims = ["1"] * nd
    else:
        a = normalize_axes(axis, nd)[0]
        dims = [("1" if i == a else x.dim(i)) for i in range(nd) if keep or i != a]
    dims = [str(d) if d is not None else s for d, s in zip(aval.shape, dims)]
    g.line(f"{o} = {res}.reshape({shape_expr(dims)})")
    return [Val(o, aval)]


@emitter("cumsum", "cumprod")
def _cumulative(g, node, ins, outs):
    """NumPy's cumsum/cumprod: a sequential scan along the axis in the result dtype (each
    step cast back, so integers wrap as in NumPy)."""
    x, op = ins[0], node.op.name
    aval = node.outputs[0].aval
    T = np_type(aval.dtype)
    o = outs[0]
    if aval.dtype == np.bool_:
        raise Unsupported(f"{op} with a bool result")
    if not x.aval.shape:
        z = g.tmp("z")
        g.line(f"{z} = {to_array(g, x)}.reshape((1,))")
        x = Val(z, Aval((1,), x.aval.dtype))
    pre, n, post, m = _split_axis(g, x, node.attrs.get("axis"))
    sym = "+" if op == "cumsum" else "*"
    acc = g.tmp("acc")
    g.line(f"{o} = np.empty(({pre}, {n}, {post}), {T})")
    g.line(f"for _p in range({pre}):")
    g.line(f"    for _q in range({post}):")
    g.line(f"        {acc} = {T}({'0' if op == 'cumsum' else '1'})")
    g.line(f"        for _i in range({n}):")
    g.line(f"            {acc} = {T}({acc} {sym} {T}({m}[_p, _i, _q]))")
    g.line(f"            {o}[_p, _i, _q] = {acc}")
    dims = [str(d) if d is not None else None for d in aval.shape]
    if node.attrs.get("axis") is None:
        dims = [d if d is not None else n for d in dims]
    else:
        dims = [d if d is not None else x.dim(i) for i, d in enumerate(dims)]
    g.line(f"{o} = {o}.reshape({shape_expr(dims)})")
    return [Val(o, aval)]


@emitter("outer")
def _outer(g, node, ins, outs):
    """``np.outer``: both operands flattened and cast to the result dtype, multiplied
    element by element (ints wrap, bools are ANDed, as NumPy's multiply loop)."""
    aval = node.outputs[0].aval
    T = np_type(aval.dtype)
    flat = []
    for x in ins:
        f = g.tmp("f")
        g.line(f"{f} = {contiguous(g, Val(to_array(g, x), x.aval, x.contig))}.reshape(-1)")
        flat.append(f)
    a, b = flat
    o = outs[0]
    g.line(f"{o} = np.empty(({a}.size, {b}.size), {T})")
    g.line(f"for _i in range({a}.size):")
    g.line(f"    for _j in range({b}.size):")
    g.line(f"        {o}[_i, _j] = {cast(f'{T}({a}[_i]) * {T}({b}[_j])', aval.dtype)}")
    return [Val(o, aval)]
