"""Numba emitter for data-dependent indexing: ``getitem`` with advanced keys (integer
arrays, boolean masks, ``True``/``False``, tensor-valued ints and slice bounds), and the
small helpers the take family (``kernels_take.py``) and ``setitem`` share.

Numba does not bounds-check, so every index is checked before it is read (in the
``numba_helpers`` index helpers or inline); a bad one raises ``IndexError`` inside the
program and the executor reruns the interpreter, whose error names the node. Raising
where NumPy would not (an out-of-range index into an empty result) is harmless for the
same reason: the interpreter then returns NumPy's result.

Advanced ``getitem`` is two steps: the basic parts of the key (slices, ``None``, ints;
``:`` at each advanced axis) make a Numba view, then one loop over the broadcast index
shape ``B`` fills a ``(prod(B), *rest)`` array from that view. The result is that array
reshaped to ``B + rest`` (NumPy's layout when the advanced indices are separated) or,
when they are adjacent, a view of it moving ``B`` to their place.
"""

from __future__ import annotations

from graphc.ops.index_keys import _expand
from graphc.runtime.cpu.kernels import (
    Unsupported,
    Val,
    contiguous,
    emitter,
    np_type,
    out_dims,
    permuted,
    shape_expr,
    strided_view,
)
from graphc.runtime.cpu.kernels_shape import _getitem as _basic_getitem  # static basic keys
from graphc.runtime.cpu.kernels_shape import keeps_c

_FULL = ("slice", None, None, None)
def _prod(dims) -> str:
    return " * ".join(dims) if dims else "1"


def _dims(v: Val) -> list[str]:
    """Each dim of ``v`` as source: the static value, else read at run time."""
    return [str(d) if d is not None else v.dim(i) for i, d in enumerate(v.aval.shape)]


def _array(g, v: Val, shape: str) -> str:
    """``v`` (array or scalar) as a C-contiguous array reshaped to ``shape``."""
    if v.scalar:
        t = g.tmp("a")
        g.line(f"{t} = np.empty((1,), {np_type(v.aval.dtype)})")
        g.line(f"{t}[0] = {v.name}")
        return f"{t}.reshape({shape})"
    return f"{contiguous(g, v)}.reshape({shape})"


def _check_equal(g, a: str, b: str, error: str, what: str) -> None:
    if a != b:
        g.line(f"if {a} != {b}:")
        g.line(f"    raise {error}('{what}')")


# --------------------------------------------------------------------------- getitem
def _dynamic(key) -> bool:
    """Whether ``key`` has array, bool or tensor-valued parts (not basic and static)."""
    return any(e[0] in ("array", "bool") or (e[0] == "slice" and any(
        isinstance(p, tuple) for p in e[1:])) for e in key)


def _is_int(src: str) -> bool:
    return src.lstrip("-").isdigit()


def _checked_int(g, src: str, n: str, axis: int) -> str:
    if _is_int(src) and _is_int(n) and -int(n) <= int(src) < int(n):
        return str(int(src) % int(n))  # known in bounds: no run-time check
    t = g.tmp("i")
    # straight-line code and one test (Numba's compile time grows with the branches; a
    # helper call would cost more in a hot loop than these lines)
    g.line(f"{t} = np.int64({src})")
    g.line(f"{t} += {n} * ({t} < 0)")
    g.line(f"if np.uint64({t}) >= np.uint64({n}):")
    g.line(f"    raise IndexError('index out of bounds for axis {axis}')")
    return t


def _slice(g, bounds, idx) -> str:
    parts = []
    for p in bounds:
        if isinstance(p, tuple):  # ('in', k): a traced 0-d integer
            parts.append(g.tmp("s"))
            g.line(f"{parts[-1]} = np.int64({idx[p[1]].name})")
        else:
            parts.append("" if p is None else str(p))
    if isinstance(bounds[2], tuple):
        g.line(f"if {parts[2]} == 0:")
        g.line("    raise ValueError('slice step cannot be zero')")
    return ":".join(parts)


