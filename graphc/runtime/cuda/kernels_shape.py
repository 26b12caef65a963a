"""Shape ops on the CUDA backend: free where the flat buffer does not change, else one
*affine copy* kernel.

Values are flat C-ordered buffers, so ``reshape``, ``expand_dims`` and ``squeeze`` are
the same buffer under another static shape (no launch). Every other rearrangement is
``dst[db + sum(c_d * ds_d)] = src[sb + sum(c_d * ss_d)]`` over the coordinates ``c`` of
an iteration shape, with literal bases and strides: ``transpose`` permutes the source
strides, ``broadcast_to`` reads with stride 0, ``flip`` with negative strides from the
far end, basic ``getitem`` (static ints, slices, ``None``, ``...``) starts at the
indexed element and steps by the slice steps; ``concatenate`` and ``stack`` run one copy
per operand into its slab of the result. Creation: ``full``/``full_like`` fill from a
0-d operand (an elementwise kernel), ``shape`` is a constant.
"""

from __future__ import annotations

import math

import numpy as np

from graphc.core.registry import get
from graphc.ir.graph import Aval
from graphc.runtime.cuda.kernels_elementwise import coord_lines, elementwise
from graphc.runtime.cuda.lowering import DVal, emitter, launch_1d, strides
from graphc.runtime.scalar_templates import Unsupported, cast, literal


def _affine(base, strides_, shape) -> str:
    """``base + sum(c_d * s_d)`` as source (dims of size 1 have coordinate 0)."""
    terms = [str(base)] if base else []
    terms += [f"c{d} * {s}" if s != 1 else f"c{d}"
              for d, (s, n) in enumerate(zip(strides_, shape)) if s and n != 1]
    return " + ".join(terms) or "0"


def copy(g, src: DVal, dst: str, shape, sb, ss, db=0, ds=None, dtype=None) -> None:
    """Launch ``dst[db + c.ds] = src[sb + c.ss]`` over ``shape`` (``ds``: C strides);
    ``dtype``: the destination's, when it is not the source's (each element converted)."""
    n = math.prod(shape)
    if not n:
        return
    ds = strides(shape) if ds is None else ds
    dims = range(len(shape))
    used = {d for d in dims if (ss[d] or ds[d]) and shape[d] != 1}
    contiguous = db == 0 and list(ds) == strides(shape)
    body = ["i = cuda.grid(1)", "st = cuda.gridsize(1)", f"while i < {n}:",
            *("    " + ln for ln in coord_lines(shape, used)),
            f"    o0[{'i' if contiguous else _affine(db, ds, shape)}] = "
            f"{_converted(f'a0[{_affine(sb, ss, shape)}]', src.aval.dtype, dtype)}",
            "    i += st"]
    dtype = src.aval.dtype if dtype is None else np.dtype(dtype)
    k = g.kernel(["a0", "o0"], [src.aval.dtype, dtype], body, *launch_1d(n))
    g.line(f"{k}({src.name}, {dst})")


def _converted(expr: str, src, dst) -> str:
    """``expr`` (an element of dtype ``src``) as a ``dst`` value (concatenating an int32
    and an int64 array writes int32 elements into an int64 result)."""
    if dst is None or np.dtype(dst) == np.dtype(src):
        return expr
    return cast(expr, dst)


@emitter("reshape", "expand_dims", "squeeze")
def _same_buffer(g, node, ins, outs):
    x, aval = ins[0], node.outputs[0].aval
    if node.attrs.get("order", "C") != "C" and (len(x.shape) > 1 or len(aval.shape) > 1):
        raise Unsupported("reshape in Fortran order")
    return [DVal(x.name, aval, x.lit)]


def _transpose_to(g, x, perm, aval, name):
    st = strides(x.shape)
    shape = [x.shape[p] for p in perm]
    val = g.alloc(name, aval)
    copy(g, x, name, shape, 0, [st[p] for p in perm])
    return [val]


@emitter("transpose")
def _transpose(g, node, ins, outs):
    x = ins[0]
    axes = node.attrs.get("axes")
    perm = list(range(len(x.shape)))[::-1] if axes is None else [a % len(x.shape) for a in axes]
    if perm == sorted(perm) or x.size <= 1:
        return [DVal(x.name, node.outputs[0].aval, x.lit)]
    return _transpose_to(g, x, perm, node.outputs[0].aval, outs[0])


@emitter("broadcast_to")
def _broadcast_to(g, node, ins, outs):
    x, aval = ins[0], node.outputs[0].aval
    shape = aval.shape
    off = len(shape) - len(x.shape)
    st = strides(x.shape)
    ss = [0] * off + [0 if n == 1 else s for n, s in zip(x.shape, st)]
    val = g.alloc(outs[0], aval)
    copy(g, x, outs[0], shape, 0, ss)
    return [val]


