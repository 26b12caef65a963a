"""Graph -> the Python source of one module holding one Numba-compilable function.

``generate(graph)`` returns a :class:`Program`: the module text (imports, the helpers
it uses, and ``program(a0, ..., c0, ...)`` with one block of statements per node), the
constant arrays passed after the graph inputs, and, when some node has no Numba kernel,
the list of reasons instead. It never imports Numba: ``numba_cpu`` compiles the text.

Conventions in the generated code (why they hold is in docs/runtime.md):

* value ``%n`` of ``str(graph)`` is the variable ``vn`` (inputs are ``an``, large
  constants ``cn``), so an error in the program points back at the printed graph;
* every rank-0 value is a Numba *scalar*, never a 0-d array (0-d inputs are read with
  ``a[()]``, 0-d results are returned as scalars and wrapped by the executor); a 0-d
  constant is inlined as an exact literal;
* elementwise ops become explicit loops: a flat loop when every operand is contiguous
  and has the output's shape, else an N-d loop over ``np.broadcast_to`` views; each
  element is cast to NumPy's loop dtype and the result to the node's dtype, so
  promotion and integer wraparound are exactly NumPy's;
* control flow (``kernels_control``) inlines each branch / loop body with a child
  generator (``_Gen.inline``) whose variables carry a prefix (``s3_v2``);
* ``Program.blocked`` lists the top-level nodes without a kernel, so the executor can
  run the rest as compiled segments (``segments``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from graphc.ir.graph import TOKEN, Aval, ConstArray, Graph
from graphc.ir.printer import Namer, format_graph, node_signature
from graphc.ops.state import is_resource
from graphc.runtime.cpu import (
    kernels,
    kernels_array,  # noqa: F401  (registers sort, pad, tile, ranges, std/var, ...)
    kernels_control,  # noqa: F401  (registers cond / switch_case / while_loop)
    kernels_index,  # noqa: F401  (registers advanced indexing)
    kernels_join,  # registers concatenate / stack; stores loops into their slab
    kernels_linalg,  # noqa: F401  (registers einsum, tensordot, inner, vdot, trace)
    kernels_linalg_decomp,  # noqa: F401  (registers cholesky, inv, solve, det, qr, svd, ...)
    kernels_linalg_tf,  # noqa: F401  (registers triangular_solve, lu)
    kernels_matmul,  # noqa: F401  (registers matmul and dot)
    kernels_reduce,  # noqa: F401  (registers the reduction emitters)
    kernels_save_stack,  # noqa: F401  (registers the saving loop's stack: empty, push)
    kernels_setitem,  # registers setitem: t[key] = v; stores loops into its region
    kernels_shape,  # noqa: F401  (registers shape and creation emitters)
    kernels_state,  # noqa: F401  (registers variable reads and writes)
    kernels_take,  # noqa: F401  (registers take, gather, scatter, segment sums, argwhere)
    kernels_tensor_array,  # noqa: F401  (registers TensorArray zeros/write/read/stack)
    outline,
    tiny,
)
from graphc.runtime.cpu.kernels import Unsupported, Val, check_dtype, literal
from graphc.runtime.cpu.kernels_axis_sum import fusable_axis_sum, fused_axis_sum
from graphc.runtime.cpu.kernels_max_fold import fusable_reduction, fused_reduction
from graphc.runtime.cpu.kernels_row_sum import fusable_row_sum, fused_row_sum
from graphc.runtime.cpu.kernels_state import TOKEN_NAME
from graphc.runtime.cpu.loops import Loops
from graphc.runtime.cpu.ownership import Ownership
from graphc.runtime.fallback import STATE_OPS, VARIABLE_ARGUMENT

FN_NAME = "program"
# Reductions folded into the elementwise loop (a node or a fused group) feeding them:
# (fusable, fused) pairs, ``fusable(gen, node, ins)`` -> the reduction node or None
FOLDS = ((fusable_reduction, fused_reduction),
         (fusable_row_sum, fused_row_sum), (fusable_axis_sum, fused_axis_sum))
PROGRAM_DECORATOR = "@numba.njit(cache=True, error_model='numpy', nogil=True)"
# Programs with a prange loop: only explicit pranges become parallel (Numba would also
# turn np.empty, array expressions and reductions into parallel loops, each paying a
# thread launch; the generator writes its own loops).
PARALLEL_DECORATOR = (
    "@numba.njit(cache=True, error_model='numpy', nogil=True, parallel=dict("
    "comprehension=False, reduction=False, inplace_binop=False, setitem=False, "
    "numpy=False, stencil=False, fusion=False, prange=True))")


@dataclass
class Program:
    """The generated module for one graph (or the reasons it cannot be generated)."""

    source: str = ""
    input_avals: tuple = ()        # the graph inputs' avals (the compiled signature)
    scalar_inputs: tuple = ()      # per graph input: rank 0, read as a scalar inside
    consts: tuple = ()             # arrays passed after the inputs, in order
    variables: tuple = ()          # (VariableRef, aval) per ``sK`` parameter, passed
                                   # after the constants (see ``kernels_state``)
    written: tuple = ()            # the variable slots the program returns after its
                                   # outputs, in this order (their new values)
    recycle: tuple = ()            # (output index, dtype, ndim) per ``rK`` parameter,
                                   # passed last (see ``recycle.py``)
    scalar_outputs: tuple = ()     # per returned value: its dtype when a scalar; one
                                   # value is returned bare, more as a tuple
    reasons: list = field(default_factory=list)
    blocked: list = field(default_factory=list)  # (node, reason): top-level, no kernel

    @property
    def ok(self) -> bool:
        return not self.reasons


def generate(graph: Graph) -> Program:
    """Generate the program for ``graph``; ``Program.reasons`` lists what blocks it.

    Variable reads and writes compile only when every other node does too: when some
    effect stays in Python (a print, ``numpy_function``), the variable ops run in Python
    as well, so the compiled segments and Python nodes keep all effects in order."""
    program = _Gen(graph).run()
    if program.reasons and program.variables:
        program = _Gen(graph, allow_state=False).run()
    return program


class _Gen(Loops):
    """One generation: the emitters call ``line`` and ``tmp`` on it."""

    def __init__(self, graph: Graph, parent: "_Gen | None" = None, allow_state=True,
                 owned=()):
        self.graph = graph
        self.owned = owned  # indices of graph inputs whose buffers this code may write
        self.namer = Namer(graph)
        self.vals: dict[int, Val] = {}
        self.reasons: list[str] = []
        self.blocked: list = []  # (node, reason) for the nodes of this graph with no kernel
        if parent is None:
            self.lines: list[str] = []
            self.depth = 1
            self.consts: list[np.ndarray] = []
            self._n = 0
            self.prefix = ""
            self.flags: dict = {}  # program-wide: "parallel" when some loop uses prange
            self.recycle: dict = {}  # output variable -> output index (recycle.py)
            self.recycled: list = []  # (output index, dtype, ndim) per rK parameter
            self.reuse: dict = {}  # a loop state's next value -> its spare (loop_reuse)
            self.reused: dict = {}  # those whose allocation took it -> the spare, and
                                    # views of such buffers -> None (loop_reuse.bound)
            self.allow_state = allow_state  # compile variable reads/writes
            self.variables: dict = {}  # VariableRef -> slot k (local wk, parameter sk)
            self.written: set = set()  # slots some assign_variable writes
            self.kernels: dict = {}  # kernel functions by name (outline.py)
            self.forced: set = set()  # those called even where used once (loop_reuse)
            self.sites: list = []  # (kernel, work, lines, call) per placeholder
        else:
            # an inlined subgraph (a branch or loop body): it writes into the parent's
            # lines and constants, with its own names (prefixed, so the function-wide
            # Numba variables never collide: a name typed as an array in one place and
            # a scalar in another would not compile)
            self.lines, self.depth, self.consts = parent.lines, parent.depth, parent.consts
            self.flags = parent.flags
            self.recycle, self.recycled = {}, parent.recycled  # only top-level results
            self.reuse, self.reused = parent.reuse, parent.reused
            self.allow_state = parent.allow_state
            self.variables, self.written = parent.variables, parent.written
            self.kernels, self.sites, self.forced = parent.kernels, parent.sites, parent.forced
            self._n = parent._n + 1
            self.prefix = f"s{self._n}_"
        if graph.token_in is not None:
            self.vals[graph.token_in.id] = Val(TOKEN_NAME, TOKEN)

    # -- the interface emitters use
    def line(self, text: str) -> None:
        self.lines.append("    " * self.depth + text)

    def tmp(self, prefix: str = "t") -> str:
        self._n += 1
        return f"_{prefix}{self._n}"

    # -- driver
    def run(self) -> Program:
        g = self.graph
        params, scalar_in = [], []
        for i, v in enumerate(g.inputs):
            name = "a" + self.namer(v)[1:]
            params.append(name)
            aval = v.aval
            scalar_in.append(bool(aval.shape == ()))
            if is_resource(aval) or aval.shape is None:
                self.reasons.append(f"input {i} is {VARIABLE_ARGUMENT}" if is_resource(aval)
                                    else f"input {i} has unknown rank")
                self.vals[v.id] = Val(name, aval)
                continue
            self._dtype_ok(aval.dtype, f"input {i}")
            if aval.shape == ():
                self.line(f"{self._var(v)} = {name}[()]")
                self.vals[v.id] = Val(self._var(v), aval)
            else:
                self.vals[v.id] = Val(name, aval, contig=True)  # the executor ensures it
        for i, v in enumerate(g.outputs):
            if v.aval.shape:  # an array result (used only where a loop allocates it)
                self.recycle.setdefault(self._var(v), i)
        start = len(self.lines)
        self._nodes()
        variables = sorted(self.variables.items(), key=lambda kv: kv[1])
        self.lines[start:start] = [  # each variable's local, before any use
            f"    w{k} = s{k}" + ("[()]" if not ref.deref().shape else "")
            for ref, k in variables]
        written = tuple(sorted(self.written))
        outs, scalar_out = [], []
        for v in g.outputs:
            val = self.vals.get(v.id)
            if val is None:
                self.reasons.append("an output is not defined by the graph")
                break
            val = tiny.array(self, val)
            outs.append(val.name)
            scalar_out.append(v.aval.dtype if val.scalar else None)
        for k in written:
            var = variables[k][0].deref()
            outs.append(f"w{k}")
            scalar_out.append(var.dtype if not var.shape else None)
        # one value is returned bare (no 1-tuple to build and index: 20 ns of a call)
        self.line(f"return {outs[0]}" if len(outs) == 1 else f"return ({', '.join(outs)})")
        params += [f"c{i}" for i in range(len(self.consts))]
        params += [f"s{k}" for _ref, k in variables]
        params += [f"r{k}" for k in range(len(self.recycled))]
        avals = tuple((ref, Aval(tuple(ref.deref().shape), ref.deref().dtype))
                      for ref, _k in variables)
        return Program(self._module(params), tuple(v.aval for v in g.inputs), tuple(scalar_in),
                       tuple(self.consts), avals, written, tuple(self.recycled),
                       tuple(scalar_out), self.reasons, self.blocked)

    def _nodes(self) -> None:
        """One block of statements per node, in graph order (fusing elementwise runs)."""
        g = self.graph
        self.uses: dict[int, int] = {}
        self.readers: dict[int, list] = {}  # value id -> the nodes reading it
        for node in g.nodes:
            for v in node.inputs:
                self.uses[v.id] = self.uses.get(v.id, 0) + 1
                self.readers.setdefault(v.id, []).append(node)
        for v in g.outputs:
            self.uses[v.id] = self.uses.get(v.id, 0) + 1
        self.ownership = Ownership(g, self.owned)  # which writes go in place
        self.regions: set = set()  # loop results that are views into a written target
        self.windows: dict = {}  # those of them that are windows (kernels.WindowVal)
        self.reads_region: set = set()  # those of them whose loop reads them too
        self.stored: set = set()  # setitem nodes whose value a loop stored in place
        self.joined: dict = {}  # concatenate node -> its result's buffer, allocated
                                # before a part's loop stored into it (into_part)
        self.group = None  # the open fused loop (see loops.Loops)
        self.done = set()  # nodes already emitted with an earlier one (a fused reduction)
        for node in g.nodes:
            self.line(f"# {node_signature(g, node)}")
            if node in self.done:
                continue
            try:
                if any(v.aval.shape is None for v in node.inputs if not v.aval.is_token):
                    raise Unsupported("operand of unknown rank")
                if self.ownership.writes_operand(node):
                    self._flush()  # an open fused loop may read the old contents
                stores = self.ownership.into_region.get(node)
                part = self.ownership.into_part.get(node)
                if stores is None and part is None and tiny.emit(self, node):
                    continue  # tiny vectors kept as scalars (tiny.py)
                tiny.materialize(self, node)
                if stores is not None:
                    self._flush()
                    kernels_setitem.region(self, node, stores)
                elif part is not None:
                    self._flush()
                    kernels_join.part_region(self, node, *part)
                elif self._fold(node, [self.vals.get(v.id) for v in node.inputs]) is None \
                        and self._join(node):  # (a node a reduction folds into: its own loop)
                    continue
                if self.group is not None and any(v.id in self.group.made
                                                  for v in node.inputs):
                    self._flush()
                self._node(node)
            except Unsupported as e:
                where = f" (traced at {node.src})" if node.src else ""
                self.reasons.append(f"{node_signature(g, node)}: {e}{where}")
                self.blocked.append((node, self.reasons[-1]))
                for v in node.outputs:  # keep going so every blocker is reported
                    self.vals.setdefault(v.id, Val(self._var(v), v.aval))
        self._flush()

    def inline(self, graph: Graph, args: list[Val], owned=(), keep=(), reuse=None) -> list:
        """Emit ``graph`` (a branch or loop body) here, its inputs bound to ``args``
        (those at indices ``owned`` hold buffers it may write: ``ownership``); returns
        the Vals of its outputs, those at indices ``keep`` as they are (a tiny value
        stays scalars: a loop's state, ``tiny.carried``), the others as arrays; the
        outputs at the indices of ``reuse`` may be made in the buffer it names
        (``loop_reuse``). Raises Unsupported when part of it is."""
        child = _Gen(graph, parent=self, owned=owned)
        for k, spare in (reuse or {}).items():
            self.reuse[child._var(graph.outputs[k])] = spare
        for v, x in zip(graph.inputs, args):
            child.vals[v.id] = tiny.TinyVal(x.name, v.aval, x.elems) \
                if isinstance(x, tiny.TinyVal) else Val(x.name, v.aval, x.contig)
        child._nodes()
        results = [child.vals[v.id] if k in keep else tiny.array(child, child.vals[v.id])
                   for k, v in enumerate(graph.outputs)]
        self._n = child._n
        if child.reasons:
            raise Unsupported(f"in {graph.name}: " + "; ".join(child.reasons))
        return results

    def _module(self, params) -> str:
        text = format_graph(self.graph).splitlines()
        head = [
            '"""Generated by graphc.runtime.cpu.codegen; do not edit (the cache rebuilds it)."""',
            *(f"# {ln}" for ln in text),
            "import math  # noqa: F401",
            "",
            "import numba",
            "import numpy as np",
            "",
            "from graphc.runtime import numba_helpers as H  # noqa: F401",
            "from graphc.runtime import vmath as V  # noqa: F401",
            "",
        ]
        deco = PARALLEL_DECORATOR if self.flags.get("parallel") else PROGRAM_DECORATOR
        defs, lines = outline.resolve(self)
        head += defs
        head += ["", "", deco, f"def {FN_NAME}({', '.join(params)}):",
                 "    V.prefer_wide_vectors()  # 512-bit SIMD where the CPU has it (vmath_base)"]
        return "\n".join(head + lines) + "\n"

    def _var(self, v) -> str:
        return self.prefix + "v" + self.namer(v)[1:]

    def _dtype_ok(self, dtype, what) -> None:
        try:
            check_dtype(dtype, what, complex_ok=True)  # the ops reading it decide
        except Unsupported as e:
            self.reasons.append(str(e))

    # -- nodes
    def _node(self, node) -> None:
        if any(v.aval.is_token for v in (*node.inputs, *node.outputs)) and not (
                self.allow_state and (node.op.name in STATE_OPS or node.subgraphs())):
            raise Unsupported(f"stateful op {node.op.name} (effects run in Python, in "
                              "program order)")
        complex_ok = kernels.complex_ok(node)
        for v in node.outputs:
            if v.aval.is_token or is_resource(v.aval):
                continue
            if v.aval.shape is None:
                raise Unsupported("result of unknown rank")
            check_dtype(v.aval.dtype, f"{node.op.name}'s result", complex_ok)
        ins = [self.vals[v.id] for v in node.inputs]
        for x in ins:
            if not (x.aval.is_token or is_resource(x.aval)):
                check_dtype(x.aval.dtype, f"an input of {node.op.name}", complex_ok)
        outs = [self._var(v) for v in node.outputs]
        if node.op.name == "const":
            self._const(node, outs[0])
            return
        fold = self._fold(node, ins)
        if fold is not None:  # a reduction as this loop's fold; its node is done
            fusable, fused, red = fold
            self.vals[red.outputs[0].id] = fused(self, node, red, ins)
            self.done.add(red)
            return
        if node.op.name == "fused_elementwise":
            results = self._fused(node, ins, outs)
            for v, val in zip(node.outputs, results):
                self.vals[v.id] = val
            return
        emit = kernels.EMITTERS.get(node.op.name)
        if emit is not None:
            results = outline.emit(self, node, ins, outs, emit)
        elif node.op.elementwise and not node.op.multiple_results:
            step = (node.op, node.attrs, [("in", j) for j in range(len(ins))],
                    node.outputs[0].aval)
            results = self.elementwise(ins, [step], [0], outs)
        else:
            raise Unsupported(f"no Numba kernel for op {node.op.name}")
        for v, val in zip(node.outputs, results):
            self.vals[v.id] = val

    def _fold(self, node, ins):
        """``(fusable, fused, reduction)`` for the first of ``FOLDS`` that takes the
        reduction reading ``node`` (an elementwise node or group) into its loop."""
        if node.op.name != "fused_elementwise" and not (
                node.op.elementwise and len(node.outputs) == 1):
            return None
        if any(x is None for x in ins):  # an operand still in the open fused loop
            return None
        for fusable, fused in FOLDS:
            red = fusable(self, node, ins)
            if red is not None:
                return fusable, fused, red
        return None

    def _const(self, node, name) -> None:
        value = node.attrs["value"]
        arr = value.array if isinstance(value, ConstArray) else np.asarray(value)
        aval = node.outputs[0].aval
        if arr.ndim == 0:
            self.line(f"{name} = {literal(arr, arr.dtype)}")
            self.vals[node.outputs[0].id] = Val(name, aval)
            return
        c = f"c{len(self.consts)}"
        self.consts.append(np.ascontiguousarray(arr))
        self.line(f"{name} = {c}")
        self.vals[node.outputs[0].id] = Val(name, aval, contig=True)
