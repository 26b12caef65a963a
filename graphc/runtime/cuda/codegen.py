"""Graph -> the Python source of one module: CUDA kernels plus the host function launching them.

``generate(graph)`` returns a :class:`Program`. Its ``source`` holds

* one ``@cuda.jit(signature)`` kernel per fused elementwise group, reduction, matmul or
  copy, each with an explicit signature (compiled once, when the module is loaded; no
  type dispatch at launch) and configured once at module level (``K3 = k3[grid, block]``);
* ``program(ctx, a0, a1, ...)``: one block of host statements per node, in graph order,
  allocating each result and launching the kernel that fills it; control flow is Python
  ``if``/``while`` around the launches of the branch and loop bodies.

Conventions (docs/cuda.md says why):

* every value is a **flat 1-D C-contiguous device array** (a 0-d value has one element);
  shapes are static and known here, so kernels index with literal strides and
  ``reshape``/``expand_dims``/``squeeze`` cost nothing (the same buffer);
* value ``%n`` of ``str(graph)`` is the variable ``vn``; inputs are ``an``;
* kernels are generated from the same per-op scalar templates as the CPU loops
  (``graphc/runtime/scalar_templates.py``), through :mod:`devmath`'s ``np``/``H``/``V``;
* a node without a CUDA kernel runs on the host (``_host(ctx, k, ...)``: its operands
  copied to the host, the op's NumPy ``ref``, the results copied back); its reason is in
  ``Program.reasons``. A graph with effects (tokens, variables) runs wholly on the host.

This module imports neither Numba nor numba.cuda.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from graphc.ir.graph import ConstArray, Graph
from graphc.ir.printer import Namer, format_graph, node_signature
from graphc.runtime.cuda import (
    kernels_array,  # noqa: F401  (registers cumsum/cumprod, split, tile, repeat, ...)
    kernels_control,  # noqa: F401  (registers cond / switch_case / while_loop)
    kernels_einsum,  # noqa: F401  (registers einsum and trace)
    kernels_elementwise,  # noqa: F401  (registers elementwise ops and fused groups)
    kernels_index,  # noqa: F401  (registers take, gather, take_along_axis, ...)
    kernels_matmul,  # noqa: F401  (registers matmul, dot, tensordot, inner, vdot)
    kernels_reduce,  # noqa: F401  (registers reductions)
    kernels_shape,  # noqa: F401  (registers shape and creation ops)
    kernels_sort,  # noqa: F401  (registers sort and argsort)
    whole_host,
)
from graphc.runtime.cuda.lowering import (  # noqa: F401  (settings: tests lower max_grid)
    EMITTERS,
    DVal,
    numba_type,
    settings,
)
from graphc.runtime.scalar_templates import SUPPORTED_DTYPES, Unsupported, literal

FN_NAME = "program"


@dataclass
class Program:
    """The generated module for one graph."""

    source: str = ""
    input_avals: tuple = ()
    consts: tuple = ()           # host arrays (flat) the executor sends to the device once
    host_nodes: tuple = ()       # nodes run on the host, by ``_host`` index
    kernels: tuple = ()          # (kernel name, signature) of every kernel in ``source``
    reasons: list = field(default_factory=list)  # why nodes run on the host
    blocked: list = field(default_factory=list)  # (node, reason) per host node
    rechecks: tuple = ()         # nodes rerun on the host when a kernel flags an error
    whole_host: str | None = None  # set when the whole graph runs on the host


def generate(graph: Graph) -> Program:
    """Generate the program for ``graph`` (never raises for an unsupported op: such nodes
    run on the host and ``Program.reasons`` says why)."""
    why = whole_host.reason(graph)
    if why is not None:
        return Program(input_avals=tuple(v.aval for v in graph.inputs), whole_host=why,
                       reasons=[why])
    return Gen(graph).run()


class Gen:
    """One generation: emitters call ``line``, ``tmp``, ``kernel``, ``alloc`` on it."""

    def __init__(self, graph: Graph, parent: "Gen | None" = None):
        self.graph = graph
        self.namer = Namer(graph)
        self.vals: dict[int, DVal] = {}
        self.reasons: list[str] = []
        if parent is None:
            self.lines: list[str] = []
            self.kernel_src: list[str] = []
            self.kernels: list = []
            self.consts: list = []
            self.host: list = []
            self.rechecks: list = []
            self.depth = 1
            self._n = 0
            self.prefix = ""
            self.pool: dict | None = {}  # (size, dtype) -> buffers free for reuse
            self.owned: dict = {}        # buffer name -> (size, dtype), allocated here
            self.root: dict = {}         # variable name -> the buffer it reuses
            self.pinned: set = set()     # buffers a control-flow result may alias
        else:  # an inlined branch or loop body writes into the parent's module
            for k in (*self._LISTS, "depth"):
                setattr(self, k, getattr(parent, k))
            self._n = parent._n + 1
            self.prefix = f"s{self._n}_"
            self.pool = None  # buffers are reused at the top level only
        self.parent = parent

    # -- the interface emitters use
    def line(self, text: str) -> None:
        self.lines.append("    " * self.depth + text)

    def tmp(self, prefix: str = "t") -> str:
        self._n += 1
        return f"_{prefix}{self._n}"

    def alloc(self, name: str, aval) -> DVal:
        """``name = <a flat device array for aval>``: a new one, or at the top level the
        buffer of a value no later node reads (``_reuse``)."""
        key = (math.prod(aval.shape), np.dtype(aval.dtype).name)
        if self.pool is not None and self.depth == 1:
            if self.pool.get(key):
                buf = self.pool[key].pop()
                self.root[name] = buf
                self.line(f"{name} = {buf}  # reused: its last reader ran before")
                return DVal(name, aval)
            self.owned[name] = key
        self.line(f"{name} = _empty({key[0]}, np.{key[1]})")
        return DVal(name, aval)

    def _root(self, value_id) -> str:
        name = self.vals[value_id].name
        return self.root.get(name, name)

    def _reuse(self, live_ids) -> None:
        """Put back in the pool every buffer this program allocated that no value in
        ``live_ids`` (read by a later node or returned) lives in. Kernels run in order on
        one stream, so a later kernel writing it runs after every earlier one read it."""
        live = {self._root(i) for i in live_ids if i in self.vals} | self.pinned
        pooled = {b for names in self.pool.values() for b in names}
        for buf, key in self.owned.items():
            if buf not in live and buf not in pooled:
                self.pool.setdefault(key, []).append(buf)

    def recheck(self, node) -> int:
        """The index of ``node`` in ``Program.rechecks``: the host reruns it (and raises
        the interpreter's error) when its kernel flags a bad index."""
        self.rechecks.append(node)
        return len(self.rechecks) - 1

    def kernel(self, params: list, dtypes: list, body: list[str], grid, block) -> str:
        """Add a kernel ``def kN(*params): body`` typed 1-D C arrays of ``dtypes`` and
        configured for ``[grid, block]``; returns the configured kernel's name."""
        k = len(self.kernels)
        sig = "void(" + ", ".join(f"{numba_type(d)}[::1]" for d in dtypes) + ")"
        self.kernels.append((f"k{k}", sig))
        text = [f"@_kernel({sig!r})", f"def k{k}({', '.join(params)}):"]
        text += ["    " + b for b in body]
        text.append(f"K{k} = k{k}[{grid!r}, {block!r}]")
        self.kernel_src.append("\n".join(text))
        return f"K{k}"

    # -- driver
    def run(self) -> Program:
        g = self.graph
        params = []
        for v in g.inputs:
            name = "a" + self.namer(v)[1:]
            params.append(name)
            self.vals[v.id] = DVal(name, v.aval)
        self._nodes(top=True)
        outs = [self.vals[v.id].name for v in g.outputs]
        self.line(f"return ({', '.join(outs)}{',' if len(outs) == 1 else ''})")
        return Program(self._module(params), tuple(v.aval for v in g.inputs),
                       tuple(self.consts), tuple(self.host), tuple(self.kernels),
                       self.reasons, list(zip(self.host, self.reasons)),
                       tuple(self.rechecks))

    def _nodes(self, top: bool) -> None:
        g = self.graph
        live_after, live = [], {v.id for v in g.outputs}
        for node in reversed(g.nodes):  # the values read after each node (or returned)
            live_after.append(set(live))
            live |= {v.id for v in node.inputs}
        live_after.reverse()
        for node, after in zip(g.nodes, live_after):
            self.line(f"# {node_signature(g, node)}")
            mark = self._mark()
            try:
                self._node(node)
            except Unsupported as e:
                self._rollback(mark)  # a branch may have been emitted in part
                where = f" (traced at {node.src})" if node.src else ""
                reason = f"{node_signature(g, node)}: {e}{where}"
                if not top:
                    raise Unsupported(f"in {g.name}: {reason}") from None
                self.reasons.append(reason)
                self._host(node)
            if top and self.pool is not None:
                if node.subgraphs():  # its results may be these very buffers (a loop of
                    # zero trips, a branch returning an operand): never reuse them
                    self.pinned |= {self._root(v.id) for v in node.inputs if v.id in self.vals}
                self._reuse(after)

    _LISTS = ("lines", "kernel_src", "kernels", "consts", "host", "rechecks")

    def _mark(self) -> tuple:
        pool = None if self.pool is None else (
            {k: list(v) for k, v in self.pool.items()}, dict(self.owned), dict(self.root),
            set(self.pinned))
        return (self.depth, pool, *(len(getattr(self, k)) for k in self._LISTS))

    def _rollback(self, mark) -> None:
        """Forget what a node that turned out unsupported emitted (lists are shared with
        child generators, so truncating them drops the children's output too)."""
        self.depth = mark[0]
        if mark[1] is not None:
            self.pool, self.owned, self.root, self.pinned = mark[1]
        for k, n in zip(self._LISTS, mark[2:]):
            del getattr(self, k)[n:]

    def inline(self, graph: Graph, args: list[DVal]) -> list[DVal]:
        """Emit ``graph`` (a branch or loop body) here with its inputs bound to ``args``."""
        child = Gen(graph, parent=self)
        for v, x in zip(graph.inputs, args):
            child.vals[v.id] = DVal(x.name, v.aval, x.lit)
        child._nodes(top=False)
        self._n = child._n
        return [child.vals[v.id] for v in graph.outputs]

    def _module(self, params) -> str:
        head = ['"""Generated by graphc.runtime.cuda.codegen; do not edit."""',
                *(f"# {ln}" for ln in format_graph(self.graph).splitlines()), ""]
        body = [f"def {FN_NAME}(ctx, {', '.join(params)}):", *self.lines]
        return "\n".join(head + ["\n\n".join(self.kernel_src), "", ""] + body) + "\n"

    def var(self, v) -> str:
        return self.prefix + "v" + self.namer(v)[1:]

    # -- nodes
    def _node(self, node) -> None:
        for v in (*node.inputs, *node.outputs):
            if v.aval.dtype not in SUPPORTED_DTYPES:
                raise Unsupported(f"dtype {v.aval.dtype} has no CUDA kernels (float16 and "
                                  "complex run on the host)")
        ins = [self.vals[v.id] for v in node.inputs]
        outs = [self.var(v) for v in node.outputs]
        if node.op.name == "const":
            self._const(node, outs[0])
            return
        emit = EMITTERS.get(node.op.name)
        if emit is None and node.op.elementwise and not node.op.multiple_results:
            emit = EMITTERS["<elementwise>"]
        if emit is None:
            raise Unsupported(f"no CUDA kernel for op {node.op.name}")
        results = emit(self, node, ins, outs)
        for v, val in zip(node.outputs, results):
            self.vals[v.id] = val

    def _const(self, node, name) -> None:
        value = node.attrs["value"]
        arr = value.array if isinstance(value, ConstArray) else np.asarray(value)
        aval = node.outputs[0].aval
        arr = np.ascontiguousarray(np.asarray(arr, aval.dtype)).reshape(-1)
        self.consts.append(arr)
        self.line(f"{name} = ctx.consts[{len(self.consts) - 1}]")
        lit = literal(arr[0], arr.dtype) if not aval.shape else None
        self.vals[node.outputs[0].id] = DVal(name, aval, lit)

    def _host(self, node) -> None:
        """Run ``node`` on the host: operands copied out, its ``ref``, results copied in."""
        k = len(self.host)
        self.host.append(node)
        args = [self.vals[v.id].name for v in node.inputs]
        outs = [self.var(v) for v in node.outputs]
        tup = "(" + "".join(a + ", " for a in args) + ")"
        lhs = "".join(o + ", " for o in outs) + "= " if outs else ""
        self.line(f"{lhs}_host(ctx, {k}, {tup})")
        for v, o in zip(node.outputs, outs):
            self.vals[v.id] = DVal(o, v.aval)
