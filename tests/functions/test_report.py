"""``fn.explain(format="html")``: one self-contained HTML report per function, checked
by parsing it (sections, one picture per graph, clusters for bodies, nothing external,
every user string escaped)."""

import os
from html.parser import HTMLParser

import numpy as np
import pytest

import graphc as gc
from graphc.functions import report_view

HOSTILE = '<script>alert("name")</script><img src=x onerror=alert(1)>&amp;'


class Page(HTMLParser):
    """Tags as (tag, attrs, path of enclosing tags), and the text under <title>."""

    VOID = {"meta", "br", "img", "input", "link", "hr", "path", "rect"}

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.tags, self.stack, self.title = [], [], ""
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs), tuple(self.stack)))
        if tag not in self.VOID:
            self.stack.append((tag, dict(attrs).get("class", "")))

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs), tuple(self.stack)))

    def handle_endtag(self, tag):
        while self.stack and self.stack.pop()[0] != tag:
            pass

    def handle_data(self, data):
        if self.stack and self.stack[-1][0] == "title" and len(self.stack) == 3:
            self.title += data

    def having(self, tag, cls=None):
        return [t for t in self.tags
                if t[0] == tag and (cls is None or cls in t[1].get("class", "").split())]


def body(x, n):
    if gc.reduce_sum(x) > 0:
        y = x * 2.0
    else:
        y = x - 1.0
    i = 0
    while i < n:
        y = y * 0.5 + 1.0
        i += 1
    y = gc.numpy_function(np.sqrt, [gc.abs(y)], gc.float32)  # marker: numpy_function
    return y + 0.0 * 3.0, gc.cast(x, gc.float16) * 2  # marker: float16


@pytest.fixture(scope="module")
def report():
    fn = gc.function(body, name=HOSTILE)  # numba backend: never called, only traced
    fn.get_concrete_function(np.ones(3, np.float32), gc.constant(2))
    text = fn.explain(np.ones(4, np.float32), gc.constant(2), format="html")
    return fn, text, Page(text)


def _only_the_viewer_script(text, page):
    """One inline script, graphc's own viewer, word for word: nothing from the program
    runs, and nothing is loaded from elsewhere."""
    scripts = page.having("script")
    assert [(a, [t for t, _c in p]) for _t, a, p in scripts] == [({}, ["html", "body"])]
    assert text.lower().count("<script") == 1
    assert f"<script>{report_view.SCRIPT}</script>" in text
    assert "http" not in report_view.SCRIPT and "fetch(" not in report_view.SCRIPT


def test_report_sections_and_one_picture_per_graph(report):
    fn, text, page = report
    assert text.startswith("<!DOCTYPE html>") and fn.tracing_count == 2
    traces = page.having("section", "trace")
    assert [t[1]["id"] for t in traces] == ["trace-1", "trace-2"]
    svgs = page.having("svg")
    assert len(svgs) == 4  # traced and optimized graph, per trace
    figures = [p[-2][1] for _t, _a, p in svgs]  # figure > div.stage > svg
    assert figures == ["viewer graph traced", "viewer graph optimized"] * 2
    for heading in ("Graph as traced", "Optimization passes", "Graph after the passes",
                    "What runs where", "Why it traced, each time"):
        assert f">{heading}</h3>" in text, heading
    assert "argument &#x27;x&#x27;: float32[3] -&gt; float32[4]" in text  # retrace reason
    assert "tracing took" in text and "optimization passes took" in text
    assert ">x = %0:f32[4]</text>" in text and ">n = %1:i32[]</text>" in text
    assert text.count("x: float32 Tensor, shape=(3,)") >= 1
    assert "x: float32 Tensor, shape=(4,)" in text


