"""Numba emitters for the take family: ``take``, ``gather``, ``take_along_axis``,
``argwhere``, ``tensor_scatter_nd_update`` and ``unsorted_segment_sum``; registered into
``kernels.EMITTERS``. Index checks and their errors work as for advanced ``getitem``
(``kernels_index.py``, whose small helpers these share): a bad index raises inside the
program and the executor reruns the interpreter, whose error names the node.
"""

from __future__ import annotations

from graphc.core.shapes import normalize_axis
from graphc.ops.gather import _gather_axes
from graphc.runtime.cpu.kernels import (
    Unsupported,
    Val,
    contiguous,
    emitter,
    np_type,
    out_dims,
    shape_expr,
)
from graphc.runtime.cpu.kernels_index import _array, _check_equal, _dims, _prod

_MODES = {"raise": 0, "wrap": 1, "clip": 2}  # H.take4's modes; 3 is tf.gather's


def _take4(g, node, name, src, idx, mode, dims4, fallback):
    """``H.take4`` into a new result ``name`` seen as (batch, pre, m, post)."""
    aval = node.outputs[0].aval
    dt = np_type(aval.dtype)
    arr = name if aval.shape else g.tmp("r")  # a 0-d result is a scalar
    g.line(f"{arr} = np.empty({shape_expr(out_dims(aval, fallback)) if aval.shape else '(1,)'}"
           f", {dt})")
    g.line(f"H.take4({src}, {idx}, {mode}, {arr}.reshape({shape_expr(dims4)}))")
    if not aval.shape:
        g.line(f"{name} = {arr}[0]")
    return [Val(name, aval)]


@emitter("take")
def _take(g, node, ins, outs):
    """np.take (modes raise/wrap/clip): (1, pre, n, post) views of the source."""
    a, ind = ins
    axis = node.attrs.get("axis")
    ad, idd = _dims(a), _dims(ind)
    if a.scalar and axis not in (None, 0, -1):
        raise Unsupported(f"take from a 0-d value with axis={axis}")
    if axis is None or a.scalar:
        pre, n, post, lead, tail = "1", _prod(ad), "1", [], []
    else:
        ax = normalize_axis(axis, len(ad))
        pre, n, post, lead, tail = _prod(ad[:ax]), ad[ax], _prod(ad[ax + 1:]), ad[:ax], ad[ax + 1:]
    src = _array(g, a, f"(1, {pre}, {n}, {post})")
    m = _prod(idd)
    return _take4(g, node, outs[0], src, _array(g, ind, f"(1, {m})"),
                  _MODES[node.attrs.get("mode", "raise")], ["1", pre, m, post],
                  lead + idd + tail)


@emitter("gather")
def _gather(g, node, ins, outs):
    """tf.gather with axis and batch_dims: (batch, pre, n, post) views; negative
    indices are errors, as in TensorFlow."""
    p, ind = ins
    if p.scalar:
        raise Unsupported("gather from a 0-d value")
    pd, idd = _dims(p), _dims(ind)
    ax, bd = _gather_axes(len(pd), len(idd), node.attrs.get("axis"),
                          node.attrs.get("batch_dims", 0))
    for d in range(bd):
        _check_equal(g, pd[d], idd[d], "ValueError", "gather: batch dims differ")
    nb, pre, post, m = _prod(pd[:bd]), _prod(pd[bd:ax]), _prod(pd[ax + 1:]), _prod(idd[bd:])
    src = _array(g, p, f"({nb}, {pre}, {pd[ax]}, {post})")
    return _take4(g, node, outs[0], src, _array(g, ind, f"({nb}, {m})"), 3,
                  [nb, pre, m, post], pd[:ax] + idd[bd:] + pd[ax + 1:])


