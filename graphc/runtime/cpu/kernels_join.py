"""Numba emitters for ``concatenate`` and ``stack``; see ``kernels.py``.

A ``concatenate`` some of whose parts are elementwise loops that store straight into
their slab of the result (``ownership.Ownership.into_part``) has its result allocated
before the first such loop (:func:`part_region`); the emitter then only copies the
other parts in.
"""

from __future__ import annotations

from graphc.runtime.cpu import loop_reuse
from graphc.runtime.cpu.kernels import Val, cast, emitter, np_type, to_array
from graphc.runtime.cpu.kernels_shape import basic_index, window_of
from graphc.runtime.cpu.ownership import slabs


@emitter("concatenate", "stack")
def _join(g, node, ins, outs):
    """``np.concatenate`` / ``np.stack``, except a ``stack`` of scalars: the result is
    allocated once and each scalar stored into its element (through ``np.stack`` each
    scalar became a 0-d array first: ``stack`` of three scalars in a staged RK4 loop made
    four allocations per call). Parts that are arrays keep NumPy's functions: slice
    assignments compiled 3x slower and ran slower than ``np.concatenate``'s copies (a
    heat stencil's ``concatenate``, measured), unless a part's loop already stored into
    the result (then the other parts are copied into their slabs: ``_fill``)."""
    aval = node.outputs[0].aval
    stack = node.op.name == "stack"
    if stack and all(x.scalar for x in ins):
        g.line(f"{outs[0]} = np.empty({len(ins)}, {np_type(aval.dtype)})")
        for i, x in enumerate(ins):
            g.line(f"{outs[0]}[{i}] = {cast(x.name, aval.dtype)}")
        return [Val(outs[0], aval)]
    if node in g.joined:
        return [_fill(g, node, ins, outs[0])]
    parts = []
    for x in ins:
        arr = to_array(g, x)
        if x.aval.dtype != aval.dtype:
            arr = f"{arr}.astype({np_type(aval.dtype)})"
        parts.append(arr)
    fn = "np.stack" if stack else "np.concatenate"
    g.line(f"{outs[0]} = {fn}(({', '.join(parts)},), {node.attrs.get('axis', 0)})")
    return [Val(outs[0], aval)]


def part_region(g, maker, node, key) -> None:
    """Bind ``maker``'s result (an elementwise loop's) to the slab ``key`` of the result
    of ``concatenate`` ``node``, allocating that result first if no earlier part did, so
    the loop stores there directly (``ownership.Ownership.into_part``)."""
    aval = node.outputs[0].aval
    buf = g.joined.get(node)
    if buf is None:
        buf = g.joined[node] = g.tmp("join")
        shape = tuple(aval.shape)
        if not loop_reuse.take(g, g._var(node.outputs[0]), buf, shape, aval.dtype):
            g.line(f"{buf} = np.empty({shape}, {np_type(aval.dtype)})")
    spare = g._var(node.outputs[0]) in g.reused
    whole = Val(buf, aval)
    name = g._var(maker.outputs[0])
    g.line(f"{name} = {buf}[{', '.join(basic_index(g, whole, key, 'concatenate'))}]")
    g.regions.add(name)
    if spare:  # a view of a buffer the loop may reuse (loop_reuse.outlined)
        g.reused[name] = None
    window = window_of(whole, key, name, maker.outputs[0].aval)
    if window is not None:  # the loop writes rows of the result (loop_shapes._row_loop)
        g.windows[name] = window
    g.stored.add((node, key))


def _fill(g, node, ins, out) -> Val:
    """The result some parts' loops stored into (``part_region``): the other parts are
    copied to their slabs by explicit loops (a slice assignment ``buf[0:1] = part`` added
    1.8 s of Numba compile time to a stencil program, measured), whose bounds are read
    at run time (``Val.dim``)."""
    aval = node.outputs[0].aval
    buf = g.joined[node]
    for x, key in zip(ins, slabs(node)):
        if (node, key) in g.stored:
            continue
        nd, axis, start = len(aval.shape), len(key) - 1, key[-1][1]
        idx = [g.tmp("j") for _ in range(nd)]
        for d, i in enumerate(idx):
            g.line(f"{'    ' * d}for {i} in range({x.dim(d)}):")
        at = [f"{i} + {start}" if d == axis and start else i for d, i in enumerate(idx)]
        value = cast(f"{x.name}[{', '.join(idx)}]", aval.dtype)
        g.line(f"{'    ' * nd}{buf}[{', '.join(at)}] = {value}")
    g.line(f"{out} = {buf}")
    return Val(out, aval)
