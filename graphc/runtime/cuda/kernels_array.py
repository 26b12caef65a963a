"""Array ops on the CUDA backend: scans, ``split``, ``tile``, ``repeat``, ``outer``, ``eye``,
``pad``.

``cumsum``/``cumprod`` run one thread per line along the axis, scanning sequentially in
the result dtype: NumPy's own order, so results are exact (ints wrap the same way).
``split`` is one affine copy per piece; ``tile`` reads source coordinate ``c % n`` in each
dim and ``repeat`` (one count) ``c // r`` along its axis, one grid-stride kernel each;
``outer`` is an elementwise ``multiply`` of a column and a row; ``eye`` a fill kernel;
``pad`` maps each output coordinate to its source one (constant, edge, wrap, reflect,
symmetric; any width) in one kernel.
"""

from __future__ import annotations

import math

import numpy as np

from graphc.core.registry import get
from graphc.ir.graph import Aval
from graphc.runtime.cuda.kernels_elementwise import coord_lines, elementwise
from graphc.runtime.cuda.kernels_shape import copy
from graphc.runtime.cuda.lowering import DVal, emitter, grid_stride, launch_1d, strides
from graphc.runtime.scalar_templates import Unsupported, cast, literal


def _line_kernel(g, x, out, outs, axis, lines_body):
    """One thread per line along ``axis`` (the other coordinates from ``i``): ``p`` the
    index before the axis, ``q`` after it, ``n`` the axis length; ``lines_body`` runs once
    per line with ``base`` its first offset and ``step`` the stride along the axis."""
    shape = x.shape
    n, post = shape[axis], math.prod(shape[axis + 1:])
    lines = math.prod(shape) // max(n, 1)
    body = ["i = cuda.grid(1)", "st = cuda.gridsize(1)", f"while i < {lines}:",
            f"    base = (i // {post}) * {n * post} + i % {post}",
            *("    " + ln for ln in lines_body), "    i += st"]
    val = g.alloc(outs[0], out)
    if lines and n:
        k = g.kernel(["a0", "o0"], [x.aval.dtype, out.dtype], body, *launch_1d(lines))
        g.line(f"{k}({x.name}, {outs[0]})")
    return [val]


@emitter("cumsum", "cumprod")
def _scan(g, node, ins, outs):
    """A sequential scan per line in the result dtype: NumPy's order, so exact."""
    x, out = ins[0], node.outputs[0].aval
    axis = node.attrs.get("axis")
    if not x.shape:
        raise Unsupported("a scan of a 0-d value")
    if axis is None:
        x = DVal(x.name, Aval((x.size,), x.aval.dtype))
        axis = 0
    axis %= len(x.shape)
    post = math.prod(x.shape[axis + 1:])
    op = "+" if node.op.name == "cumsum" else "*"
    acc = cast("a0[base]", out.dtype)
    elem = cast(f"a0[base + j * {post}]", out.dtype)
    body = [f"acc = {acc}", "o0[base] = acc", f"for j in range(1, {x.shape[axis]}):",
            f"    acc = {cast(f'acc {op} {elem}', out.dtype)}",
            f"    o0[base + j * {post}] = acc"]
    return _line_kernel(g, x, out, outs, axis, body)


@emitter("split")
def _split(g, node, ins, outs):
    x = ins[0]
    axis = node.attrs.get("axis", 0) % len(x.shape)
    st = strides(x.shape)
    at, vals = 0, []
    for name, v in zip(outs, node.outputs):
        shape = v.aval.shape
        vals.append(g.alloc(name, v.aval))
        copy(g, x, name, shape, at * st[axis], st)
        at += shape[axis]
    return vals


