"""The functional control-flow ops ``cond``, ``while_loop`` and ``switch_case``: eager and
traced, nested, ``maximum_iterations``, shape relaxation, captures and effects."""

import json

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.core.interpreter import run_graph
from graphc.ir.verify import verify
from graphc.ops.control import flow as control
from graphc.ops.effects import print_


def traced(fn, *args):
    """``gc.function(fn)`` results on ``args`` plus its verified graph."""
    f = gc.function(fn, autograph=False)
    out = f(*args)
    graph = f.get_concrete_function(*args).graph
    verify(graph)
    return out, graph


def ops(graph):
    return [n.op.name for n in graph.nodes]


# ------------------------------------------------------------------ cond
def test_cond_eager_runs_only_the_taken_branch():
    calls = []
    out = control.cond(gc.constant(True), lambda: calls.append("t") or 1,
                       lambda: calls.append("f") or 2)
    assert out == 1 and calls == ["t"]
    assert control.cond(False, lambda: 1, lambda: 2) == 2


def test_cond_traced_is_one_node_running_one_branch():
    def f(x):
        return control.cond(x > 0, lambda: x * 2, lambda: x - 100)

    out, graph = traced(f, gc.constant(3.0))
    assert out.numpy() == 6.0 and ops(graph).count("cond") == 1
    g = gc.function(f, autograph=False)
    assert g(gc.constant(-1.0)).numpy() == -101.0
    assert g.tracing_count == 1


def test_cond_untaken_branch_never_runs():
    def f(x, i):
        # gather out of range would raise: only in the branch not taken
        return control.cond(i < gc.size(x), lambda: gc.gather(x, i), lambda: x[0] * 0)

    g = gc.function(f, autograph=False)
    x = gc.constant([1.0, 2.0])
    assert g(x, gc.constant(1)).numpy() == 2.0
    assert g(x, gc.constant(5)).numpy() == 0.0


def test_cond_python_numbers_are_weak():
    out, _ = traced(lambda x: control.cond(x > 0, lambda: x, lambda: 0), gc.constant(-2.0))
    assert out.dtype == np.float32 and out.numpy() == 0.0
    out, _ = traced(lambda x: control.cond(x > 0, lambda: 1, lambda: 2.5), gc.constant(1))
    assert out.dtype == np.float64 and out.numpy() == 1.0


def test_cond_nests_and_python_outputs():
    def f(x):
        return control.cond(x > 0, lambda: (x, "pos", [x + 1]), lambda: (-x, "pos", [x]))

    (a, label, [b]), graph = traced(f, gc.constant(2))
    assert (a.numpy(), label, b.numpy()) == (2, "pos", 3)


def test_cond_shapes_that_differ_are_relaxed():
    def f(x):
        return control.cond(gc.size(x) > 2, lambda: x[1:], lambda: x)

    out, graph = traced(f, gc.constant([1.0, 2.0, 3.0]))
    assert out.numpy().tolist() == [2.0, 3.0]
    assert graph.nodes[-1].outputs[0].aval.shape == (None,)


def test_cond_captures_outer_values_as_operands():
    def f(x, y):
        z = x * y
        return control.cond(x > 0, lambda: z + y, lambda: z - y)

    out, graph = traced(f, gc.constant(2.0), gc.constant(3.0))
    assert out.numpy() == 9.0
    node = [n for n in graph.nodes if n.op.name == "cond"][0]
    true_fn = node.attrs["true_fn"]
    assert len(true_fn.inputs) == len(node.inputs) - 1  # operands = captures
    assert run_graph(true_fn, [np.float32(6.0), np.float32(3.0)])[0] == 9.0


def test_nested_cond_three_deep():
    def f(x):
        return control.cond(
            x > 0,
            lambda: control.cond(x > 10,
                                 lambda: control.cond(x > 100, lambda: x * 0 + 3,
                                                      lambda: x * 0 + 2),
                                 lambda: x * 0 + 1),
            lambda: x * 0)

    g = gc.function(f, autograph=False)
    assert [g(gc.constant(v)).numpy() for v in (-1, 5, 50, 500)] == [0, 1, 2, 3]
    verify(g.get_concrete_function(gc.constant(1)).graph)


def test_cond_with_effects_threads_the_token(capsys):
    def f(x):
        print_("before")
        y = control.cond(x > 0, lambda: (print_("pos"), x)[1], lambda: (print_("neg"), -x)[1])
        print_("after", y)
        return y

    out, graph = traced(f, gc.constant(2))
    g = gc.function(f, autograph=False)
    g(gc.constant(-5))
    assert capsys.readouterr().out == "before\npos\nafter 2\nbefore\nneg\nafter 5\n"
    node = [n for n in graph.nodes if n.op.name == "cond"][0]
    assert node.inputs[-1].aval.is_token and node.outputs[-1].aval.is_token


def test_cond_exports_branches_to_the_library():
    _, graph = traced(lambda x: control.cond(x > 0, lambda: x, lambda: -x), gc.constant(1))
    gdef = graph.as_graph_def()
    json.dumps(gdef)
    assert len(gdef["library"]) == 2
    assert "true_fn" in str(graph) and "false_fn" in str(graph)


# ------------------------------------------------------------------ while_loop
def test_while_loop_eager():
    i, s = control.while_loop(lambda i, s: i < 5, lambda i, s: (i + 1, s + i), [0, 0])
    assert (i, s) == (5, 10)
    assert control.while_loop(lambda v: v < 100, lambda v: v * 2, gc.constant(3)).numpy() == 192


