"""Constant folding: golden before/after texts, and what must never fold."""

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

from graphc.core.interpreter import run_graph
from graphc.passes.constant_fold import FOLD_MAX_BYTES
from graphc.passes.graphs import inline_graph

X4 = Aval((4,), F32)


def test_folds_constant_chain_golden():
    def body(c, x):
        s = emit(c, "add", const(c, 2.0), const(c, 3.0))
        t = emit(c, "multiply", s, const(c, [1.0, 2.0, 3.0, 4.0]))
        return emit(c, "add", x, t)

    g = build(body, X4)
    assert text(g) == (
        "f(%0:f32[4]) {\n"
        "  %1:f32[] = const 2.\n"
        "  %2:f32[] = const 3.\n"
        "  %3:f32[] = add %1 %2\n"
        "  %4:f32[4] = const [1., 2., 3., 4.]\n"
        "  %5:f32[4] = multiply %3 %4\n"
        "  %6:f32[4] = add %0 %5\n"
        "  return %6\n"
        "}")
    out, changes = run_pass(g, "constant_folding")
    # folding leaves the now-dead inputs for pruning; strict mode keeps them
    assert text(out) == (
        "f(%0:f32[4]) {\n"
        "  %1:f32[] = const 2.\n"
        "  %2:f32[] = const 3.\n"
        "  %3:f32[] = const 5.\n"
        "  %4:f32[4] = const [1., 2., 3., 4.]\n"
        "  %5:f32[4] = const [ 5., 10., 15., 20.]\n"
        "  %6:f32[4] = add %0 %5\n"
        "  return %6\n"
        "}")
    assert changes == ["folded %3 = add %1 %2 -> %7 = 5.",
                       "folded %5 = multiply %3 %4 -> %8 = [ 5., 10., 15., 20.]"]
    assert_same_results(g, out, [np.arange(4, dtype=np.float32)])


def test_folds_nullary_and_shape_ops():
    def body(c, x):
        z = emit(c, "full", value=1.5, shape=(2,), dtype=F32)
        s = emit(c, "shape", x, out_type=I32)  # x is not constant, its shape is known
        return [z, s]

    out, changes = run_pass(build(body, Aval((3, 5), F32)), "constant_folding")
    assert text(out) == (
        "f(%0:f32[3,5]) {\n"
        "  %1:f32[2] = const [1.5, 1.5]\n"
        "  %2:i32[2] = const [3, 5]\n"
        "  return %1, %2\n"
        "}")
    assert len(changes) == 2


def test_never_folds_stateful_ops():
    def body(c, x):
        r = emit(c, "random_uniform", shape=(2,), dtype=F32, low=0.0, high=1.0, seed=None)
        return emit(c, "add", r, const(c, 1.0))

    g = build(body, X4)
    out, changes = run_pass(g, "constant_folding")
    assert out is g and changes == []
    assert "random_uniform" in text(out)


def test_errors_and_warnings_are_left_for_run_time():
    def body(c, x):
        bad = emit(c, "gather", const(c, [1.0]), const(c, [3], I32), axis=0, batch_dims=0)
        inf = emit(c, "true_divide", const(c, 1.0), const(c, 0.0))  # warns: not folded
        return [bad, inf]

    g = build(body, X4)
    out, changes = run_pass(g, "constant_folding")
    assert out is g and changes == []


def test_size_limit():
    big = FOLD_MAX_BYTES // 4 + 1  # float32 elements just over the limit

    def body(c, x):
        return [emit(c, "full", value=0.0, shape=(big,), dtype=F32),
                emit(c, "full", value=0.0, shape=(big - 1,), dtype=F32)]

    out, changes = run_pass(build(body, X4), "constant_folding")
    ops = [n.op.name for n in out.nodes]
    assert ops == ["full", "const"] and len(changes) == 1


def test_unknown_dims_are_not_folded():
    # range with constant bounds has an unknown traced length: its consumers were typed
    # for f32[?], so a folded f32[3] would not fit them
    def body(c, x):
        return emit(c, "range", const(c, 0, I32), const(c, 3, I32), const(c, 1, I32), dtype=I32)

    g = build(body, X4)
    assert run_pass(g, "constant_folding")[0] is g