def _whole_mask(g, x, mask, aval, o) -> Val:
    """``x[mask]`` for a mask of ``x``'s shape: the selected elements in C order, one pass
    over both flattened (``H.mask_take``) instead of coordinates and a gather."""
    for d, (dm, dx) in enumerate(zip(_dims(mask), _dims(x), strict=True)):
        _check_equal(g, dm, dx, "IndexError",
                     f"boolean index did not match the indexed tensor along axis {d}")
    g.line(f"{o} = H.mask_take({contiguous(g, x)}.reshape(-1), "
           f"{contiguous(g, mask)}.reshape(-1))")
    return Val(o, aval)


@emitter("getitem")
def _getitem(g, node, ins, outs):
    """``x[key]``: static basic keys go to kernels_shape; see the module doc for the rest."""
    if not _dynamic(node.attrs["key"]):
        return _basic_getitem(g, node, ins, outs)
    x, idx, aval = ins[0], ins[1:], node.outputs[0].aval
    if x.scalar:
        raise Unsupported("getitem on a 0-d value with an array, bool or tensor-valued key")
    key = node.attrs["key"]
    only = idx[key[0][1]] if len(key) == 1 and key[0][0] == "array" else None
    if (only is not None and only.aval.dtype.kind == "b"
            and len(only.aval.shape) == len(x.aval.shape)):
        return [_whole_mask(g, x, only, aval, outs[0])]
    if only is not None and only.aval.dtype.kind in "iu" and len(x.aval.shape) == 1 == len(
            only.aval.shape):  # vector[indices]: one checked pass, no normalized copy
        g.line(f"{outs[0]} = H.take_1d({x.name}, {only.name})")
        return [Val(outs[0], aval)]
    key, advanced = _expand(key, [v.aval for v in node.inputs[1:]], len(x.aval.shape))
    xd = _dims(x)
    # parts: the view's index; groups: one per advanced key entry, (key position,
    # [(view axis, element source)], index shape); a source is a scalar name, (flat
    # int64 array,) or (coordinates, column)
    parts, groups, dim = [], [], 0
    for pos, e in enumerate(key):
        tag = e[0]
        a = idx[e[1]] if tag == "array" else None
        if tag == "ellipsis":
            continue  # spelled out by _expand (it still separates advanced indices)
        if tag == "newaxis":
            parts.append("None")
        elif tag == "slice":
            parts.append(":" if e == _FULL else _slice(g, e[1:], idx))
            dim += 1
        elif tag == "int" or (a is not None and a.scalar and a.aval.dtype.kind != "b"):
            t = _checked_int(g, str(e[1]) if a is None else a.name, xd[dim], dim)
            if advanced:  # NumPy: an int beside index arrays is a 0-d index array
                groups.append((pos, [(len(parts), t)], []))
            parts.append(":" if advanced else t)
            dim += 1
        elif tag == "bool" or a.scalar:  # True/False: a new axis indexed by [0] or []
            t = g.tmp("z")
            n = str(int(e[1])) if tag == "bool" else f"(1 if {a.name} else 0)"
            g.line(f"{t} = np.zeros({n}, np.int64)")
            groups.append((pos, [(len(parts), (t,))], [f"{t}.shape[0]"]))
            parts.append("None")
        elif a.aval.dtype.kind == "b":  # a mask: the coordinates of its True elements
            r = len(a.aval.shape)
            for d, da in enumerate(_dims(a)):
                _check_equal(g, da, xd[dim + d], "IndexError",
                             "boolean index did not match the indexed tensor")
            c = g.tmp("c")
            g.line(f"{c} = H.argwhere({a.name})")
            groups.append((pos, [(len(parts) + d, (c, d)) for d in range(r)],
                           [f"{c}.shape[0]"]))
            parts += [":"] * r
            dim += r
        else:  # an integer index array, checked and made non-negative
            c = g.tmp("c")
            g.line(f"{c} = H.index_norm({a.name}, {xd[dim]})")
            groups.append((pos, [(len(parts), (c,))], _dims(a)))
            parts.append(":")
            dim += 1
    view = x.name
    if any(p != ":" for p in parts):
        view = g.tmp("w") if advanced else outs[0]
        g.line(f"{view} = {x.name}[{', '.join(parts)},]")
    if not advanced:  # runtime ints and slice bounds only: a view
        if (view == x.name and x.contig) or keeps_c(x, parts):
            return [Val(view, aval)]
        return [strided_view(x, view, aval)]  # x[:, i:]: H.vecmat_view reads its rows
    return _gather_view(g, aval, outs[0], view, len(parts), groups)


