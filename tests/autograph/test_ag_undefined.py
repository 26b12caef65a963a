"""A variable read before it has a value raises ``UnboundLocalError`` exactly where plain
Python does (converted code must never hand AutoGraph's ``Undefined`` to the user)."""

from __future__ import annotations

import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.errors import AutographError, InvalidArgumentError


def one_branch(c):
    if c > 0:
        x = 1
    return x


def loop_target_after_loop(n):
    for i in range(n):
        pass
    return i


def defined_in_loop(n):
    k = 0
    while k < n:
        y = k * 2
        k += 1
    return y


def passed_to_a_call(c):
    if c > 0:
        x = 3
    return abs(x)


def read_in_lambda(c):
    if c > 0:
        x = 3
    f = lambda: x + 1  # noqa: E731 - the read happens when the lambda runs
    return f()


def nested_branches(a, b):
    if a > 0:
        if b > 0:
            z = 1
        else:
            z = 2
    else:
        pass
    return z


CASES = [
    (one_branch, (1,), (-1,)),
    (loop_target_after_loop, (3,), (0,)),
    (defined_in_loop, (2,), (0,)),
    (passed_to_a_call, (1,), (0,)),
    (read_in_lambda, (1,), (0,)),
    (nested_branches, (1, 1), (-1, 1)),
]


def _python_error(fn, args):
    with pytest.raises(NameError) as info:  # UnboundLocalError, or NameError in a lambda
        fn(*args)
    return info.type, str(info.value)


@pytest.mark.parametrize("fn,ok,bad", CASES, ids=[c[0].__name__ for c in CASES])
def test_unbound_read_on_python_values(fn, ok, bad):
    f = gc.function(fn)
    assert f(*ok) == fn(*ok)
    want = _python_error(fn, bad)
    with pytest.raises(NameError) as info:
        f(*bad)
    assert (info.type, str(info.value)) == want
    # the error points at the user's line of the read, not at graphc
    assert info.traceback[-1].path.name == "test_ag_undefined.py"


@pytest.mark.parametrize("fn,ok,bad", CASES, ids=[c[0].__name__ for c in CASES])
def test_converted_function_outside_a_trace(fn, ok, bad):
    conv = gc.autograph.to_graph(fn)
    assert conv(*ok) == fn(*ok)
    with pytest.raises(_python_error(fn, bad)[0]):
        conv(*bad)


def test_tensor_if_defining_in_one_branch_keeps_the_staging_error():
    with pytest.raises(AutographError, match="defined in the true branch .* but not in "
                                             "the false branch"):
        gc.function(one_branch)(gnp.asarray(-1))


def test_tensor_loop_defining_a_variable_used_after_it():
    """TensorFlow's rule: the loop creates it; zero iterations fail at run time."""
    f = gc.function(defined_in_loop)
    assert int(f(gnp.asarray(2))) == 2
    with pytest.raises(InvalidArgumentError, match="must iterate at least once"):
        f(gnp.asarray(0))


def test_to_code_shows_the_checked_read():
    assert "ag__.ld(x, 'x')" in gc.autograph.to_code(one_branch)
