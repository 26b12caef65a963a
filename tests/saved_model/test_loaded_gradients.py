"""Loaded functions stay differentiable: a GradientTape over a loaded call, and
gc.gradients inside a gc.function that calls one, match the original function's
gradients and NumPy's (a concrete function's graph is replayed op by op there)."""

import numpy as np
import pytest
from corpus import CORPUS, traced  # noqa: E402  (tests/saved_model is on sys.path)

import graphc as gc
from graphc import nest

X = np.array([[0.1, 0.2, -0.3], [1.0, 0.5, 0.25]], np.float32)
W0 = np.array([0.5, -1.0, 2.0], np.float32)


def _model():
    w = gc.Variable(W0, name="w")

    @gc.function(input_signature=[gc.TensorSpec([None, 3], gc.float32)])
    def f(x):
        y = gc.reduce_sum(gc.exp(x * w), axis=1)
        if gc.reduce_sum(y) > 0:  # a cond whose branch reads the variable again
            y = y * gc.reduce_sum(w)
        i = gc.constant(0)
        while i < 2:
            y = gc.sqrt(y * y + 1.0)
            i += 1
        return y

    return f, w


def _numpy_grads(x, w):
    """d sum(f(x)) / dx and / dw, by hand (the branch taken is known: sum(y) > 0)."""
    e = np.exp(x * w)
    y0 = e.sum(1)
    s = w.sum()
    y1 = y0 * s
    y2 = np.sqrt(y1 ** 2 + 1)
    y3 = np.sqrt(y2 ** 2 + 1)
    dy1 = (y2 / y3) * (y1 / y2)
    dy0 = dy1 * s
    dx = dy0[:, None] * e * w
    dw = (dy0[:, None] * e * x).sum(0) + (dy1 * y0).sum()
    return dx, dw


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    f, w = _model()
    path = tmp_path_factory.mktemp("grad") / "f"
    gc.saved_model.save(f, path)
    return f, w, gc.saved_model.load(path)


def _tape_grads(fn, variable, x):
    xt = gc.constant(x)
    with gc.GradientTape() as tape:
        tape.watch(xt)
        loss = gc.reduce_sum(fn(xt))
    return [g.numpy() for g in tape.gradient(loss, [xt, variable])]


def test_tape_over_a_loaded_call_matches_the_original_and_numpy(loaded):
    f, w, m = loaded
    (mw,) = m.variables
    want = _numpy_grads(X.astype(np.float64), W0.astype(np.float64))
    for fn, var in ((m.f, mw), (f, w), (m.f, mw)):  # twice: the cached-call path too
        for got, exp in zip(_tape_grads(fn, var, X), want):
            np.testing.assert_allclose(got, exp, rtol=2e-5)
    np.testing.assert_allclose(m.f(X).numpy(), f(X).numpy(), rtol=1e-6)


def test_gradients_inside_a_function_calling_a_loaded_one(loaded):
    f, w, m = loaded
    (mw,) = m.variables

    @gc.function
    def grads(x):
        return gc.gradients(gc.reduce_sum(m.f(x)), [x, mw])

    @gc.function
    def grads_original(x):
        return gc.gradients(gc.reduce_sum(f(x)), [x, w])

    want = _numpy_grads(X.astype(np.float64), W0.astype(np.float64))
    for got, orig, exp in zip(grads(X), grads_original(X), want):
        np.testing.assert_allclose(got.numpy(), exp, rtol=2e-5)
        np.testing.assert_allclose(got.numpy(), orig.numpy(), rtol=1e-6)


def test_tape_inside_a_function_around_a_loaded_call(loaded):
    f, w, m = loaded
    (mw,) = m.variables

    @gc.function
    def step(x):
        with gc.GradientTape() as tape:
            loss = gc.reduce_sum(m.f(x))
        g = tape.gradient(loss, mw)
        mw.assign_sub(0.01 * g)
        return loss

    before = mw.numpy().copy()
    step(X)
    want = _numpy_grads(X.astype(np.float64), before.astype(np.float64))[1]
    np.testing.assert_allclose(mw.numpy(), before - 0.01 * want, rtol=1e-5)
    mw.assign(W0)


def test_a_loaded_call_inside_a_function_is_inlined(loaded):
    _, _, m = loaded

    @gc.function
    def twice(x):
        return m.f(x) * 2.0

    np.testing.assert_allclose(twice(X).numpy(), 2 * m.f(X).numpy(), rtol=1e-6)
    ops = {n.op.name for n in twice.get_concrete_function(X).graph.nodes}
    assert {"cond", "while_loop", "exp"} <= ops


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_replayed_graph_matches_the_compiled_call(name, capsys):
    """Every corpus graph (fresh state each time): a direct call, the same concrete
    function under a tape (replayed eagerly) and inlined into another trace agree."""
    fn, args = traced(name)
    want = nest.flatten(fn(*args))[0]
    fn, args = traced(name)
    cf = fn.concrete_functions()[0]
    with gc.GradientTape():
        taped = nest.flatten(cf(*args))[0]
    fn, args = traced(name)
    cf = fn.concrete_functions()[0]
    inlined = nest.flatten(gc.function(lambda *a: cf(*a))(*args))[0]
    for got in (taped, inlined):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6)
