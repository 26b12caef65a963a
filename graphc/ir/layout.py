"""A layered (Sugiyama-style) layout of a graph, with branch and loop bodies nested.

``layout(graph)`` returns a :class:`Layout`: boxes for the graph's inputs, its nodes and
its results, and edges as point lists, in coordinates relative to the layout's top-left
corner. A control-flow node (one holding branch or body graphs in its attrs) is a box
that contains one :class:`Cluster` per subgraph, each laid out by the same function, so
bodies nest to any depth. Steps, all linear or close to it in the graph's size:

1. layers: an input on layer 0, a node one below its deepest operand (the node list is
   already in execution order); then, from the last node up, each box (inputs and
   constants too) moves down to just above its first reader, so a value computed early
   but used late (a transpose of the backward pass, a label input) sits by its user
   instead of sending a long wire down the picture; a node without operands read by
   several nodes is drawn once above each of them; the results box goes below
   everything. A scope (``scopes.py``) is one box holding its own layout, with a port
   (a small input box) per value it reads from outside;
2. an edge spanning several layers gets a small dummy box per layer it crosses, so edges
   bend around boxes and take part in crossing reduction;
3. crossing reduction: boxes in each layer are sorted by the mean position of their
   neighbours in the layer above, then below, a few sweeps (the barycenter heuristic);
4. x coordinates: each box is pulled toward the mean centre of its neighbours, boxes of
   a layer kept in order and apart, as close to those centres as can be (least squares,
   ``_closest_in_order``); y coordinates stack the layers.

Labels use printed value names (``%3``), as ``str(graph)`` does. Nothing here draws:
``svg.py`` turns a layout into SVG.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from graphc.ir import scopes as _scopes
from graphc.ir.export import subgraph_items
from graphc.ir.printer import Namer, format_node

CHAR_W = 7.0      # width of one character of the 12px monospace label font
LINE_H = 15       # height of one label line
PAD = 6           # padding inside a box
GAP_X = 18        # horizontal space between boxes of a layer
GAP_Y = 34        # vertical space between layers
DUMMY_W = 4       # width of an edge's bend point
MAX_LABEL = 44    # characters per label line before it is cut
SWEEPS = 6        # crossing-reduction sweeps (each down and up)
BEND_BUDGET = 20000  # bend points per graph; longer edges beyond it are drawn straight
MODES = ("expanded", "collapsed", None)


@dataclass
class Box:
    """One drawn box: ``kind`` is ``"input"``, ``"op"``, ``"control"``, ``"result"`` or
    ``"dummy"`` (an edge's bend point); ``tip`` is the hover text; ``node`` the IR node."""

    kind: str
    lines: list
    tip: str = ""
    node: object = None
    clusters: list = field(default_factory=list)
    scope: object = None  # the scopes.Scope a "scope" box draws
    w: float = 0.0
    h: float = 0.0
    x: float = 0.0
    y: float = 0.0
    layer: int = 0


@dataclass
class Cluster:
    """A branch or loop body inside a control-flow box: ``label`` (the attr name, e.g.
    ``body``) and the body's own :class:`Layout`, at ``x, y`` inside the box."""

    label: str
    layout: "Layout"
    x: float = 0.0
    y: float = 0.0


@dataclass
class Layout:
    """Boxes and edges of one graph; ``edges`` are ``(points, is_control)``."""

    name: str
    boxes: list
    edges: list
    w: float
    h: float

    def count_boxes(self) -> int:
        """Boxes drawn, bodies included (bend points excluded)."""
        n = 0
        for b in self.boxes:
            if b.kind != "dummy":
                n += 1 + sum(c.layout.count_boxes() for c in b.clusters)
        return n


def _cut(text: str) -> str:
    return text if len(text) <= MAX_LABEL else text[:MAX_LABEL - 1] + "\u2026"


def _size(box: Box) -> None:
    """Set ``box.w``/``box.h`` from its label lines and its clusters (laid out already)."""
    text_w = max((len(s) for s in box.lines), default=0) * CHAR_W + 2 * PAD
    text_h = len(box.lines) * LINE_H + 2 * PAD
    if not box.clusters:
        box.w, box.h = max(text_w, 40.0), text_h
        return
    x, height = PAD, 0.0
    below = 0 if box.kind == "scope" else LINE_H  # a scope's part has no label
    for c in box.clusters:  # side by side below the header, each under its label
        c.x, c.y = x, text_h + below
        x += c.layout.w + PAD
        height = max(height, c.layout.h)
    box.w = max(text_w, x)
    box.h = text_h + below + height + PAD


def _shared_sources(part) -> tuple:
    """Nodes without operands (constants) read by several items: drawn once above each
    reader, as TensorBoard does, instead of one box with edges across the picture; and
    those only scopes read (each scope draws its own copy), not drawn at this level."""
    readers: dict[int, set] = {}
    inside = set()
    for item in part.items:
        for v in item.inputs:
            readers.setdefault(v.id, set()).add(id(item))
        if isinstance(item, _scopes.Scope):
            inside.update(v.id for n in item.part.items if _scopes.is_source(n)
                          for v in n.outputs)
    for v in part.outputs:
        readers.setdefault(v.id, set()).add("result")
    copy, skip = set(), set()
    for n in part.items:
        if isinstance(n, _scopes.Scope) or not _scopes.is_source(n):
            continue
        count = len(set().union(*(readers.get(v.id, set()) for v in n.outputs)))
        if count > 1:
            copy.add(id(n))
        elif count == 0 and any(v.id in inside for v in n.outputs):
            skip.add(id(n))
    return copy, skip


def _node_box(node, namer) -> Box:
    outs = [namer.typed(v) for v in node.outputs if not v.aval.is_token]
    lines = [_cut(node.op.name)] + ([_cut(", ".join(outs))] if outs else [])
    tip = format_node(node, namer) + (f"\ntraced at {node.src}" if node.src else "")
    clusters = [Cluster(label, layout(sub, scopes=None))  # scopes: top level only
                for label, sub in subgraph_items(node)]
    return Box("control" if clusters else "op", lines, tip=tip, node=node,
               clusters=clusters)


def _scope_box(scope, namer, input_names, mode, home) -> Box:
    ops = f"{len(scope.nodes)} ops"
    box = Box("scope", [_cut(scope.label), ops], tip=scope.title, scope=scope)
    if mode != "collapsed":
        box.lines = [_cut(f"{scope.label}  ({ops})")]
        inner = _lay(scope.part, namer, input_names, mode, home, "out ")
        box.clusters = [Cluster("", inner)]
    return box


def _boxes(part, namer, input_names, mode, home, result_word):
    """Boxes for inputs and items, and the edges between them as box indices."""
    boxes, edges, made, shared = [], [], {}, {}
    copy, skip = _shared_sources(part)

    def sources(values):
        out, fresh = {}, set()  # box index -> is_control, in operand order
        for v in values:
            if v.id in shared and v.id not in fresh:  # a copy of a shared constant
                fresh.add(v.id)                        # for this reader
                made[v.id] = len(boxes)
                boxes.append(_node_box(shared[v.id], namer))
            src = made.get(v.id)
            if src is not None:
                out.setdefault(src, v.aval.is_token)
        return out

    for v in part.inputs:
        made[v.id] = len(boxes)
        name = input_names.get(v.id)
        text = namer.typed(v) if name is None else f"{name} = {namer.typed(v)}"
        boxes.append(Box("input", [_cut(text)], tip=f"input {text}"))
    for item in part.items:
        if id(item) in skip:
            continue
        if id(item) in copy:
            shared.update((v.id, item) for v in item.outputs)
            continue
        srcs = sources(item.inputs)
        me = len(boxes)
        if isinstance(item, _scopes.Scope):
            boxes.append(_scope_box(item, namer, input_names, mode, home))
        else:
            boxes.append(_node_box(item, namer))
        edges.extend((src, me, control) for src, control in srcs.items())
        for v in item.outputs:
            made[v.id] = me
    results = [namer(v) for v in part.outputs]
    if results:
        srcs = sources(part.outputs)
        me = len(boxes)
        boxes.append(Box("result", [_cut(result_word + ", ".join(results))],
                         tip=result_word + ", ".join(results)))
        edges.extend((src, me, False) for src in srcs)
    return boxes, edges


def _layers(boxes, edges) -> None:
    preds = [[] for _ in boxes]
    succs = [[] for _ in boxes]
    for a, b, _c in edges:
        preds[b].append(a)
        succs[a].append(b)
    for i, box in enumerate(boxes):  # boxes are in execution order
        box.layer = 1 + max((boxes[p].layer for p in preds[i]), default=-1)
        if box.kind == "result":
            box.layer = max((b.layer for b in boxes[:i]), default=-1) + 1
    for i in range(len(boxes) - 1, -1, -1):  # then each box sinks to just above its
        box = boxes[i]                          # first reader (inputs and constants too)
        if succs[i]:
            box.layer = max(box.layer, min(boxes[s].layer for s in succs[i]) - 1)


def _split_long_edges(boxes, edges):
    """Replace each edge over several layers by a chain through dummy boxes (shortest
    edges first, up to ``BEND_BUDGET`` bend points: a value read all along a long chain
    would otherwise cost layers x readers of them)."""
    out, budget = [], BEND_BUDGET
    for a, b, control in sorted(edges, key=lambda e: boxes[e[1]].layer - boxes[e[0]].layer):
        span = boxes[b].layer - boxes[a].layer - 1
        if span > budget:
            out.append((a, b, control))
            continue
        budget -= span
        prev = a
        for layer in range(boxes[a].layer + 1, boxes[b].layer):
            d = len(boxes)
            boxes.append(Box("dummy", [], w=DUMMY_W, h=0.0, layer=layer))
            out.append((prev, d, control))
            prev = d
        out.append((prev, b, control))
    return out


def _order(boxes, edges, n_layers):
    rows = [[] for _ in range(n_layers)]
    for i, box in enumerate(boxes):
        rows[box.layer].append(i)
    up = [[] for _ in boxes]
    down = [[] for _ in boxes]
    for a, b, _c in edges:
        down[a].append(b)
        up[b].append(a)
    pos = {}
    for row in rows:
        pos.update((i, k) for k, i in enumerate(row))
    for sweep in range(2 * SWEEPS):
        order = range(1, n_layers) if sweep % 2 == 0 else range(n_layers - 2, -1, -1)
        nbrs = up if sweep % 2 == 0 else down
        for layer in order:
            row = rows[layer]

            def key(i, nbrs=nbrs):
                ns = nbrs[i]
                return (sum(pos[n] for n in ns) / len(ns)) if ns else pos[i]

            row.sort(key=key)
            pos.update((i, k) for k, i in enumerate(row))
    return rows, up, down


def _place_x(boxes, rows, up, down) -> None:
    for row in rows:
        x = 0.0
        for i in row:
            boxes[i].x = x
            x += boxes[i].w + GAP_X

    def centre(i):
        return boxes[i].x + boxes[i].w / 2

    for sweep in range(8):
        nbrs = up if sweep % 2 == 0 else down
        for row in (rows if sweep % 2 == 0 else rows[::-1]):
            want = []
            for i in row:
                ns = nbrs[i]
                c = sum(centre(n) for n in ns) / len(ns) if ns else centre(i)
                want.append(c - boxes[i].w / 2)
            for i, x in zip(row, _closest_in_order([boxes[i].w for i in row], want)):
                boxes[i].x = x


def _closest_in_order(widths, want) -> list:
    """Left edges, in order and ``GAP_X`` apart, as close to ``want`` as can be (least
    squares): with each box's offset from the row's start taken out, the edges only
    have to be non-decreasing, which the pool-adjacent-violators algorithm solves
    exactly in linear time. So each box stays under its neighbours' centre unless its
    row is too crowded, and a row never drifts as a whole."""
    offsets, at = [], 0.0
    for w in widths:
        offsets.append(at)
        at += w + GAP_X
    blocks = []  # [mean, count]: merged runs of boxes that must touch
    for x, off in zip(want, offsets):
        blocks.append([x - off, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            m2, n2 = blocks.pop()
            m1, n1 = blocks.pop()
            blocks.append([(m1 * n1 + m2 * n2) / (n1 + n2), n1 + n2])
    out = []
    for mean, n in blocks:
        out.extend([mean] * n)
    return [y + off for y, off in zip(out, offsets)]


def layout(graph, input_names=None, scopes: str | None = "expanded",
           home: str | None = None) -> Layout:
    """Lay out ``graph`` (and its bodies, recursively) as boxes and routed edges;
    ``input_names`` (input value id -> argument name) labels the graph's inputs.

    ``scopes``: ``"expanded"`` draws each scope (``scopes.py``: the nodes of one call of
    a user function, the backward pass) as a box holding its nodes, ``"collapsed"`` as
    one small box, ``None`` draws no scopes; bodies are drawn without (a fused loop's
    body mixes the ops of several calls). ``home``: the traced function's name
    (default: the graph's), whose own nodes are in no scope."""
    if scopes not in MODES:
        raise ValueError(f"layout: scopes={scopes!r}; use one of {MODES}")
    home = graph.name if home is None else home
    part = (_scopes.group(graph, home) if scopes else
            _scopes.Part(graph.name, graph.inputs, graph.nodes, graph.outputs))
    return _lay(part, Namer(graph), input_names or {}, scopes, home, "return ")


def _lay(part, namer, input_names, mode, home, result_word) -> Layout:
    boxes, edges = _boxes(part, namer, input_names, mode, home, result_word)
    for box in boxes:
        _size(box)
    if not boxes:
        return Layout(part.name, [], [], 2 * PAD, 2 * PAD)
    _layers(boxes, edges)
    n_layers = max(b.layer for b in boxes) + 1
    edges = _split_long_edges(boxes, edges)
    rows, up, down = _order(boxes, edges, n_layers)
    _place_x(boxes, rows, up, down)
    left = min(b.x for b in boxes)
    fed = {b for _a, b, _c in edges}
    y = PAD
    for row in rows:
        height = max((boxes[i].h for i in row), default=0.0)
        for i in row:
            boxes[i].x += PAD - left
            if boxes[i].kind == "dummy":  # a bend point runs the layer's full height
                boxes[i].h = height
            # centred in its layer; a box nothing feeds (a constant, an input) at the
            # layer's bottom, next to its reader below
            below = 1.0 if i not in fed else 0.5
            boxes[i].y = y + (height - boxes[i].h) * below
        y += height + GAP_Y
    width = max(b.x + b.w for b in boxes) + PAD
    return Layout(part.name, boxes, _routes(boxes, edges), width, y - GAP_Y + PAD)


def _routes(boxes, edges):
    """One point list per original edge: source bottom, each bend point, target top."""
    onward = {a: b for a, b, _c in edges if boxes[a].kind == "dummy"}
    out = []
    for a, b, control in edges:
        if boxes[a].kind == "dummy":
            continue  # the piece leaving a bend point is part of the edge entering it
        s = boxes[a]
        path = [(s.x + s.w / 2, s.y + s.h)]
        while boxes[b].kind == "dummy":
            d = boxes[b]
            path += [(d.x + d.w / 2, d.y), (d.x + d.w / 2, d.y + d.h)]
            b = onward[b]
        t = boxes[b]
        path.append((t.x + t.w / 2, t.y))
        out.append((path, control))
    return out
