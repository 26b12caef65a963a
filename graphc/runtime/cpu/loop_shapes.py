"""The shapes of the elementwise loops ``Loops`` emits: flat (every operand contiguous
and of the loop's shape), rows x last dim (operands that broadcast along whole rows or
columns, read through contiguous 1-D views so the inner loop vectorizes) and general
N-d (an operand of static shape indexed as it is, 0 along its broadcast dims; one with
unknown dims through an ``np.broadcast_to`` view), each with ``prange`` where it pays
(``parallel.parallel_settings``). Mixed into ``loops.Loops``.
"""

from __future__ import annotations

import math

from graphc.runtime.cpu import kernels
from graphc.runtime.cpu.parallel import parallel_settings

# A window that cuts leading dims (``A[1:-1, 1:-1, 2:]``) is read by rows only when its
# rows hold at least this many values: 512-bit vectors interleaved 4 times (vmath_base)
# take 32 values a pass, and rows of 23 ran slower than the strided N-d loop (heat-3d,
# 0.89 vs 0.58 ms). Above it the evidence is mixed: NPBench's channel flow (rows of 59)
# 90 -> 63 ms and hdiff (rows of 60) about 15% faster by rows, heat-3d with rows of 40-60
# 0-15% slower, with rows of 68 2.4x faster (5.8 vs 13.7 ms). Whole rows cut to columns
# (a GRU's gates) go by rows at any length: they cost no more per row than a full operand.
ROW_MIN = 32


