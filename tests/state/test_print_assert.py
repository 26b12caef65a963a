"""gc.print and gc.debugging assertions: every call, in program order, eager and traced."""

import io
import sys

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.errors import InvalidArgumentError
from graphc.ir.verify import verify


@pytest.fixture(autouse=True)
def _eager_off():
    yield
    gc.run_functions_eagerly(False)


# ------------------------------------------------------------------ print
def test_print_runs_on_every_call_unlike_python_print(capsys):
    @gc.function
    def f(x):
        print("tracing")
        gc.print("x =", x, "sum:", gnp.sum(x))
        return x * 2

    for _ in range(3):
        f(gnp.arange(3))
    assert capsys.readouterr().out == "tracing\n" + "x = [0 1 2] sum: 3\n" * 3


def test_print_eager_and_options(capsys):
    gc.print(gc.constant([1.5, 2.0]), 7, "end", sep="|", end="!\n")
    assert capsys.readouterr().out == "[1.5 2. ]|7|end!\n"
    buf = io.StringIO()
    gc.print("to", gc.constant(3), file=buf)
    assert buf.getvalue() == "to 3\n"
    assert capsys.readouterr().out == ""


def test_print_file_is_looked_up_when_the_graph_runs(capsys):
    @gc.function
    def f(x):
        gc.print("value", x)

    f(gc.constant(1))
    assert capsys.readouterr().out == "value 1\n"
    old, sys.stdout = sys.stdout, io.StringIO()
    try:
        f(gc.constant(2))
        redirected = sys.stdout.getvalue()
    finally:
        sys.stdout = old
    assert redirected == "value 2\n"


def test_print_nested_structures_and_variables(capsys):
    v = gc.Variable([1, 2])

    @gc.function
    def f(x):
        gc.print({"x": x, "n": 1}, [v, "s"], (x,))

    f(gc.constant(5))
    assert capsys.readouterr().out == "{'n': 1, 'x': 5} [[1 2], 's'] (5,)\n"


def test_print_order_interleaved_with_other_effects(capsys):
    counter = gc.Variable(0)

    def note(x):
        print("numpy_function sees", int(x))
        return x

    @gc.function
    def step(x):
        gc.print("before", counter)
        counter.assign_add(x)
        y = gc.numpy_function(note, [counter], gc.int32)
        gc.print("after", counter, y)
        return y

    for i in range(1, 4):
        step(gc.constant(i))
    out = capsys.readouterr().out.splitlines()
    assert out == ["before 0", "numpy_function sees 1", "after 1 1",
                   "before 1", "numpy_function sees 3", "after 3 3",
                   "before 3", "numpy_function sees 6", "after 6 6"]
    graph = step.get_concrete_function(gc.constant(1)).graph
    verify(graph)
    effects = [n.name for n in graph.operations if n.op.stateful]
    assert effects == ["read_variable", "print", "assign_variable", "read_variable",
                       "numpy_function", "read_variable", "print"]


def test_print_unused_results_are_not_pruned_and_eager_matches(capsys):
    def body(x):
        gc.print("a", x)
        gc.print("b")
        return x

    expected = "a 1\nb\n" * 2
    for eager in (True, False):
        gc.run_functions_eagerly(eager)
        f = gc.function(body)
        f(gc.constant(1))
        f(gc.constant(1))
        assert capsys.readouterr().out == expected


# ------------------------------------------------------------------ assertions
def test_assertions_raise_at_run_time_in_graphs():
    @gc.function
    def safe_log(x):
        gc.debugging.assert_greater(x, 0.0, message="log needs positive input")
        return gnp.log(x)

    assert safe_log(gnp.asarray([1.0, 2.0])).shape == (2,)  # traced and ran: no error
    with pytest.raises(InvalidArgumentError) as info:
        safe_log(gnp.asarray([1.0, -2.0]))
    text = str(info.value)
    assert text.startswith("log needs positive input")
    assert "x > y" in text and "index (1,): x = -2.0, y = 0.0" in text
    assert "x (shape=(2,), dtype=float64) = [ 1. -2.]" in text
    assert "test_print_assert.py:" in text  # the user's line
    assert safe_log.tracing_count == 1


@pytest.mark.parametrize("check, args, ok", [
    (gc.debugging.assert_equal, ([1, 2], [1, 2]), True),
    (gc.debugging.assert_equal, ([1, 2], [1, 3]), False),
    (gc.debugging.assert_less, ([1, 2], 3), True),
    (gc.debugging.assert_less, ([1, 3], 3), False),
    (gc.debugging.assert_greater, (2.0, [1.0, 1.5]), True),
    (gc.debugging.assert_non_negative, ([0, 1],), True),
    (gc.debugging.assert_non_negative, ([0, -1],), False),
    (gc.debugging.assert_all_finite, ([0.0, 1.0],), True),
    (gc.debugging.assert_all_finite, ([0.0, np.inf],), False),
    (gc.debugging.assert_all_finite, ([np.nan],), False),
])
def test_assertions_eager_and_traced(check, args, ok):
    tensors = [gnp.asarray(a) for a in args]
    f = gc.function(lambda *xs: check(*xs))
    for run in (lambda: check(*tensors), lambda: f(*tensors)):
        if ok:
            run()
        else:
            with pytest.raises(InvalidArgumentError, match="failed"):
                run()


def test_assert_all_finite_returns_its_input():
    x = gc.constant([1.0, 2.0])
    assert gc.debugging.assert_all_finite(x, "finite") is x


def test_assert_with_data_and_python_condition():
    @gc.function
    def f(x):
        gc.debugging.Assert(gnp.all(x > 0), ["x must be positive, got", x])
        return x

    f(gc.constant([1, 2]))
    with pytest.raises(InvalidArgumentError, match=r"assertion failed: x must be positive, "
                                                   r"got \[ 1 -2\]"):
        f(gc.constant([1, -2]))
    gc.debugging.Assert(True, ["fine"])
    with pytest.raises(InvalidArgumentError, match="assertion failed: no"):
        gc.debugging.Assert(False, "no")


def test_assert_incompatible_static_shapes_fail_at_trace_time():
    @gc.function
    def f(x, y):
        gc.debugging.assert_equal(x, y)

    with pytest.raises(InvalidArgumentError, match="broadcast"):
        f(gnp.ones(2), gnp.ones(3))


def test_assert_is_kept_although_nothing_uses_it():
    @gc.function
    def f(x):
        gc.debugging.assert_non_negative(x)
        return gc.constant(0)

    graph = f.get_concrete_function(gc.constant([1])).graph
    assert [n.name for n in graph.operations if n.op.stateful] == ["assert"]
    assert graph.token_out is not graph.token_in
    with pytest.raises(InvalidArgumentError):
        f(gc.constant([-1]))
