"""Common-subexpression elimination: golden texts and what must never merge."""

import numpy as np
from pass_helpers import (
    BOOL,
    COND,
    F32,
    I32,
    Aval,
    assert_same_results,
    build,
    const,
    emit,
    run_pass,
    text,
)

from graphc.ir.graph import FrozenAttrs, Node
from graphc.passes.cse import node_key

X = Aval((3,), F32)


def test_merges_duplicate_chains_golden():
    def body(c, x):
        a = emit(c, "add", emit(c, "exp", x), const(c, 1.0))
        b = emit(c, "add", emit(c, "exp", x), const(c, 1.0))
        return emit(c, "multiply", a, b)

    g = build(body, X)
    out, changes = run_pass(g, "cse")
    assert text(out) == (
        "f(%0:f32[3]) {\n"
        "  %1:f32[3] = exp %0\n"
        "  %2:f32[] = const 1.\n"
        "  %3:f32[3] = add %1 %2\n"
        "  %4:f32[3] = multiply %3 %3\n"
        "  return %4\n"
        "}")
    assert changes == ["merged %4 = exp %0 into %1", "merged %5 = const 1. into %2",
                       "merged %6 = add %4 %5 into %3"]
    assert_same_results(g, out, [np.arange(3, dtype=np.float32)])


def test_stateful_nodes_never_merge():
    def body(c, x):
        kw = dict(shape=(3,), dtype=F32, low=0.0, high=1.0, seed=7)
        return [emit(c, "random_uniform", **kw), emit(c, "random_uniform", **kw)]

    g = build(body, X)
    assert run_pass(g, "cse")[0] is g


def test_equal_but_different_constants_and_attrs_stay_apart():
    def body(c, x):
        zeros = [emit(c, "add", x, const(c, 0.0)), emit(c, "add", x, const(c, np.float32(-0.0)))]
        axes = [emit(c, "sum", emit(c, "reshape", x, shape=(1, 3), order="C"), axis=1,
                     keepdims=False),
                emit(c, "sum", emit(c, "reshape", x, shape=(1, 3), order="C"), axis=True,
                     keepdims=False)]
        return zeros + axes

    out, changes = run_pass(build(body, X), "cse")
    assert changes == ["merged %7 = reshape %0 order='C' shape=(1, 3) into %5"]
    assert [n.op.name for n in out.nodes].count("sum") == 2
    assert [n.op.name for n in out.nodes].count("const") == 2


def test_unhashable_attrs_are_left_alone():
    g = build(lambda c, x: [emit(c, "cast", x, dtype=I32)], X)
    (node,) = g.nodes
    assert node_key(node) is not None
    odd = Node(node.op, node.inputs, FrozenAttrs({"dtype": I32, "extra": {1, 2}}),
               node.outputs)
    assert node_key(odd) is None


def test_merges_inside_branches():
    def branch(c, a):
        return emit(c, "add", emit(c, "exp", a), emit(c, "exp", a))

    t = build(branch, X, name="true_fn")
    f = build(lambda c, a: a, X, name="false_fn")
    g = build(lambda c, p, x: emit(c, COND, p, x, true_fn=t, false_fn=f), Aval((), BOOL), X)
    out, changes = run_pass(g, "cse")
    assert changes == ["in %2.true_fn: merged %2 = exp %0 into %1"]
    assert "exp" in text(out) and text(out).count("exp") == 1
    for p in (True, False):
        assert_same_results(g, out, [np.asarray(p), np.arange(3, dtype=np.float32)])
