"""Numba emitters for shape, creation and static-indexing ops (reshape, transpose,
broadcast_to, full, eye, shape, flip, getitem); see ``kernels.py``.

``reshape``, ``broadcast_to`` and ``full`` with a run-time shape (a 1-D int64 operand,
``ops/shape_args.py``) read their dims from it (:func:`operand_dims`), so they compile
whenever the result's rank is known."""

from __future__ import annotations

import numpy as np

from graphc.core.shapes import normalize_axes
from graphc.runtime.cpu.kernels import (
    FortranVal,
    Unsupported,
    Val,
    WindowVal,
    cast,
    emitter,
    literal,
    np_type,
    permuted,
    reshape_to,
    shape_expr,
    strided_view,
    to_array,
)


def operand_dims(g, s: Val, template, what: str) -> list[str]:
    """Source for each dim of a shape read at run time from the 1-D int operand ``s``
    (dims the template knows are literals); a negative dim raises ``ValueError`` as the
    op's ``ref`` does. A shape of unknown length (a result of unknown rank) has no
    Numba type: ``Unsupported``."""
    if template is None:
        raise Unsupported(f"{what} with a shape tensor of unknown length: result of "
                          "unknown rank")
    dims = []
    for j, d in enumerate(template):
        if d is not None:
            dims.append(str(d))
            continue
        v = g.tmp("d")
        g.line(f"{v} = {s.name}[{j}]")
        g.line(f"if {v} < 0:")
        g.line(f"    raise ValueError('{what}: negative dimension in the shape; dims must "
               "be >= 0')")
        dims.append(v)
    return dims


def _reshape_dims(g, x: Val, s: Val, template) -> list[str]:
    """Run-time reshape dims: entries read from ``s`` (each may be -1), the one -1
    resolved from ``x``'s size, errors as NumPy's (more than one -1, negative dims,
    sizes that do not fit)."""
    if template is None:
        raise Unsupported("reshape to a shape tensor of unknown length: result of unknown "
                          "rank")
    size = "1" if x.scalar else f"{x.name}.size"
    neg, prod = g.tmp("neg"), g.tmp("p")
    static = [d for d in template if d is not None and d != -1]
    g.line(f"{neg} = {template.index(-1) if -1 in template else -1}")
    g.line(f"{prod} = {int(np.prod(static, dtype=np.int64))}")
    raw = {}
    for j, d in enumerate(template):
        if d is not None:
            continue
        v = raw[j] = g.tmp("d")
        g.line(f"{v} = {s.name}[{j}]")
        g.line(f"if {v} == -1:")
        g.line(f"    if {neg} >= 0:")
        g.line("        raise ValueError('reshape: can only specify one unknown dimension')")
        g.line(f"    {neg} = {j}")
        g.line(f"elif {v} < 0:")
        g.line("    raise ValueError('reshape: negative dimension in the shape')")
        g.line("else:")
        g.line(f"    {prod} *= {v}")
    fill = g.tmp("fill")
    g.line(f"{fill} = 0")
    g.line(f"if {neg} >= 0:")
    g.line(f"    if {prod} == 0 or {size} % {prod} != 0:")
    g.line("        raise ValueError('reshape: cannot reshape the tensor into this shape')")
    g.line(f"    {fill} = {size} // {prod}")
    g.line(f"elif {prod} != {size}:")
    g.line("    raise ValueError('reshape: cannot reshape the tensor into this shape')")
    dims = []
    for j, d in enumerate(template):
        if d == -1:
            dims.append(fill)
        elif d is not None:
            dims.append(str(d))
        else:
            g.line(f"if {neg} == {j}:")
            g.line(f"    {raw[j]} = {fill}")
            dims.append(raw[j])
    return dims


@emitter("reshape")
def _reshape(g, node, ins, outs):
    x = ins[0]
    shape = node.attrs["shape"]
    if node.attrs.get("order", "C") != "C":
        raise Unsupported("reshape with order='F'")
    if len(ins) > 1:  # run-time shape
        dims = _reshape_dims(g, x, ins[1], shape)
    else:
        dims = [str(d) for d in shape]
    return [reshape_to(g, x, node.outputs[0].aval, dims, outs[0])]


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
    if perm == (1, 0) and x.contig:   # a matrix transpose: F-contiguous, BLAS-ready
        return [FortranVal(outs[0], node.outputs[0].aval, contig=False)]
    return [Val(outs[0], node.outputs[0].aval, contig=False)]


