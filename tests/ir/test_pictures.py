"""``graph.to_svg()``: the built-in layered layout (no Graphviz needed), bodies as nested
clusters, and Graphviz's ``dot`` used when it is on PATH (a fake ``dot`` stands in)."""

import stat
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import graphc as gc
from graphc.ir import graphviz
from graphc.ir.layout import layout
from graphc.ir.pictures import to_svg

SVG = "{http://www.w3.org/2000/svg}"


@gc.function(backend="numpy")
def looped(x, n):
    s = gc.reduce_sum(x)
    if s > 0:
        y = x * 2.0
    else:
        y = x - 1.0
    i = 0
    while i < n:
        y = gc.math.sin(y) + 1.0
        if gc.reduce_max(y) > 3.0:
            y = y / 2.0
        i += 1
    return y, s


@pytest.fixture(scope="module")
def graph():
    return looped.get_concrete_function(np.ones(3, np.float32), gc.constant(2)).graph


@pytest.fixture
def no_dot(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty PATH: no Graphviz
    assert graphviz.dot_executable() is None


def _classes(el):
    return (el.get("class") or "").split()


def _count(graph):
    """Boxes the picture must hold: inputs, nodes and a results box, bodies included."""
    n = len(graph.inputs) + len(graph.nodes) + bool(graph.outputs)
    return n + sum(_count(sub) for node in graph.nodes for sub in node.subgraphs())


def test_builtin_svg_is_xml_with_every_node_and_nested_clusters(graph, no_dot):
    svg = graph.to_svg()  # no dot on PATH: the built-in drawing, no error
    root = ET.fromstring(svg)
    assert root.tag == SVG + "svg" and "graphc-graph" in _classes(root)
    groups = list(root.iter(SVG + "g"))
    nodes = [g for g in groups if "node" in _classes(g)]
    assert len(nodes) == _count(graph)
    clusters = [g for g in groups if "cluster" in _classes(g)]
    # cond: 2 branches, while: cond and body, the cond inside the body: 2 more
    assert len(clusters) == 6
    labels = [g.find(SVG + "title").text for g in clusters]
    assert sorted(labels) == ["body", "cond", "false_fn", "false_fn", "true_fn", "true_fn"]
    body = next(g for g in clusters if g.find(SVG + "title").text == "body")
    inner = [g for g in body.iter(SVG + "g") if "cluster" in _classes(g) and g is not body]
    assert sorted(g.find(SVG + "title").text for g in inner) == ["false_fn", "true_fn"]
    tips = " ".join(g.find(SVG + "title").text for g in nodes)
    assert "while_loop" in tips and "traced at" in tips and __file__ in tips


def test_layout_edges_go_down_and_boxes_do_not_overlap():
    @gc.function(backend="numpy")
    def wide(x, y):
        parts = [x * float(i) + y for i in range(6)]
        return gc.reduce_sum(gc.stack(parts)) + x[0] * y[1]

    g = wide.get_concrete_function(np.ones(2, np.float32), np.ones(2, np.float32)).graph
    lay = layout(g)
    boxes = [b for b in lay.boxes if b.kind != "dummy"]
    assert len(boxes) == len(g.inputs) + len(g.nodes) + 1
    for points, _control in lay.edges:
        assert points[-1][1] > points[0][1]  # every edge enters its target from above
        assert all(b[1] >= a[1] for a, b in zip(points, points[1:]))
    for a in lay.boxes:
        assert 0 <= a.x and a.x + a.w <= lay.w and 0 <= a.y and a.y + a.h <= lay.h
        for b in lay.boxes:
            if a is not b and a.layer == b.layer:
                assert a.x + a.w <= b.x or b.x + b.w <= a.x, (a, b)


def test_bend_points_are_bounded_and_long_edges_still_drawn(monkeypatch):
    @gc.function(backend="numpy", unroll=True)  # a long chain of nodes, not a loop
    def chain(x):
        y = x
        for _ in range(40):
            y = y * 0.5 + x  # x is read all along the chain: long edges
        return y

    g = chain.get_concrete_function(np.ones(2, np.float32)).graph
    full = layout(g)
    monkeypatch.setattr("graphc.ir.layout.BEND_BUDGET", 10)
    cut = layout(g)
    dummies = [b for b in cut.boxes if b.kind == "dummy"]
    assert len(dummies) <= 10 < sum(b.kind == "dummy" for b in full.boxes)
    assert cut.count_boxes() == full.count_boxes() == _count(g)
    assert len(cut.edges) == len(full.edges)  # every edge is still drawn
    assert sorted(len(p) for p, _c in cut.edges)[0] == 2


def test_a_shared_constant_is_drawn_above_each_reader():
    @gc.function(backend="numpy")
    def chain(x):
        y = x
        for _ in range(8):  # after CSE: one 0.5, read by the 8 fused loops
            y = gc.matmul(y, y) * 0.5 + x
        return y

    g = chain.get_concrete_function(np.ones((2, 2), np.float32)).optimized_graph
    (const,) = [n for n in g.nodes if n.op.name == "const"]
    readers = [n for n in g.nodes if const.outputs[0] in n.inputs]
    lay = layout(g)
    copies = [b for b in lay.boxes if b.node is const]
    assert len(readers) > 1 and len(copies) == len(readers)
    assert lay.count_boxes() == _count(g) + len(readers) - 1
    starts = {(b.x + b.w / 2, b.y + b.h): b for b in copies}
    from_copies = [p for p, _c in lay.edges if p[0] in starts]
    assert len(from_copies) == len(copies)
    assert all(len(p) == 2 for p in from_copies)  # straight to the next layer, no bends
    for box in copies:  # each copy sits one layer above the reader it feeds
        assert any(r.layer == box.layer + 1 for r in lay.boxes if r.node in readers)


def _fake_dot(tmp_path, body: str) -> str:
    """A ``dot`` executable on PATH that runs ``body`` (Python) on its stdin."""
    exe = tmp_path / "dot"
    exe.write_text(f"#!{sys.executable}\nimport sys\n{body}\n")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    return str(exe)


def test_dot_on_path_is_used_and_its_svg_trimmed(graph, tmp_path, monkeypatch):
    seen = tmp_path / "seen.dot"
    _fake_dot(tmp_path, f"open({str(seen)!r}, 'w').write(sys.stdin.read())\n"
              "print('<?xml version=\"1.0\"?>\\n<!DOCTYPE svg>\\n<!-- G -->')\n"
              "print('<svg xmlns=\"http://www.w3.org/2000/svg\"><!-- c --><g class=\"x\"/>"
              "</svg>')")
    monkeypatch.setenv("PATH", str(tmp_path))
    svg = graph.to_svg()
    assert svg == '<svg xmlns="http://www.w3.org/2000/svg"><g class="x"/></svg>'
    assert seen.read_text() == graph.to_dot()  # dot was given the graph's DOT text
    assert "graphc-graph" in graph.to_svg(engine="builtin")  # the built-in on request


def test_failing_dot_falls_back_unless_asked_for(graph, tmp_path, monkeypatch):
    _fake_dot(tmp_path, "sys.stderr.write('Error: syntax error in line 1'); sys.exit(1)")
    monkeypatch.setenv("PATH", str(tmp_path))
    assert "graphc-graph" in graph.to_svg()
    with pytest.raises(graphviz.GraphvizError, match="status 1.*syntax error in line 1"):
        graph.to_svg(engine="dot")


def test_missing_dot_and_bad_engine_errors(graph, no_dot):
    with pytest.raises(graphviz.GraphvizError, match="'dot' was not found.*builtin"):
        graph.to_svg(engine="dot")
    with pytest.raises(ValueError, match="unknown engine 'png'"):
        to_svg(graph, engine="png")


def test_svg_escapes_hostile_names(no_dot):
    f = gc.function(lambda x: x + 1.0, backend="numpy", name='<b onload="x()">&')
    svg = f.get_concrete_function(np.ones(2, np.float32)).graph.to_svg()
    ET.fromstring(svg)  # still well-formed
    assert "<b " not in svg and "&lt;b onload=&quot;x()&quot;&gt;&amp;" in svg


def _dot_blocks(dot: str) -> dict:
    """``subgraph`` name -> the lines inside it (nested blocks included)."""
    blocks, open_ = {}, []
    for line in dot.splitlines():
        s = line.strip()
        for name in open_:
            blocks[name].append(s)
        if s.startswith("subgraph "):
            name = s.split('"')[1]
            blocks[name] = []
            open_.append(name)
        elif s == "}" and open_:
            blocks[open_.pop()].pop()  # its own closing brace
    return blocks


def test_dot_text_nests_bodies_inside_their_nodes_cluster(graph):
    blocks = _dot_blocks(graph.to_dot())
    cond = blocks["cluster_node:cond"]
    assert '"cond" [label="cond\\nf32[3]"];' in cond
    assert 'subgraph "cluster_false_branch" {' in cond
    assert 'subgraph "cluster_true_branch" {' in cond
    assert 'label="false_fn"; style="dashed,filled"; fillcolor="white";' in cond
    loop = blocks["cluster_node:while_loop"]
    assert 'subgraph "cluster_body" {' in loop and 'subgraph "cluster_cond" {' in loop
    # the cond inside the loop body: its own cluster, inside the body's
    assert 'subgraph "cluster_node:body/cond" {' in blocks["cluster_body"]
    inner = blocks["cluster_node:body/cond"]
    assert sum(s.startswith('subgraph "cluster_') for s in inner) == 2


def _square_sum(v):  # a user function: its ops form one scope per call
    return gc.reduce_sum(v * v) + 1.0


@gc.function(backend="numpy")
def with_scopes(x):
    with gc.GradientTape() as tape:
        tape.watch(x)
        loss = _square_sum(x) * _square_sum(gc.math.sin(x))
    return tape.gradient(loss, x)


def test_scopes_drawn_as_boxes_expanded_or_collapsed(no_dot):
    g = with_scopes.get_concrete_function(np.ones(3, np.float32)).graph
    for mode in ("expanded", "collapsed"):
        root = ET.fromstring(g.to_svg(scopes=mode))
        boxes = [e for e in root.iter(SVG + "g") if "scope" in _classes(e)]
        titles = [e.find(SVG + "title").text for e in boxes]
        assert [t.split(":")[0] for t in titles] == ["_square_sum", "_square_sum_1",
                                                       "gradients"], titles
        assert [e.get("data-scope") for e in boxes] == ["s0", "s1", "s2"]
        assert "backward" in _classes(boxes[2]) and "function" in _classes(boxes[0])
        inner = [n for e in boxes for n in e.iter(SVG + "g") if n is not e]
        assert all(("collapsed" in _classes(e)) == (mode == "collapsed") for e in boxes)
        assert bool(inner) == (mode == "expanded")  # nodes drawn inside when open
    flat = ET.fromstring(g.to_svg(scopes=None))
    assert not [e for e in flat.iter(SVG + "g") if "scope" in _classes(e)]
    with pytest.raises(ValueError, match="scopes='all'"):
        g.to_svg(scopes="all")
