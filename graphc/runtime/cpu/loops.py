"""Elementwise loops for the code generator: fused groups, flat and broadcasting loops.

``Loops`` is mixed into ``codegen._Gen``. A *group* is a list of elementwise steps
computed in one loop: the fusion pass's ``fused_elementwise`` nodes arrive as ready-made
groups, and the generator also fuses runs of plain elementwise nodes of one shape itself
(so graphs optimized with ``"fusion": False``, or ops the pass leaves alone, still get
one loop). Every element is cast to NumPy's loop dtype and each result to the node's
dtype (``kernels.scalar_expr``), so fused results equal the unfused ones bit for bit.
"""

from __future__ import annotations

import functools
import math

from graphc.runtime.cpu import kernels, loop_reuse, outline
from graphc.runtime.cpu.kernels import Unsupported, Val, np_type
from graphc.runtime.cpu.loop_shapes import LoopShapes
from graphc.runtime.cpu.parallel import parallel_settings
from graphc.runtime.fused_groups import fused_steps
from graphc.runtime.scalar_templates import fast_expr

# Results of at least this many bytes get transparent huge pages (``H.hugepages``), as
# NumPy gives its arrays: first-touch page faults otherwise cost as much as the loop.
HUGEPAGE_BYTES = 1 << 22


class _Group:
    """An open fused loop: its steps, external operands and the values it makes."""

    def __init__(self, shape):
        self.shape = shape
        self.ins: list[Val] = []
        self.slot: dict[int, int] = {}        # value id -> index in ins
        self.steps: list = []
        self.values: list = []                # the Value each step makes
        self.made: dict[int, int] = {}        # value id -> step index
        self.inner_uses: dict[int, int] = {}  # value id -> reads inside the group


