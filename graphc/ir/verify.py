"""The graph verifier: catches a malformed graph right after the pass that made it.

``verify(graph)`` checks SSA order (every value defined once, before its uses, within its
own graph), that each node's output avals are what its op's ``infer`` gives for its input
avals and attrs, that the effect token is threaded in program order from ``token_in`` to
``token_out``, and the same for every branch and body graph. With ``GRAPHC_CHECK=1`` the
pass pipeline runs it after each pass, so a broken rewrite is reported by name instead of
as a wrong result far away.
"""

from __future__ import annotations

from graphc.ir.graph import Aval, Graph
from graphc.ir.printer import Namer, format_node


class VerificationError(ValueError):
    """A graph breaks an IR invariant; the message names the graph, the node and the rule.

    This is a bug in graphc (a pass or an op's ``infer``), not in user code: please
    report it with the printed graph (``str(graph)``).
    """


def verify(graph: Graph) -> Graph:
    """Check ``graph`` and its subgraphs; return it unchanged or raise ``VerificationError``.

    >>> verify(g)            # doctest: +SKIP
    <Graph f: 1 inputs, 3 ops>
    """
    _Checker(graph, graph.name).run()
    return graph


class _Checker:
    def __init__(self, graph: Graph, path: str):
        self.graph = graph
        self.path = path
        self.namer = Namer(graph)

    def fail(self, message: str, node=None):
        where = f"graph {self.path!r}"
        if node is not None:
            where += f", node `{format_node(node, self.namer)}`"
        raise VerificationError(f"{where}: {message}")

    def run(self) -> None:
        g = self.graph
        defined: set[int] = set()

        def define(v, node=None):
            if v.id in defined:
                self.fail(f"value {self.namer(v)} is defined twice", node)
            defined.add(v.id)

        for v in g.inputs:
            if v.aval.is_token:
                self.fail(f"input {self.namer(v)} is a token; tokens go in token_in")
            define(v)
        if g.token_in is not None:
            define(g.token_in)
        token = g.token_in
        for index, node in enumerate(g.nodes):
            for i, v in enumerate(node.inputs):
                if v.id not in defined:
                    self.fail(f"input {i} ({self.namer(v)}) is used before it is defined "
                              "(or belongs to another graph)", node)
            token = self._check_token(node, token)
            for v in node.outputs:
                define(v, node)
            self._check_attrs(node)
            self._check_avals(node)
            for sub in node.subgraphs():
                _Checker(sub, f"{self.path}/{node.op.name}[{index}].{sub.name}").run()
        for i, v in enumerate(g.outputs):
            if v.aval.is_token:
                self.fail(f"output {i} is a token; the final token goes in token_out")
            if v.id not in defined:
                self.fail(f"output {i} ({self.namer(v)}) is not defined in this graph")
        if g.token_out is not token:
            have = "None" if g.token_out is None else self.namer(g.token_out)
            last = "None" if token is None else self.namer(token)
            self.fail(f"token_out is {have} but the last effect produced {last}; "
                      "an effect would be dropped or reordered")

    def _check_token(self, node, token):
        """Check the node's token use; return the current token after it."""
        ins = node.inputs
        outs = node.outputs
        takes = bool(ins) and ins[-1].aval.is_token
        gives = bool(outs) and outs[-1].aval.is_token
        if any(v.aval.is_token for v in ins[:-1]) or any(v.aval.is_token for v in outs[:-1]):
            self.fail("a token may only be the last input and the last output", node)
        if node.op.stateful and not (takes and gives):
            self.fail("stateful op must take the effect token as its last input and "
                      "return a new one as its last output", node)
        if takes != gives:
            self.fail("a node that takes a token must return one, and vice versa", node)
        if not takes:
            return token
        if ins[-1] is not token:
            current = "None" if token is None else self.namer(token)
            self.fail(f"consumes token {self.namer(ins[-1])} but the current token is "
                      f"{current}; effects are out of program order", node)
        return outs[-1]

    def _check_attrs(self, node) -> None:
        try:
            hash(node.attrs)
        except TypeError as e:  # attrs are the CSE and kernel-cache key: must hash
            self.fail(f"attrs are not hashable ({e})", node)

    def _check_avals(self, node) -> None:
        ins = [v.aval for v in node.inputs if not v.aval.is_token]
        outs = [v.aval for v in node.outputs if not v.aval.is_token]
        try:
            inferred = node.op.infer(*ins, **(node.attrs or {}))
        except Exception as e:  # noqa: BLE001 - reported with the node it came from
            self.fail(f"{node.op.name}.infer fails on these inputs: "
                      f"{type(e).__name__}: {e}", node)
        expected = [inferred] if isinstance(inferred, Aval) else list(inferred)
        if len(expected) != len(outs):
            self.fail(f"has {len(outs)} outputs but infer gives {len(expected)}", node)
        for i, (have, want) in enumerate(zip(outs, expected)):
            if have != want:
                self.fail(f"output {i} is {have} but infer gives {want}", node)
