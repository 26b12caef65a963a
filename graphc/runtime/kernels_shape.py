"""Numba emitters for shape, creation and static-indexing ops (reshape, transpose,
broadcast_to, full, eye, concatenate/stack, shape, flip, getitem); see ``kernels.py``."""

from __future__ import annotations

from graphc.ops.shapes import normalize_axes
from graphc.runtime.kernels import (
    Unsupported,
    Val,
    cast,
    emitter,
    literal,
    np_type,
    permuted,
    reshape_to,
    shape_expr,
    to_array,
)


@emitter("reshape")
def _reshape(g, node, ins, outs):
    x = ins[0]
    shape = node.attrs["shape"]
    if node.attrs.get("order", "C") != "C":
        raise Unsupported("reshape with order='F'")
    return [reshape_to(g, x, node.outputs[0].aval, [str(d) for d in shape], outs[0])]


@emitter("expand_dims", "squeeze")
def _reshape_like(g, node, ins, outs):
    x, aval = ins[0], node.outputs[0].aval
    # map each output dim to an input dim (the non-1 ones keep their order)
    src = [i for i, d in enumerate(x.aval.shape) if not (node.op.name == "squeeze"
                                                        and _squeezed(node, x, i))]
    dims, it = [], iter(src)
    for d in aval.shape:
        if node.op.name == "expand_dims" and d == 1 and _is_new_axis(node, aval, len(dims)):
            dims.append("1")
        else:
            dims.append(x.dim(next(it)))
    return [reshape_to(g, x, aval, dims, outs[0])]


def _squeezed(node, x, i):
    axis = node.attrs.get("axis")
    if axis is None:
        return x.aval.shape[i] == 1
    return i in normalize_axes(axis, len(x.aval.shape))


def _is_new_axis(node, aval, i):
    return i in normalize_axes(node.attrs["axis"], len(aval.shape))


@emitter("transpose")
def _transpose(g, node, ins, outs):
    x = ins[0]
    if x.scalar:
        g.line(f"{outs[0]} = {x.name}")
        return [Val(outs[0], x.aval)]
    axes = node.attrs.get("axes")
    n = len(x.aval.shape)
    perm = tuple(range(n))[::-1] if axes is None else tuple(a % n for a in axes)
    if perm == tuple(range(n)):
        g.line(f"{outs[0]} = {x.name}")
        return [Val(outs[0], node.outputs[0].aval, x.contig)]
    g.line(f"{outs[0]} = {permuted(x.name, perm)}")
    return [Val(outs[0], node.outputs[0].aval, contig=False)]


@emitter("broadcast_to")
def _broadcast_to(g, node, ins, outs):
    x, aval = ins[0], node.outputs[0].aval
    if not aval.shape:
        g.line(f"{outs[0]} = {x.name}")
        return [Val(outs[0], aval)]
    shape = shape_expr([str(d) for d in node.attrs["shape"]])
    g.line(f"{outs[0]} = np.broadcast_to({to_array(g, x)}, {shape})")
    return [Val(outs[0], aval, contig=False)]


@emitter("full", "full_like")
def _full(g, node, ins, outs):
    """The fill value is the ``value`` attr when there is one (``full_like``; the input
    then only gives the shape), else ``full``'s rank-0 tensor input."""
    aval = node.outputs[0].aval
    if "value" in node.attrs:
        value = literal(node.attrs["value"], aval.dtype)
    elif ins[0].scalar:
        value = cast(ins[0].name, aval.dtype)
    else:
        raise Unsupported("full with a non-scalar fill value")
    if not aval.shape:
        g.line(f"{outs[0]} = {value}")
        return [Val(outs[0], aval)]
    shape = shape_expr([str(d) for d in aval.shape])
    g.line(f"{outs[0]} = np.full({shape}, {value}, {np_type(aval.dtype)})")
    return [Val(outs[0], aval)]


