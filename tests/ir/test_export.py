"""Tests for GraphDef / networkx / DOT export (graphc.ir.export)."""

import json

import networkx as nx
import numpy as np

from graphc.core.registry import OpDef
from graphc.core.trace import TraceContext, freeze
from graphc.ir.export import as_graph_def, to_dot, to_networkx
from graphc.ir.graph import Aval
from graphc.ops import elementwise as ew

F32 = np.dtype(np.float32)


def emit(ctx, op, *values, src=None, **attrs):
    """Append ``op(*values, **attrs)`` to ``ctx`` with avals from ``op.infer``."""
    attrs = {k: freeze(v) for k, v in attrs.items()}
    avals = op.infer(*[v.aval for v in values], **attrs)
    avals = (avals,) if isinstance(avals, Aval) else tuple(avals)
    return ctx.add_node(op, values, attrs, avals, src=src)


CONST = OpDef("const", infer=lambda value: Aval(value.array.shape, value.array.dtype),
              ref=lambda value: value.array)
DIVMOD = OpDef("divmod", infer=lambda x, y: (x, x), ref=np.divmod, multiple_results=True)
RECORD = OpDef("record", infer=lambda x: (), ref=lambda x: [], stateful=True,
               multiple_results=True)
COND = OpDef("cond", infer=lambda p, *xs, true_fn, false_fn: tuple(
    v.aval for v in true_fn.outputs), ref=None, multiple_results=True)


def sample_graph():
    with TraceContext("f") as ctx:
        x = ctx.new_input(Aval((None, 3), F32))
        y = ctx.new_input(Aval((None, 3), F32))
        (a,) = emit(ctx, ew.ADD, x, y, src="model.py:3")
        (b,) = emit(ctx, ew.ADD, a, x)
        q, r = emit(ctx, DIVMOD, b, y)
        (c,) = emit(ctx, CONST, value=np.array([[1, 2]], np.int64))
        emit(ctx, RECORD, r)
        emit(ctx, RECORD, q)
        return ctx.finish([r, c])


def branch(name, op=None):
    with TraceContext(name) as ctx:
        a = ctx.new_input(Aval((), F32))
        out = emit(ctx, op, a)[0] if op else a
        return ctx.finish([out])


def test_graph_def_names_inputs_and_attrs():
    gd = as_graph_def(sample_graph())
    json.dumps(gd, allow_nan=False)  # plain JSON, no NumPy objects left
    nodes = {n["name"]: n for n in gd["node"]}
    assert [n["name"] for n in gd["node"]] == [
        "Placeholder", "Placeholder_1", "add", "add_1", "divmod", "const", "record", "record_1"]
    assert nodes["Placeholder"]["op"] == "Placeholder"
    assert nodes["Placeholder"]["attr"] == {"dtype": "float32", "shape": [None, 3]}
    assert nodes["add"]["input"] == ["Placeholder", "Placeholder_1"]
    assert nodes["add_1"]["input"] == ["add", "Placeholder"]
    assert nodes["add"]["experimental_debug_info"] == {"src": "model.py:3"}
    assert nodes["divmod"]["attr"]["_output_types"] == ["float32", "float32"]
    assert nodes["const"]["attr"]["value"] == {"dtype": "int64", "shape": [1, 2],
                                               "value": [[1, 2]]}
    assert (nodes["const"]["dtype"], nodes["const"]["shape"]) == ("int64", [1, 2])
    # output 1 is "name:1"; effect order becomes a TensorFlow-style control input
    assert nodes["record"]["input"] == ["divmod:1"]
    assert nodes["record_1"]["input"] == ["divmod", "^record"]
    assert nodes["record_1"]["dtype"] is None and nodes["record_1"]["shape"] is None
    assert gd["output"] == ["divmod:1", "const", "^record_1"]
    assert gd["library"] == {}


def test_graph_def_library_holds_branches():
    then = branch("then", ew.NEGATIVE)
    with TraceContext("outer") as ctx:
        p = ctx.new_input(Aval((), np.bool_))
        x = ctx.new_input(Aval((), F32))
        (y,) = emit(ctx, COND, p, x, true_fn=then, false_fn=branch("then"))
        (z,) = emit(ctx, COND, p, y, true_fn=then, false_fn=then)
        g = ctx.finish([z])
    gd = json.loads(json.dumps(g.as_graph_def()))
    attrs = [n["attr"] for n in gd["node"] if n["op"] == "cond"]
    # library names are given in sorted attr order: false_fn's graph is met first
    assert attrs[0] == {"false_fn": {"func": "then"}, "true_fn": {"func": "then_1"}}
    assert attrs[1] == {"false_fn": {"func": "then_1"}, "true_fn": {"func": "then_1"}}
    assert set(gd["library"]) == {"then", "then_1"}
    body = gd["library"]["then_1"]
    assert [n["op"] for n in body["node"]] == ["Placeholder", "negative"]
    assert body["output"] == ["negative"]
    assert gd["library"]["then"]["output"] == ["Placeholder"]


def test_name_collision_with_suffixed_op_name():
    add_1 = OpDef("add_1", infer=lambda x: x, ref=lambda x: x)
    with TraceContext("c") as ctx:
        x = ctx.new_input(Aval((), F32))
        (a,) = emit(ctx, add_1, x)
        (b,) = emit(ctx, ew.ADD, a, a)
        (c,) = emit(ctx, ew.ADD, b, b)
        g = ctx.finish([c])
    names = [n["name"] for n in as_graph_def(g)["node"]]
    assert len(set(names)) == len(names)


def test_to_networkx():
    g = to_networkx(sample_graph())
    assert isinstance(g, nx.DiGraph)
    assert g.nodes["add"]["op"] == "add"
    assert g.nodes["add"]["src"] == "model.py:3"
    assert g.nodes["Placeholder"]["shape"] == [None, 3]
    assert g.nodes["divmod"]["dtype"] == "float32"
    assert g.edges["divmod", "record"]["output_index"] == 1
    assert g.edges["record", "record_1"]["control"] is True
    assert g.edges["add", "add_1"]["control"] is False
    order = list(nx.topological_sort(g))
    assert order.index("record") < order.index("record_1")
    assert g.number_of_nodes() == 8


def test_to_dot():
    with TraceContext('we"ird') as ctx:
        p = ctx.new_input(Aval((), np.bool_))
        x = ctx.new_input(Aval((), F32))
        (y,) = emit(ctx, COND, p, x, true_fn=branch("then", ew.NEGATIVE),
                    false_fn=branch("else"))
        emit(ctx, RECORD, y)
        g = ctx.finish([y])
    dot = to_dot(g)
    assert dot.startswith('digraph "we\\"ird" {')
    assert dot.count("{") == dot.count("}")
    assert '"Placeholder" -> "cond";' in dot
    assert '"cond" [label="cond\\nf32[]"];' in dot
    assert '"cond" -> "record";' in dot
    assert 'subgraph "cluster_then" {' in dot and 'subgraph "cluster_else" {' in dot
    assert dot.index("cluster_else") < dot.index("cluster_then")
    assert '"then/Placeholder" -> "then/negative";' in dot
    assert sample_graph().to_dot().count("style=dashed") == 1
