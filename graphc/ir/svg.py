"""Draw a :class:`layout.Layout` as one self-contained SVG document (no scripts, no
stylesheets, no links): every style is an attribute, every user string is escaped.

Boxes are grouped as ``<g class="node KIND">`` with a ``<title>`` (the node as
``str(graph)`` prints it, and its source line: browsers show it on hover); each branch or
loop body is a ``<g class="cluster">`` inside its control-flow node's group, so bodies
nest as deeply as the graph does. A scope (``scopes.py``: one call of a user function,
the backward pass) is a ``<g class="node scope function|backward" data-scope="s0">``,
holding its nodes' drawing or, collapsed, one box. Effect-order edges are dashed.
"""

from __future__ import annotations

from html import escape

from graphc.ir.layout import LINE_H, PAD, Layout

FONT = 'font-family="ui-monospace, Menlo, Consolas, monospace" font-size="12"'
FILL = {"input": "#e3f2e1", "op": "#e4eefb", "control": "#fdf6e3", "result": "#eeeeee",
        "function": "#f4f1fa", "backward": "#fbf0f3"}
STROKE = {"input": "#4c8a46", "op": "#41689c", "control": "#a07d1c", "result": "#666666",
          "function": "#6b5b95", "backward": "#9c3d54"}
# how a node runs, when the caller says (report.py colours Python and fallback nodes)
HIGHLIGHT = {"python": ("#fde7cf", "#c26a00"), "fallback": ("#f9d6d5", "#b3261e")}


def _e(text) -> str:
    return escape(str(text), quote=True)


def _n(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".")


def render(lay: Layout, id_prefix: str = "g", highlight=None, classes: str = "",
           data=None) -> str:
    """The SVG text of ``lay``. ``id_prefix`` keeps element ids unique when several
    pictures share one HTML page; ``highlight`` maps top-level IR nodes to
    ``"python"``/``"fallback"`` to colour them; ``classes`` and ``data`` (name -> value:
    ``data-NAME`` attributes) go on the ``<svg>`` element."""
    w, h = lay.w + 2, lay.h + 2
    marker = f"{id_prefix}-arrow"
    cls = " ".join(["graphc-graph"] + classes.split())
    extra = "".join(f' data-{_e(k)}="{_e(v)}"' for k, v in (data or {}).items())
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="{_e(cls)}"{extra} '
        f'width="{_n(w)}" height="{_n(h)}" viewBox="0 0 {_n(w)} {_n(h)}" role="img">',
        f"<title>{_e(lay.name)}</title>",
        f'<defs><marker id="{_e(marker)}" viewBox="0 0 10 10" refX="10" refY="5" '
        'markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
        '<path d="M 0 0 L 10 5 L 0 10 z" fill="#555"/></marker></defs>',
    ]
    _draw(lay, out, marker, highlight or {})
    out.append("</svg>")
    return "\n".join(out)


