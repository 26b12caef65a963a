"""Numba emitter for ``setitem`` (``t[key] = v``, functionalized: ``docs/mutation.md``).

The result is a copy of ``t`` with the indexed region written, for basic keys (ints,
slices, ``...``; slice bounds and scalar indices may be run-time values, as in a staged
loop's ``A[i, :i] = ...``): ``out = t.copy(); out[index] = v``, Numba broadcasting
``v`` over the region and converting it to ``t``'s dtype as NumPy does. Each index is
checked against its dim as NumPy checks it.

A key of one mask (``x[x > 0] = v``: a bool array over the leading dims of ``x``), one
integer index array (``x[idx] = v``, on the first axis) or several of one shape on the
leading axes (``x[i, j] = v``: row ``i * d1 + j``) is a loop over the rows of ``x``
seen as (rows, inner) (``H.mask_assign``, ``H.take_assign``), ``v`` broadcast to the
indexed rows first as NumPy broadcasts it (a mismatch is NumPy's ``ValueError``). Other
keys with index arrays, masks or ``None`` are not compiled yet: the node runs between
compiled segments (``runtime/fallback.py``).
"""

from __future__ import annotations

from graphc.runtime.cpu.kernels import (
    Unsupported,
    Val,
    WindowVal,
    cast,
    contiguous,
    emitter,
    np_type,
    shape_expr,
)
from graphc.runtime.cpu.kernels_index import _check_equal, _checked_int, _dims, _slice
from graphc.runtime.cpu.kernels_shape import basic_index, window_of


@emitter("setitem")
def _setitem(g, node, ins, outs):
    x, v, aval = ins[0], ins[1], node.outputs[0].aval
    key = node.attrs["key"]
    if x.scalar:
        raise Unsupported("setitem on a 0-d value")
    arrays = _array_key(key, ins[2:])
    if arrays:
        return [_advanced(g, node, x, v, arrays, outs[0])]
    if len(ins) > 2:
        parts = _run_time_index(g, x, key, ins[2:])
    else:
        parts = basic_index(g, x, key, "setitem", newaxis=False)
    nd = len(x.aval.shape)
    region = nd - sum(1 for e in key if e[0] in ("int", "array"))
    element = region == 0 and "..." not in parts
    if v.scalar:
        value = cast(v.name, aval.dtype)
    elif element or len(v.aval.shape) > region:
        raise Unsupported("setitem of an array into a region of lower rank (not compiled "
                          "yet)")
    elif v.aval.dtype != aval.dtype:
        value = f"{v.name}.astype({np_type(aval.dtype)})"
    elif node in g.ownership.copy_value:  # a view of the buffer written in place
        value = f"{v.name}.copy()"
    else:
        value = v.name
    if node in g.ownership.in_place:  # nobody sees the old contents (ownership.py)
        g.line(f"{outs[0]} = {x.name}")
        result = Val(outs[0], aval, x.contig)
    else:
        g.line(f"{outs[0]} = {x.name}.copy()")
        result = Val(outs[0], aval)  # .copy() is C-contiguous
    if node not in g.stored:  # else the value's loop wrote the region already
        index = ", ".join(parts) if parts else "..."
        g.line(f"{outs[0]}[{index}] = {value}")
    return [result]


def region(g, maker, node) -> None:
    """Bind ``maker``'s result (an elementwise loop's) to the view ``x[key]`` of the
    buffer the in-place ``setitem`` ``node`` writes, so the loop stores there directly
    and ``node`` only names the buffer (``ownership.Ownership.into_region``)."""
    x = g.vals[node.inputs[0].id]
    parts = basic_index(g, x, node.attrs["key"], "setitem", newaxis=False)
    name = g._var(maker.outputs[0])
    g.line(f"{name} = {x.name}[{', '.join(parts) if parts else '...'}]")
    g.regions.add(name)
    window = window_of(x, node.attrs["key"], name, maker.outputs[0].aval)
    if window is not None:  # the loop writes rows of x's buffer (loop_shapes._row_loop)
        g.windows[name] = window
    reads = g.ownership.region_reads.get(maker, ())
    if reads:
        g.reads_region.add(name)
    for v in maker.inputs:
        if v.id in reads and window is not None:  # read through the rows it writes
            g.vals[v.id] = WindowVal(g.vals[v.id].name, v.aval, window.base, window.starts,
                                     window.base_shape)
        elif v.id in g.ownership.snapshots.get(maker, ()):  # another view of the buffer:
            copy = g.tmp("snap")                            # its values before the loop
            g.line(f"{copy} = {g.vals[v.id].name}.copy()")
            g.vals[v.id] = Val(copy, v.aval)
    g.stored.add(node)