def test_while_loop_traced_is_one_node():
    def f(n):
        return control.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + i), [0, 0])

    (i, s), graph = traced(f, gc.constant(10))
    assert (i.numpy(), s.numpy()) == (10, 45)
    assert ops(graph).count("while_loop") == 1
    g = gc.function(f, autograph=False)
    assert g(gc.constant(0))[1].numpy() == 0  # zero iterations
    assert g.tracing_count == 1


def test_while_loop_weak_initial_values_take_the_body_dtype():
    def f(x):
        return control.while_loop(lambda i, acc: i < 3, lambda i, acc: (i + 1, acc + x),
                                  [0, 0])

    (i, acc), _ = traced(f, gc.constant(1.5))
    assert i.dtype == np.int64 and acc.dtype == np.float32 and acc.numpy() == 4.5


def test_while_loop_relaxes_changing_shapes():
    def f(x):
        return control.while_loop(lambda v: gc.size(v) < 20, lambda v: gc.concat([v, v], 0), [x])

    (out,), graph = traced(f, gc.constant([1.0, 2.0]))
    assert out.shape == (32,)
    node = [n for n in graph.nodes if n.op.name == "while_loop"][0]
    assert node.outputs[0].aval.shape == (None,)
    assert node.attrs["body"].inputs[0].aval.shape == (None,)


def test_while_loop_maximum_iterations():
    assert control.while_loop(lambda v: v < 100, lambda v: v + 1, [0],
                              maximum_iterations=7) == [7]

    def f(n, m):
        return control.while_loop(lambda v: v < n, lambda v: v + 1, [0],
                                  maximum_iterations=m)

    g = gc.function(f, autograph=False)
    assert g(gc.constant(100), 7)[0].numpy() == 7
    assert g(gc.constant(3), 7)[0].numpy() == 3
    assert g(gc.constant(100), gc.constant(5))[0].numpy() == 5  # a tensor bound


def test_while_loop_nested_structures_and_constants():
    def f(x):
        def body(state):
            return {"i": state["i"] + 1, "v": (state["v"][0] * 2, state["v"][1])}

        return control.while_loop(lambda s: s["i"] < 3, body,
                                  {"i": 0, "v": (x, "tag")})

    out, _ = traced(f, gc.constant(1.0))
    assert out["i"].numpy() == 3 and out["v"][0].numpy() == 8.0 and out["v"][1] == "tag"


def test_nested_while_loops():
    def f(n):
        def outer_body(i, total):
            inner = control.while_loop(lambda j, t: j < i, lambda j, t: (j + 1, t + j),
                                       [0, total])
            return i + 1, inner[1]

        return control.while_loop(lambda i, t: i < n, outer_body, [0, 0])[1]

    out, graph = traced(f, gc.constant(5))
    assert out.numpy() == sum(j for i in range(5) for j in range(i))


def test_while_loop_with_cond_inside_and_effects(capsys):
    def f(n):
        def body(i):
            control.cond(i % 2 == 0, lambda: print_("even", i), lambda: print_("odd", i))
            return i + 1

        return control.while_loop(lambda i: i < n, body, [0])

    out, graph = traced(f, gc.constant(3))
    assert capsys.readouterr().out == "even 0\nodd 1\neven 2\n"
    node = [n for n in graph.nodes if n.op.name == "while_loop"][0]
    assert node.inputs[-1].aval.is_token


# ------------------------------------------------------------------ switch_case
def test_switch_case_eager_and_out_of_range():
    fns = [lambda: 10, lambda: 20, lambda: 30]
    assert control.switch_case(1, fns) == 20
    assert control.switch_case(gc.constant(7), fns) == 30  # out of range: last branch
    assert control.switch_case(-1, fns, default=lambda: 99) == 99
    assert control.switch_case(0, {0: lambda: "a", 1: lambda: "b"}) == "a"


def test_switch_case_traced():
    def f(i, x):
        return control.switch_case(i, [lambda: x, lambda: x * 2, lambda: x * 3],
                                   default=lambda: x * 0)

    g = gc.function(f, autograph=False)
    x = gc.constant(5.0)
    assert [g(gc.constant(k), x).numpy() for k in (0, 1, 2, 3, -1)] == [5, 10, 15, 0, 0]
    assert g.tracing_count == 1
    graph = g.get_concrete_function(gc.constant(0), x).graph
    verify(graph)
    node = [n for n in graph.nodes if n.op.name == "switch_case"][0]
    assert len(node.attrs["branches"]) == 4


def test_switch_case_keys_must_be_contiguous():
    with pytest.raises(ValueError, match="keys must be 0..1"):
        control.switch_case(0, {0: lambda: 1, 2: lambda: 2})


# ------------------------------------------------------------------ ops directly
def test_op_refs_run_only_what_they_need():
    def f(x):
        return control.cond(x > 0, lambda: x + 1.0, lambda: x - 1.0)

    _, graph = traced(f, gc.constant(1.0))
    node = [n for n in graph.nodes if n.op.name == "cond"][0]
    assert control.COND.infer(*[v.aval for v in node.inputs], **node.attrs) == tuple(
        v.aval for v in node.outputs)
    out = control.COND.ref(np.asarray(False), np.float32(4.0), **node.attrs)
    assert out[0] == 3.0


def test_autograph_statements_use_the_same_ops():
    @gc.function
    def f(x):
        while x < 100:
            x = x * 2
        return x

    graph = f.get_concrete_function(gnp.asarray(3)).graph
    assert "while_loop" in ops(graph)
    assert f(gnp.asarray(3)).numpy() == 192