def _draw(lay: Layout, out: list, marker: str, highlight: dict) -> None:
    for points, control in lay.edges:
        dash = ' stroke-dasharray="4 3"' if control else ""
        out.append(f'<path class="edge" d="{_curve(points)}" fill="none" stroke="#777" '
                   f'stroke-width="1.2"{dash} marker-end="url(#{_e(marker)})"/>')
    for box in lay.boxes:
        if box.kind == "dummy":
            continue
        if box.kind == "scope":
            _scope(box, out, marker, highlight)
            continue
        how = highlight.get(box.node) if box.node is not None else None
        fill, stroke = HIGHLIGHT.get(how) or (FILL[box.kind], STROKE[box.kind])
        cls = box.kind + (f" {how}" if how else "")
        out.append(f'<g class="node {_e(cls)}"><title>{_e(box.tip)}</title>')
        radius = box.h / 2 if box.kind == "input" else 4
        out.append(f'<rect x="{_n(box.x)}" y="{_n(box.y)}" width="{_n(box.w)}" '
                   f'height="{_n(box.h)}" rx="{_n(radius)}" fill="{fill}" '
                   f'stroke="{stroke}"/>')
        for k, line in enumerate(box.lines):
            weight = ' font-weight="bold"' if k == 0 and box.kind != "input" else ""
            out.append(f'<text x="{_n(box.x + PAD)}" y="{_n(box.y + PAD + LINE_H * k + 11)}" '
                       f'{FONT}{weight} fill="#1a1a1a">{_e(line)}</text>')
        for c in box.clusters:
            x, y = box.x + c.x, box.y + c.y
            out.append(f'<g class="cluster"><title>{_e(c.label)}</title>')
            out.append(f'<text x="{_n(x)}" y="{_n(y - 4)}" {FONT} font-style="italic" '
                       f'fill="#7a5d00">{_e(c.label)}</text>')
            out.append(f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(c.layout.w)}" '
                       f'height="{_n(c.layout.h)}" fill="#ffffff" fill-opacity="0.6" '
                       'stroke="#a07d1c" stroke-dasharray="5 3"/>')
            out.append(f'<g transform="translate({_n(x)},{_n(y)})">')
            _draw(c.layout, out, marker, {})
            out.append("</g></g>")
        out.append("</g>")


def _scope(box, out: list, marker: str, highlight: dict) -> None:
    """A scope: a frame holding its nodes' drawing, or (collapsed) one box whose colour
    says how the worst of its nodes runs. ``data-scope`` names the same scope in every
    picture of a graph (the HTML report's viewer switches between them by it)."""
    scope = box.scope
    kinds = {highlight.get(n) for n in scope.nodes} - {None}
    how = "fallback" if "fallback" in kinds else ("python" if kinds else None)
    fill, stroke = HIGHLIGHT.get(how) or (FILL[scope.kind], STROKE[scope.kind])
    cls = " ".join(["node", "scope", scope.kind] + ([] if box.clusters else ["collapsed"])
                   + ([how] if how else []))
    out.append(f'<g class="{_e(cls)}" data-scope="{_e(scope.sid)}">'
               f"<title>{_e(scope.title)}</title>")
    if not box.clusters:  # collapsed: a second frame behind says "more inside"
        out.append(f'<rect x="{_n(box.x + 3)}" y="{_n(box.y + 3)}" width="{_n(box.w)}" '
                   f'height="{_n(box.h)}" rx="6" fill="{fill}" stroke="{stroke}"/>')
    out.append(f'<rect class="frame" x="{_n(box.x)}" y="{_n(box.y)}" width="{_n(box.w)}" '
               f'height="{_n(box.h)}" rx="6" fill="{fill}" stroke="{stroke}" '
               'stroke-width="1.5"/>')
    for k, line in enumerate(box.lines):
        weight = ' font-weight="bold"' if k == 0 else ""
        out.append(f'<text x="{_n(box.x + PAD)}" y="{_n(box.y + PAD + LINE_H * k + 11)}" '
                   f'{FONT}{weight} fill="{stroke}">{_e(line)}</text>')
    for c in box.clusters:
        out.append(f'<g class="scope-body" transform="translate({_n(box.x + c.x)},'
                   f'{_n(box.y + c.y)})">')
        _draw(c.layout, out, marker, highlight)
        out.append("</g>")
    out.append("</g>")


def _curve(points) -> str:
    """A smooth path through ``points``: cubic pieces leaving and entering vertically."""
    (x0, y0), rest = points[0], points[1:]
    parts = [f"M {_n(x0)} {_n(y0)}"]
    for x1, y1 in rest:
        mid = (y0 + y1) / 2
        parts.append(f"C {_n(x0)} {_n(mid)} {_n(x1)} {_n(mid)} {_n(x1)} {_n(y1)}")
        x0, y0 = x1, y1
    return " ".join(parts)
