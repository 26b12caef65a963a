"""A ``max``/``min`` over all axes folded into the elementwise loop that feeds it
(one of ``codegen.FOLDS``, beside ``kernels_row_sum`` and ``kernels_axis_sum``)."""

from __future__ import annotations

import numpy as np

from graphc.core.shapes import normalize_axes
from graphc.runtime.cpu.kernels import Val, literal, np_type
from graphc.runtime.cpu.parallel import parallel_settings
from graphc.runtime.fused_groups import fused_steps


def fusable_reduction(g, node, ins):
    """The ``max``/``min`` over all axes that is the only reader of ``node``'s (an
    elementwise node or group) one result, when the two can be one loop; else None.

    The loop computes each element and folds it into the running max at once, so the
    elementwise result is never stored: Newton's ``max(abs(x * x - a))`` writes and reads
    back a whole array otherwise. Only flat serial loops qualify (every operand C-contiguous
    with the result's static shape, fewer elements than the parallel threshold).
    """
    if len(node.outputs) != 1 or g.uses.get(node.outputs[0].id) != 1:
        return None
    v = node.outputs[0]
    readers = g.readers.get(v.id, ())
    if len(readers) != 1:  # the one use is a graph output
        return None
    red = readers[0]
    shape, dtype = v.aval.shape, v.aval.dtype
    if red.op.name not in ("max", "min") or red.attrs.get("keepdims") or dtype.kind not in "iuf":
        return None
    axis = red.attrs.get("axis")
    if axis is not None and len(normalize_axes(axis, len(shape))) != len(shape):
        return None
    if red.outputs[0].aval.dtype != dtype or not shape or None in shape:
        return None
    size = 1
    for d in shape:
        size *= d
    if size >= parallel_settings.min_size or size == 0:
        return None
    if any(not x.scalar and (x.aval.shape != shape or not x.contig) for x in ins):
        return None
    return red


def fused_reduction(g, node, red, ins) -> Val:
    """``red`` (see :func:`fusable_reduction`) of ``node``'s elements in one loop.

    Floats fold ordered integer keys (``H.float_key``, as ``H.famax`` does, so the loop
    vectorizes) and note NaNs on the way; when there was one, a second pass finds the
    first NaN, which is NumPy's result. Ints fold the values themselves.
    """
    steps, (res,) = fused_steps(node, complex_ok=True)
    gi, elem, body = g.loop_body(ins, steps)
    aval = red.outputs[0].aval
    T, op, o = np_type(aval.dtype), red.op.name, g._var(red.outputs[0])
    flat = {j: f"_f{gi}_{j}" for j, x in enumerate(ins) if not x.scalar}
    for j, name in flat.items():
        g.line(f"{name} = {ins[j].name}.reshape(-1)")
    n = f"{flat[min(flat)]}.shape[0]"
    better = ">" if op == "max" else "<"

    def loop(extra):
        g.line(f"for _i in range({n}):")
        for j, x in enumerate(ins):
            g.line(f"    {elem[j]} = {flat[j]}[_i]" if j in flat else f"    {elem[j]} = {x.name}")
        for ln in body + extra:
            g.line(f"    {ln}")

    s = f"_s{gi}_{res}"
    if aval.dtype.kind == "f":
        start = literal(-np.inf if op == "max" else np.inf, aval.dtype)
        g.line(f"_r{gi} = H.float_key({start})")
        g.line(f"_bad{gi} = False")
        loop([f"_bad{gi} |= {s} != {s}", f"_k{gi} = H.float_key({s})",
              f"_r{gi} = _k{gi} if _k{gi} {better} _r{gi} else _r{gi}"])
        g.line(f"{o} = H.key_float(_r{gi}, {T}(0))")
        g.line(f"if _bad{gi}:")
        g.depth += 1
        loop([f"if {s} != {s}:", f"    {o} = {s}", "    break"])
        g.depth -= 1
    else:
        info = np.iinfo(aval.dtype)
        g.line(f"{o} = {T}({info.min if op == 'max' else info.max})")
        loop([f"{o} = {s} if {s} {better} {o} else {o}"])
    return Val(o, aval)