def _gather_view(g, aval, name, view, vrank, groups):
    """The advanced part: one loop over the broadcast index shape."""
    bshape = _broadcast(g, [s for _, _, s in groups])
    adv = {ax: src for _, axes, _ in groups for ax, src in axes}
    for _, axes, shape in groups:  # sources whose shape is not B's: broadcast, flatten
        for ax, src in axes:
            if shape and shape != bshape:
                f = g.tmp("f")
                arr = src[0] if len(src) == 1 else f"{src[0]}[:, {src[1]}]"
                if len(src) == 1:
                    arr = f"{arr}.reshape({shape_expr(shape)})"
                g.line(f"{f} = np.broadcast_to({arr}, {shape_expr(bshape)}).copy().reshape(-1)")
                adv[ax] = (f,)
    rest_axes = [ax for ax in range(vrank) if ax not in adv]
    rest = [f"{view}.shape[{ax}]" for ax in rest_axes]
    j, r, nb = g.tmp("j"), g.tmp("r"), _prod(bshape)
    g.line(f"{r} = np.empty({shape_expr([nb] + rest)}, {np_type(aval.dtype)})")
    # scalar loads and stores only: an array-valued ``r[j] = view[...]`` costs ~3 s of
    # Numba compile time per process (measured)
    g.line(f"for {j} in range({nb}):")
    elem = {}
    for ax, src in adv.items():
        if isinstance(src, tuple):
            elem[ax] = g.tmp("e")
            at = f"{j}" if len(src) == 1 else f"{j}, {src[1]}"
            g.line(f"    {elem[ax]} = {src[0]}[{at}]")
        else:
            elem[ax] = src
    loops = [g.tmp("k") for _ in rest_axes]
    for d, (k, ax) in enumerate(zip(loops, rest_axes)):
        g.line("    " * (d + 1) + f"for {k} in range({r}.shape[{d + 1}]):")
        elem[ax] = k
    g.line("    " * (len(loops) + 1) + f"{r}[{', '.join([j, *loops])}] = "
           f"{view}[{', '.join(elem[ax] for ax in range(vrank))}]")
    if len(aval.shape) != len(bshape) + len(rest):  # infer and this disagree
        raise Unsupported("getitem: unexpected result rank")
    positions = [pos for pos, _, _ in groups]
    first = min(adv)
    at = sum(1 for ax in range(first) if ax not in adv)  # rest axes before the indices
    if positions[-1] - positions[0] != len(groups) - 1 or at == 0:  # B first (NumPy)
        g.line(f"{name} = {r}.reshape({shape_expr(out_dims(aval, bshape + rest))})")
        return [Val(name, aval)]
    nbr, nr = len(bshape), len(rest)
    front = bshape + rest
    f = g.tmp("r")
    g.line(f"{f} = {r}.reshape({shape_expr(front)})")
    perm = [*range(nbr, nbr + at), *range(nbr), *range(nbr + at, nbr + nr)]
    g.line(f"{name} = {permuted(f, perm)}")
    return [Val(name, aval, contig=False)]


def _broadcast(g, shapes) -> list[str]:
    """The broadcast of index shapes (lists of dim sources), checked at run time."""
    nb = max(len(s) for s in shapes)
    out = []
    for p in range(nb):
        srcs = list(dict.fromkeys(s[len(s) - nb + p] for s in shapes if len(s) - nb + p >= 0))
        if len(srcs) == 1:
            out.append(srcs[0])
            continue
        b = g.tmp("b")
        g.line(f"{b} = 1")
        for s in srcs:
            g.line(f"if {s} != 1:")
            g.line(f"    if {b} != 1 and {b} != {s}:")
            g.line("        raise IndexError('shape mismatch: indexing arrays could not be "
                   "broadcast together')")
            g.line(f"    {b} = {s}")
        out.append(b)
    return out
