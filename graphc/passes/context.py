"""What every pass shares: its report entry, stable value names, and where it is.

A pass is ``run(graph, ctx) -> graph``. ``ctx`` (a :class:`PassContext`) collects the
human-readable changes for the pass's :class:`PassReport` and names values the way
``print(concrete.graph)`` does, so a report line such as ``folded %3 = add %1 %2`` points
at the traced listing. Values are SSA objects that passes reuse, so a value keeps its
traced name through every pass; values a pass creates are numbered after the traced ones
of their graph. Inside a branch or loop body the context is a child whose lines start with
where they are (``in %5.true_fn:``), and whose names are the subgraph's own (subgraphs are
closed and number their values from ``%0``, as the printer shows them).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from graphc.ir.graph import Graph
from graphc.ir.printer import format_node


@dataclass
class PassReport:
    """One pass's entry in ``concrete.pass_report``.

    ``ops_before`` / ``ops_after`` count nodes, including those inside branch and loop
    bodies (a fused node counts as one); ``changes`` are readable lines such as
    ``"folded %3 = add %1 %2 -> 3.0"``; ``enabled`` is False when ``gc.config.optimizer``
    switched the pass off (it then changed nothing); ``seconds`` is the time it took.
    """

    name: str
    ops_before: int = 0
    ops_after: int = 0
    changes: list = field(default_factory=list)
    enabled: bool = True
    seconds: float = 0.0
    option: str = ""


class Names:
    """Value id -> printed name, shared by all passes of one ``optimize`` call."""

    def __init__(self):
        self._names: dict[int, str] = {}
        self._next: dict[str, list[int]] = {}  # scope -> [next data number, next token]

    def add_graph(self, graph: Graph, scope: str = "") -> None:
        """Name ``graph``'s values, and its subgraphs' (recursively), once per scope.

        A traced graph is numbered exactly as the printer does (inputs, ``token_in``, then
        node outputs, in order). A scope first seen later (a body whose node changed) keeps
        the names its values already have and numbers the others after the largest.
        """
        if scope in self._next:
            return
        values = [*graph.inputs, *(() if graph.token_in is None else (graph.token_in,)),
                  *(v for node in graph.nodes for v in node.outputs)]
        counters = [0, 0]
        for v in values:
            name = self._names.get(v.id)
            if name is not None:
                k = int(name.startswith("!t"))
                counters[k] = max(counters[k], int(name[2 if k else 1:]) + 1)
        self._next[scope] = counters
        for v in values:
            self.name(v, scope)
        for node in graph.nodes:
            for label, sub in subgraph_items(node):
                self.add_graph(sub, child_scope(scope, self.label(node, scope), label))

    def name(self, v, scope: str) -> str:
        found = self._names.get(v.id)
        if found is None:  # a value some pass created: number it after the traced ones
            counters = self._next.setdefault(scope, [0, 0])
            if v.aval.is_token:
                found = f"!t{counters[1]}"
                counters[1] += 1
            else:
                found = f"%{counters[0]}"
                counters[0] += 1
            self._names[v.id] = found
        return found

    def label(self, node, scope: str) -> str:
        """What a node is called in a scope path: its first data output's name."""
        for v in node.outputs:
            if not v.aval.is_token:
                return self.name(v, scope)
        return node.op.name


def subgraph_items(node) -> list:
    """``[(label, Graph), ...]`` for the graphs in ``node.attrs``: ``true_fn``, ``branches[1]``."""
    attrs = node.attrs
    if not attrs or not any(isinstance(v, Graph | tuple) for v in attrs.values()):
        return []  # the common case, checked without sorting
    out = []
    for key in sorted(attrs):
        value = attrs[key]
        if isinstance(value, Graph):
            out.append((key, value))
        elif isinstance(value, tuple):
            out.extend((f"{key}[{i}]", g) for i, g in enumerate(value) if isinstance(g, Graph))
    return out


def child_scope(scope: str, node_label: str, attr_label: str) -> str:
    return f"{scope}{node_label}.{attr_label}/"


class _ScopedNamer:
    """The ``Namer`` interface ``printer.format_node`` needs, backed by :class:`Names`."""

    def __init__(self, names: Names, scope: str):
        self.names = names
        self.scope = scope

    def __call__(self, v) -> str:
        return self.names.name(v, self.scope)

    def typed(self, v) -> str:
        name = self(v)
        return name if v.aval.is_token else f"{name}:{v.aval}"


class PassContext:
    """Where a pass is (top graph or a subgraph path) and where its changes go."""

    def __init__(self, report: PassReport, names: Names, scope: str = ""):
        self.report = report
        self.names = names
        self.scope = scope
        self.namer = _ScopedNamer(names, scope)

    def child(self, node, attr_label: str, graph: Graph) -> "PassContext":
        """The context for ``graph``, the subgraph of ``node`` in attr ``attr_label``."""
        scope = child_scope(self.scope, self.names.label(node, self.scope), attr_label)
        self.names.add_graph(graph, scope)
        return PassContext(self.report, self.names, scope)

    def describe(self, node) -> str:
        """``%3 = add %1 %2``, with this run's stable names."""
        return format_node(node, self.namer, typed=False)

    def name(self, v) -> str:
        return self.namer(v)

    def note(self, message: str) -> None:
        """Record one change; inside a subgraph it is prefixed with the subgraph's path."""
        where = self.scope.rstrip("/").replace("/", " > ")
        self.report.changes.append(f"in {where}: {message}" if where else message)
