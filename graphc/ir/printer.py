"""The text form of a graph, like a jaxpr: what ``str(graph)`` shows and golden tests pin.

::

    f(%0:f32[4], %1:f32[4]) {
      %2:f32[4] = add %0 %1  # model.py:41
      %3:f32[] = sum %2 axis=(0,) keepdims=False
      %4:f32[] = sqrt %3  # model.py:42
      return %4
    }

``str(graph)`` ends a node's line with the user's line it was traced at, once per run of
nodes from the same line (``%3`` above comes from line 41 too); ``format_graph(graph)``
leaves the comments out, for golden texts that should not depend on file paths.

Data values are numbered ``%0, %1, ...`` in order of first definition (inputs, then node
outputs), so the text does not depend on the global ``Value.id`` counter and two traces
of the same function print the same. Effect tokens are numbered apart (``!t0, !t1, ...``)
and appear only in graphs that thread one, so adding a print does not renumber data.
Graph-valued attrs (branches, loop bodies) print as nested blocks below their node; each
subgraph is closed (captures are explicit inputs) and so numbers its own values from
``%0``, which makes a nested block read the same as the subgraph printed on its own.
"""

from __future__ import annotations

import os
import re

import numpy as np

from graphc.ir.graph import ConstArray, Graph

_INDENT = "  "
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def format_graph(graph: Graph, show_src: bool = False) -> str:
    """Return the readable text listing of ``graph`` (one node per line).

    ``show_src=True`` (what ``str(graph)`` shows) appends ``  # file.py:12``, the user's
    line a node was traced at, to the first node of each run of nodes traced at the same
    line; it is off by default here so golden texts do not depend on file paths.

    >>> print(format_graph(g))            # doctest: +SKIP
    f(%0:f32[4]) {
      %1:f32[4] = negative %0
      return %1
    }
    """
    lines: list[str] = []
    _format_into(graph, lines, "", show_src)
    return "\n".join(lines)


def has_effects(graph: Graph) -> bool:
    """Whether ``graph`` threads an effect token (some node consumes or produces one)."""
    if graph.token_out is not None and graph.token_out is not graph.token_in:
        return True
    return any(v.aval.is_token for n in graph.nodes for v in n.inputs)


class Namer:
    """Per-graph names: ``%n`` for data values, ``!tn`` for tokens, by first definition."""

    def __init__(self, graph: Graph):
        self.names: dict[int, str] = {}
        self._data = 0
        self._tokens = 0
        for v in graph.inputs:
            self.define(v)
        if graph.token_in is not None:
            self.define(graph.token_in)
        for node in graph.nodes:
            for v in node.outputs:
                self.define(v)

    def define(self, v) -> None:
        if v.id in self.names:  # defined twice: keep the first name (verify reports it)
            return
        if v.aval.is_token:
            self.names[v.id] = f"!t{self._tokens}"
            self._tokens += 1
        else:
            self.names[v.id] = f"%{self._data}"
            self._data += 1

    def __call__(self, v) -> str:
        # A value from outside this graph still prints (with its global id) so a broken
        # graph can be shown in the verifier's error instead of crashing the printer.
        return self.names.get(v.id) or f"%?{v.id}"

    def typed(self, v) -> str:
        name = self(v)
        return name if v.aval.is_token else f"{name}:{v.aval}"


def format_node(node, namer: Namer, typed: bool = True) -> str:
    """One node's line without indentation or nested blocks: ``%3:f32[4] = add %1 %2``."""
    outs = ", ".join(namer.typed(v) if typed else namer(v) for v in node.outputs)
    parts = [node.op.name]
    parts.extend(namer(v) for v in node.inputs)
    attrs = node.attrs or {}
    if node.op.name == "const" and set(attrs) == {"value"}:
        parts.append(format_attr(attrs["value"]))
    else:
        for key in sorted(attrs):
            value = attrs[key]
            if not _holds_graph(value):
                parts.append(f"{key}={format_attr(value)}")
    rhs = " ".join(parts)
    return f"{outs} = {rhs}" if outs else rhs


def node_signature(graph: Graph, node) -> str:
    """``%7 = take %3 %5``: a node named as in ``str(graph)``, for error messages."""
    return format_node(node, Namer(graph), typed=False)


def format_attr(value) -> str:
    """An attr value as stable text: no memory addresses, dtypes by name."""
    if isinstance(value, ConstArray):
        return repr(value)
    if isinstance(value, np.dtype):
        return value.name
    if isinstance(value, type) and issubclass(value, np.generic):
        return np.dtype(value).name
    if isinstance(value, np.generic):
        return repr(value.item())
    if isinstance(value, tuple | list):
        items = [format_attr(v) for v in value]
        if isinstance(value, tuple) and len(items) == 1:
            return f"({items[0]},)"
        body = ", ".join(items)
        return f"({body})" if isinstance(value, tuple) else f"[{body}]"
    if isinstance(value, dict):
        body = ", ".join(f"{k}: {format_attr(value[k])}" for k in sorted(value, key=str))
        return "{" + body + "}"
    if isinstance(value, Graph):
        return f"<graph {value.name}>"
    if isinstance(value, np.ndarray):
        return repr(ConstArray(value))
    if callable(value) and hasattr(value, "__qualname__"):
        return f"<fn {value.__qualname__}>"
    return _ADDRESS.sub("", repr(value))


def _holds_graph(value) -> bool:
    if isinstance(value, Graph):
        return True
    return isinstance(value, tuple) and any(isinstance(v, Graph) for v in value)


def _format_into(graph: Graph, lines: list, indent: str, show_src: bool) -> None:
    namer = Namer(graph)
    effects = has_effects(graph)
    params = [namer.typed(v) for v in graph.inputs]
    if effects and graph.token_in is not None:
        params.append(namer(graph.token_in))
    lines.append(f"{indent}{graph.name}({', '.join(params)}) {{")
    inner = indent + _INDENT
    last_src = None
    for node in graph.nodes:
        line = inner + format_node(node, namer)
        if show_src and node.src and node.src != last_src:
            line += f"  # {os.path.basename(node.src)}"
        last_src = node.src if show_src else None
        lines.append(line)
        attrs = node.attrs or {}
        for key in sorted(attrs):
            value = attrs[key]
            if isinstance(value, Graph):
                _format_block(f"{key} = ", value, lines, inner + _INDENT, show_src)
            elif _holds_graph(value):
                for i, sub in enumerate(value):
                    if isinstance(sub, Graph):
                        _format_block(f"{key}[{i}] = ", sub, lines, inner + _INDENT, show_src)
    results = [namer(v) for v in graph.outputs]
    if effects and graph.token_out is not None:
        results.append(namer(graph.token_out))
    lines.append(f"{inner}return {', '.join(results)}".rstrip())
    lines.append(indent + "}")


def _format_block(label: str, graph: Graph, lines: list, indent: str, show_src: bool) -> None:
    start = len(lines)
    _format_into(graph, lines, indent, show_src)
    lines[start] = indent + label + lines[start][len(indent):]
