"""Pictures of a real graph (issue 30): a ~150-op MLP training step in the HTML report
fits the screen, zooms and pans (the viewer's script), groups each user function call
and the backward pass as collapsible scopes, keeps late-used values by their users; the
text forms name the user's lines, and ``explain()`` says how the graph runs first."""

from html.parser import HTMLParser

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from benchmarks.report_screenshots import SIZES, training_step
from graphc.functions import report_view
from graphc.ir import scopes
from graphc.ir.layout import layout


@pytest.fixture(scope="module")
def step():
    fn, x, y = training_step()  # the docs' screenshot graph (142 ops)
    return fn, fn.get_concrete_function(x, y), (x, y)


LABELS = ["dense", "dense_1", "dense_2", "dense_3", "dense_4", "loss_fn", "gradients"]


def test_scopes_are_the_calls_and_the_backward_pass(step):
    _fn, concrete, _args = step
    graph = concrete.graph
    assert 130 <= len(graph.nodes) <= 170
    found = [s for s in scopes.group(graph).items if isinstance(s, scopes.Scope)]
    assert [s.label for s in found] == LABELS
    assert [s.kind for s in found] == ["function"] * 6 + ["backward"]
    assert "tape.gradient" not in found[-1].title and "gradient ops" in found[-1].title
    ops = {n.op.name for n in found[-1].nodes}
    assert {"transpose", "matmul", "where"} <= ops and "assign_variable" not in ops
    for s in found:  # constants are copied into the scopes that read them, not members
        assert not any(scopes.is_source(n) for n in s.nodes)
        inner = {id(n) for n in s.part.items}
        assert all(id(n) in inner for n in s.nodes)
        mine = {v.id for n in s.nodes for v in n.outputs}
        assert s.outputs and all(v.id in mine for v in s.outputs)
        assert not any(v.id in mine for v in s.inputs)
    # the dense calls feed each other in order; the backward pass reads all of them
    assert all(set(map(id, a.outputs)) & set(map(id, b.inputs))
               for a, b in zip(found[:4], found[1:5]))
    back = {v.id for v in found[-1].inputs}
    assert all({v.id for v in s.outputs} & back for s in found[:5])


def test_collapsed_picture_is_an_overview(step):
    _fn, concrete, _args = step
    full = layout(concrete.graph, concrete.input_names)
    small = layout(concrete.graph, concrete.input_names, scopes="collapsed")
    flat = layout(concrete.graph, concrete.input_names, scopes=None)
    boxes = [b for b in small.boxes if b.kind == "scope"]
    assert [b.lines[0] for b in sorted(boxes, key=lambda b: b.y)] == LABELS
    assert all(not b.clusters for b in boxes)
    assert small.count_boxes() < flat.count_boxes() / 2
    assert small.w * small.h < flat.w * flat.h / 2
    assert all(len(b.clusters) == 1 for b in full.boxes if b.kind == "scope")
    with pytest.raises(ValueError, match="scopes='open'"):
        layout(concrete.graph, scopes="open")


def test_late_used_values_sit_by_their_readers(step):
    _fn, concrete, _args = step
    lay = layout(concrete.graph, concrete.input_names, scopes=None)
    by_node = {}
    for b in lay.boxes:
        by_node.setdefault(id(b.node), []).append(b)
    # each transpose of the backward pass sits right above the matmul reading it
    transposes = [n for n in concrete.graph.nodes if n.op.name == "transpose"]
    assert len(transposes) == 2 * (len(SIZES) - 1)
    for t in transposes:
        (reader,) = [n for n in concrete.graph.nodes if t.outputs[0] in n.inputs]
        assert by_node[id(reader)][0].layer - by_node[id(t)][0].layer == 1
    # the label input y is first read by the loss: it sits above that, not at the top
    (y_box,) = [b for b in lay.boxes if b.kind == "input" and b.lines[0].startswith("y")]
    assert y_box.layer > len(SIZES)


