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

from graphc.runtime.cpu import kernels
from graphc.runtime.cpu.kernels import Unsupported, Val, check_dtype, np_type
from graphc.runtime.cpu.parallel import parallel_settings
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


class Loops:
    """Loop emission; needs ``line``, ``tmp``, ``vals``, ``uses``, ``group``, ``_var``."""

    # -- loop fusion
    def _fused(self, node, ins, outs) -> list[Val]:
        """A ``fused_elementwise`` node (the fusion pass): its subgraph as one loop."""
        steps, results = self.fused_steps(node)
        return self.elementwise(ins, steps, results, outs)

    @staticmethod
    def fused_steps(node):
        """A ``fused_elementwise`` node's subgraph as ``(steps, results)`` for a loop."""
        sub = node.attrs["subgraph"]
        where = {v.id: ("in", i) for i, v in enumerate(sub.inputs)}
        steps = []
        for n in sub.nodes:
            if not n.op.elementwise or n.op.multiple_results or len(n.outputs) != 1:
                raise Unsupported(f"fused op {n.op.name} is not a single-output elementwise op")
            check_dtype(n.outputs[0].aval.dtype, f"fused {n.op.name}'s result")
            where[n.outputs[0].id] = ("step", len(steps))
            steps.append((n.op, n.attrs, [where[v.id] for v in n.inputs], n.outputs[0].aval))
        results = []
        for v in sub.outputs:
            kind, j = where[v.id]
            if kind != "step":
                raise Unsupported("a fused subgraph returns one of its inputs")
            results.append(j)
        return steps, results

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
        if not shape or None in shape or aval.dtype not in kernels.SUPPORTED_DTYPES:
            return False
        grp = self.group
        dtypes = []
        for v in node.inputs:
            if grp is not None and v.id in grp.made:
                dtypes.append(v.aval.dtype)
                continue
            x = self.vals.get(v.id)
            if x is None or x.aval.dtype not in kernels.SUPPORTED_DTYPES:
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
        for s, val in zip(results, self.elementwise(grp.ins, grp.steps, results, outs)):
            self.vals[grp.values[s].id] = val

    # -- elementwise loops
    def elementwise(self, ins: list[Val], steps: list, results: list[int],
                    outs: list[str]) -> list[Val]:
        """One loop computing ``steps`` element by element.

        ``steps`` are ``(op, attrs, refs, aval)`` where each ref is ``("in", j)`` (the
        j-th of ``ins``) or ``("step", s)`` (an earlier step's element); ``results``
        picks the steps stored to ``outs``. A single node is a one-step group; a fused
        group (the fusion pass) is several.
        """
        g, elem, body = self.loop_body(ins, steps)
        fast = self.loop_body(ins, steps, g)[2]
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

    def _loops(self, g, ins, elem, body, results, outs, shape, arrays, size) -> None:
        """The loop (flat, row-wise or N-d, whichever the operands allow) running ``body``."""
        shp = f"_shp{g}"
        static = None not in shape
        same = {j for j in arrays if static and ins[j].aval.shape == shape}
        if all(ins[j].contig and j in same for j in arrays):
            self._flat_loop(g, ins, elem, body, results, outs, len(shape), size)
        elif all(ins[j].contig and len(ins[j].aval.shape) == len(shape) for j in arrays) \
                and not static:
            cond = " and ".join(f"{ins[j].name}.shape == {shp}" for j in arrays)
            self.line(f"if {cond}:")
            self.depth += 1
            self._flat_loop(g, ins, elem, body, results, outs, len(shape))
            self.depth -= 1
            self.line("else:")
            self.depth += 1
            self._nd_loop(g, ins, elem, body, results, outs, shape, same)
            self.depth -= 1
        elif (kinds := self._row_kinds(ins, arrays, shape)) is not None:
            self._row_loop(g, ins, elem, body, results, outs, shape, kinds)
        else:
            self._nd_loop(g, ins, elem, body, results, outs, shape, same)

    @staticmethod
    def _row_kinds(ins, arrays, shape):
        """How each array operand of a static broadcasting loop reads in a rows x last-dim
        loop: ``full`` (the output's shape), ``row`` (only the last dim, e.g. a bias),
        ``col`` (the leading dims, last dim 1: one value per row), ``one`` (one element);
        None when some operand is none of these (the general N-d loop then)."""
        if None in shape or len(shape) < 2 or 0 in shape:
            return None
        kinds = {}
        for j in arrays:
            x = ins[j]
            xs = (1,) * (len(shape) - len(x.aval.shape)) + tuple(x.aval.shape)
            if not x.contig:
                return None
            if xs == shape:
                kinds[j] = "full"
            elif all(d == 1 for d in xs):
                kinds[j] = "one"
            elif all(d == 1 for d in xs[:-1]) and xs[-1] == shape[-1]:
                kinds[j] = "row"
            elif xs[:-1] == shape[:-1] and xs[-1] == 1:
                kinds[j] = "col"
            else:
                return None
        return kinds

    def _row_loop(self, g, ins, elem, body, results, outs, shape, kinds) -> None:
        """Broadcasting as two loops, rows (all leading dims) x the last dim, every operand
        read through a contiguous 1-D view, so the inner loop vectorizes like a flat one
        (the N-d loop's strided ``broadcast_to`` reads do not: ``tanh(x + bias)`` on 2^22
        float32 values took 2.4x NumPy's time that way)."""
        rows = math.prod(shape[:-1])
        flat = {}
        for j, kind in kinds.items():
            flat[j] = f"_f{g}_{j}"
            src = ins[j].name
            self.line(f"{flat[j]} = {src}.reshape({rows}, -1)" if kind == "full"
                      else f"{flat[j]} = {src}.reshape(-1)")
        outs2 = [f"_fo{g}_{k}" for k in range(len(outs))]
        for o, o2 in zip(outs, outs2):
            self.line(f"{o2} = {o}.reshape({rows}, -1)")
        parallel = parallel_settings.allowed() and rows * shape[-1] >= parallel_settings.min_size \
            and rows >= 16 and kernels.parallel_safe(body)
        if parallel:
            self.flags["parallel"] = True
        r = f"_p{g}" if parallel else "_r"
        self.line(f"for {r} in {'numba.prange' if parallel else 'range'}({outs2[0]}.shape[0]):")
        self.depth += 1
        for j, kind in kinds.items():  # per-row operands, hoisted out of the inner loop
            if kind == "full":
                self.line(f"_row{g}_{j} = {flat[j]}[{r}]")
            elif kind == "col":
                self.line(f"{elem[j]} = {flat[j]}[{r}]")
            elif kind == "one":
                self.line(f"{elem[j]} = {flat[j]}[0]")
        for k, o2 in enumerate(outs2):
            self.line(f"_orow{g}_{k} = {o2}[{r}]")
        self.line(f"for _k in range({outs2[0]}.shape[1]):")
        self.depth += 1
        for j, x in enumerate(ins):
            kind = kinds.get(j)
            if kind == "full":
                self.line(f"{elem[j]} = _row{g}_{j}[_k]")
            elif kind == "row":
                self.line(f"{elem[j]} = {flat[j]}[_k]")
            elif kind is None:
                self.line(f"{elem[j]} = {x.name}")
        for ln in body:
            self.line(ln)
        for k, s_ in enumerate(results):
            self.line(f"_orow{g}_{k}[_k] = _s{g}_{s_}")
        self.depth -= 2

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

    def _broadcast_shape(self, ins, arrays, shape) -> str:
        """The broadcast output shape as source, checked at run time for unknown dims.

        Written out per dim because Numba's np.broadcast_shapes costs 2 s to compile.
        """
        dims = []
        for d in range(len(shape)):
            if shape[d] is not None:
                dims.append(str(shape[d]))
                continue
            name = self.tmp("d")
            self.line(f"{name} = 1")
            for j in arrays:
                x = ins[j]
                k = d - (len(shape) - len(x.aval.shape))
                if k < 0 or x.aval.shape[k] == 1:
                    continue
                self.line(f"if {x.name}.shape[{k}] != 1:")
                self.line(f"    if {name} != 1 and {name} != {x.name}.shape[{k}]:")
                self.line("        raise ValueError('operands could not be broadcast together')")
                self.line(f"    {name} = {x.name}.shape[{k}]")
            dims.append(name)
        return kernels.shape_expr(dims)

    def _flat_loop(self, g, ins, elem, body, results, outs, rank, size=None) -> None:
        # every array operand has the loop's rank and is C-contiguous; at rank 1 it is its
        # own flat view (a reshape costs ~0.1 s of a small program's first compile)
        flatten = "" if rank == 1 else ".reshape(-1)"
        flat = {}
        for j, x in enumerate(ins):
            if not x.scalar:
                flat[j] = f"_f{g}_{j}"
                self.line(f"{flat[j]} = {x.name}{flatten}")
        for k, o in enumerate(outs):
            self.line(f"_fo{g}_{k} = {o}{flatten}")
        # prange only where it pays (see PARALLEL_MIN_SIZE); the loop index gets its own
        # name so Numba's parfor pass never sees it shared with another loop
        parallel = parallel_settings.allowed() and size is not None \
            and size >= parallel_settings.min_size and kernels.parallel_safe(body)
        if parallel:
            self.flags["parallel"] = True
        index = f"_p{g}" if parallel else "_i"
        loop = "numba.prange" if parallel else "range"
        self.line(f"for {index} in {loop}(_fo{g}_0.shape[0]):")
        self.depth += 1
        if parallel:  # the loop body becomes its own function (Numba's gufunc): ask there too
            self.line("V.prefer_wide_vectors()")
        for j, x in enumerate(ins):
            self.line(f"{elem[j]} = {flat[j]}[{index}]" if j in flat
                      else f"{elem[j]} = {x.name}")
        for ln in body:
            self.line(ln)
        for k, s in enumerate(results):
            self.line(f"_fo{g}_{k}[{index}] = _s{g}_{s}")
        self.depth -= 1

    def _nd_loop(self, g, ins, elem, body, results, outs, shape, same) -> None:
        shp = f"_shp{g}"
        src = {}
        for j, x in enumerate(ins):
            if x.scalar:
                continue
            if j in same:
                src[j] = x.name
            else:
                src[j] = f"_b{g}_{j}"
                self.line(f"{src[j]} = np.broadcast_to({x.name}, {shp})")
        # a big static-size loop runs its outermost dim with prange when that dim has work
        # for every core (each iteration is a whole row, so no thread shares a line)
        size = math.prod(shape) if None not in shape else 0
        parallel = (parallel_settings.allowed() and size >= parallel_settings.min_size
                    and len(shape) > 1 and shape[0] >= 16 and kernels.parallel_safe(body))
        if parallel:
            self.flags["parallel"] = True
        names = [f"_p{g}" if parallel else "_i0"] + [f"_i{d}" for d in range(1, len(shape))]
        idx = ", ".join(names)
        for d in range(len(shape)):
            loop = "numba.prange" if parallel and d == 0 else "range"
            self.line(f"for {names[d]} in {loop}({shp}[{d}]):")
            self.depth += 1
        for j, x in enumerate(ins):
            self.line(f"{elem[j]} = {src[j]}[{idx}]" if j in src else f"{elem[j]} = {x.name}")
        for ln in body:
            self.line(ln)
        for o, s in zip(outs, results):
            self.line(f"{o}[{idx}] = _s{g}_{s}")
        self.depth -= len(shape)
