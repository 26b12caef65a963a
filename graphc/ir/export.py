"""Export a graph for other tools: a TensorFlow-GraphDef-shaped dict, networkx, Graphviz DOT.

Naming follows TensorFlow: each graph input is a ``Placeholder`` node, op nodes are named
after their op and made unique with a suffix (``add``, ``add_1``), and an input reference
is ``"name"`` for output 0 or ``"name:1"`` for output 1. The effect token is not data: a
stateful node's dependence on the previous one becomes a control input ``"^name"``, as in
TensorFlow. Branch and loop-body graphs go to a flat ``library`` and attrs name them
(``{"func": "true_fn"}``).
"""

from __future__ import annotations

import numpy as np

from graphc.ir.graph import ConstArray, Graph
from graphc.ir.printer import format_attr


def as_graph_def(graph: Graph) -> dict:
    """A JSON-serializable dict shaped like TensorFlow's GraphDef.

    ``{"node": [{"name", "op", "input", "attr", "dtype", "shape"}, ...], "output": [...],
    "library": {name: {"node": [...], "output": [...]}}}``; ``shape`` lists dims with
    ``None`` (JSON ``null``) for unknown ones, or is ``None`` for unknown rank.

    >>> gd = as_graph_def(g)                          # doctest: +SKIP
    >>> [(n["name"], n["input"]) for n in gd["node"]]  # doctest: +SKIP
    [('Placeholder', []), ('negative', ['Placeholder'])]
    """
    library: dict[str, dict] = {}
    lib_names: dict[int, str] = {}
    top = _graph_def(graph, library, lib_names)
    top["library"] = library
    return top


def to_networkx(graph: Graph):
    """The graph as a ``networkx.DiGraph``, nodes named as in :func:`as_graph_def`.

    Node attrs: ``op``, ``dtype``, ``shape``, ``src``; edge attrs: ``output_index`` (which
    output of the source feeds the edge) and ``control`` (an effect-order edge).
    """
    import networkx as nx  # deferred: networkx is imported only for this export

    g = nx.DiGraph(name=graph.name)
    for name, op, deps, first, src in _walk(graph):
        g.add_node(name, op=op, dtype=_dtype(first), shape=_shape(first), src=src)
        for dep, index, control in deps:
            if not g.has_edge(dep, name):  # add %1 %1: one edge is enough
                g.add_edge(dep, name, output_index=index, control=control)
    return g


def to_dot(graph: Graph) -> str:
    """The graph in Graphviz DOT text. A node holding branch or loop bodies is drawn in
    a cluster of its own (``cluster_node:NAME``) that nests one cluster per body
    (``cluster_BODY``, labelled with the attr name), to any depth."""
    lines = [f"digraph {_q(graph.name)} {{", '  node [shape=box, fontname="monospace"];']
    seen: dict[int, str] = {}
    _dot_body(graph, lines, "", "  ", seen)
    lines.append("}")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- naming
class _Names:
    """TensorFlow-style names for one graph's Placeholders and nodes, and value lookup."""

    def __init__(self, graph: Graph):
        self.taken: set[str] = set()
        self.counts: dict[str, int] = {}
        self.where: dict[int, tuple[str, int]] = {}  # value id -> (node name, output index)
        self.inputs = []
        for v in graph.inputs:
            name = self._unique("Placeholder")
            self.where[v.id] = (name, 0)
            self.inputs.append(name)
        self.nodes = []
        for node in graph.nodes:
            name = self._unique(node.op.name)
            self.nodes.append(name)
            data = 0
            for v in node.outputs:
                # Tokens are not data: referring to one means "after this node".
                self.where[v.id] = (name, -1 if v.aval.is_token else data)
                data += not v.aval.is_token

    def _unique(self, base: str) -> str:
        n = self.counts.get(base, 0)
        name = base if n == 0 else f"{base}_{n}"
        while name in self.taken:  # an op literally named "add_1" took the name already
            n += 1
            name = f"{base}_{n}"
        self.counts[base] = n + 1
        self.taken.add(name)
        return name

    def deps(self, node):
        """``[(source_name, output_index, is_control), ...]`` for the node's inputs."""
        out = []
        for v in node.inputs:
            hit = self.where.get(v.id)
            if hit is not None:  # the graph's own input token has no source node
                out.append((hit[0], hit[1], v.aval.is_token))
            elif not v.aval.is_token:
                out.append((f"?{v.id}", 0, False))  # undefined: keep it visible
        return out

    def ref(self, v, control: bool = False) -> str:
        """The TensorFlow-style reference to value ``v``: ``name``, ``name:1`` or ``^name``."""
        name, index = self.where.get(v.id, (f"?{v.id}", 0))
        return _ref(name, index, control)