class Tags(HTMLParser):
    def __init__(self, text):
        super().__init__()
        self.tags = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def test_report_has_a_fitting_zooming_viewer_and_collapsible_scopes(step):
    fn, _concrete, args = step
    text = fn.explain(*args, format="html")
    tags = Tags(text).tags
    figures = [a for t, a in tags if t == "figure"]
    assert [f["class"] for f in figures] == ["viewer graph traced", "viewer graph optimized"]
    assert all(f["data-view"] == "collapsed" for f in figures)  # the overview first
    acts = [a["data-act"] for t, a in tags if t == "button"]
    assert acts == ["fit", "in", "out", "actual", "scopes"] * 2
    svgs = [a for t, a in tags if t == "svg"]
    assert [s["data-view"] for s in svgs] == ["collapsed", "expanded"] * 2
    assert ["off" in s["class"].split() for s in svgs] == [False, True] * 2
    for s in svgs:  # fit to the frame: the viewBox is the whole drawing
        w, h = float(s["width"]), float(s["height"])
        assert s["viewbox"] == s["viewBox".lower()] == f"0 0 {s['width']} {s['height']}"
        assert [round(v) for v in eval(s["data-full"])] == [0, 0, round(w), round(h)]
    stages = [a["style"] for t, a in tags if t == "div" and a.get("class") == "stage"]
    assert all(st.startswith(f"height: min({report_view.FRAME_VH}vh, ") for st in stages)
    # the same scopes in both pictures of the traced graph, by data-scope
    groups = [(a["class"].split(), a["data-scope"]) for t, a in tags
              if t == "g" and "data-scope" in a]
    collapsed = [sid for cls, sid in groups if "collapsed" in cls]
    opened = [sid for cls, sid in groups if "collapsed" not in cls]
    assert len(collapsed) >= len(LABELS) and sorted(collapsed) == sorted(opened)
    assert sum("backward" in cls for cls, _sid in groups) == 4  # 2 graphs x 2 views
    for needle in ('addEventListener("wheel"', '"pointerdown"', "getScreenCTM",
                   'setAttribute("viewBox"', "g.scope"):
        assert needle in report_view.SCRIPT, needle
    assert text.count("<script>") == 1


def test_report_and_explain_put_how_it_runs_first(step):
    fn, _concrete, args = step
    text = fn.explain(*args, format="html")
    order = [text.index(f'id="trace-1-{k}"') for k in ("where", "traced", "passes",
                                                       "optimized")]
    assert order == sorted(order)
    out = fn.explain(*args)
    heads = [line for line in out.splitlines() if line.startswith("===")]
    assert heads[0] == "=== runtime ===" and heads[1].endswith("traced graph ===")
    assert out.splitlines()[1].startswith("backend: ")
    assert "ops: " in out.split(heads[1])[0]  # how many, before the listings
    assert "  # report_screenshots.py:" in out  # each node's line, in both listings
    assert out.split("optimized graph ===")[1].count("# report_screenshots.py:") >= 3


def test_no_scopes_without_readable_source():
    from graphc.core.trace import TraceContext
    from graphc.ir.graph import Aval
    from graphc.ops import elementwise as ew

    with TraceContext("f") as ctx:
        x = ctx.new_input(Aval((2,), np.float32))
        (a,) = ctx.add_node(ew.NEGATIVE, [x], {}, [x.aval], src="/no/such/file.py:3")
        (b,) = ctx.add_node(ew.NEGATIVE, [a], {}, [x.aval], src="<stdin>:1")
        (c,) = ctx.add_node(ew.NEGATIVE, [b], {}, [x.aval], src="bad")
        g = ctx.finish([c])
    part = scopes.group(g)
    assert part.items == g.nodes
    assert layout(g, scopes="collapsed").count_boxes() == 5


def test_a_helper_holding_the_whole_graph_is_no_scope():
    def helper(x):
        return gnp.sin(x) * 2.0 + 1.0

    fn = gc.function(lambda x: helper(x), backend="numpy", name="other")
    graph = fn.get_concrete_function(np.ones(2, np.float32)).graph
    assert {n.op.name for n in graph.nodes} >= {"sin", "multiply", "add"}
    assert scopes.group(graph).items == graph.nodes  # one scope would be the graph