class Loops(LoopShapes):
    """Loop emission; needs ``line``, ``tmp``, ``vals``, ``uses``, ``group``, ``_var``."""

    # -- loop fusion
    def _fused(self, node, ins, outs) -> list[Val]:
        """A ``fused_elementwise`` node (the fusion pass): its subgraph as one loop."""
        steps, results = fused_steps(node, complex_ok=True)
        return self.elementwise(ins, steps, results, outs)

    def _join(self, node) -> bool:
        """Add an elementwise node to the open fused loop (or open one); False if it can't.

        A group is a run of elementwise nodes whose array operands all have the same
        static shape and are contiguous, so one flat loop computes them all and only
        values read outside the group are stored. It is emitted (``_flush``) before
        the first node outside it that reads one of its values, or when a node of
        another shape arrives. (The fusion pass's ``fused_elementwise`` nodes will be
        groups given ready-made; see docs/runtime.md.)
        """
        op = node.op
        if not op.elementwise or op.multiple_results or op.name in kernels.EMITTERS:
            return False
        if any(v.aval.is_token for v in (*node.inputs, *node.outputs)):
            return False
        aval = node.outputs[0].aval
        shape = aval.shape
        if not shape or None in shape or aval.dtype not in kernels.COMPILED_DTYPES:
            return False
        grp = self.group
        dtypes = []
        for v in node.inputs:
            if grp is not None and v.id in grp.made:
                dtypes.append(v.aval.dtype)
                continue
            x = self.vals.get(v.id)
            if x is None or x.aval.dtype not in kernels.COMPILED_DTYPES:
                return False
            if not x.scalar and (x.aval.shape != shape or not x.contig):
                return False
            dtypes.append(x.aval.dtype)
        try:
            kernels.scalar_expr(op, node.attrs, dtypes, aval.dtype, ["x"] * len(dtypes))
        except Unsupported:
            return False
        if grp is not None and grp.shape != shape:
            self._flush()
            grp = None
        if grp is None:
            grp = self.group = _Group(shape)
        refs = []
        for v in node.inputs:
            if v.id in grp.made:
                refs.append(("step", grp.made[v.id]))
            else:
                if v.id not in grp.slot:
                    grp.slot[v.id] = len(grp.ins)
                    grp.ins.append(self.vals[v.id])
                refs.append(("in", grp.slot[v.id]))
        out = node.outputs[0]
        grp.made[out.id] = len(grp.steps)
        grp.steps.append((op, node.attrs, refs, aval))
        grp.values.append(out)
        for v in node.inputs:
            grp.inner_uses[v.id] = grp.inner_uses.get(v.id, 0) + 1
        return True

    def _flush(self) -> None:
        grp, self.group = self.group, None
        if grp is None:
            return
        results, outs = [], []
        for s, v in enumerate(grp.values):
            if self.uses.get(v.id, 0) > grp.inner_uses.get(v.id, 0):
                results.append(s)
                outs.append(self._var(v))
        if not results:
            return  # nothing reads any of it (the pruning pass was off)
        vals = self.elementwise(grp.ins, grp.steps, results, outs)
        for s, val in zip(results, vals):
            self.vals[grp.values[s].id] = val

    # -- elementwise loops
    def elementwise(self, ins: list[Val], steps: list, results: list[int],
                    outs: list[str]) -> list[Val]:
        """:meth:`elementwise_loop`, outlined as a function where the same loop text
        repeats (``outline.lines_since``: Numba types and lowers it once)."""
        if not steps[results[0]][3].shape:  # scalars: no loop, inline (outline._cheap)
            return self.elementwise_loop(ins, steps, results, outs)
        start, state = len(self.lines), outline.state_of(self)
        vals = self.elementwise_loop(ins, steps, results, outs)
        if loop_reuse.outlined(self, outs):  # writes a buffer a loop reuses: a function
            extra = loop_reuse.bound(self, outs, [steps[s][3] for s in results])
            return outline.lines_since(self, start, state, ins + extra, vals, force=True)
        return outline.lines_since(self, start, state, ins, vals)

    def elementwise_loop(self, ins: list[Val], steps: list, results: list[int],
                         outs: list[str]) -> list[Val]:
        """One loop computing ``steps`` element by element.

        ``steps`` are ``(op, attrs, refs, aval)`` where each ref is ``("in", j)`` (the
        j-th of ``ins``) or ``("step", s)`` (an earlier step's element); ``results``
        picks the steps stored to ``outs``. A single node is a one-step group; a fused
        group (the fusion pass) is several.
        """
        g, elem, body = self.loop_body(ins, steps)
        # fast variants rerun the exact loop when one was inexact: not over a region the
        # first run has overwritten (ownership.Ownership.region_reads)
        fast = None if set(outs) & self.reads_region else self.loop_body(ins, steps, g)[2]
        out_avals = [steps[s][3] for s in results]
        shape = out_avals[0].shape
        if not shape:  # every operand is a scalar: no loop at all
            for j, x in enumerate(ins):
                self.line(f"{elem[j]} = {x.name}")
            for ln in body:
                self.line(ln)
            for s, o, aval in zip(results, outs, out_avals):
                self.line(f"{o} = _s{g}_{s}")
            return [Val(o, a) for o, a in zip(outs, out_avals)]
        arrays = [j for j, x in enumerate(ins) if not x.scalar]
        static = None not in shape
        shp = f"_shp{g}"
        full = [j for j in arrays if static and ins[j].aval.shape == shape]
        if full:  # read at run time, not a literal: see Val.dim
            self.line(f"{shp} = {ins[full[0]].name}.shape")
        elif static:
            self.line(f"{shp} = {kernels.shape_expr([str(d) for d in shape])}")
        else:
            self.line(f"{shp} = {self._broadcast_shape(ins, arrays, shape)}")
        size = math.prod(shape) if static else None
        for o, aval in zip(outs, out_avals):
            self._allocate(o, shp, aval, size)
        if fast is None:
            self._loops(g, ins, elem, body, results, outs, shape, arrays, size)
        else:  # fast variants, and the exact loop again when one was not exact (rare)
            self.line(f"_nb{g} = np.int32(0)")
            self._loops(g, ins, elem, fast, results, outs, shape, arrays, size)
            self.line(f"if _nb{g} != 0:")
            self.depth += 1
            with parallel_settings.serial():  # rare; and a prange index name used once
                self._loops(g, ins, elem, body, results, outs, shape, arrays, size)
            self.depth -= 1
        return [Val(o, a, contig=True) for o, a in zip(outs, out_avals)]

    def loop_body(self, ins: list[Val], steps: list, g: int | None = None):
        """``(g, elem, body)``: a fresh loop number ``g``, the names each operand's element
        is read into (``_x{g}_{j}``) and the statements computing step ``s`` as
        ``_s{g}_{s}``, each cast as NumPy's loop dtypes say. Given loop ``g``'s number:
        the body with fast variants (``scalar_templates.FAST_VARIANTS``) whose guards
        update ``_nb{g}``, None when no step has one."""
        fast = g is not None
        if not fast:
            g = self._n = self._n + 1
        elem = [f"_x{g}_{j}" for j in range(len(ins))]
        body, guards = [], []
        for s, (op, attrs, refs, aval) in enumerate(steps):
            args, dts = [], []
            for kind, j in refs:
                args.append(elem[j] if kind == "in" else f"_s{g}_{j}")
                dts.append(ins[j].aval.dtype if kind == "in" else steps[j][3].dtype)
            pair = fast_expr(op, attrs, dts, aval.dtype, args) if fast else None
            if pair is not None:
                guards.append(pair[1])
            expr = pair[0] if pair else kernels.scalar_expr(op, attrs, dts, aval.dtype, args)
            body.append(f"_s{g}_{s} = {expr}")
        if fast:  # one prange reduction statement; int32 max (an int64 sum: 8 lanes, not 16)
            guard = functools.reduce(lambda a, b: f"max({a}, {b})", guards or ["0"])
            body = body + [f"_nb{g} = max(_nb{g}, {guard})"] if guards else None
        return g, elem, body

    def _allocate(self, o, shp, aval, size) -> None:
        """``o = np.empty(shp)``; for a program result that may be big, last call's result
        ``rK`` instead when the executor passes one of the right shape (recycle.py)."""
        if o in self.regions:
            return  # already a view into the buffer a setitem writes (ownership.py)
        if loop_reuse.take(self, o, o, shp, aval.dtype):
            return  # a loop state's next value: maybe in a buffer the loop made before
        big = size is None or size * aval.dtype.itemsize >= HUGEPAGE_BYTES
        recycled = big and o in self.recycle
        if recycled:
            r = f"r{len(self.recycled)}"
            self.recycled.append((self.recycle.pop(o), aval.dtype, len(aval.shape)))
            self.line(f"if {r}.shape == {shp}:")
            self.line(f"    {o} = {r}")
            self.line("else:")
            self.depth += 1
        self.line(f"{o} = np.empty({shp}, {np_type(aval.dtype)})")
        if big:
            self.line(f"H.hugepages({o})")
        if recycled:
            self.depth -= 1