def _ref(name: str, index: int, control: bool) -> str:
    if control:
        return "^" + name
    return name if index == 0 else f"{name}:{index}"


def _data_outputs(node) -> list:
    return [v for v in node.outputs if not v.aval.is_token]


def _walk(graph: Graph):
    """Yield ``(name, op, deps, first_data_output, src)`` per Placeholder and node."""
    names = _Names(graph)
    for v, name in zip(graph.inputs, names.inputs):
        yield name, "Placeholder", [], v, None
    for node, name in zip(graph.nodes, names.nodes):
        data = _data_outputs(node)
        yield name, node.op.name, names.deps(node), (data[0] if data else None), node.src


# --------------------------------------------------------------------------- GraphDef
def _graph_def(graph: Graph, library: dict, lib_names: dict) -> dict:
    names = _Names(graph)
    nodes = []
    for v, name in zip(graph.inputs, names.inputs):
        nodes.append({"name": name, "op": "Placeholder", "input": [],
                      "attr": {"dtype": _dtype(v), "shape": _shape(v)},
                      "dtype": _dtype(v), "shape": _shape(v)})
    for node, name in zip(graph.nodes, names.nodes):
        attr = {k: _attr(node.attrs[k], library, lib_names) for k in sorted(node.attrs or {})}
        data = _data_outputs(node)
        if len(data) > 1:  # TensorFlow keeps every output's type in these internal attrs
            attr["_output_types"] = [_dtype(v) for v in data]
            attr["_output_shapes"] = [_shape(v) for v in data]
        first = data[0] if data else None
        entry = {"name": name, "op": node.op.name,
                 "input": [_ref(*d) for d in names.deps(node)], "attr": attr,
                 "dtype": _dtype(first), "shape": _shape(first)}
        if node.src:
            entry["experimental_debug_info"] = {"src": node.src}
        nodes.append(entry)
    outputs = [names.ref(v) for v in graph.outputs]
    tok = graph.token_out
    if tok is not None and tok is not graph.token_in:
        outputs.append(names.ref(tok, control=True))
    return {"node": nodes, "output": outputs}


def _library_name(sub: Graph, library: dict, lib_names: dict) -> str:
    name = lib_names.get(id(sub))
    if name is not None:
        return name
    name, n = sub.name, 0
    while name in library:
        n += 1
        name = f"{sub.name}_{n}"
    lib_names[id(sub)] = name
    library[name] = None  # reserve the name before recursing (nested bodies)
    library[name] = _graph_def(sub, library, lib_names)
    return name