def _run_time_index(g, x, key, idx) -> list[str]:
    """Index parts of a basic key with run-time parts: slice bounds and scalar integer
    indices that are traced values (``A[i, :i] = ...`` in a staged loop), each index
    checked and made non-negative as NumPy does. Index arrays and masks: Unsupported."""
    nd = len(x.aval.shape)
    used = sum(1 for e in key if e[0] in ("int", "slice", "array"))
    parts, axis = [], 0
    for e in key:
        tag = e[0]
        if tag == "int":
            parts.append(_checked_int(g, str(e[1]), x.dim(axis), axis))
            axis += 1
        elif tag == "slice":
            parts.append(_slice(g, e[1:], idx))
            axis += 1
        elif tag == "array" and idx[e[1]].scalar and idx[e[1]].aval.dtype.kind in "iu":
            parts.append(_checked_int(g, idx[e[1]].name, x.dim(axis), axis))
            axis += 1
        elif tag == "ellipsis":
            parts.append("...")
            axis += nd - used
        else:
            raise Unsupported("setitem with an index array, a mask, a bool or None in the "
                              "key (not compiled yet)")
    return parts


def _array_key(key, idx) -> list:
    """The index arrays of a key that is one mask, or integer index arrays of one shape
    on the leading axes (``x[i, j] = v``); else an empty list."""
    if not key or any(e[0] != "array" for e in key):
        return []
    arrays = [idx[e[1]] for e in key]
    a = arrays[0]
    if any(b.scalar or b.aval.dtype.kind not in "biu" for b in arrays):
        return []
    if len(arrays) > 1 and any(b.aval.dtype.kind == "b" or b.aval.shape != a.aval.shape
                               for b in arrays):
        return []  # masks among several, or index arrays that broadcast: not compiled
    return arrays


def _advanced(g, node, x, v, arrays, o) -> Val:
    """``x[a] = v`` for one mask or integer index array ``a``, or ``x[a0, a1, ...] = v``
    for integer index arrays of one shape (module doc)."""
    aval = node.outputs[0].aval
    xd = _dims(x)
    a = arrays[0]
    mask = a.aval.dtype.kind == "b"
    r = len(a.aval.shape) if mask else len(arrays)
    if r > len(xd) or len(v.aval.shape) > len(xd) - r + (len(a.aval.shape) if not mask
                                                          else 1):
        raise Unsupported("setitem with an index array or mask this deep, or a value of "
                          "higher rank than the indexed region (not compiled yet)")
    if node in g.ownership.in_place and x.contig:  # nobody sees the old contents
        g.line(f"{o} = {x.name}")
    else:
        g.line(f"{o} = {x.name}.copy()")  # C-contiguous, so the reshape below compiles
    rows, rest = xd[:r], xd[r:]
    inner = " * ".join(["1", *rest])
    view, sel = g.tmp("rows"), g.tmp("sel")
    g.line(f"{view} = {o}.reshape(({' * '.join(rows)}, {inner}))")
    if mask:
        for da, dx in zip(_dims(a), rows, strict=True):
            _check_equal(g, da, dx, "IndexError",
                         "boolean index did not match the indexed tensor")
        g.line(f"{sel} = {contiguous(g, a)}.reshape(-1)")
    else:  # the row of each (a0[k], a1[k], ...) in the (rows, inner) view, C order
        g.line(f"{sel} = H.index_norm({a.name}, {xd[0]})")
        for d, b in enumerate(arrays[1:], start=1):
            for db, da in zip(_dims(b), _dims(a), strict=True):
                _check_equal(g, db, da, "IndexError", "shape mismatch: indexing arrays "
                             "could not be broadcast together")
            g.line(f"{sel} = {sel} * {xd[d]} + H.index_norm({b.name}, {xd[d]})")
    vals = g.tmp("v")
    if v.scalar:
        g.line(f"{vals} = np.full((1, {inner}), {cast(v.name, aval.dtype)})")
    else:  # v broadcast to the indexed rows: (count, *rest) or (*a.shape, *rest)
        count = g.tmp("n")
        g.line(f"{count} = {f'H.mask_count({sel})' if mask else f'{sel}.size'}")
        src = v.name if v.aval.dtype == aval.dtype else f"{v.name}.astype({np_type(aval.dtype)})"
        region = [count, *rest] if mask else [*_dims(a), *rest]
        g.line(f"{vals} = np.broadcast_to({src}, {shape_expr(region)}).copy()"
               f".reshape(({count}, {inner}))")
    g.line(f"H.{'mask_assign' if mask else 'take_assign'}({view}, {sel}, {vals})")
    return Val(o, aval)
