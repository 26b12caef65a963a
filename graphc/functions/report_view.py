"""The HTML report's picture viewer: each graph in a frame that fits it to the screen,
with zoom and pan (mouse wheel, drag, buttons) and, for a graph with scopes (one call of
a user function, the backward pass: ``graphc/ir/scopes.py``), its two pictures, scopes
collapsed (the overview, shown first) and expanded, switched by a button or by clicking
a scope. A small inline script does it: no network, no library, nothing outside the page.

Without the script (a mail client's preview) the first picture still fits its frame:
the ``<svg>`` keeps its ``viewBox`` and CSS sizes it to the frame.
"""

from __future__ import annotations

from html import escape

from graphc.ir.layout import layout
from graphc.ir.svg import render

MAX_DRAWN = 5000  # boxes per picture; a bigger graph is listed, not drawn
FRAME_VH = 75     # the frame's height at most, in % of the window's height

CSS = """
.viewer { margin: 0 0 8px; }
.viewer .toolbar { margin: 4px 0; font-size: 13px; color: #555; }
.viewer .toolbar button { font: 13px system-ui, sans-serif; margin-right: 4px;
  padding: 1px 8px; border: 1px solid #aaa; border-radius: 3px; background: #f6f6f6; }
.viewer .toolbar button:hover { background: #e8e8e8; }
.viewer .stage { border: 1px solid #ddd; overflow: hidden; cursor: grab;
  touch-action: none; background: #fff; resize: vertical; }
.viewer .stage.dragging { cursor: grabbing; }
.viewer .stage svg { width: 100%; height: 100%; display: block; }
.viewer .stage svg.off { display: none; }
.viewer .scope > .frame, .viewer .scope.collapsed { cursor: pointer; }
"""

# The viewer. Zoom and pan change the shown <svg>'s viewBox (fit: the whole drawing);
# client coordinates map to the drawing's through getScreenCTM, which accounts for the
# aspect-preserving fit. A click on a collapsed scope shows the expanded picture zoomed
# to that scope (the same data-scope in both); a click on an open scope's frame goes
# back to the overview, zoomed to it.
SCRIPT = """
(function () {
  "use strict";
  function Viewer(fig) {
    var stage = fig.querySelector(".stage");
    var views = Array.prototype.slice.call(stage.querySelectorAll("svg.view"));
    var toggle = fig.querySelector("[data-act=scopes]");
    var svg = null, full = null, moved = false, drag = null;
    function box(s) { return s.getAttribute("viewBox").split(/[ ,]+/).map(Number); }
    function set(b) { svg.setAttribute("viewBox", b.map(function (v) {
      return Math.round(v * 10) / 10; }).join(" ")); }
    function scale() {
      var b = box(svg);
      return Math.min(stage.clientWidth / b[2], stage.clientHeight / b[3]);
    }
    function toUser(cx, cy, el) {
      var p = svg.createSVGPoint(); p.x = cx; p.y = cy;
      return p.matrixTransform((el || svg).getScreenCTM().inverse());
    }
    function fit() { set(full.slice()); }
    function zoom(k, cx, cy) {
      var b = box(svg), s = scale() * k;
      if (s > 8 || (k < 1 && b[2] > full[2] * 4 && b[3] > full[3] * 4)) return;
      var r = stage.getBoundingClientRect();
      if (cx === undefined) { cx = r.left + r.width / 2; cy = r.top + r.height / 2; }
      var p = toUser(cx, cy);
      set([p.x - (p.x - b[0]) / k, p.y - (p.y - b[1]) / k, b[2] / k, b[3] / k]);
    }
    function actual() {
      var b = box(svg), w = stage.clientWidth, h = stage.clientHeight;
      set([b[0] + b[2] / 2 - w / 2, b[1] + b[3] / 2 - h / 2, w, h]);
    }
    function focus(el) {
      var r = el.getBBox(), m = svg.getScreenCTM().inverse().multiply(el.getScreenCTM());
      var p = svg.createSVGPoint(), q = svg.createSVGPoint();
      p.x = r.x; p.y = r.y; q.x = r.x + r.width; q.y = r.y + r.height;
      p = p.matrixTransform(m); q = q.matrixTransform(m);
      var pad = 24, w = Math.max(q.x - p.x + 2 * pad, stage.clientWidth / 2);
      var h = Math.max(q.y - p.y + 2 * pad, stage.clientHeight / 2);
      set([(p.x + q.x) / 2 - w / 2, (p.y + q.y) / 2 - h / 2, w, h]);
    }
    function show(k, sid) {
      views.forEach(function (v, i) { v.classList.toggle("off", i !== k); });
      svg = views[k];
      full = JSON.parse(svg.getAttribute("data-full"));
      stage.style.height = Math.min(window.innerHeight * FRAME, full[3] + 4) + "px";
      fig.setAttribute("data-view", svg.getAttribute("data-view"));
      if (toggle) toggle.textContent = k === 0 ? "Expand scopes" : "Collapse scopes";
      fit();
      var el = sid && svg.querySelector('[data-scope="' + sid + '"]');
      if (el) focus(el);
    }
    fig.querySelector(".toolbar").addEventListener("click", function (ev) {
      var act = ev.target.getAttribute && ev.target.getAttribute("data-act");
      if (act === "fit") fit();
      else if (act === "in") zoom(1.25);
      else if (act === "out") zoom(0.8);
      else if (act === "actual") actual();
      else if (act === "scopes") show(views.indexOf(svg) === 0 ? 1 : 0);
    });
    stage.addEventListener("wheel", function (ev) {
      ev.preventDefault();
      zoom(Math.exp(-ev.deltaY * (ev.deltaMode ? 0.05 : 0.0015)), ev.clientX, ev.clientY);
    }, { passive: false });
    stage.addEventListener("pointerdown", function (ev) {
      if (ev.button !== 0) return;
      drag = { x: ev.clientX, y: ev.clientY, b: box(svg), s: scale() };
      moved = false;
    });
    window.addEventListener("pointermove", function (ev) {
      if (!drag) return;
      var dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
      if (!moved && Math.abs(dx) + Math.abs(dy) < 4) return;
      moved = true; stage.classList.add("dragging");
      set([drag.b[0] - dx / drag.s, drag.b[1] - dy / drag.s, drag.b[2], drag.b[3]]);
    });
    window.addEventListener("pointerup", function () {
      drag = null; stage.classList.remove("dragging");
    });
    stage.addEventListener("click", function (ev) {
      if (moved || views.length < 2) return;
      var g = ev.target.closest && ev.target.closest("g.scope");
      if (!g) return;
      var open = !g.classList.contains("collapsed");
      if (open && !(ev.target.parentNode === g)) return;  // a node inside an open scope
      show(open ? 0 : 1, g.getAttribute("data-scope"));
    });
    fig.viewer = { show: show, fit: fit, zoom: zoom, actual: actual, focus: focus };
    show(0);
  }
  var FRAME = __FRAME__ / 100;
  Array.prototype.forEach.call(document.querySelectorAll("figure.viewer"), Viewer);
})();
""".replace("__FRAME__", str(FRAME_VH))