def _attr(value, library: dict, lib_names: dict):
    """An attr value as plain JSON data."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, Graph):
        return {"func": _library_name(value, library, lib_names)}
    if isinstance(value, ConstArray | np.ndarray):
        a = value.array if isinstance(value, ConstArray) else value
        return {"dtype": a.dtype.name, "shape": list(a.shape), "value": _tolist(a)}
    if isinstance(value, np.dtype):
        return value.name
    if isinstance(value, type) and issubclass(value, np.generic):
        return np.dtype(value).name
    if isinstance(value, np.generic):
        return _attr(value.item(), library, lib_names)
    if isinstance(value, complex):
        return [value.real, value.imag]
    if isinstance(value, tuple | list):
        return [_attr(v, library, lib_names) for v in value]
    if isinstance(value, dict):
        return {str(k): _attr(v, library, lib_names) for k, v in value.items()}
    if callable(value) and hasattr(value, "__qualname__"):
        return {"python_function": f"{getattr(value, '__module__', '?')}.{value.__qualname__}"}
    return format_attr(value)


def _tolist(a: np.ndarray):
    if a.dtype.kind == "c":  # JSON has no complex numbers: [re, im] pairs
        return np.stack([a.real, a.imag], axis=-1).tolist()
    if a.dtype.kind in "SUVOMm":
        return np.vectorize(str, otypes=[object])(a).tolist() if a.size else []
    return a.tolist()


def _dtype(v):
    if v is None or v.aval.dtype is None:
        return None
    return v.aval.dtype.name


def _shape(v):
    if v is None or v.aval.shape is None:
        return None
    return list(v.aval.shape)


# --------------------------------------------------------------------------- DOT
def _esc(text) -> str:
    return str(text).replace("\\", "\\\\").replace('"', '\\"')


def _q(text) -> str:
    return f'"{_esc(text)}"'


def _dot_body(graph: Graph, lines: list, prefix: str, indent: str, seen: dict) -> None:
    """Nodes and edges of ``graph``; a node holding branch or loop bodies is drawn inside
    a cluster of its own together with one nested cluster per body."""
    nodes = [None] * len(graph.inputs) + list(graph.nodes)
    for (name, op, deps, first, _src), node in zip(_walk(graph), nodes):
        # "\n" is DOT's own line break inside a label, so it is added after escaping.
        label = _esc(name if op == "Placeholder" else op)
        if first is not None:
            label += "\\n" + _esc(first.aval)
        shape = ", shape=ellipse" if op == "Placeholder" else ""
        line = f'{_q(prefix + name)} [label="{label}"{shape}];'
        bodies = [(k, s) for k, s in subgraph_items(node) if id(s) not in seen] \
            if node is not None else []
        if bodies:
            lines.append(f"{indent}subgraph {_q('cluster_node:' + prefix + name)} {{")
            lines.append(f'{indent}  label=""; style="rounded,filled"; fillcolor="#fdf6e3";')
            lines.append(f"{indent}  {line}")
            for key, body in bodies:
                _dot_cluster(key, body, lines, indent + "  ", seen)
            lines.append(f"{indent}}}")
        else:
            lines.append(indent + line)
        for dep, _index, control in deps:
            style = " [style=dashed]" if control else ""
            lines.append(f"{indent}{_q(prefix + dep)} -> {_q(prefix + name)}{style};")


def _dot_cluster(key: str, sub: Graph, lines: list, indent: str, seen: dict) -> None:
    # Cluster-local node ids get a unique prefix so two bodies never share a node.
    name, n = sub.name, 0
    while name in seen.values():
        n += 1
        name = f"{sub.name}_{n}"
    seen[id(sub)] = name
    lines.append(f"{indent}subgraph {_q('cluster_' + name)} {{")
    lines.append(f'{indent}  label={_q(key)}; style="dashed,filled"; fillcolor="white";')
    _dot_body(sub, lines, name + "/", indent + "  ", seen)
    lines.append(f"{indent}}}")


def subgraph_items(node) -> list:
    """``(label, graph)`` per branch or loop body of ``node``, in sorted attr order (the
    order the printer shows them in): ``("body", g)``, ``("branches[1]", g)``."""
    out = []
    for key in sorted(node.attrs or {}):
        value = node.attrs[key]
        if isinstance(value, Graph):
            out.append((key, value))
        elif isinstance(value, tuple):
            out.extend((f"{key}[{i}]", v) for i, v in enumerate(value)
                       if isinstance(v, Graph))
    return out