class LoopShapes:
    """Loop emission by shape; needs ``line``, ``tmp``, ``depth``, ``flags`` and
    ``regions`` (results bound to a view of a buffer written in place)."""

    def _loops(self, g, ins, elem, body, results, outs, shape, arrays, size) -> None:
        """The loop (flat, row-wise or N-d, whichever the operands allow) running ``body``."""
        shp = f"_shp{g}"
        static = None not in shape
        same = {j for j in arrays if static and ins[j].aval.shape == shape}
        if set(outs) & self.regions:  # the result is a view of a buffer written in place
            wins = [self.windows.get(o) for o in outs]
            kinds = self._row_kinds(ins, arrays, shape) \
                if all(wins) and shape[-1] >= ROW_MIN else None
            if kinds is not None:  # rows of the buffer itself
                self._row_loop(g, ins, elem, body, results, outs, shape, kinds, wins)
            else:  # its strides: index it in N-d
                self._nd_loop(g, ins, elem, body, results, outs, shape, same)
        elif all(ins[j].contig and j in same for j in arrays):
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
        ``col`` (the leading dims, last dim 1: one value per row), ``one`` (one element),
        ``win`` (the output's shape, a window of a C-contiguous array:
        ``kernels.WindowVal``); None when some operand is none of these (the general N-d
        loop then)."""
        if None in shape or len(shape) < 2 or 0 in shape:
            return None
        kinds = {}
        for j in arrays:
            x = ins[j]
            xs = (1,) * (len(shape) - len(x.aval.shape)) + tuple(x.aval.shape)
            if isinstance(x, kernels.WindowVal) and tuple(x.aval.shape) == shape \
                    and (shape[-1] >= ROW_MIN or x.row("r") == "r"):
                kinds[j] = "win"
                continue
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

    def _row_loop(self, g, ins, elem, body, results, outs, shape, kinds, wins=()) -> None:
        """Broadcasting as two loops, rows (all leading dims) x the last dim, every operand
        read through a contiguous 1-D view, so the inner loop vectorizes like a flat one
        (the N-d loop's strided ``broadcast_to`` reads do not: ``tanh(x + bias)`` on 2^22
        float32 values took 2.4x NumPy's time that way). ``wins``: the outputs as windows
        of the buffers a setitem writes in place (``kernels_setitem.region``); an operand
        that is the same window as an output is read from the output's row (one pointer:
        LLVM needs no run-time overlap check)."""
        rows = math.prod(shape[:-1])
        wins = list(wins) or [None] * len(outs)
        own = {}  # operand -> the output whose window it is
        for j in kinds:
            same = [k for k, w in enumerate(wins) if w and w.same_window(ins[j])]
            if same:
                own[j] = same[0]
        flat = {}
        for j, kind in kinds.items():
            if j not in own:
                flat[j] = f"_f{g}_{j}"
                self.line(f"{flat[j]} = {self._rows_of(ins[j], rows, kind)}")
        outs2 = [f"_fo{g}_{k}" for k in range(len(outs))]
        for o, o2, w in zip(outs, outs2, wins):
            rows_of = self._rows_of(w, rows, "win") if w else f"{o}.reshape({rows}, -1)"
            self.line(f"{o2} = {rows_of}")
        parallel = parallel_settings.allowed() and rows * shape[-1] >= parallel_settings.min_size \
            and rows >= 16 and kernels.parallel_safe(body)
        if parallel:
            self.flags["parallel"] = True
        r = f"_p{g}" if parallel else "_r"
        # trip counts read at run time (see ``Val.dim``)
        n_rows = " * ".join(f"{outs[0]}.shape[{d}]" for d in range(len(shape) - 1))
        self.line(f"for {r} in {'numba.prange' if parallel else 'range'}({n_rows}):")
        self.depth += 1
        for k, (o2, w) in enumerate(zip(outs2, wins)):
            self.line(f"_orow{g}_{k} = {o2}[{w.row(r) if w else r}]")
        for j, kind in kinds.items():  # per-row operands, hoisted out of the inner loop
            x = ins[j]
            if j in own:
                continue
            if kind == "full":
                self.line(f"_row{g}_{j} = {flat[j]}[{r}]")
            elif kind == "win":
                self.line(f"_row{g}_{j} = {flat[j]}[{x.row(r)}]")
            elif kind == "col":
                self.line(f"{elem[j]} = {flat[j]}[{r}]")
            elif kind == "one":
                self.line(f"{elem[j]} = {flat[j]}[0]")
        self.line(f"for _k in range({outs[0]}.shape[{len(shape) - 1}]):")
        self.depth += 1
        for j, x in enumerate(ins):
            kind = kinds.get(j)
            if j in own:
                w = wins[own[j]]
                self.line(f"{elem[j]} = _orow{g}_{own[j]}[_k + {w.start}]")
            elif kind == "full":
                self.line(f"{elem[j]} = _row{g}_{j}[_k]")
            elif kind == "win":
                self.line(f"{elem[j]} = _row{g}_{j}[_k + {x.start}]")
            elif kind == "row":
                self.line(f"{elem[j]} = {flat[j]}[_k]")
            elif kind is None:
                self.line(f"{elem[j]} = {x.name}")
        for ln in body:
            self.line(ln)
        for k, (s_, w) in enumerate(zip(results, wins)):
            self.line(f"_orow{g}_{k}[_k + {w.start}] = _s{g}_{s_}" if w
                      else f"_orow{g}_{k}[_k] = _s{g}_{s_}")
        self.depth -= 2

    @staticmethod
    def _rows_of(x, rows, kind) -> str:
        """Source for the 2-D (or, for a ``row``/``col``/``one`` operand, flat) view the
        row loop indexes: a window's base seen as rows of its last dim."""
        if kind == "win":
            return f"{x.base}.reshape({math.prod(x.base_shape[:-1])}, -1)"
        return f"{x.name}.reshape({rows}, -1)" if kind == "full" else f"{x.name}.reshape(-1)"

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
        names = [f"_p{g}" if self._nd_parallel(shape, body) else "_i0"] + [
            f"_i{d}" for d in range(1, len(shape))]
        src, reads = {}, {}
        for j, x in enumerate(ins):
            if x.scalar:
                continue
            if j in same:
                src[j] = x.name
            elif None not in x.aval.shape and None not in shape:
                # static shapes: index the operand itself, 0 along its broadcast dims (a
                # stride-0 broadcast_to view kept the loop from vectorizing)
                lead = len(shape) - len(x.aval.shape)
                reads[j] = ", ".join("0" if d == 1 and shape[lead + k] != 1
                                     else names[lead + k]
                                     for k, d in enumerate(x.aval.shape))
            else:
                src[j] = f"_b{g}_{j}"
                self.line(f"{src[j]} = np.broadcast_to({x.name}, {shp})")
        parallel = self._nd_parallel(shape, body)
        if parallel:
            self.flags["parallel"] = True
        idx = ", ".join(names)
        for d in range(len(shape)):
            loop = "numba.prange" if parallel and d == 0 else "range"
            self.line(f"for {names[d]} in {loop}({shp}[{d}]):")
            self.depth += 1
        for j, x in enumerate(ins):
            at = src.get(j)
            self.line(f"{elem[j]} = {at}[{idx}]" if at is not None else
                      f"{elem[j]} = {x.name}[{reads[j]}]" if j in reads else
                      f"{elem[j]} = {x.name}")
        for ln in body:
            self.line(ln)
        for o, s in zip(outs, results):
            self.line(f"{o}[{idx}] = _s{g}_{s}")
        self.depth -= len(shape)

    @staticmethod
    def _nd_parallel(shape, body) -> bool:
        """A big static-size loop runs its outermost dim with prange when that dim has
        work for every core (each iteration is a whole row, so no thread shares a line)."""
        size = math.prod(shape) if None not in shape else 0
        return (parallel_settings.allowed() and size >= parallel_settings.min_size
                and len(shape) > 1 and shape[0] >= 16 and kernels.parallel_safe(body))
