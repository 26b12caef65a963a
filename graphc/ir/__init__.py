"""Layer 2, the IR: graphs of nodes over abstract values (``graph``), their text form
(``printer``), the verifier (``verify``), export to other tools (``export``) and pictures
(``layout``, ``svg``, ``graphviz``, ``pictures``). Imports only the base layer.

This file gives ``Graph`` the methods that need the printer and the exporters: they import
``graph.py``, so ``graph.py`` cannot import them.
"""

from graphc.ir import export, printer
from graphc.ir.graph import Graph


def _str(self) -> str:
    return printer.format_graph(self, show_src=True)


def _as_graph_def(self) -> dict:
    """A JSON-serializable dict shaped like TensorFlow's GraphDef."""
    return export.as_graph_def(self)


def _to_networkx(self):
    """The graph as a ``networkx.DiGraph`` (nodes: inputs and ops; edges: data flow)."""
    return export.to_networkx(self)


def _to_dot(self) -> str:
    """The graph in Graphviz DOT text."""
    return export.to_dot(self)


def _to_svg(self, engine: str = "auto", scopes: str | None = "expanded") -> str:
    """A picture of the graph as SVG text, bodies as nested clusters: drawn by Graphviz's
    ``dot`` when installed, else by graphc's own layout (``engine="dot"``/``"builtin"``
    picks one), which boxes each user function call and the backward pass
    (``scopes="collapsed"``: one box each; ``None``: none). See docs/inspecting.md."""
    from graphc.ir import pictures  # deferred: the layout, SVG and Graphviz's subprocess
    # modules load when a first picture is drawn (about 8 ms of `import graphc` otherwise)

    return pictures.to_svg(self, engine=engine, scopes=scopes)


Graph.__str__ = _str
Graph.as_graph_def = _as_graph_def
Graph.to_networkx = _to_networkx
Graph.to_dot = _to_dot
Graph.to_svg = _to_svg
