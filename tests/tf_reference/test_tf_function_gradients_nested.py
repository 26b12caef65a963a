"""TensorFlow 2.21's ``eager/polymorphic_function/gradients_test.py``, part 2: deeply
nested ``gc.function`` calls differentiated from outside and inside, with variables and
``None`` results (part 1: ``test_tf_function_gradients.py``; tests/tf_reference/README.md).
"""

from __future__ import annotations

import numpy as np
import pytest
from tfref import value

import graphc as gc


def _close(got, want):
    assert np.allclose(value(got), want, rtol=1e-5, atol=1e-6), (value(got), want)


# ------------------------------------------------------------ deeply nested functions
def _nest(depth_b=1.0):
    """outer(x) = middle(x, b) = x * inner(x, b) = x * inner_inner(x, b) = x (x + b)."""
    inner_inner = gc.function(lambda a, b: gc.add(a, b))
    inner = gc.function(lambda a, b: inner_inner(a, b))
    middle = gc.function(lambda a, b: a * inner(a, b))
    return inner_inner, inner, middle, gc.function(lambda x: middle(x, depth_b))


def test_nested_differentiable_function():
    inner = gc.function(lambda a, b: a * gc.add(a, b))
    outer = gc.function(lambda x: inner(x, 1.0))
    x = gc.constant(5.0)
    with gc.GradientTape() as tp:
        tp.watch(x)
        y = outer(x)
    _close(tp.gradient(y, x), 11.0)                  # 2 x + 1


@pytest.mark.parametrize("how", ["tape", "graph_gradients"])
@pytest.mark.parametrize("wrappers", [0, 1, 2])
def test_deeply_nested_gradient_taken_inside_functions(how, wrappers):
    *_, middle, _ = _nest()

    @gc.function
    def almost_outer(x):
        if how == "tape":
            with gc.GradientTape() as tp:
                tp.watch(x)
                y = middle(x, 1.0)
            return tp.gradient(y, x)
        return gc.gradients(middle(x, 1.0), [x])[0]

    fn = almost_outer
    for _ in range(wrappers):                         # outer, outer_outer
        fn = gc.function(lambda x, fn=fn: fn(x))
    _close(fn(gc.constant(5.0)), 11.0)                # 2 x + 1


def _tape_grad_of(fn, *args, at):
    with gc.GradientTape() as tp:
        tp.watch(at)
        y = fn(*args)
    return tp.gradient(y, at)


@pytest.mark.parametrize("with_variable", [False, True])
def test_deeply_nested_gradient_called_many_times(with_variable):
    b = gc.Variable(3.0) if with_variable else 3.0
    inner = gc.function(lambda a, b: gc.add(a, b))
    middle = gc.function(lambda a, b: gc.multiply(a, inner(a, b)))
    outer = gc.function(lambda x: middle(x, b))
    x, y = gc.constant(5.0), gc.constant(4.0)
    _close(outer(x), 40.0)                            # 5 (5 + 3)
    _close(_tape_grad_of(outer, x, at=x), 13.0)       # 2 x + b
    _close(outer(x), 40.0)
    _close(middle(b, x), 24.0)                        # 3 (3 + 5)
    _close(_tape_grad_of(outer, x, at=x), 13.0)
    _close(_tape_grad_of(outer, y, at=y), 11.0)       # 2 * 4 + 3
    if with_variable:
        b.assign(1.5)
        _close(_tape_grad_of(outer, y, at=y), 9.5)    # 2 * 4 + 1.5
        _close(_tape_grad_of(inner, y, b, at=y), 1.0)
    else:
        _close(_tape_grad_of(inner, y, y, at=y), 2.0)


def test_deeply_nested_graph_gradients_with_a_variable():
    v = gc.Variable(3.0)
    inner = gc.function(lambda a, b: gc.add(a, b))
    middle = gc.function(lambda a, b: gc.multiply(a, inner(a, b)))
    outer = gc.function(lambda x: middle(x, v))
    grad_outer = gc.function(lambda x: gc.gradients(outer(x), x)[0])
    grad_inner = gc.function(lambda y: gc.gradients(inner(y, v), y)[0])
    x, y = gc.constant(5.0), gc.constant(4.0)
    _close(grad_outer(x), 13.0)                       # 2 x + v
    _close(middle(v, x), 24.0)
    _close(grad_outer(y), 11.0)
    v.assign(1.5)
    _close(grad_outer(y), 9.5)                        # the variable is read per call
    _close(grad_inner(y), 1.0)


def test_deeply_nested_with_a_variable_and_a_tape_outside():
    var = gc.Variable(1.0)
    *_, outer = _nest(var)
    x = gc.constant(5.0)
    _close(_tape_grad_of(outer, x, at=x), 11.0)       # 2 x + var
    *_, outer = _nest()
    _close(_tape_grad_of(outer, x, at=x), 11.0)


# --------------------------------------------------------------- None results
def test_none_results_of_a_differentiated_function():
    first = gc.function(lambda x: (x, None))
    x = gc.constant(0.0)
    with gc.GradientTape() as tp:
        tp.watch(x)
        r = first(x)[0]
    _close(tp.gradient(r, x), 1.0)

    foo = gc.function(lambda a: (None, a * a))
    x = gc.constant(5.0)
    with gc.GradientTape() as tp:
        tp.watch(x)
        none, r = foo(x)
    assert none is None
    _close(r, 25.0)
    _close(tp.gradient(r, x), 10.0)                   # 2 x


def test_none_results_of_a_nested_differentiated_function():
    foo = gc.function(lambda a, b: (None, a * gc.add(a, b), None, 2 * a))
    bar = gc.function(lambda x: foo(x, 1.0))
    x = gc.constant(5.0)
    with gc.GradientTape(persistent=True) as tp:
        tp.watch(x)
        none1, r1, none2, r2 = bar(x)
    assert none1 is None and none2 is None
    _close(r1, 30.0)
    _close(r2, 10.0)
    _close(tp.gradient(r1, x), 11.0)                  # 2 x + 1
    _close(tp.gradient(r2, x), 2.0)


def test_a_function_without_second_order_gradient_still_builds():
    v = gc.Variable(1.0)
    xent = gc.function(gc.nn.sparse_softmax_cross_entropy_with_logits)
    f = gc.function(lambda labels, logits: xent(labels=labels, logits=logits + v))

    @gc.function
    def f_grad():
        with gc.GradientTape() as tape:
            logits = gc.constant([1.0, 2.0])
            tape.watch(logits)
            out = f(gc.constant(1), logits)
        return tape.gradient(out, logits)

    g = value(f_grad())
    assert g.shape == (2,)
    # softmax([1, 2]) - onehot(1)
    e = np.exp([1.0, 2.0]) / np.exp([1.0, 2.0]).sum()
    assert np.allclose(g, e - [0.0, 1.0])
