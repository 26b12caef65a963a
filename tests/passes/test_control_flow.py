"""The passes on the real control-flow ops (graphc/ops/control/flow.py) traced by gc.function."""

import numpy as np
from pass_helpers import assert_same_results

import graphc as gc
from graphc.core.interpreter import run_graph
from graphc.ops.control import flow as control
from graphc.ops.effects import print_
from graphc.passes import optimize

X = np.arange(4, dtype=np.float32)


def _optimize(fn, *args):
    concrete = gc.function(fn).get_concrete_function(*[gc.constant(a) for a in args])
    optimized, report = optimize(concrete.graph)
    changes = {e.name: e.changes for e in report}
    return concrete.graph, optimized, changes


def _ops(graph):
    return [n.op.name for n in graph.nodes]


def test_cond_on_a_static_shape_folds_to_the_taken_branch():
    def f(x):
        big = gc.shape(x)[0] > 2  # known at trace time: folds to True
        return control.cond(big, lambda: gc.exp(x) * 2.0, lambda: x - 1.0)

    traced, optimized, changes = _optimize(f, X)
    assert "cond" in _ops(traced) and "cond" not in _ops(optimized)
    assert any("so true_fn was inlined" in c for c in changes["constant_folding"])
    assert_same_results(traced, optimized, [X])


def test_switch_case_with_constant_index_runs_that_branch():
    def f(x):
        i = gc.shape(x)[0] + 5  # 9: out of range, so the last branch, as TensorFlow
        return control.switch_case(i, [lambda: x + 1.0, lambda: x * 3.0, lambda: x - 7.0])

    traced, optimized, changes = _optimize(f, X)
    assert "switch_case" not in _ops(optimized)
    assert any("branches[2] was inlined" in c for c in changes["constant_folding"])
    assert_same_results(traced, optimized, [X])


def test_inlined_branch_keeps_its_effects_in_order(capsys):
    def f(x):
        print_("before")
        y = control.cond(gc.shape(x)[0] > 2, lambda: _printed(x), lambda: x)
        print_("after")
        return y

    traced, optimized, _ = _optimize(f, X)
    assert "cond" not in _ops(optimized)
    assert _ops(optimized).count("print") == 3
    run_graph(optimized, [X])
    assert capsys.readouterr().out == "before\nin branch\nafter\n"


def _printed(x):
    print_("in branch")
    return x + 1.0


def test_cond_with_a_variable_predicate_keeps_both_branches():
    def f(x, p):
        return control.cond(p, lambda: x + 1.0, lambda: x - 1.0)

    traced, optimized, _ = _optimize(f, X, np.asarray(True))
    assert "cond" in _ops(optimized)
    for p in (True, False):
        assert_same_results(traced, optimized, [X, np.asarray(p)])


def test_unused_cond_is_pruned_unless_it_has_effects():
    def f(x, p):
        control.cond(p, lambda: x + 1.0, lambda: x - 1.0)
        control.cond(p, lambda: _printed(x), lambda: x)
        return x

    traced, optimized, _ = _optimize(f, X, np.asarray(True))
    assert _ops(optimized) == ["cond"]  # the one with a print in a branch


def test_while_loop_drops_dead_loop_variables():
    def f(x):
        def body(i, acc, junk):
            return i + 1, acc + x, junk * 2.0
        _, acc, _ = control.while_loop(lambda i, a, j: i < 3, body,
                                       [gc.constant(0), gc.zeros((4,)), gc.ones((4,))])
        return acc

    traced, optimized, changes = _optimize(f, X)
    (loop,) = [n for n in optimized.nodes if n.op.name == "while_loop"]
    assert len(loop.outputs) == 2 and len(loop.attrs["body"].outputs) == 2
    assert any("dropped dead loop variables" in c for c in changes["pruning"])
    assert_same_results(traced, optimized, [X])


def test_while_loop_keeps_variables_its_effects_read(capsys):
    def f(x):
        def body(i, shown):
            print_(shown)
            return i + 1, shown + 1.0
        i, _ = control.while_loop(lambda i, s: i < 2, body, [gc.constant(0), x])
        return i

    traced, optimized, _ = _optimize(f, X[:2])
    (loop,) = [n for n in optimized.nodes if n.op.name == "while_loop"]
    assert len(loop.attrs["body"].outputs) == 2
    run_graph(optimized, [X[:2]])
    assert capsys.readouterr().out.count("\n") == 2
