"""Pictures of graphs: ``graph.to_svg()`` (see docs/inspecting.md; the HTML report of
``fn.explain(..., format="html")`` that shows them is ``graphc/functions/report.py``).

``to_svg`` uses Graphviz's ``dot`` when it is on ``PATH`` and otherwise graphc's own
layered layout (``layout.py``, drawn by ``svg.py``), so a picture never needs anything
installed. Branch and loop bodies are drawn as nested clusters either way.
"""

from __future__ import annotations

from graphc.ir import graphviz, layout, svg
from graphc.ir.export import to_dot

ENGINES = ("auto", "dot", "builtin")


def to_svg(graph, engine: str = "auto", id_prefix: str = "g", highlight=None,
           scopes: str | None = "expanded") -> str:
    """The SVG text of ``graph``.

    ``engine="auto"`` (default): Graphviz's ``dot`` if it is installed and succeeds,
    else the built-in layout; ``"dot"``: Graphviz or :class:`graphviz.GraphvizError`;
    ``"builtin"``: the built-in layout. ``id_prefix``, ``highlight`` (IR node ->
    ``"python"``/``"fallback"``) and ``scopes`` (``"expanded"``: each user function
    call and the backward pass as a box around its nodes; ``"collapsed"``: as one box;
    ``None``: no scopes; see ``scopes.py``) apply to the built-in drawing.

    >>> svg = concrete.graph.to_svg()                         # doctest: +SKIP
    >>> open("graph.svg", "w").write(svg)                     # doctest: +SKIP
    """
    if engine not in ENGINES:
        raise ValueError(f"to_svg: unknown engine {engine!r}; use one of {ENGINES}")
    if scopes not in layout.MODES:
        raise ValueError(f"to_svg: scopes={scopes!r}; use one of {layout.MODES}")
    if engine == "dot" or (engine == "auto" and graphviz.dot_executable() and not highlight):
        try:
            return graphviz.dot_to_svg(to_dot(graph))
        except graphviz.GraphvizError:
            if engine == "dot":
                raise
    return svg.render(layout.layout(graph, scopes=scopes), id_prefix=id_prefix,
                      highlight=highlight)
