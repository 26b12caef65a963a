"""Pruning: non-strict execution, effects kept, dead control-flow outputs dropped."""

import numpy as np
import pytest
from pass_helpers import (
    BOOL,
    COND,
    F32,
    Aval,
    assert_same_results,
    build,
    const,
    emit,
    run_pass,
    text,
)

import graphc as gc
from graphc.core.interpreter import run_graph
from graphc.errors import InvalidArgumentError
from graphc.passes import optimize

X = Aval((3,), F32)


def unused_return_graph(x):
    gc.gather(x, [1])   # unused: pruned, no error even when len(x) == 1
    return x


def test_non_strict_execution():
    x = np.array([5.0], np.float32)
    concrete = gc.function(unused_return_graph).get_concrete_function(gc.constant(x))
    optimized, report = optimize(concrete.graph)
    (out,) = run_graph(optimized, [x])
    assert out.tolist() == [5.0]
    with pytest.raises(InvalidArgumentError):
        run_graph(concrete.graph, [x])  # strict: the traced gather runs and fails
    with pytest.raises(InvalidArgumentError):
        unused_return_graph(gc.constant(x))  # eagerly too
    pruning = next(e for e in report if e.name == "pruning")
    assert any("gather" in c for c in pruning.changes)


def test_strict_execution_when_pruning_is_off():
    x = np.array([5.0], np.float32)
    concrete = gc.function(unused_return_graph).get_concrete_function(gc.constant(x))
    optimized, _ = optimize(concrete.graph, {"pruning": False})
    with pytest.raises(InvalidArgumentError):
        run_graph(optimized, [x])


def test_unused_stateful_ops_still_run():
    @gc.function
    def f(x):
        gc.random.uniform((2,))  # result unused, but the effect token keeps it
        return x + 1.0

    concrete = f.get_concrete_function(gc.constant(np.zeros(3, np.float32)))
    optimized, _ = optimize(concrete.graph)
    assert [n.op.name for n in optimized.nodes].count("random_uniform") == 1


def test_prune_golden():
    def body(c, x):
        emit(c, "exp", emit(c, "negative", x))  # dead chain
        kw = dict(shape=(2,), dtype=F32, low=0.0, high=1.0, seed=None)
        emit(c, "random_uniform", **kw)  # unused result, but an effect
        return emit(c, "add", x, const(c, 1.0))

    out, changes = run_pass(build(body, X), "pruning")
    assert text(out) == (
        "f(%0:f32[3], !t0) {\n"
        "  %1:f32[2], !t1 = random_uniform !t0 dtype=float32 high=1.0 low=0.0 seed=None "
        "shape=(2,)\n"
        "  %2:f32[] = const 1.\n"
        "  %3:f32[3] = add %0 %2\n"
        "  return %3, !t1\n"
        "}")
    assert changes == ["pruned %1 = negative %0 (result unused)",
                       "pruned %2 = exp %1 (result unused)"]


def test_cond_loses_dead_outputs_and_operands():
    def true_fn(c, a, b):
        return [emit(c, "exp", a), emit(c, "add", a, b)]

    def false_fn(c, a, b):
        return [a, emit(c, "multiply", b, b)]

    t = build(true_fn, X, X, name="true_fn")
    f = build(false_fn, X, X, name="false_fn")

    def body(c, p, x, y):
        first, _second = emit(c, COND, p, x, y, true_fn=t, false_fn=f)
        return first

    g = build(body, Aval((), BOOL), X, X)
    out, changes = run_pass(g, "pruning")
    assert text(out) == (
        "f(%0:bool[], %1:f32[3], %2:f32[3]) {\n"
        "  %3:f32[3] = cond %0 %1\n"
        "    false_fn = false_fn(%0:f32[3]) {\n"
        "      return %0\n"
        "    }\n"
        "    true_fn = true_fn(%0:f32[3]) {\n"
        "      %1:f32[3] = exp %0\n"
        "      return %1\n"
        "    }\n"
        "  return %3\n"
        "}")
    assert changes == [
        "in %3.true_fn: pruned %3 = add %0 %1 (result unused)",
        "in %3.false_fn: pruned %2 = multiply %1 %1 (result unused)",
        "dropped unused outputs %4 and dead operands %2 of %3, %4 = cond %0 %1 %2",
    ]
    for p in (True, False):
        args = [np.asarray(p), np.arange(3, dtype=np.float32), np.ones(3, np.float32)]
        assert_same_results(g, out, args)