@emitter("eye")
def _eye(g, node, ins, outs):
    a = node.attrs
    aval = node.outputs[0].aval
    m = a["N"] if a["M"] is None else a["M"]
    g.line(f"{outs[0]} = np.zeros(({a['N']}, {m}), {np_type(aval.dtype)})")
    g.line(f"for _i in range(max(0, -{a['k']}), min({a['N']}, {m} - {a['k']})):")
    g.line(f"    {outs[0]}[_i, _i + {a['k']}] = 1")
    return [Val(outs[0], aval)]


@emitter("concatenate", "stack")
def _join(g, node, ins, outs):
    aval = node.outputs[0].aval
    parts = []
    for x in ins:
        arr = to_array(g, x)
        if x.aval.dtype != aval.dtype:
            arr = f"{arr}.astype({np_type(aval.dtype)})"
        parts.append(arr)
    fn = "np.concatenate" if node.op.name == "concatenate" else "np.stack"
    axis = node.attrs.get("axis", 0)
    g.line(f"{outs[0]} = {fn}(({', '.join(parts)},), {axis})")
    return [Val(outs[0], aval)]



@emitter("shape")
def _shape(g, node, ins, outs):
    """``tf.shape``: the input's dims (read at run time) as a 1-d array."""
    x, aval = ins[0], node.outputs[0].aval
    nd = len(x.aval.shape)
    g.line(f"{outs[0]} = np.empty({nd}, {np_type(aval.dtype)})")
    for i in range(nd):
        g.line(f"{outs[0]}[{i}] = {x.dim(i)}")
    return [Val(outs[0], aval)]


@emitter("flip")
def _flip(g, node, ins, outs):
    """``np.flip``: a view with negative-step slices on the flipped axes."""
    x, aval = ins[0], node.outputs[0].aval
    if x.scalar:
        g.line(f"{outs[0]} = {x.name}")
        return [Val(outs[0], aval)]
    nd = len(x.aval.shape)
    axes = set(normalize_axes(node.attrs.get("axis"), nd))
    index = ", ".join("::-1" if i in axes else ":" for i in range(nd))
    g.line(f"{outs[0]} = {x.name}[{index}]")
    return [Val(outs[0], aval, contig=not axes and x.contig)]


@emitter("getitem")
def _getitem(g, node, ins, outs):
    """Basic indexing with static keys (ints, slices with int/None bounds, ``None``,
    ``...``): a Numba view, each int checked against its dim as NumPy does. Array,
    bool and tensor-valued parts of a key are not compiled yet."""
    x, aval = ins[0], node.outputs[0].aval
    key = node.attrs["key"]
    if x.scalar:
        raise Unsupported("getitem on a 0-d value")
    nd = len(x.aval.shape)
    used = sum(1 for e in key if e[0] in ("int", "slice"))
    parts, axis = [], 0
    for tag, *rest in key:
        if tag == "int":
            i = rest[0]
            g.line(f"if not -{x.dim(axis)} <= {i} < {x.dim(axis)}:")
            g.line(f"    raise IndexError('index {i} is out of bounds for axis {axis}')")
            parts.append(str(i))
            axis += 1
        elif tag == "slice":
            if any(isinstance(p, tuple) for p in rest):
                raise Unsupported("getitem with a tensor-valued slice bound")
            parts.append(":".join("" if p is None else str(p) for p in rest))
            axis += 1
        elif tag == "newaxis":
            parts.append("None")
        elif tag == "ellipsis":
            parts.append("...")
            axis += nd - used
        else:
            raise Unsupported(f"getitem with a {tag} index (only ints, slices, None and "
                              "... are compiled so far)")
    if not parts:
        g.line(f"{outs[0]} = {x.name}")
        return [Val(outs[0], aval, x.contig)]
    index = ", ".join(parts) + ("," if len(parts) == 1 else "")
    g.line(f"{outs[0]} = {x.name}[{index}]")
    return [Val(outs[0], aval, contig=False)]