@emitter("tile", "repeat")
def _tile_repeat(g, node, ins, outs):
    """``tile``: source coordinate ``c % n`` per dim; ``repeat`` (one count): ``c // r``
    along the axis (the flattened array when ``axis`` is None)."""
    x, out = ins[0], node.outputs[0].aval
    if node.op.name == "repeat":
        r, axis = node.attrs.get("repeats"), node.attrs.get("axis")
        if not isinstance(r, int):
            raise Unsupported("repeat with per-element counts")
        shape = (x.size,) if axis is None else x.shape
        axis = 0 if axis is None else axis % len(shape)
        src = [f"(c{d} // {r})" if d == axis else f"c{d}" for d in range(len(shape))]
    else:
        shape = (1,) * (len(out.shape) - len(x.shape)) + tuple(x.shape)
        src = [f"(c{d} % {n})" if n > 1 else "0" for d, n in enumerate(shape)]
    st = strides(shape)
    index = " + ".join(f"{s} * {m}" for s, m, n in zip(src, st, shape) if n > 1) or "0"
    n = math.prod(out.shape)
    used = {d for d in range(len(out.shape)) if out.shape[d] > 1}
    body = [*coord_lines(out.shape, used), f"o0[i] = a0[{index}]"]
    return [grid_stride(g, n, body, [x], outs[0], out)]


@emitter("outer")
def _outer(g, node, ins, outs):
    """``multiply`` of ``a`` as a column and ``b`` as a row (NumPy's ``multiply.outer``)."""
    a, b = ins
    out = node.outputs[0].aval
    col = DVal(a.name, Aval((a.size, 1), a.aval.dtype), a.lit)
    row = DVal(b.name, Aval((1, b.size), b.aval.dtype), b.lit)
    step = (get("multiply"), {}, [("in", 0), ("in", 1)], out)
    return elementwise(g, [col, row], [step], [0], outs)


@emitter("eye")
def _eye(g, node, ins, outs):
    out = node.outputs[0].aval
    n = math.prod(out.shape)
    m, k = out.shape[1], node.attrs.get("k", 0)
    one, zero = literal(1, out.dtype), literal(0, out.dtype)
    body = [f"o0[i] = {one} if i % {m} - i // {m} == {k} else {zero}"]
    return [grid_stride(g, n, body, [], outs[0], out)]


def _pad_source(mode, d, b, n) -> list[str]:
    """Statements setting ``j{d}``, the source coordinate of output coordinate ``c{d}``
    along a dim of length ``n`` padded by ``b`` before (NumPy's modes, any width)."""
    j = f"j{d}"
    lines = [f"{j} = c{d} - {b}"]
    if mode == "edge":
        lines.append(f"{j} = min(max({j}, 0), {n - 1})")
    elif mode == "wrap":
        lines.append(f"{j} = {j} % {n}")
    elif mode == "reflect":  # mirror without repeating the edge: period 2n - 2
        if n == 1:
            return [f"{j} = 0"]
        lines += [f"{j} = {j} % {2 * n - 2}", f"if {j} >= {n}:", f"    {j} = {2 * n - 2} - {j}"]
    elif mode == "symmetric":  # mirror repeating the edge: period 2n
        lines += [f"{j} = {j} % {2 * n}", f"if {j} >= {n}:", f"    {j} = {2 * n - 1} - {j}"]
    return lines


@emitter("pad")
def _pad(g, node, ins, outs):
    x, out = ins[0], node.outputs[0].aval
    mode = node.attrs.get("mode", "constant")
    value = node.attrs.get("constant_values", 0)
    if len(ins) != 1:
        raise Unsupported("pad with run-time widths")
    if mode not in ("constant", "edge", "wrap", "reflect", "symmetric"):
        raise Unsupported(f"pad mode {mode!r}")
    if mode == "constant" and not isinstance(value, bool | int | float | np.generic):
        raise Unsupported("pad with per-axis constants")
    if not x.shape or x.size == 0:
        raise Unsupported("pad of an empty or 0-d array")
    widths = node.attrs["pad_width"]
    st = strides(x.shape)
    body, inside = [], []
    for d, (n, (b, _a)) in enumerate(zip(x.shape, widths)):
        body += _pad_source(mode, d, b, n)
        inside.append(f"j{d} >= 0 and j{d} < {n}")
    src = " + ".join(f"j{d} * {s}" for d, s in enumerate(st))
    if mode == "constant":
        body += [f"if {' and '.join(inside)}:", f"    o0[i] = a0[{src}]", "else:",
                 f"    o0[i] = {literal(value, out.dtype)}"]
    else:
        body.append(f"o0[i] = a0[{src}]")
    coords = coord_lines(out.shape, set(range(len(out.shape))))
    return [grid_stride(g, math.prod(out.shape), coords + body, [x], outs[0], out)]
