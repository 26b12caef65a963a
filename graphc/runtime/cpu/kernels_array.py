"""Numba emitters (as source) for array ops: std/var, arange/range/linspace, sort/argsort,
pad, tile, repeat, split (``pad``/``tile`` with run-time widths, constant or repetitions
too); registered into ``kernels.EMITTERS``.

Every result equals the interpreter's bit for bit (std/var: on C-contiguous operands;
NumPy sums a non-contiguous one in memory order, a few ULP apart):

* ``std``/``var`` follow ``numpy._core._methods._var`` step by step: the mean is a
  ``sum`` (kernels_reduce, NumPy's summation order) divided in float64 and stored in the
  mean's dtype, the squared deviations are computed in NumPy's promoted dtype and summed
  the same way, then divided by ``max(n - ddof, 0)`` in float64 (NumPy divides by an
  ``np.intp`` count, which promotes to float64) and stored back;
* ``arange``/``linspace`` have static bounds: their result is computed by the op's NumPy
  ``ref`` while generating and passed as a constant argument (NumPy's fill loop may be
  compiled with or without FMA, so no formula is exact on every build);
* ``range`` (tensor bounds of the result's dtype) reproduces NumPy's fill loop;
* ``sort``/``argsort`` use ``H.sort_rows`` (Numba's mergesort argsort: stable, NaNs
  last, so ties and ``-0.0``/``0.0`` keep their input order, as NumPy's stable sort).
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from graphc.core.shapes import normalize_axes, normalize_axis
from graphc.ir.graph import Aval
from graphc.runtime.cpu import kernels_reduce
from graphc.runtime.cpu.kernels import (
    Unsupported,
    Val,
    cast,
    contiguous,
    emitter,
    literal,
    np_type,
    shape_expr,
    to_array,
)
from graphc.runtime.cpu.kernels_reduce import _split_axis
from graphc.runtime.cpu.kernels_shape import operand_dims

CONST_LIMIT = 1 << 22  # elements: larger static ranges are not kept as constants


def _flat1(g, x: Val) -> Val:
    """A 0-d value as a contiguous 1-element 1-D array."""
    z = g.tmp("z")
    g.line(f"{z} = {to_array(g, x)}.reshape((1,))")
    return Val(z, Aval((1,), x.aval.dtype), contig=True)


def _finish(g, res, aval, dims, o):
    """Bind ``o`` to array ``res`` reshaped to ``aval``'s shape (unknown dims from
    ``dims``; a scalar when rank 0)."""
    if not aval.shape:
        g.line(f"{o} = {res}.reshape(-1)[0]")
    else:
        dims = [str(d) if d is not None else f for d, f in zip(aval.shape, dims)]
        g.line(f"{o} = {res}.reshape({shape_expr(dims)})")
    return [Val(o, aval)]


# --------------------------------------------------------------------------- std / var
def _sum(g, x: Val, axes, keepdims, dtype, out_shape) -> Val:
    """``np.sum(x, axes, dtype, keepdims)`` by the ``sum`` emitter (NumPy's order)."""
    node = SimpleNamespace(op=SimpleNamespace(name="sum"),
                           attrs={"axis": axes, "keepdims": keepdims},
                           outputs=[SimpleNamespace(aval=Aval(out_shape, dtype))])
    return kernels_reduce._reduce(g, node, [x], [g.tmp("s")])[0]


@emitter("std", "var")
def _std_var(g, node, ins, outs):
    x, aval = ins[0], node.outputs[0].aval
    attrs = node.attrs
    dtype = attrs.get("dtype")
    ddof = attrs.get("ddof", 0)
    if not isinstance(ddof, int | float) or isinstance(ddof, bool):
        raise Unsupported(f"{node.op.name} with ddof={ddof!r}")
    in_t = x.aval.dtype
    mean_t = np.dtype(dtype) if dtype is not None else (
        np.dtype(np.float64) if in_t.kind in "biu" else in_t)
    if mean_t.kind != "f" or aval.dtype != mean_t:
        raise Unsupported(f"{node.op.name} accumulating in {mean_t} (only float "
                          "accumulators are compiled)")
    dev_t = np.result_type(in_t, mean_t)  # arr - mean
    if x.scalar:
        x = _flat1(g, x)
    nd = len(x.aval.shape)
    axes = tuple(sorted(normalize_axes(attrs.get("axis") if nd == len(ins[0].aval.shape)
                                       else None, nd)))
    keep_shape = tuple(1 if i in axes else d for i, d in enumerate(x.aval.shape))
    src = x
    if not x.contig:
        src = Val(g.tmp("c"), x.aval, contig=True)
        g.line(f"{src.name} = {x.name}.copy()")
    n = g.tmp("n")
    g.line(f"{n} = {' * '.join(src.dim(i) for i in axes) if axes else '1'}")
    # the mean, keepdims: a sum divided in float64 (np.intp count), stored as mean_t
    orig = src
    if in_t != mean_t:
        # NumPy casts the input (buffered) and sums in mean_t; Numba would add an int32
        # to a float32 accumulator in float64, so cast first. The Val keeps in_t so the
        # sum is chunked as NumPy's buffered cast is.
        xc = g.tmp("xc")
        g.line(f"{xc} = {src.name}.astype({np_type(mean_t)})")
        src = Val(xc, x.aval, contig=True)
    s = _sum(g, src, axes, True, mean_t, keep_shape)
    M, D = np_type(mean_t), np_type(dev_t)
    mean, mf = g.tmp("mean"), g.tmp("mf")
    g.line(f"{mean} = np.empty({s.name}.shape, {M})")
    g.line(f"{mf} = {mean}.reshape(-1)")
    sf = g.tmp("sf")
    g.line(f"{sf} = {s.name}.reshape(-1)")
    g.line(f"for _i in range({mf}.shape[0]):")
    g.line(f"    {mf}[_i] = {M}(np.float64({sf}[_i]) / np.float64({n}))")
    # squared deviations in arr - mean's dtype, one nested loop over the input
    dev = g.tmp("dev")
    g.line(f"{dev} = np.empty({orig.name}.shape, {M})")
    idx = [f"_k{i}" for i in range(nd)]
    midx = ["0" if i in axes else idx[i] for i in range(nd)]
    for i in range(nd):
        g.line("    " * i + f"for {idx[i]} in range({orig.dim(i)}):")
    t = g.tmp("d")
    pad = "    " * nd
    g.line(f"{pad}{t} = {D}({orig.name}[{', '.join(idx)}]) - {D}({mean}[{', '.join(midx)}])")
    # stored as mean_t (the cast NumPy's summation of a dev_t array to mean_t does
    # first); the Val keeps dev_t so the sum is chunked as NumPy's buffered cast is
    g.line(f"{pad}{dev}[{', '.join(idx)}] = {t} * {t}")
    keep = bool(attrs.get("keepdims", False)) and nd == len(ins[0].aval.shape)
    out_shape = keep_shape if keep else tuple(d for i, d in enumerate(x.aval.shape)
                                              if i not in axes)
    r = _sum(g, Val(dev, Aval(x.aval.shape, dev_t), contig=True), axes, keep, mean_t,
             out_shape)
    T = np_type(mean_t)
    cnt = g.tmp("cnt")
    g.line(f"{cnt} = np.float64(max({n} - {ddof!r}, 0))")
    fin = "np.sqrt({0})" if node.op.name == "std" else "{0}"
    o = outs[0]
    if r.scalar:
        g.line(f"{o} = {T}(np.float64({r.name}) / {cnt})")
        g.line(f"{o} = {fin.format(o)}")
        return [Val(o, aval)]
    rf = g.tmp("rf")
    g.line(f"{rf} = {r.name}.reshape(-1)")
    g.line(f"for _i in range({rf}.shape[0]):")
    g.line(f"    {rf}[_i] = {fin.format(f'{T}(np.float64({rf}[_i]) / {cnt})')}")
    g.line(f"{o} = {r.name}")
    return [Val(o, aval)]


# --------------------------------------------------------------------------- ranges
@emitter("arange", "linspace")
def _static_range(g, node, ins, outs):
    """Static bounds: the exact result of NumPy's ``ref``, passed as a constant."""
    aval = node.outputs[0].aval
    n = aval.shape[0]
    if n > CONST_LIMIT:
        raise Unsupported(f"{node.op.name} of {n} elements (static ranges are compiled as "
                          f"constants of at most {CONST_LIMIT} elements)")
    arr = np.ascontiguousarray(node.op.ref(**dict(node.attrs)))
    if arr.dtype != aval.dtype or arr.shape != aval.shape:
        raise Unsupported(f"{node.op.name}: the reference gives {arr.dtype}{arr.shape}")
    c = f"c{len(g.consts)}"
    g.consts.append(arr)
    g.line(f"{outs[0]} = {c}")
    return [Val(outs[0], aval)]


@emitter("range")
def _range(g, node, ins, outs):
    """``np.arange`` with tensor bounds of the result's dtype, as NumPy computes it:
    length ``ceil((stop - start) / step)`` in that dtype's arithmetic (ints: the
    division in float64), ``out[0] = start``, ``out[1] = start + step`` and
    ``out[i] = start + i * (out[1] - out[0])`` (NumPy's fill loop, no FMA, as in
    NumPy's x86-64 builds: checked on 40000 random float32/float64 ranges)."""
    aval = node.outputs[0].aval
    dt = aval.dtype
    if dt.kind not in "iuf" or any(x.aval.dtype != dt or not x.scalar for x in ins):
        raise Unsupported("range whose bounds are not scalars of the result's dtype "
                          f"{dt}")
    start, stop, step = (x.name for x in ins)
    T, o, n, d = np_type(dt), outs[0], g.tmp("n"), g.tmp("delta")
    g.line(f"if {step} == 0:")
    g.line("    raise ValueError('arange: step must not be zero')")
    if dt.kind == "f":
        q = g.tmp("q")
        g.line(f"{q} = {T}({T}({stop} - {start}) / {step})")
        g.line(f"if not -4e18 < {q} < 4e18:  # NaN or no representable length")
        g.line("    raise ValueError('arange: cannot compute length')")
        g.line(f"{n} = max(0, int(np.ceil({q})))")
    else:
        g.line(f"{n} = max(0, int(np.ceil(np.float64({T}({stop} - {start})) / "
               f"np.float64({step}))))")
    g.line(f"{o} = np.empty({n}, {T})")
    g.line(f"{d} = {T}({T}({start} + {step}) - {start})")
    g.line(f"for _i in range({n}):")
    g.line(f"    {o}[_i] = {T}({start} + {T}({T}(_i) * {d}))")
    g.line(f"if {n} > 0:")  # exactly start (0 * delta would turn -0.0 into 0.0)
    g.line(f"    {o}[0] = {start}")
    g.line(f"if {n} > 1:")
    g.line(f"    {o}[1] = {T}({start} + {step})")
    return [Val(o, aval)]


# --------------------------------------------------------------------------- sorting
@emitter("sort", "argsort")
def _sort(g, node, ins, outs):
    """Stable sort along an axis (None: flattened), NumPy's order (NaNs last)."""
    x, aval = ins[0], node.outputs[0].aval
    o = outs[0]
    want_index = node.op.name == "argsort"
    T = np_type(aval.dtype)
    if x.scalar:  # NumPy's result for a 0-d input has one element
        value = "0" if want_index else x.name
        if not aval.shape:
            g.line(f"{o} = {T}({value})")
            return [Val(o, aval)]
        g.line(f"{o} = np.full({shape_expr([str(d) for d in aval.shape])}, {value}, {T})")
        return [Val(o, aval)]
    axis = node.attrs.get("axis", -1)
    pre, n, post, m = _split_axis(g, x, axis)
    g.line(f"{o} = H.sort_rows({m}, np.empty(({pre}, {n}, {post}), {T}), {want_index})")
    if axis is None:
        dims = [n]
    else:
        dims = [x.dim(i) for i in range(len(x.aval.shape))]
    return _finish(g, o, aval, dims, o)


# --------------------------------------------------------------------------- pad
_PAD_MODES = {"constant": 0, "edge": 1, "reflect": 2, "symmetric": 3, "wrap": 4}


@emitter("pad")
def _pad(g, node, ins, outs):
    """np.pad by index maps (``H.pad_map``) per axis; every mode pads axes independently,
    so ``out[i, j] = x[map0[i], map1[j]]`` (or the constant where a map says -1)."""
    x, aval = ins[0], node.outputs[0].aval
    attrs = node.attrs
    mode = attrs.get("mode", "constant")
    if mode not in _PAD_MODES:
        raise Unsupported(f"pad with mode={mode!r}")
    cv = attrs.get("constant_values", 0)
    operands = list(ins[1:])
    if x.scalar:
        if not aval.shape:
            g.line(f"{outs[0]} = {x.name}")
            return [Val(outs[0], aval)]
        raise Unsupported("pad of a 0-d value")
    nd = len(x.aval.shape)
    widths = _pad_widths(g, attrs["pad_width"], nd, operands)
    if cv is None:  # a run-time constant: the last operand
        c = operands.pop(0)
        if not c.scalar:
            raise Unsupported("pad with per-axis constant_values")
        value = cast(c.name, aval.dtype)
    elif isinstance(cv, int | float | bool | np.generic):
        value = literal(cv, aval.dtype)
    else:
        raise Unsupported("pad with per-axis constant_values")
    maps = []
    for i in range(nd):
        mp = g.tmp("pm")
        g.line(f"{mp} = H.pad_map({x.dim(i)}, {widths[i][0]}, {widths[i][1]}, "
               f"{_PAD_MODES[mode]})")
        maps.append(mp)
    o, T = outs[0], np_type(aval.dtype)
    g.line(f"{o} = np.empty({shape_expr([f'{m}.shape[0]' for m in maps])}, {T})")
    idx = [f"_k{i}" for i in range(nd)]
    src = [f"_s{i}" for i in range(nd)]
    for i in range(nd):
        ind = "    " * i
        g.line(f"{ind}for {idx[i]} in range({maps[i]}.shape[0]):")
        g.line(f"{ind}    {src[i]} = {maps[i]}[{idx[i]}]")
    ind = "    " * nd
    if mode == "constant":
        g.line(f"{ind}if {' or '.join(f'{s} < 0' for s in src)}:")
        g.line(f"{ind}    {o}[{', '.join(idx)}] = {value}")
        g.line(f"{ind}else:")
        ind += "    "
    g.line(f"{ind}{o}[{', '.join(idx)}] = {x.name}[{', '.join(src)}]")
    return [Val(o, aval)]


def _pad_widths(g, pad_width, nd, operands):
    """Source for each axis' ``(before, after)`` widths: literals, or entries of the
    run-time ``(nd, 2)`` operand (taken from ``operands``) checked >= 0 as ``ref`` does."""
    if any(None in row for row in pad_width):
        w = operands.pop(0).name
        out = [[g.tmp("w"), g.tmp("w")] for _ in range(nd)]
        for i, j in np.ndindex(nd, 2):
            g.line(f"{out[i][j]} = {w}[{i}, {j}]")
            g.line(f"if {out[i][j]} < 0:")
            g.line("    raise ValueError('pad: negative pad width; widths must be >= 0')")
        return out
    widths = np.broadcast_to(np.asarray(pad_width, np.int64), (nd, 2))
    if (widths < 0).any():
        raise Unsupported("pad with negative widths")
    return [[str(int(a)), str(int(b))] for a, b in widths]


# --------------------------------------------------------------------------- tile / repeat
@emitter("tile")
def _tile(g, node, ins, outs):
    """np.tile: ``x`` (padded with leading 1-dims) viewed as ``(1, s0, 1, s1, ...)``,
    broadcast to ``(r0, s0, r1, s1, ...)`` and copied."""
    x, aval = ins[0], node.outputs[0].aval
    if len(ins) > 1:  # run-time repetitions
        reps = tuple(operand_dims(g, ins[1], node.attrs["reps"], "tile"))
    else:
        reps = tuple(int(r) for r in node.attrs["reps"])
        if any(r < 0 for r in reps):
            raise Unsupported("tile with negative reps")
    x = _flat1(g, x) if x.scalar else x
    nd = max(len(x.aval.shape), len(reps), 1)
    reps = (1,) * (nd - len(reps)) + reps
    dims = ["1"] * (nd - len(x.aval.shape)) + [x.dim(i) for i in range(len(x.aval.shape))]
    inter = [d for i in range(nd) for d in ("1", dims[i])]
    big = [d for i in range(nd) for d in (str(reps[i]), dims[i])]
    t = g.tmp("t")
    g.line(f"{t} = {contiguous(g, x)}.reshape({shape_expr(inter)})")
    g.line(f"{t} = np.broadcast_to({t}, {shape_expr(big)}).copy()")
    return _finish(g, t, aval, [f"{reps[i]} * {dims[i]}" for i in range(nd)], outs[0])


@emitter("repeat")
def _repeat(g, node, ins, outs):
    """np.repeat with static counts: an int count is a broadcast ``(pre, n, r, post)``
    copy; a tuple of counts gathers by a constant source-index array (its length is
    checked against the axis at run time)."""
    x, aval = ins[0], node.outputs[0].aval
    repeats, axis = node.attrs["repeats"], node.attrs.get("axis")
    if not isinstance(repeats, int) and len(repeats) == 1:
        repeats = repeats[0]
    counts = [repeats] if isinstance(repeats, int) else list(repeats)
    if any(int(r) < 0 for r in counts):
        raise Unsupported("repeat with negative counts")
    if x.scalar:
        x, axis = _flat1(g, x), None
    pre, n, post, m = _split_axis(g, x, axis)
    o, T = outs[0], np_type(aval.dtype)
    if isinstance(repeats, int):
        t = g.tmp("t")
        g.line(f"{t} = np.broadcast_to({m}.reshape(({pre}, {n}, 1, {post})), "
               f"({pre}, {n}, {repeats}, {post})).copy()")
        total = f"{n} * {repeats}"
    else:
        src = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
        c = f"c{len(g.consts)}"
        g.consts.append(src)
        g.line(f"if {n} != {len(counts)}:")
        g.line(f"    raise ValueError('repeat: {len(counts)} counts for an axis of another "
               "size')")
        t = g.tmp("t")
        g.line(f"{t} = np.empty(({pre}, {c}.shape[0], {post}), {T})")
        g.line(f"for _p in range({pre}):")
        g.line(f"    for _j in range({c}.shape[0]):")
        g.line(f"        for _q in range({post}):")
        g.line(f"            {t}[_p, _j, _q] = {m}[_p, {c}[_j], _q]")
        total = f"{c}.shape[0]"
    if axis is None:
        dims = [total]
    else:
        a = normalize_axis(axis, len(x.aval.shape))
        dims = [total if i == a else x.dim(i) for i in range(len(x.aval.shape))]
    return _finish(g, t, aval, dims, o)


# --------------------------------------------------------------------------- split
@emitter("split")
def _split(g, node, ins, outs):
    """np.split: views ``x[..., a:b, ...]`` (Python slice bounds, as np.split); equal
    sections check divisibility at run time."""
    x = ins[0]
    ios = node.attrs["indices_or_sections"]
    nd = len(x.aval.shape)
    axis = normalize_axis(node.attrs.get("axis", 0), nd)
    lead = ":, " * axis
    results = []
    if isinstance(ios, int):
        if ios <= 0:
            raise Unsupported("split into a non-positive number of sections")
        s = g.tmp("sec")
        g.line(f"if {x.dim(axis)} % {ios} != 0:")
        g.line("    raise ValueError('array split does not result in an equal division')")
        g.line(f"{s} = {x.dim(axis)} // {ios}")
        bounds = [(f"{k} * {s}", f"{k + 1} * {s}") for k in range(ios)]
    else:
        pts = [str(int(i)) for i in ios]
        bounds = list(zip(["0", *pts], [*pts, x.dim(axis)]))
    for (a, b), o, v in zip(bounds, outs, node.outputs):
        g.line(f"{o} = {x.name}[{lead}{a}:{b}]")
        results.append(Val(o, v.aval, contig=False))
    return results