@emitter("broadcast_to")
def _broadcast_to(g, node, ins, outs):
    x, aval = ins[0], node.outputs[0].aval
    if len(ins) > 1:  # run-time shape
        dims = operand_dims(g, ins[1], node.attrs["shape"], "broadcast_to")
    else:
        dims = [str(d) for d in node.attrs["shape"]]
    if not aval.shape:
        g.line(f"{outs[0]} = {x.name}")
        return [Val(outs[0], aval)]
    g.line(f"{outs[0]} = np.broadcast_to({to_array(g, x)}, {shape_expr(dims)})")
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
    if len(ins) > 1:  # ``full`` with a run-time shape
        dims = operand_dims(g, ins[1], node.attrs["shape"], "full")
    else:  # ``full_like``: a dim unknown while tracing is the input's at run time
        dims = [str(d) if d is not None else f"{ins[0].name}.shape[{k}]"
                for k, d in enumerate(aval.shape)]
    if not aval.shape:
        g.line(f"{outs[0]} = {value}")
        return [Val(outs[0], aval)]
    g.line(f"{outs[0]} = np.full({shape_expr(dims)}, {value}, {np_type(aval.dtype)})")
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


def basic_index(g, x: Val, key, what: str, newaxis: bool = True) -> list[str]:
    """The Numba index parts of a static basic key (ints, literal slices, ``None``,
    ``...``), each int checked against its dim as NumPy checks it."""
    nd = len(x.aval.shape)
    used = sum(1 for e in key if e[0] in ("int", "slice"))
    parts, axis = [], 0
    for tag, *rest in key:
        if tag == "int":
            i, d = rest[0], x.aval.shape[axis]
            if d is None or not -d <= i < d:  # a static dim in bounds needs no check
                g.line(f"if not -{x.dim(axis)} <= {i} < {x.dim(axis)}:")
                g.line(f"    raise IndexError('index {i} is out of bounds for axis {axis}')")
            parts.append(str(i))
            axis += 1
        elif tag == "slice":
            if any(isinstance(p, tuple) for p in rest):
                raise Unsupported(f"{what} with a tensor-valued slice bound")
            parts.append(":".join("" if p is None else str(p) for p in rest))
            axis += 1
        elif tag == "newaxis" and newaxis:
            parts.append("None")
        elif tag == "ellipsis":
            parts.append("...")
            axis += nd - used
        else:
            raise Unsupported(f"{what} with a {tag} index (only ints, slices, None and "
                              "... are compiled so far)")
    return parts


def keeps_c(x, parts) -> bool:
    """Whether Numba types the view ``x[parts]`` C-contiguous, by Numba's own rule: ``x``
    is, and every index part but the last is an int, the last an int or a slice without
    a step (``i, :n``, ``1:-1``; ``::1`` has one; ``None`` and ``...`` are not looked
    at). Flat loops and free reshapes of the view then compile."""
    if not x.contig or not parts or any(p in ("None", "...") for p in parts):
        return False
    *outer, last = parts
    no_step = last.count(":") <= 1 or (last.count(":") == 2 and last.endswith(":"))
    return no_step and all(":" not in p for p in outer)


@emitter("getitem")
def _getitem(g, node, ins, outs):
    """Basic indexing with static keys (ints, slices with int/None bounds, ``None``,
    ``...``): a Numba view, each int checked against its dim as NumPy does. Array,
    bool and tensor-valued parts of a key are not compiled yet."""
    x, aval = ins[0], node.outputs[0].aval
    key = node.attrs["key"]
    if x.scalar:
        raise Unsupported("getitem on a 0-d value")
    parts = basic_index(g, x, key, "getitem")
    if not parts:
        g.line(f"{outs[0]} = {x.name}")
        return [Val(outs[0], aval, x.contig)]
    index = ", ".join(parts) + ("," if len(parts) == 1 else "")
    g.line(f"{outs[0]} = {x.name}[{index}]")
    if keeps_c(x, parts):
        return [Val(outs[0], aval)]
    return [window_of(x, key, outs[0], aval) or strided_view(x, outs[0], aval)]


def window_of(x: Val, key, name, aval):
    """``x[key]`` named ``name`` as a :class:`WindowVal` when every part of ``key`` is a
    step-1 slice with literal bounds (missing trailing parts: whole dims) and ``x`` is a
    C-contiguous array of static shape, or a window of one; else None."""
    shape = x.aval.shape
    base = x if x.contig else x if isinstance(x, WindowVal) else None
    if base is None or len(shape) < 2 or len(key) > len(shape) or None in shape:
        return None
    starts = []
    for d, e in enumerate(key + (("slice", None, None, None),) * (len(shape) - len(key))):
        tag, *bounds = e
        if tag != "slice" or any(isinstance(b, tuple) for b in bounds) \
                or bounds[2] not in (None, 1):
            return None
        starts.append(slice(*bounds).indices(shape[d])[0])
    if isinstance(x, WindowVal):
        return WindowVal(name, aval, x.base, [a + b for a, b in zip(x.starts, starts)],
                         x.base_shape)
    return WindowVal(name, aval, x.name, starts, shape)