@emitter("take_along_axis")
def _take_along_axis(g, node, ins, outs):
    """np.take_along_axis: operands broadcast to the result's shape (but along
    ``axis``), then ``H.along3`` on (pre, n, post) views."""
    a, ind = ins
    axis = node.attrs["axis"]
    ad, idd = _dims(a), _dims(ind)
    if axis is None:  # the flattened array, indexed like np.take
        m = _prod(idd)
        return _take4(g, node, outs[0], _array(g, a, f"(1, 1, {_prod(ad)}, 1)"),
                      _array(g, ind, f"(1, {m})"), 0, ["1", "1", m, "1"], idd)
    if a.scalar:
        raise Unsupported("take_along_axis of a 0-d value")
    ax = normalize_axis(axis, len(ad))
    od, same = [], True
    for k, (da, di) in enumerate(zip(ad, idd)):
        if k == ax or da == di:
            od.append(di)
            continue
        same, b = False, g.tmp("b")
        g.line(f"{b} = {da} if {di} == 1 else {di}")
        g.line(f"if {da} != 1 and {da} != {b}:")
        g.line("    raise ValueError('take_along_axis: shapes do not broadcast')")
        od.append(b)
    pre, post = _prod(od[:ax]), _prod(od[ax + 1:])
    if same:
        src, idx = contiguous(g, a), contiguous(g, ind)
    else:
        src, idx = g.tmp("a"), g.tmp("a")
        sa = shape_expr(od[:ax] + [ad[ax]] + od[ax + 1:])
        g.line(f"{src} = np.broadcast_to({a.name}, {sa}).copy()")
        g.line(f"{idx} = np.broadcast_to({ind.name}, {shape_expr(od)}).copy()")
    aval = node.outputs[0].aval
    g.line(f"{outs[0]} = np.empty({shape_expr(out_dims(aval, od))}, {np_type(aval.dtype)})")
    g.line(f"H.along3({src}.reshape(({pre}, {ad[ax]}, {post})), "
           f"{idx}.reshape(({pre}, {idd[ax]}, {post})), "
           f"{outs[0]}.reshape(({pre}, {idd[ax]}, {post})))")
    return [Val(outs[0], aval)]


@emitter("argwhere")
def _argwhere(g, node, ins, outs):
    x = ins[0]
    if x.scalar:  # np.argwhere of a 0-d value: shape (1, 0) or (0, 0)
        g.line(f"{outs[0]} = np.zeros((1 if {x.name} != 0 else 0, 0), np.int64)")
    else:
        g.line(f"{outs[0]} = H.argwhere({x.name})")
    return [Val(outs[0], node.outputs[0].aval)]


@emitter("tensor_scatter_nd_update")
def _scatter(g, node, ins, outs):
    """A copy of the tensor seen as (prod(shape[:k]), inner) rows; ``H.scatter_nd``
    writes the updates in order (the last duplicate wins, as the interpreter)."""
    t, ind, upd = ins
    k = None if ind.scalar else ind.aval.shape[-1]
    if t.scalar or k is None:
        raise Unsupported("tensor_scatter_nd_update of a 0-d tensor or with indices of "
                          "unknown depth (indices.shape[-1])")
    td, idd, ud = _dims(t), _dims(ind), _dims(upd)
    for u, w in zip(ud, idd[:-1] + td[k:]):  # unknown dims: the interpreter's check
        _check_equal(g, u, w, "ValueError", "updates have the wrong shape")
    n, inner = _prod(idd[:-1]), _prod(td[k:])
    g.line(f"{outs[0]} = {t.name}.copy()")
    g.line(f"H.scatter_nd({outs[0]}.reshape(({_prod(td[:k])}, {inner})), "
           f"{_array(g, ind, f'({n}, {k})')}, {_array(g, upd, f'({n}, {inner})')}, "
           f"{t.name}.shape)")
    return [Val(outs[0], node.outputs[0].aval)]


@emitter("unsorted_segment_sum")
def _segment_sum(g, node, ins, outs):
    """Rows of the data, seen as (m, inner), added into (num_segments, inner) in id
    order, as ``np.add.at`` does (so sums agree bit for bit); negative ids are dropped."""
    data, ids = ins
    n = node.attrs["num_segments"]
    dd, idd = _dims(data), _dims(ids)
    for a, b in zip(dd, idd):
        _check_equal(g, a, b, "ValueError", "segment ids do not match the data's shape")
    m, inner = _prod(idd), _prod(dd[len(idd):])
    aval = node.outputs[0].aval
    r, d, s, i, j, k = (g.tmp(c) for c in "rdsijk")
    g.line(f"{r} = np.zeros(({n}, {inner}), {np_type(aval.dtype)})")
    g.line(f"{d} = {_array(g, data, f'({m}, {inner})')}")
    g.line(f"{s} = {_array(g, ids, f'({m},)')}")
    g.line(f"for {i} in range({m}):")
    g.line(f"    {k} = np.int64({s}[{i}])")
    g.line(f"    if {k} >= {n}:")
    g.line("        raise IndexError('segment id out of range')")
    g.line(f"    if {k} >= 0:")
    g.line(f"        for {j} in range({inner}):")
    g.line(f"            {r}[{k}, {j}] += {d}[{i}, {j}]")
    g.line(f"{outs[0]} = {r}.reshape({shape_expr(out_dims(aval, [str(n)] + dd[len(idd):]))})")
    return [Val(outs[0], aval)]
