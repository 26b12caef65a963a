"""Gathers on the CUDA backend: ``take`` (raise/wrap/clip), ``gather`` (batch_dims=0) and
``take_along_axis``, one grid-stride kernel each.

Thread ``i`` computes one result element: its coordinates give the index element to
read and the rest of the source offset (literal strides). A kernel cannot raise, so an
index that NumPy (or TensorFlow, for ``gather``: negative indices too) rejects sets a
one-element error flag and reads element 0 instead; after the launch the host reads the
flag (one scalar copy: a synchronization) and, when set, runs the node once more on the
host, which raises exactly the interpreter's error. ``wrap`` and ``clip`` never fail
and skip the flag.
"""

from __future__ import annotations

import math

import numpy as np

from graphc.runtime.cuda.kernels_elementwise import coord_lines
from graphc.runtime.cuda.lowering import emitter, launch_1d, strides
from graphc.runtime.scalar_templates import Unsupported

_ERR = np.dtype(np.int32)


def _normalize(mode: str, n: int) -> list[str]:
    """Statements turning the raw index ``idx`` into one in ``[0, n)`` (or flagging it)."""
    if mode == "wrap":
        return [f"idx = idx % {n}"]
    if mode == "clip":
        return [f"idx = min(max(idx, 0), {n - 1})"]
    lines = [] if mode == "tf" else ["if idx < 0:", f"    idx += {n}"]
    return lines + [f"if idx < 0 or idx >= {n}:", "    e0[0] = 1", "    idx = 0"]


def _launch(g, node, x, ind, out, outs, body, checked):
    params = ["a0", "a1", "o0"] + (["e0"] if checked else [])
    dtypes = [x.aval.dtype, ind.aval.dtype, out.dtype] + ([_ERR] if checked else [])
    val = g.alloc(outs[0], out)
    if not math.prod(out.shape):
        return [val]
    loop = ["i = cuda.grid(1)", "st = cuda.gridsize(1)", f"while i < {math.prod(out.shape)}:",
            *("    " + b for b in body), "    i += st"]
    k = g.kernel(params, dtypes, loop, *launch_1d(math.prod(out.shape)))
    if not checked:
        g.line(f"{k}({x.name}, {ind.name}, {outs[0]})")
        return [val]
    err = g.tmp("err")
    g.line(f"{err} = _flag()")
    g.line(f"{k}({x.name}, {ind.name}, {outs[0]}, {err})")
    g.line(f"if _pred({err}):")
    g.line(f"    _recheck(ctx, {g.recheck(node)}, ({x.name}, {ind.name}))")
    return [val]




def _take_axis(g, node, ins, outs, axis, mode):
    x, ind = ins
    out = node.outputs[0].aval
    if axis is None:
        shape, ax = (x.size,), 0
    else:
        shape, ax = x.shape, axis % len(x.shape)
    n = shape[ax]
    if n == 0:
        raise Unsupported("a take from an empty axis (NumPy raises)")
    q = math.prod(shape[ax + 1:])
    j = ind.size
    body = [f"q = i % {q}" if q > 1 else "q = 0",
            f"j = (i // {q}) % {j}" if j > 1 else "j = 0", f"p = i // {q * j}",
            "idx = np.int64(a1[j])", *_normalize(mode, n),
            f"o0[i] = a0[p * {n * q} + idx * {q} + q]"]
    return _launch(g, node, x, ind, out, outs, body, mode in ("raise", "tf"))


@emitter("take")
def _take(g, node, ins, outs):
    x = ins[0]
    if not x.shape:
        raise Unsupported("take from a 0-d array")
    return _take_axis(g, node, ins, outs, node.attrs.get("axis"), node.attrs.get("mode",
                                                                                 "raise"))


@emitter("gather")
def _gather(g, node, ins, outs):
    x = ins[0]
    if node.attrs.get("batch_dims", 0) != 0:
        raise Unsupported("gather with batch_dims")
    if not x.shape:
        raise Unsupported("gather from a 0-d array")
    axis = node.attrs.get("axis")
    return _take_axis(g, node, ins, outs, 0 if axis is None else axis, "tf")


@emitter("take_along_axis")
def _take_along_axis(g, node, ins, outs):
    x, ind = ins
    out = node.outputs[0].aval
    axis = node.attrs.get("axis")
    if axis is None:
        return _take_axis(g, node, ins, outs, None, "raise")
    ax = axis % len(x.shape)
    n = x.shape[ax]
    if n == 0:
        raise Unsupported("take_along_axis from an empty axis (NumPy raises)")
    xs, js = strides(x.shape), strides(ind.shape)
    dims = range(len(out.shape))
    jo = " + ".join(f"c{d} * {js[d]}" for d in dims if ind.shape[d] != 1) or "0"
    xo = " + ".join(f"c{d} * {xs[d]}" for d in dims if d != ax and x.shape[d] != 1) or "0"
    used = {d for d in dims if out.shape[d] != 1}
    body = [*coord_lines(out.shape, used), f"idx = np.int64(a1[{jo}])", *_normalize("raise", n),
            f"o0[i] = a0[{xo} + idx * {xs[ax]}]"]
    return _launch(g, node, x, ind, out, outs, body, True)
