"""Effects as data: every stateful op threads the token; passes keep effects; random ops."""

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.core.interpreter import run_graph
from graphc.core.registry import all_ops
from graphc.ir.verify import verify
from graphc.ops import effects, pyfunc, state

STATEFUL = {"read_variable", "assign_variable", "print", "assert", "numpy_function",
            "py_function", "random_uniform", "random_normal"}


def test_effect_ops_are_declared_stateful():
    ops = all_ops()
    for name in STATEFUL:
        assert ops[name].stateful, name
    assert not ops["stateless_numpy_function"].stateful
    assert not ops["variable"].stateful and ops["variable"].extra["no_fold"]
    assert state.ASSIGN_VARIABLE.multiple_results and effects.PRINT.multiple_results
    assert pyfunc.PY_FUNCTION.extra["runs_user_code"]


def _all_effects():
    v = gc.Variable([1.0, 2.0])

    @gc.function
    def f(x):
        gc.print("x", x)
        gc.debugging.assert_all_finite(x, "finite")
        v.assign_add(x)
        noise = gc.random.uniform([2])
        y = gc.numpy_function(np.sqrt, [v], gc.float32)
        z = gc.py_function(lambda t: t * 2, [x], gc.float32)
        return v.read_value() + noise * 0, y, z

    return f, v


def test_every_effect_consumes_and_produces_the_token_in_program_order():
    f, _ = _all_effects()
    graph = f.get_concrete_function(gc.constant([1.0, 1.0])).graph
    verify(graph)  # checks the token chain from token_in to token_out
    token = graph.token_in
    names = []
    for node in graph.operations:
        if node.op.stateful:
            assert node.inputs[-1] is token and node.outputs[-1].aval.is_token
            token = node.outputs[-1]
            names.append(node.name)
    assert token is graph.token_out
    assert names == ["print", "assert", "assign_variable", "random_uniform",
                     "read_variable", "numpy_function", "py_function", "read_variable"]


def test_passes_keep_every_effect(capsys):
    from graphc.passes.pipeline import optimize

    f, v = _all_effects()
    graph = f.get_concrete_function(gc.constant([1.0, 1.0])).graph
    optimized, _ = optimize(graph)
    verify(optimized)
    kept = [n.name for n in optimized.operations if n.op.stateful]
    assert kept == [n.name for n in graph.operations if n.op.stateful]
    for _ in range(2):
        f(gc.constant([1.0, 1.0]))
    assert capsys.readouterr().out == "x [1. 1.]\n" * 2
    assert v.numpy().tolist() == [3.0, 4.0]


def test_unused_effects_are_not_pruned_but_unused_pure_calls_are():
    from graphc.passes.pipeline import optimize

    calls = []

    def record(x):
        calls.append(1)
        return x

    @gc.function
    def f(x):
        gc.numpy_function(record, [x], gc.float32)  # stateful: kept though unused
        gc.numpy_function(record, [x], gc.float32, stateful=False)  # pure, unused: pruned
        return x

    graph = f.get_concrete_function(gc.constant(1.0)).graph
    optimized, _ = optimize(graph)
    assert [n.name for n in optimized.operations] == ["numpy_function"]
    run_graph(optimized, [np.float32(1.0)])
    assert len(calls) == 1


def test_stateless_numpy_function_is_merged_never_folded():
    from graphc.passes.pipeline import optimize

    @gc.function
    def f():
        c = gc.constant([4.0, 9.0])
        a = gc.numpy_function(np.sqrt, [c], gc.float32, stateful=False)
        b = gc.numpy_function(np.sqrt, [c], gc.float32, stateful=False)
        return a + b

    optimized, _ = optimize(f.get_concrete_function().graph)
    names = [n.name for n in optimized.operations]
    assert names.count("stateless_numpy_function") == 1  # CSE merged the equal calls
    assert f().numpy().tolist() == [4.0, 6.0]


def test_variable_reads_are_never_merged_or_folded():
    from graphc.passes.pipeline import optimize

    v = gc.Variable(1.0)

    @gc.function
    def f():
        a = v.read_value()
        v.assign(5.0)
        return a + v.read_value()

    optimized, _ = optimize(f.get_concrete_function().graph)
    assert [n.name for n in optimized.operations].count("read_variable") == 2
    assert f().numpy() == 6.0 and f().numpy() == 10.0


# ------------------------------------------------------------------ random
def test_random_values_differ_on_every_call():
    @gc.function
    def draw():
        return gc.random.uniform([4]), gnp.random.normal(size=3)

    first, second = draw(), draw()
    assert not np.array_equal(first[0].numpy(), second[0].numpy())
    assert not np.array_equal(first[1].numpy(), second[1].numpy())
    assert draw.tracing_count == 1


@pytest.mark.parametrize("op_seed", [None, 7])
def test_seeded_random_sequences_are_reproducible(op_seed):
    @gc.function
    def draw():
        return gc.random.uniform([3], seed=op_seed)

    def run():
        gc.random.set_seed(1234)
        return [draw().numpy() for _ in range(3)]

    a, b = run(), run()
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(a[0], a[1])


def test_random_in_graph_matches_eager_sequence():
    def body():
        return gc.random.normal([2], seed=3)

    gc.random.set_seed(5)
    eager = [body().numpy() for _ in range(2)]
    gc.random.set_seed(5)
    f = gc.function(body)
    traced = [f().numpy() for _ in range(2)]
    np.testing.assert_array_equal(np.array(eager), np.array(traced))