def test_bodies_are_nested_clusters_and_python_nodes_marked(report):
    _fn, _text, page = report
    clusters = page.having("g", "cluster")
    # per trace and graph: true_fn, false_fn, while's cond and body (fusion may add more)
    in_traced = [c for c in clusters if any(cls == "viewer graph traced" for _t, cls in c[2])]
    assert len(in_traced) == 2 * 4
    for _tag, _attrs, path in in_traced:  # inside the control-flow node's own box
        assert any(t == "g" and cls == "node control" for t, cls in path)
    python = page.having("g", "python")
    assert len(python) == 2 * 2  # per optimized graph: numpy_function, the add after it
    assert all(any(cls == "viewer graph optimized" for _t, cls in p) for _t, _a, p in python)
    fallback = page.having("g", "fallback")  # the float16 constant and fused loop
    assert len(fallback) == 2 * 2
    assert all(any(cls == "viewer graph optimized" for _t, cls in p) for _t, _a, p in fallback)


def test_where_it_runs_table(report):
    _fn, text, page = report
    assert len(page.having("table", "where")) == 2
    lines = {k: v for v, k in enumerate(open(__file__).read().splitlines(), 1)
             if "marker: " in k}
    here = os.path.relpath(__file__)  # shown relative to the working directory
    assert not here.startswith("..")  # (pytest runs in the repository)
    at = {k.split("marker: ")[1]: f"{here}:{n}" for k, n in lines.items()}
    assert ">Python (by design)</th><td>2 node(s)<ul><li>" in text
    assert (f"<li>gc.numpy_function at {at['numpy_function']}: a Python-side op, run by "
            "the interpreter on every call<br><code>%") in text
    # numpy_function's result has no known rank: the add reading it follows it
    assert "runs in Python with the Python-side ops (operand of unknown rank)" in text
    assert ">fallback to Python</th><td>2 node(s)<ul><li>" in text
    assert f"<li>cast, multiply (fused) at {at['float16']}: its result has dtype float16" \
        in text
    assert "not called yet" in text
    # the suite runs with compiling off (tests/conftest.py): the report says so
    assert ">compiled</th><td>7 node(s) (could be; compiling is off: GRAPHC_JIT=off)" in text
    assert "compiling is off (GRAPHC_JIT=off): the NumPy interpreter runs every node" in text


def test_report_is_self_contained_and_escapes_user_strings(report):
    _fn, text, page = report
    tags = {t for t, _a, _p in page.tags}
    assert not tags & {"img", "link", "iframe", "object", "embed", "base"}
    _only_the_viewer_script(text, page)
    for tag, attrs, _path in page.tags:
        assert "src" not in attrs and not any(k.startswith("on") for k in attrs), tag
        assert attrs.get("href", "#").startswith("#"), attrs
    assert "url(http" not in text and "@import" not in text
    assert page.title == "graphc report: " + HOSTILE  # the name, shown as text
    assert HOSTILE not in text


def test_numpy_backend_path_and_format_errors(tmp_path):
    fn = gc.function(lambda x: gc.reduce_sum(x * x), backend="numpy", name="sq")
    assert "No traces yet" in fn.explain(format="html")
    out = tmp_path / "sq.html"
    text = fn.explain(np.ones(2), format="html", path=str(out))
    assert out.read_text(encoding="utf-8") == text
    assert "backend: numpy (the reference interpreter" in text
    assert len(Page(text).having("svg")) == 2
    with pytest.raises(ValueError, match="format='svg'.*'text'.*'html'.*positionally"):
        fn.explain(np.ones(2), format="svg")


def test_input_signature_traces_for_the_report():
    fn = gc.function(lambda x: -x, backend="numpy", name="neg",
                     input_signature=[gc.TensorSpec([None], gc.float32)])
    page = Page(fn.explain(format="html"))
    assert len(page.having("section", "trace")) == 1


def test_hostile_values_in_signatures_and_attrs_are_escaped():
    def tagged(x, tag):
        gc.print(tag, x)  # the string is an attr of the print node
        return x * 2.0

    fn = gc.function(tagged, backend="numpy")
    evil = "</pre></svg><script>alert(1)</script>"
    text = fn.explain(np.ones(2, np.float32), evil, format="html")
    page = Page(text)
    assert not {t for t, _a, _p in page.tags} & {"img", "iframe"}
    _only_the_viewer_script(text, page)
    assert "&lt;/pre&gt;&lt;/svg&gt;&lt;script&gt;" in text
    assert len(page.having("svg")) == 2 and len(page.having("section", "trace")) == 1
