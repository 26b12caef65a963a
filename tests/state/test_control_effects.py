"""Effects inside functional control flow: variables, prints and asserts in branches and
loop bodies run only when (and as often as) their branch or iteration does."""

import pytest

import graphc as gc
from graphc.errors import InvalidArgumentError
from graphc.ir.verify import verify

control = pytest.importorskip("graphc.ops.control.flow")


def test_cond_branches_read_and_write_variables(capsys):
    total = gc.Variable(0.0)
    negatives = gc.Variable(0.0)

    @gc.function
    def step(x, neg):
        def positive():
            total.assign_add(x)  # closed over: a handle node inside the branch
            gc.print("pos", total)
            return total.read_value()

        def negative():
            neg.assign_add(1.0)  # an argument: the outer input, captured by the branch
            gc.print("neg")
            return neg.read_value()

        return control.cond(x > 0, positive, negative)

    outs = [step(gc.constant(v), negatives).numpy() for v in (1.0, -1.0, 2.0)]
    assert outs == [1.0, 1.0, 3.0]
    assert total.numpy() == 3.0 and negatives.numpy() == 1.0
    assert capsys.readouterr().out == "pos 1.0\nneg\npos 3.0\n"
    verify(step.get_concrete_function(gc.constant(1.0), negatives).graph)


def test_while_body_effects_run_once_per_iteration(capsys):
    hits = gc.Variable(0)

    @gc.function
    def count_to(n):
        def body(i):
            hits.assign_add(1)
            gc.print("i", i)
            return (i + 1,)

        return control.while_loop(lambda i: i < n, body, (gc.constant(0),))

    count_to(gc.constant(3))
    count_to(gc.constant(2))
    assert hits.numpy() == 5
    assert capsys.readouterr().out == "i 0\ni 1\ni 2\ni 0\ni 1\n"


def test_assert_in_untaken_branch_does_not_fire():
    @gc.function
    def f(x):
        def check():
            gc.debugging.assert_non_negative(x, "x < 0")
            return x

        return control.cond(x > -10, check, lambda: x * 0)

    assert f(gc.constant(1)).numpy() == 1
    assert f(gc.constant(-20)).numpy() == 0
    with pytest.raises(InvalidArgumentError, match="x < 0"):
        f(gc.constant(-1))