def _branches():
    t = build(lambda c, a, b: emit(c, "multiply", emit(c, "add", a, b), const(c, 2.0)),
              X4, X4, name="true_fn")
    f = build(lambda c, a, b: emit(c, "subtract", a, b), X4, X4, name="false_fn")
    return t, f


def test_inline_graph():
    t, _ = _branches()
    g = build(lambda c, x, y: list(_inline(c, t, [x, y])), X4, X4)
    assert text(g) == (
        "f(%0:f32[4], %1:f32[4]) {\n"
        "  %2:f32[4] = add %0 %1\n"
        "  %3:f32[] = const 2.\n"
        "  %4:f32[4] = multiply %2 %3\n"
        "  return %4\n"
        "}")
    # inlining twice gives fresh values each time
    g2 = build(lambda c, x, y: list(_inline(c, t, [x, y])) + list(_inline(c, t, [y, x])),
               X4, X4)
    x, y = np.arange(4, dtype=np.float32), np.ones(4, np.float32)
    a, b = run_graph(g2, [x, y])
    assert (a == (x + y) * 2).all() and (b == a).all()


def _inline(c, sub, inputs):
    nodes, outs, token = inline_graph(sub, inputs)
    assert token is None
    c.nodes.extend(nodes)
    for n in nodes:
        c.owned.update(v.id for v in n.outputs)
    return outs


def test_cond_with_constant_predicate_inlines_taken_branch():
    t, f = _branches()

    def body(c, x, y):
        return emit(c, COND, const(c, True, BOOL), x, y, true_fn=t, false_fn=f)

    g = build(body, X4, X4)
    out, changes = run_pass(g, "constant_folding")
    assert text(out) == (
        "f(%0:f32[4], %1:f32[4]) {\n"
        "  %2:bool[] = const True\n"
        "  %3:f32[4] = add %0 %1\n"
        "  %4:f32[] = const 2.\n"
        "  %5:f32[4] = multiply %3 %4\n"
        "  return %5\n"
        "}")
    assert changes == ["folded %3 = cond %2 %0 %1: its selector is the constant True, so "
                       "true_fn was inlined (3 ops)"]
    args = [np.arange(4, dtype=np.float32), np.ones(4, np.float32)]
    assert_same_results(g, out, args)


def test_cond_with_variable_predicate_folds_inside_branches():
    t = build(lambda c, a: emit(c, "add", a, emit(c, "add", const(c, 1.0), const(c, 1.0))),
              X4, name="true_fn")
    f = build(lambda c, a: a, X4, name="false_fn")
    g = build(lambda c, p, x: emit(c, COND, p, x, true_fn=t, false_fn=f), Aval((), BOOL), X4)
    out, changes = run_pass(g, "constant_folding")
    assert changes == ["in %2.true_fn: folded %3 = add %1 %2 -> %5 = 2."]
    assert "const 2." in text(out)
    for p in (True, False):
        assert_same_results(g, out, [np.asarray(p), np.arange(4, dtype=np.float32)])


def test_multi_output_nodes_fold_to_one_const_each():
    def body(c, x):
        return list(emit(c, "split", const(c, np.arange(6.0)), indices_or_sections=2, axis=0))

    out, changes = run_pass(build(body, X4), "constant_folding")
    assert text(out) == (
        "f(%0:f32[4]) {\n"
        "  %1:f32[6] = const [0., 1., 2., 3., 4., 5.]\n"
        "  %2:f32[3] = const [0., 1., 2.]\n"
        "  %3:f32[3] = const [3., 4., 5.]\n"
        "  return %2, %3\n"
        "}")
    assert changes == ["folded %2, %3 = split %1 axis=0 indices_or_sections=2 -> "
                       "%4 = [0., 1., 2.], %5 = [3., 4., 5.]"]


def test_user_python_is_never_folded():
    import graphc as gc
    from graphc.ops.pyfunc import numpy_function

    calls = []

    def twice(a):
        calls.append(1)
        return a * 2

    @gc.function
    def f(x):
        return x + numpy_function(twice, [gc.constant(1.0)], gc.float32, stateful=False)

    concrete = f.get_concrete_function(gc.constant(np.zeros(4, np.float32)))
    out, changes = run_pass(concrete.graph, "constant_folding")
    assert "stateless_numpy_function" in text(out) and changes == [] and calls == []
