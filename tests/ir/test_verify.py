"""Tests for the IR verifier (graphc.ir.verify)."""

import numpy as np
import pytest

from graphc.core.registry import OpDef
from graphc.core.trace import TraceContext, freeze
from graphc.ir.graph import Aval, FrozenAttrs, Graph, Node, Value
from graphc.ir.verify import VerificationError, verify
from graphc.ops import elementwise as ew

F32 = np.dtype(np.float32)

RECORD = OpDef("record", infer=lambda x: (), ref=lambda x: [], stateful=True,
               multiple_results=True)
COND = OpDef("cond", infer=lambda p, *xs, true_fn, false_fn: tuple(
    v.aval for v in true_fn.outputs), ref=None, multiple_results=True)


def emit(ctx, op, *values, **attrs):
    """Append ``op(*values, **attrs)`` to ``ctx`` with avals from ``op.infer``."""
    attrs = {k: freeze(v) for k, v in attrs.items()}
    avals = op.infer(*[v.aval for v in values], **attrs)
    avals = (avals,) if isinstance(avals, Aval) else tuple(avals)
    return ctx.add_node(op, values, attrs, avals)


def effect_graph():
    with TraceContext("fx") as ctx:
        x = ctx.new_input(Aval((3,), F32))
        emit(ctx, RECORD, x)
        (y,) = emit(ctx, ew.NEGATIVE, x)
        emit(ctx, RECORD, y)
        return ctx.finish([y])


def chain_graph():
    with TraceContext("f") as ctx:
        x = ctx.new_input(Aval((3,), F32))
        (a,) = emit(ctx, ew.NEGATIVE, x)
        (b,) = emit(ctx, ew.ADD, a, x)
        return ctx.finish([b])


def rebuilt(g, nodes=None, outputs=None, **kw):
    return Graph(g.inputs, g.nodes if nodes is None else nodes,
                 g.outputs if outputs is None else outputs, name=g.name,
                 token_in=kw.get("token_in", g.token_in),
                 token_out=kw.get("token_out", g.token_out))


def test_valid_graphs_pass():
    for g in (chain_graph(), effect_graph()):
        assert verify(g) is g


def test_use_before_definition():
    g = chain_graph()
    with pytest.raises(VerificationError, match=r"graph 'f', node `%1:f32\[3\] = add %2 %0`"
                                                r": input 0 \(%2\) is used before"):
        verify(rebuilt(g, nodes=g.nodes[::-1]))


def test_value_from_another_graph():
    g = chain_graph()
    other = chain_graph()
    with pytest.raises(VerificationError, match="used before it is defined"):
        verify(rebuilt(g, nodes=[g.nodes[0], other.nodes[1]]))


def test_defined_twice():
    g = chain_graph()
    with pytest.raises(VerificationError, match="is defined twice"):
        verify(rebuilt(g, nodes=[g.nodes[0], g.nodes[0], g.nodes[1]]))


def test_output_not_defined():
    g = chain_graph()
    with pytest.raises(VerificationError, match=r"output 0 \(%\?\d+\) is not defined"):
        verify(rebuilt(g, outputs=[Value(Aval((3,), F32))]))


def test_aval_mismatch_with_infer():
    g = chain_graph()
    bad = g.nodes[1]
    wrong = Node(bad.op, bad.inputs, bad.attrs, (Value(Aval((3,), np.float64)),))
    with pytest.raises(VerificationError, match=r"output 0 is f64\[3\] but infer gives f32\[3\]"):
        verify(rebuilt(g, nodes=[g.nodes[0], wrong], outputs=wrong.outputs))


def test_infer_failure_is_reported():
    g = chain_graph()
    node = g.nodes[0]
    bad = Node(ew.CAST, node.inputs, FrozenAttrs(), node.outputs)  # no dtype attr
    with pytest.raises(VerificationError, match="cast.infer fails"):
        verify(rebuilt(g, nodes=[bad, g.nodes[1]]))


def test_unhashable_attrs():
    g = chain_graph()
    n = g.nodes[0]
    with pytest.raises(VerificationError, match="not hashable"):
        verify(rebuilt(g, nodes=[Node(n.op, n.inputs, {"k": [1]}, n.outputs), g.nodes[1]]))


def test_token_out_of_order():
    g = effect_graph()
    first, neg, second = g.nodes
    # reads the first token again: the two effects are no longer ordered
    forked = Node(second.op, (second.inputs[0], first.inputs[-1]), second.attrs,
                  second.outputs)
    with pytest.raises(VerificationError, match="consumes token !t0 but the current token is !t1"):
        verify(rebuilt(g, nodes=[first, neg, forked]))


def test_token_out_must_be_last_effect():
    g = effect_graph()
    with pytest.raises(VerificationError,
                       match="token_out is !t1 but the last effect produced !t2"):
        verify(rebuilt(g, token_out=g.nodes[0].outputs[-1]))


def test_stateful_node_without_token():
    g = effect_graph()
    first = g.nodes[0]
    bare = Node(first.op, first.inputs[:-1], first.attrs, ())
    with pytest.raises(VerificationError, match="stateful op must take the effect token"):
        verify(rebuilt(g, nodes=[bare], outputs=[], token_out=g.token_in))


def test_token_as_data_input():
    g = chain_graph()
    n = g.nodes[1]
    bad = Node(n.op, (g.token_in, n.inputs[1]), n.attrs, n.outputs)
    with pytest.raises(VerificationError, match="only be the last input"):
        verify(rebuilt(g, nodes=[g.nodes[0], bad]))


def branch(name, broken=False):
    with TraceContext(name) as ctx:
        a = ctx.new_input(Aval((), F32))
        (b,) = emit(ctx, ew.NEGATIVE, a)
        g = ctx.finish([b])
    if broken:
        g.outputs = [Value(Aval((), F32))]
    return g


def test_subgraphs_are_checked_with_a_path():
    def outer(true_fn):
        with TraceContext("outer") as ctx:
            p = ctx.new_input(Aval((), np.bool_))
            x = ctx.new_input(Aval((), F32))
            (y,) = emit(ctx, COND, p, x, true_fn=true_fn, false_fn=branch("else"))
            return ctx.finish([y])

    verify(outer(branch("then")))
    with pytest.raises(VerificationError, match=r"graph 'outer/cond\[0\]\.then': output 0"):
        verify(outer(branch("then", broken=True)))
