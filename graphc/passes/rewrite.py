"""The rewrite driver: one forward sweep applies a rule to every node, until a fixed point.

A *rule* is ``rule(node, rw) -> None | (replacements, message)``: ``replacements`` holds
one value per output of ``node`` (its token output included) and ``message`` is the
report line, where ``{node}`` stands for the node as it was before its inputs were
rewritten (so the line reads like the traced listing). Rules see a node after its inputs
were rewritten and may read producers (``rw.producer(v)``, ``rw.const(v)``) and add new
nodes (``rw.add(node)``), which go through the rule again at once, so ``-(-(-(-x)))``
collapses in a single sweep. Rules only look upstream, so one sweep normally reaches the
fixed point; the driver still sweeps again while anything changed, at most ``MAX_SWEEPS``
times (the iteration guard), and notes in the report if the guard stopped it.

A replacement must have exactly the aval of the output it replaces (same dtype, same
shape with the same unknown dims): that is what keeps every rewrite shape- and
dtype-preserving, whatever the rule. A rule that breaks it is a graphc bug; the driver
keeps the node and, with ``GRAPHC_CHECK=1``, raises.
"""

from __future__ import annotations

from graphc import config
from graphc.passes.graphs import const_array, map_subgraphs, replace_graph, with_inputs

MAX_SWEEPS = 8  # whole-graph sweeps before the guard stops
MAX_DEPTH = 32  # rule applications nested through nodes that rules add


class RewriteError(RuntimeError):
    """A rewrite rule returned a replacement of the wrong aval (a graphc bug)."""


class Rewriter:
    """State of one sweep: the new node list and the substitution for replaced values."""

    def __init__(self, ctx, rule, subgraph_pass=None):
        self.ctx = ctx
        self.rule = rule
        self.subgraph_pass = subgraph_pass
        self.nodes: list = []
        self.subst: dict = {}  # value id -> the value that replaces it
        self.producers: dict = {}  # value id -> node in the new graph
        self.changed = False
        self._depth = 0

    # ---------------------------------------------------------------- what rules read
    def get(self, v):
        """The value that now stands for ``v``."""
        return self.subst.get(v.id, v)

    def producer(self, v):
        """The node of the new graph that produces ``v`` (None for graph inputs)."""
        return self.producers.get(v.id)

    def const(self, v):
        """``v``'s array when a ``const`` node produces it, else None."""
        return const_array(self.producers.get(v.id))

    # ---------------------------------------------------------------- building
    def add(self, node) -> list:
        """Append a node built by a rule (rewritten first); return its current outputs."""
        self._depth += 1
        try:
            self.process(node, recurse=True)
        finally:
            self._depth -= 1
        return [self.get(v) for v in node.outputs]

    def process(self, node, recurse: bool) -> None:
        original = node
        node = with_inputs(node, [self.get(v) for v in node.inputs])
        if recurse and self.subgraph_pass is not None:
            node = map_subgraphs(node, self.subgraph_pass, self.ctx)
        result = self.rule(node, self) if self._depth <= MAX_DEPTH else None
        if result is not None:
            replacements, message = result
            if self._accept(node, replacements, message):
                for old, new in zip(node.outputs, replacements):
                    if old is not new:
                        self.subst[old.id] = self.get(new)
                self.changed = True
                self.ctx.note(message.replace("{node}", self.ctx.describe(original)))
                return
        self.nodes.append(node)
        for v in node.outputs:
            self.producers[v.id] = node

    def _accept(self, node, replacements, message) -> bool:
        ok = len(replacements) == len(node.outputs) and all(
            new.aval == old.aval for old, new in zip(node.outputs, replacements))
        if not ok and config.check_passes():
            raise RewriteError(f"rewrite {message!r} would change the avals of "
                               f"{self.ctx.describe(node)}")
        return ok


def rewrite(graph, ctx, rule, subgraph_pass=None, max_sweeps: int = MAX_SWEEPS):
    """Apply ``rule`` over ``graph`` to a fixed point; return the new graph.

    ``subgraph_pass(graph, ctx) -> graph`` is applied to branch and loop bodies (in the
    first sweep, and to nodes that rules add). Returns ``graph`` itself when nothing
    changed anywhere.
    """
    for sweep in range(max_sweeps):
        rw = Rewriter(ctx, rule, subgraph_pass)
        for node in graph.nodes:
            rw.process(node, recurse=sweep == 0)
        new = _finish(graph, rw)
        if not rw.changed:
            return new
        graph = new
    ctx.note(f"stopped after {max_sweeps} sweeps (iteration guard): the graph is correct "
             "but a further sweep could still simplify it")
    return graph


def _finish(graph, rw: Rewriter):
    outputs = [rw.get(v) for v in graph.outputs]
    token_out = None if graph.token_out is None else rw.get(graph.token_out)
    same = (len(rw.nodes) == len(graph.nodes)
            and all(a is b for a, b in zip(rw.nodes, graph.nodes))
            and all(a is b for a, b in zip(outputs, graph.outputs))
            and token_out is graph.token_out)
    if same:
        return graph
    return replace_graph(graph, rw.nodes, outputs=outputs, token_out=token_out)
