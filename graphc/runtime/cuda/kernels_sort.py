"""``sort`` and ``argsort`` on the CUDA backend: a bitonic sort per line in shared memory.

One block per line along the axis (grid-stride over lines), one thread per slot of the
line padded to a power of two ``P`` (at most 1024, CUDA's block limit; longer lines run
on the host). Each slot holds a value and its index in the line; pairs are compared by
value with NaN after everything and, between equal values, by index, and the padding
slots after all of them. That order is total, so the bitonic network's result equals
NumPy's *stable* sort (``kind="stable"``, what the ops run): ties, ``-0.0``/``0.0`` and
NaNs keep their input order. ``log2(P) (log2(P) + 1) / 2`` compare-exchange steps, each
followed by a ``syncthreads``.
"""

from __future__ import annotations

import math

import numpy as np

from graphc.runtime.cuda.lowering import emitter, numba_type, settings
from graphc.runtime.scalar_templates import Unsupported

MAX_LINE = 1024

# (value a, index ia) orders after (value b, index ib): padding (index >= n) last, then
# NaN, then by value, then by index
_AFTER = ("(ia >= {n} and (ib < {n} or ia > ib)) or (ia < {n} and ib < {n} and ("
          "(a != a and (b == b or ia > ib)) or (a == a and b == b and "
          "(a > b or (a == b and ia > ib)))))")


@emitter("sort", "argsort")
def _sort(g, node, ins, outs):
    x, out = ins[0], node.outputs[0].aval
    axis = node.attrs.get("axis", -1)
    shape = (x.size,) if axis is None else tuple(x.shape)
    if not shape:
        raise Unsupported("sort of a 0-d value")
    axis = 0 if axis is None else axis % len(shape)
    n, post = shape[axis], math.prod(shape[axis + 1:])
    if n > MAX_LINE:
        raise Unsupported(f"sort of lines longer than {MAX_LINE}")
    lines = math.prod(shape) // max(n, 1)
    p = 1 << max(0, (n - 1).bit_length())
    vt = np.dtype(np.int32) if x.aval.dtype == np.bool_ else x.aval.dtype
    store = "si[t]" if node.op.name == "argsort" else (
        "(sv[t] != 0)" if out.dtype == np.bool_ else "sv[t]")
    body = [f"sv = cuda.shared.array({p}, numba.{numba_type(vt)})",
            f"si = cuda.shared.array({p}, numba.int64)",
            "t = cuda.threadIdx.x", "line = cuda.blockIdx.x", f"while line < {lines}:",
            f"    base = (line // {post}) * {n * post} + line % {post}",
            f"    if t < {n}:", f"        sv[t] = a0[base + t * {post}]",
            "    si[t] = t", "    cuda.syncthreads()",
            "    k = 2", f"    while k <= {p}:", "        j = k // 2", "        while j > 0:",
            "            q = t ^ j", "            if q > t:",
            "                a = sv[t]", "                b = sv[q]",
            "                ia = si[t]", "                ib = si[q]",
            f"                after = {_AFTER.format(n=n)}",
            "                if after == ((t & k) == 0):",
            "                    sv[t] = b", "                    sv[q] = a",
            "                    si[t] = ib", "                    si[q] = ia",
            "            cuda.syncthreads()", "            j //= 2", "        k *= 2",
            f"    if t < {n}:", f"        o0[base + t * {post}] = {store}",
            "    cuda.syncthreads()", "    line += cuda.gridDim.x"]
    val = g.alloc(outs[0], out)
    if lines and n:
        k = g.kernel(["a0", "o0"], [x.aval.dtype, out.dtype], body,
                     min(lines, settings.max_grid), p)
        g.line(f"{k}({x.name}, {outs[0]})")
    return [val]