BUTTONS = ('<button type="button" data-act="fit" title="the whole graph">Fit</button>'
           '<button type="button" data-act="in" title="zoom in">+</button>'
           '<button type="button" data-act="out" title="zoom out">&#x2212;</button>'
           '<button type="button" data-act="actual" title="actual size">100%</button>')


def _svg(lay, id_prefix, highlight, view, shown) -> str:
    """The picture with what the viewer needs: its view name and full extent."""
    full = f"[0, 0, {lay.w + 2:.1f}, {lay.h + 2:.1f}]"
    return render(lay, id_prefix=id_prefix, highlight=highlight,
                  classes="view " + view + ("" if shown else " off"),
                  data={"view": view, "full": full})


def _has_scopes(lay) -> bool:
    return any(b.kind == "scope" or any(_has_scopes(c.layout) for c in b.clusters)
               for b in lay.boxes)


def figure(graph, classes: str, id_prefix: str, input_names=None, highlight=None) -> str:
    """``<figure class="viewer graph CLASSES">`` with the graph's pictures, or a line
    saying it is too large to draw."""
    expanded = layout(graph, input_names)
    if expanded.count_boxes() > MAX_DRAWN:
        return (f'<p class="too-large">{expanded.count_boxes()} boxes: too large to draw '
                "here; see the listing below, or graph.to_dot() with Graphviz.</p>")
    has_scopes = _has_scopes(expanded)
    pictures = [_svg(expanded, id_prefix, highlight, "expanded", not has_scopes)]
    tools = BUTTONS
    if has_scopes:  # the overview first
        collapsed = layout(graph, input_names, scopes="collapsed")
        pictures.insert(0, _svg(collapsed, id_prefix + "c", highlight, "collapsed", True))
        tools += ('<button type="button" data-act="scopes" title="show every op, or one '
                  'box per scope">Expand scopes</button>')
    hint = ("drag to pan, wheel to zoom" +
            ("; click a scope to open it, its frame to close it" if has_scopes else ""))
    first = collapsed if has_scopes else expanded
    height = f"min({FRAME_VH}vh, {first.h + 6:.0f}px)"
    return (f'<figure class="viewer graph {escape(classes, quote=True)}" '
            f'data-view="{"collapsed" if has_scopes else "expanded"}">'
            f'<div class="toolbar">{tools} <span class="hint">{hint}</span></div>'
            f'<div class="stage" style="height: {height}">' + "\n".join(pictures)
            + "</div></figure>")
