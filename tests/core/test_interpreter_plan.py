"""The interpreter's plan as the first tier builds it: constants placed in the frame,
fused groups spliced into the caller's steps, NumPy's error state set once per call
(graphc/core/interpreter.py, graphc/core/fp_errors.py)."""

import warnings

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.core.interpreter import get_plan, run_graph
from graphc.errors import InvalidArgumentError


def chain(x):
    y = gnp.tanh(x * 0.5 + 0.1) - x * 0.01
    return gnp.sum(y * y)


def test_constants_and_fused_groups_leave_no_step_of_their_own():
    f = gc.function(chain, backend="numpy")
    x = np.linspace(-2.0, 2.0, 7)
    got = f(x)
    g = f.get_concrete_function(x).optimized_graph
    names = [n.op.name for n in g.nodes]
    assert "fused_elementwise" in names and "const" in names
    steps = [step.node.op.name for step in get_plan(g).steps]
    assert "fused_elementwise" not in steps and "const" not in steps
    assert steps.count("multiply") == 3  # the group's own ops, run in its order
    # bit-identical to the unfused, unoptimized graph and to NumPy
    want = run_graph(f.get_concrete_function(x).graph, [x])[0]
    assert np.asarray(got).tobytes() == want.tobytes()
    y = np.tanh(x * 0.5 + 0.1) - x * 0.01
    assert np.asarray(got) == np.sum(y * y)


def test_constants_stay_constant_across_calls():
    @gc.function(backend="numpy")
    def f(x):
        return x + gnp.arange(3.0), gnp.ones(3)

    a, ones = f(np.zeros(3))
    with pytest.raises(ValueError):  # a preset constant is never handed out writable
        np.asarray(ones)[0] = 5.0
    b, again = f(np.ones(3))
    assert np.asarray(a).tolist() == [0.0, 1.0, 2.0]
    assert np.asarray(b).tolist() == [1.0, 2.0, 3.0] and np.asarray(again).tolist() == [1] * 3


def test_error_inside_a_fused_group_names_the_op_and_the_users_line():
    @gc.function(backend="numpy")
    def f(x, n):
        return (x + 1) ** n * 2  # int power by a negative int: NumPy raises

    g = f.get_concrete_function(np.arange(3), np.array(-1)).optimized_graph
    assert "fused_elementwise" in [n.op.name for n in g.nodes]
    with pytest.raises(InvalidArgumentError, match="power") as info:
        f(np.arange(3), np.array(-1))
    text = str(info.value) + "".join(getattr(info.value, "__notes__", []))
    assert "test_interpreter_plan.py" in text


def test_floating_point_warning_points_at_the_users_line():
    @gc.function(backend="numpy")
    def f(x):
        return gnp.exp(x * 2.0) + 1.0  # overflows at 1000

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f(np.array([1.0, 1000.0]))
    (w,) = [w for w in caught if issubclass(w.category, RuntimeWarning)]
    assert "overflow encountered in exp" in str(w.message)
    assert w.filename == __file__


def test_numpy_error_state_is_the_callers_before_during_and_after():
    f = gc.function(lambda x: gnp.log(x) * 2.0, backend="numpy")
    before = np.geterr(), np.geterrcall()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f(np.array([0.0, 1.0]))
    assert (np.geterr(), np.geterrcall()) == before
    with np.errstate(divide="raise"):  # the caller's choice holds inside the graph
        with pytest.raises(InvalidArgumentError, match="divide by zero encountered in log"):
            f(np.array([0.0, 1.0]))
        assert np.geterr()["divide"] == "raise"
    with np.errstate(divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isneginf(np.asarray(f(np.array([0.0])))[0])
    assert (np.geterr(), np.geterrcall()) == before


def test_generated_plan_frames_stay_out_of_the_users_traceback():
    import traceback

    @gc.function(backend="numpy")
    def f(x):
        return gc.gather(x * 2.0, [5])  # out of range: raises while the plan runs

    with pytest.raises(InvalidArgumentError) as info:
        f(np.arange(3.0))
    files = [fr.filename for fr in traceback.extract_tb(info.value.__traceback__)]
    assert files and all("<interpreter plan>" not in name for name in files)
    assert "gather" in str(info.value)


def test_each_value_of_several_fused_groups_has_its_own_slot():
    @gc.function(backend="numpy")
    def f(x):
        a = gnp.tanh(x * 0.5 + 0.1) - x  # one fused group
        b = gnp.exp(gnp.sum(a) * a) * 2.0 + 1.0  # another, after the sum
        return b

    x = np.linspace(-1.0, 1.0, 5)
    g = f.get_concrete_function(x).optimized_graph
    assert [n.op.name for n in g.nodes].count("fused_elementwise") == 2
    outs = [s for step in get_plan(g).steps for s in step.outs]
    assert len(outs) == len(set(outs))  # each slot written once
    a = np.tanh(x * 0.5 + 0.1) - x
    np.testing.assert_array_equal(np.asarray(f(x)), np.exp(np.sum(a) * a) * 2.0 + 1.0)


def test_reshaping_ops_between_static_shapes_are_one_reshape():
    def f(x):
        a = gnp.expand_dims(x, (0, -1))        # (1, 3, 4, 1)
        b = gnp.squeeze(a, axis=(0, 3))         # (3, 4)
        return gnp.reshape(b, (2, 6)), gc.reshape(x, (4, -1))

    x = np.arange(12.0).reshape(3, 4)
    graph = gc.function(f).get_concrete_function(x).graph  # as traced: every op there
    steps = get_plan(graph).steps
    assert {s.node.op.name for s in steps} == {"expand_dims", "squeeze", "reshape"}
    assert all(s.ref is not s.node.op.ref and s.attrs is None for s in steps)
    for have, want in zip(run_graph(graph, [x]), (x.reshape(2, 6), x.reshape(4, 3))):
        assert np.asarray(have).shape == want.shape and (np.asarray(have) == want).all()
    # unknown dims: the op's own ref (its checks) runs
    dynamic = gc.function(f, backend="numpy",
                          input_signature=[gc.TensorSpec([None, 4], gc.float64)])
    steps = get_plan(dynamic.get_concrete_function().graph).steps
    assert all(s.ref is s.node.op.ref for s in steps)
    assert np.asarray(dynamic(x)[0]).tolist() == x.reshape(2, 6).tolist()
