"""Numba emitter for ``setitem`` (``t[key] = v``, functionalized: ``docs/mutation.md``).

The result is a copy of ``t`` with the indexed region written, for static basic keys
(ints, slices with literal bounds, ``...``): ``out = t.copy(); out[index] = v``, Numba
broadcasting ``v`` over the region and converting it to ``t``'s dtype as NumPy does.
Each int is checked against its dim as NumPy checks it. Keys with index arrays, masks,
``None`` or run-time bounds are not compiled yet: the node runs between compiled
segments (``runtime/fallback.py``).
"""

from __future__ import annotations

from graphc.runtime.cpu.kernels import Unsupported, Val, cast, emitter, np_type
from graphc.runtime.cpu.kernels_shape import basic_index


@emitter("setitem")
def _setitem(g, node, ins, outs):
    x, v, aval = ins[0], ins[1], node.outputs[0].aval
    key = node.attrs["key"]
    if len(ins) > 2:
        raise Unsupported("setitem with an index array or mask in the key (not compiled "
                          "yet)")
    if x.scalar:
        raise Unsupported("setitem on a 0-d value")
    parts = basic_index(g, x, key, "setitem", newaxis=False)
    nd = len(x.aval.shape)
    region = nd - sum(1 for e in key if e[0] == "int")
    element = region == 0 and "..." not in parts
    if v.scalar:
        value = cast(v.name, aval.dtype)
    elif element or len(v.aval.shape) > region:
        raise Unsupported("setitem of an array into a region of lower rank (not compiled "
                          "yet)")
    elif v.aval.dtype != aval.dtype:
        value = f"{v.name}.astype({np_type(aval.dtype)})"
    else:
        value = v.name
    g.line(f"{outs[0]} = {x.name}.copy()")
    index = ", ".join(parts) if parts else "..."
    g.line(f"{outs[0]}[{index}] = {value}")
    return [Val(outs[0], aval)]  # .copy() is C-contiguous