@emitter("flip")
def _flip(g, node, ins, outs):
    x, aval = ins[0], node.outputs[0].aval
    axis = node.attrs.get("axis")
    nd = len(x.shape)
    axes = range(nd) if axis is None else [a % nd for a in
                                           (axis if isinstance(axis, tuple) else (axis,))]
    st = strides(x.shape)
    ss = [-s if d in axes else s for d, s in enumerate(st)]
    base = sum((x.shape[d] - 1) * st[d] for d in axes if x.shape[d])
    val = g.alloc(outs[0], aval)
    copy(g, x, outs[0], x.shape, base, ss)
    return [val]


@emitter("getitem")
def _getitem(g, node, ins, outs):
    x, aval = ins[0], node.outputs[0].aval
    if len(ins) != 1:
        raise Unsupported("getitem with tensor-valued index parts")
    key = node.attrs["key"]
    nd = len(x.shape)
    st = strides(x.shape)
    used = sum(1 for e in key if e[0] in ("int", "slice"))
    base, ss, axis = 0, [], 0
    for tag, *rest in key:
        if tag == "int":
            i = rest[0]
            if not -x.shape[axis] <= i < x.shape[axis]:
                raise Unsupported(f"index {i} is out of bounds for axis {axis} (NumPy raises)")
            base += (i % x.shape[axis]) * st[axis]
            axis += 1
        elif tag == "slice":
            start, _stop, step = slice(*rest).indices(x.shape[axis])
            base += start * st[axis] if x.shape[axis] else 0
            ss.append(step * st[axis])
            axis += 1
        elif tag == "newaxis":
            ss.append(0)
        elif tag == "ellipsis":
            for _ in range(nd - used):
                ss.append(st[axis])
                axis += 1
        else:
            raise Unsupported(f"getitem with a {tag} index (ints, slices, None and ... run "
                              "as kernels)")
    ss += st[axis:]
    if base == 0 and ss == strides(aval.shape) and math.prod(aval.shape) == x.size:
        return [DVal(x.name, aval, x.lit)]
    val = g.alloc(outs[0], aval)
    copy(g, x, outs[0], aval.shape, base, ss)
    return [val]


@emitter("concatenate", "stack")
def _concatenate(g, node, ins, outs):
    aval = node.outputs[0].aval
    nd = len(aval.shape)
    axis = node.attrs.get("axis", 0) % max(nd, 1)
    if node.op.name == "concatenate" and node.attrs.get("axis", 0) is None:
        raise Unsupported("concatenate with axis=None")
    val = g.alloc(outs[0], aval)
    ds = strides(aval.shape)
    at = 0
    for x in ins:
        shape = list(x.shape)
        if node.op.name == "stack":
            shape.insert(axis, 1)
        st = strides(shape)
        copy(g, x, outs[0], shape, 0, st, at * ds[axis], ds, aval.dtype)
        at += shape[axis]
    return [val]


@emitter("full", "full_like")
def _full(g, node, ins, outs):
    aval = node.outputs[0].aval
    if node.op.name == "full":
        if len(ins) != 1:
            raise Unsupported("full with a run-time shape")
        value = DVal(ins[0].name, Aval((), ins[0].aval.dtype), ins[0].lit)
    else:
        lit = node.attrs.get("value")
        if not isinstance(lit, bool | int | float | np.generic):
            raise Unsupported(f"full_like with a {type(lit).__name__} value")
        dt = np.asarray(lit).dtype
        value = DVal("_unused", Aval((), dt), literal(lit, dt))
    step = (get("cast"), {}, [("in", 0)], Aval(aval.shape, aval.dtype))
    return elementwise(g, [value], [step], [0], outs)


@emitter("shape")
def _shape(g, node, ins, outs):
    aval = node.outputs[0].aval
    arr = np.asarray(ins[0].shape, aval.dtype).reshape(-1)
    g.consts.append(arr)
    g.line(f"{outs[0]} = ctx.consts[{len(g.consts) - 1}]")
    return [DVal(outs[0], aval)]



CONST_LIMIT = 1 << 20  # elements of a static range computed while generating


@emitter("arange", "linspace")
def _static_range(g, node, ins, outs):
    """Static bounds: NumPy's own result (its fill loop is exact only as NumPy builds
    it), computed while generating and sent to the device once per executor."""
    aval = node.outputs[0].aval
    if ins or math.prod(aval.shape) > CONST_LIMIT:
        raise Unsupported(f"{node.op.name} with run-time bounds or over {CONST_LIMIT} "
                          "elements")
    arr = np.ascontiguousarray(node.op.ref(**dict(node.attrs)))
    if arr.dtype != aval.dtype or arr.shape != tuple(aval.shape):
        raise Unsupported(f"{node.op.name}: the reference gives {arr.dtype}{arr.shape}")
    g.consts.append(arr.reshape(-1))
    g.line(f"{outs[0]} = ctx.consts[{len(g.consts) - 1}]")
    return [DVal(outs[0], aval)]
