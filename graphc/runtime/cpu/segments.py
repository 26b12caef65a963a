"""Compiled segments joined by Python: how a graph with some uncompilable nodes runs.

Nodes the code generator cannot compile (``numpy_function``/``py_function``, ``print``,
variable reads and writes, random draws, asserts: the stateful ops threaded by the
effect token; ops without a kernel yet) run on the interpreter *in program order*; every
other node is compiled, in as few programs as the data dependences allow:

* the uncompilable ("Python") nodes ``P1 .. Pm`` keep their order;
* each compilable node goes to the *earliest* compiled stage ``C0 .. Cm`` whose inputs
  are ready: stage ``Ck`` runs after ``Pk``, so a node reading only graph inputs and
  compiled values is in ``C0`` wherever it was traced, and one reading ``Pk``'s result
  is in ``Ck`` or later. A node traced before ``P(k+1)`` never lands after it, so every
  Python node finds its operands computed;
* 0-d and array constants are copied into each stage that reads them (they cost nothing
  and would otherwise be values passed between stages); the Python stages and the graph
  outputs get them precomputed.

The call runs ``C0, P1, C1, ..., Pm, Cm`` (empty stages skipped, adjacent Python nodes in
one interpreter call) over one environment of values; a value is dropped after its last
reader. Each compiled stage is an ordinary :class:`numba_cpu.Executor` (its own program,
cached like any other; compiled under the same lazy policy). Tokens are never values:
only Python nodes take them, and they run in order.
"""

from __future__ import annotations

from graphc.core.interpreter import run_graph
from graphc.ir.graph import Graph
from graphc.ir.printer import node_signature
from graphc.runtime.fallback import explain_lines


class SegmentedExecutor:
    """``executor(arrays) -> list``, running compiled segments and Python nodes in turn.

    ``reasons`` lists the Python nodes (with why), ``segments`` the compiled stages'
    executors; ``backend`` is ``"segments"``.
    """

    def __init__(self, graph, stages, consts, reasons):
        self.graph = graph
        self.reasons = reasons
        self.items = []  # fallback.Item for each Python node (set by executor_for)
        self.segments = [ex for kind, ex, _g in stages if kind == "numba"]
        self._stages = stages
        self._consts = consts
        self._inputs = [v.id for v in graph.inputs]
        self._outputs = [v.id for v in graph.outputs]
        last = {}  # value id -> index of the last stage reading it
        for k, (_kind, _ex, g) in enumerate(stages):
            for v in g.inputs:
                last[v.id] = k
        keep = set(self._outputs)
        drops = [[] for _ in stages]
        for vid, k in last.items():
            if vid not in keep:
                drops[k].append(vid)
        self._plan = [(ex, [v.id for v in g.inputs], [v.id for v in g.outputs], drops[k])
                      for k, (_kind, ex, g) in enumerate(stages)]

    @property
    def backend(self) -> str:
        return "segments"

    @property
    def program(self):
        return None

    def __call__(self, arrays):
        env = dict(self._consts)
        env.update(zip(self._inputs, arrays))
        for run, ins, outs, drop in self._plan:
            env.update(zip(outs, run([env[i] for i in ins])))
            for i in drop:
                del env[i]
        return [env[i] for i in self._outputs]

    def wait(self, timeout=None) -> bool:
        """Block until every segment's background compile is done; True if all run
        compiled."""
        return all([ex.wait(timeout) for ex in self.segments])

    def explain(self) -> str:
        n_py = sum(len(g.nodes) for kind, _ex, g in self._stages if kind == "python")
        lines = [f"backend: segments ({len(self.segments)} compiled segment(s), {n_py} "
                 "node(s) run in Python, in program order)"]
        for kind, ex, g in self._stages:
            if kind == "python":
                lines += [f"  python: {node_signature(self.graph, n)}" for n in g.nodes]
                continue
            state = ex.explain().splitlines()
            lines.append(f"  segment {g.name} ({len(g.nodes)} nodes): {state[0]}")
            lines += [f"    {s}" for s in state[1:]]
        if self.items:  # why, in the user's terms (by design, or a fallback)
            return "\n".join(lines + explain_lines(self.items))
        lines.append("run in Python because:")
        lines += [f"  - {r}" for r in self.reasons]
        return "\n".join(lines)


def split(graph, blocked, reasons, make_executor):
    """The :class:`SegmentedExecutor` for ``graph`` whose top-level nodes ``blocked``
    cannot be compiled (``reasons`` says why), or None when no compiled stage would do
    any work.

    ``make_executor(stage_graph)`` builds the executor of one compiled stage.
    """
    blocked = {id(n) for n in blocked}
    consts = {}       # value id -> the const node that makes it
    avail = {}        # value id -> first compiled stage that can read it
    compiled = {}     # stage -> its nodes
    python = {}       # stage k -> the Python node Pk (k >= 1)
    k = 0
    for node in graph.nodes:
        if node.op.name == "const" and id(node) not in blocked:
            consts[node.outputs[0].id] = node
            continue
        if id(node) in blocked:
            k += 1
            python[k] = node
            for v in node.outputs:
                avail[v.id] = k
            continue
        s = max((avail.get(v.id, 0) for v in node.inputs), default=0)
        compiled.setdefault(s, []).append(node)
        for v in node.outputs:
            avail[v.id] = s
    if not any(compiled.values()):
        return None
    # who reads each value: the stage (by position in the run order) and graph outputs
    order = []        # ("numba", nodes) / ("python", nodes), in run order
    for s in range(k + 1):
        if s in python:
            if order and order[-1][0] == "python":
                order[-1][1].append(python[s])
            else:
                order.append(("python", [python[s]]))
        if compiled.get(s):
            order.append(("numba", compiled[s]))
    readers: dict[int, set] = {}
    for pos, (_kind, nodes) in enumerate(order):
        for n in nodes:
            for v in n.inputs:
                readers.setdefault(v.id, set()).add(pos)
    outputs = {v.id for v in graph.outputs}
    fixed = {}        # const values the Python stages or the outputs read
    stages = []
    for pos, (kind, nodes) in enumerate(order):
        made = {v.id for n in nodes for v in n.outputs}
        used_consts = []
        ins, seen = [], set()
        for n in nodes:
            for v in n.inputs:
                if v.aval.is_token or v.id in made or v.id in seen:
                    continue
                seen.add(v.id)
                if v.id in consts and kind == "numba":
                    used_consts.append(consts[v.id])
                    continue
                if v.id in consts:
                    fixed[v.id] = None
                ins.append(v)
        outs = [v for n in nodes for v in n.outputs if not v.aval.is_token
                and (v.id in outputs or readers.get(v.id, set()) - {pos})]
        name = f"{graph.name}[{'python' if kind == 'python' else 'segment'} {pos}]"
        sub = Graph(ins, used_consts + list(nodes), outs, name=name)
        ex = make_executor(sub) if kind == "numba" else _python_runner(sub)
        stages.append((kind, ex, sub))
    for vid in list(fixed) + [i for i in outputs if i in consts]:
        node = consts[vid]
        fixed[vid] = run_graph(Graph([], [node], node.outputs), [])[0]
    return SegmentedExecutor(graph, stages, fixed, list(reasons))


def _python_runner(graph):
    def run(arrays):
        return run_graph(graph, arrays)
    return run
