"""Attributes and subscripts assigned in converted branches and loops are state
(TensorFlow's composite names), and variables a tensor loop creates."""

from __future__ import annotations

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.errors import AutographError, InvalidArgumentError


class Box:
    def __init__(self, x):
        self.x = x


def branch_dict(a):
    d = {"a": a, "n": 0}
    if d["a"] > 0:
        d["n"] = d["n"] + 1
    else:
        d["n"] = d["n"] - 1
    return d["n"]


def branch_attr_and_list(a):
    box, items = Box(1), [a, 0]
    if a > 0:
        box.x += a
        items[1] = 7
    else:
        box.x -= 1
    return box.x, items[1]


def nested_composite(a):
    d = {"inner": {"v": 0}}
    if a > 0:
        d["inner"]["v"] = a * 3
    return d["inner"]["v"]


def while_dict(x, a):
    y = {"a": a, "b": 0}
    while x > 0:
        x -= 1
        y["a"] += 1
    return y["a"], y["b"]


def while_only_composites(b):
    y = [0, b]
    while y[1] <= 10:
        y[0] += 1
        y[1] *= 2
    return y[0], y[1]


def for_attr(n):
    box = Box(0)
    for i in range(n):
        box.x += i
    return box.x


def plain(r):
    return tuple(int(np.asarray(v)) for v in r) if isinstance(r, tuple) else int(np.asarray(r))


CASES = [(branch_dict, [(1,), (-2,)]), (branch_attr_and_list, [(2,), (0,)]),
         (nested_composite, [(2,), (-1,)]), (while_dict, [(0, 3), (2, 3)]),
         (while_only_composites, [(3,), (6,), (11,)]), (for_attr, [(0,), (4,)])]


@pytest.mark.parametrize("fn,inputs", CASES, ids=[c[0].__name__ for c in CASES])
def test_composites_match_python(fn, inputs):
    f = gc.function(fn)
    for args in inputs:
        want = plain(fn(*args))
        assert plain(f(*[gnp.asarray(a) for a in args])) == want, args
        assert plain(gc.function(fn)(*args)) == want, args


def if_creates_key(a):
    x = {"a": a}
    if x["a"] > 0:
        x["b"] = 1
    return x


def if_creates_key_in_both(a):
    x = {"a": a}
    if x["a"] > 0:
        x["b"] = 1
    else:
        x["b"] = -1
    return x["b"]


def writes_missing_base(a):
    x = {"a": a}
    if x["a"] > 0:
        x["b"]["a"] = 1
    return x


def test_key_created_in_both_branches():
    assert int(gc.function(if_creates_key_in_both)(gnp.asarray(3))) == 1
    assert int(gc.function(if_creates_key_in_both)(gnp.asarray(-3))) == -1


def test_key_created_in_one_tensor_branch_is_an_error():
    assert gc.function(if_creates_key)(1) == {"a": 1, "b": 1}  # Python condition: fine
    with pytest.raises(ValueError, match=r"x\['b'\].* true branch .* not in the false"):
        gc.function(if_creates_key)(gnp.asarray(1))


@pytest.mark.parametrize("arg", [1, gnp.asarray(1), gnp.asarray(0)])
def test_assigning_into_a_missing_key_raises_keyerror(arg):
    with pytest.raises(KeyError, match="'b'"):
        gc.function(writes_missing_base)(arg)


def loop_creates_key(b):
    y = {"b": b}
    while y["b"] <= 10:
        y["a"] = y["b"] + 1
        y["b"] *= 2
    return y["a"], y["b"]


def test_loop_creates_key_like_tensorflow():
    f = gc.function(loop_creates_key)
    for b in (5, 10):
        assert plain(f(gnp.asarray(b))) == loop_creates_key(b)
    with pytest.raises(InvalidArgumentError, match=r"at least once to initialize .*y\['a'\]"):
        f(gnp.asarray(11))


def loop_creates_nest(n):
    i = 0
    while i < n:
        v = {"a": gc.zeros([1, 2]), "b": gc.ones([2]) * gc.cast(i, gc.float32)}
        i += 1
    return v["a"], v["b"]


def test_loop_creates_a_nest():
    a, b = gc.function(loop_creates_nest)(gnp.asarray(3))
    np.testing.assert_array_equal(a.numpy(), np.zeros((1, 2), np.float32))
    np.testing.assert_array_equal(b.numpy(), np.full(2, 2.0, np.float32))
    with pytest.raises(InvalidArgumentError, match="must iterate at least once"):
        gc.function(loop_creates_nest)(gnp.asarray(0))


def test_autograph_error_is_a_value_error():
    assert issubclass(AutographError, ValueError)  # TensorFlow raises ValueError here
