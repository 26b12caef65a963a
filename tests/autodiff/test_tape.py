"""gc.GradientTape: eager and traced gradients against NumPy by hand and finite
differences; the tape's contract (watching, persistence, unconnected sources)."""

from __future__ import annotations

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp

RNG = np.random.default_rng(7)


def mlp_data():
    f32 = np.float32
    return (RNG.normal(size=(8, 3)).astype(f32), RNG.normal(size=(3, 4)).astype(f32),
            RNG.normal(size=(4,)).astype(f32), RNG.normal(size=(4, 2)).astype(f32),
            RNG.normal(size=(8, 2)).astype(f32))


def mlp_by_hand(x, w1, b, w2, labels):
    z = x @ w1 + b
    h = np.maximum(z, 0)
    dp = 2 * (h @ w2 - labels)
    dz = (dp @ w2.T) * (z >= 0)
    return x.T @ dz, dz.sum(0), h.T @ dp


def mlp_loss(x, w1, b, w2, labels):
    h = gnp.maximum(x @ w1 + b, 0.0)
    return gnp.sum((h @ w2 - labels) ** 2)


@pytest.mark.parametrize("mode", ["eager", "traced"])
def test_mlp_gradients_match_numpy_by_hand(mode):
    x, w1, b, w2, labels = mlp_data()
    v1, vb, v2 = gc.Variable(w1), gc.Variable(b), gc.Variable(w2)

    def grads():
        with gc.GradientTape() as tape:
            loss = mlp_loss(gnp.asarray(x), v1, vb, v2, gnp.asarray(labels))
        return tape.gradient(loss, [v1, vb, v2])

    got = grads() if mode == "eager" else gc.function(grads)()
    for g, want in zip(got, mlp_by_hand(x, w1, b, w2, labels)):
        assert g.dtype == np.float32
        np.testing.assert_allclose(g.numpy(), want, rtol=1e-5, atol=1e-5)


def central_difference(f, x, eps=1e-6):
    x = np.array(x, np.float64)
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        out[i] = (f(up) - f(down)) / (2 * eps)
    return out


EXPRESSIONS = {
    "broadcast": (lambda x: gnp.sum(gnp.tanh(x * gnp.asarray([1.0, -2.0, 0.5])) / (1 + x)),
                  (2, 3)),
    "reductions": (lambda x: gnp.mean(gnp.max(x, axis=1) ** 2) + gnp.std(x), (3, 4)),
    "matvec": (lambda x: gnp.sum(gnp.sin(x @ gnp.asarray([0.3, -0.7, 1.1]))), (4, 3)),
    "shapes": (lambda x: gnp.sum(gnp.transpose(gnp.reshape(x, (3, 2))) ** 3), (2, 3)),
    "where_clip": (lambda x: gnp.sum(gnp.where(x > 0, gnp.exp(x), gnp.clip(x, -0.5, 0.5))),
                   (5,)),
}


@pytest.mark.parametrize("name", sorted(EXPRESSIONS))
def test_gradients_match_finite_differences(name):
    fn, shape = EXPRESSIONS[name]
    x0 = RNG.uniform(0.2, 1.5, size=shape) * RNG.choice([-1.0, 1.0], size=shape)

    def grad_of(x):
        x = gnp.asarray(x)
        with gc.GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
        return tape.gradient(y, x)

    want = central_difference(lambda v: float(fn(gnp.asarray(v))), x0)
    np.testing.assert_allclose(grad_of(x0).numpy(), want, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(gc.function(grad_of)(x0).numpy(), want, rtol=1e-6, atol=1e-7)


def test_persistent_and_second_call():
    x = gc.constant(3.0)
    with gc.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        z = y * x
    assert float(tape.gradient(z, x)) == 27.0
    with pytest.raises(RuntimeError, match="persistent=True"):
        tape.gradient(y, x)
    with gc.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * x
    assert float(tape.gradient(z, x)) == 27.0 and float(tape.gradient(y, x)) == 6.0


def test_unconnected_integer_and_unwatched_sources():
    x, u = gc.constant(2.0), gc.constant(5.0)
    n = gnp.asarray(3)
    with gc.GradientTape() as tape:
        tape.watch([x, u, n])
        y = x * x + gc.cast(n, gc.float32)
    gx, gu, gn = tape.gradient(y, [x, u, n])
    assert float(gx) == 4.0 and gu is None and gn is None
    with gc.GradientTape() as tape:
        tape.watch(x)
        y = x * 2.0
    assert float(tape.gradient(y, [u], unconnected_gradients="zero")[0]) == 0.0


def test_variables_watched_on_read_unless_disabled_or_untrainable():
    v, frozen = gc.Variable(2.0), gc.Variable(3.0, trainable=False)
    with gc.GradientTape() as tape:
        y = v * frozen
    assert tape.watched_variables() == (v,)
    gv, gf = tape.gradient(y, [v, frozen])
    assert float(gv) == 3.0 and gf is None
    with gc.GradientTape(watch_accessed_variables=False) as tape:
        y = v * v
    assert tape.gradient(y, v) is None


def test_stop_gradient_and_stop_recording():
    x = gc.constant(2.0)
    with gc.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * gc.stop_gradient(x)
        with tape.stop_recording():
            z = x * x
        w = x * 3.0
    assert float(tape.gradient(y, x)) == 2.0
    assert tape.gradient(z, x) is None
    assert float(tape.gradient(w, x)) == 3.0


def test_second_derivative_with_nested_tapes():
    x = gc.constant(1.5)
    with gc.GradientTape() as outer:
        outer.watch(x)
        with gc.GradientTape() as inner:
            inner.watch(x)
            y = x * x * x
        dy = inner.gradient(y, x)
    assert float(dy) == pytest.approx(3 * 1.5 ** 2)
    assert float(outer.gradient(dy, x)) == pytest.approx(6 * 1.5)


def test_output_gradients_and_nest_targets():
    x = gnp.asarray([1.0, 2.0])
    with gc.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
    np.testing.assert_array_equal(
        tape.gradient(y, x, output_gradients=gnp.asarray([1.0, 10.0])).numpy(), [2.0, 40.0])
    np.testing.assert_array_equal(tape.gradient([y, x], x).numpy(), [3.0, 5.0])


def test_op_without_rule_raises_lookup_error_naming_it(monkeypatch):
    from graphc.ops import shape

    monkeypatch.setattr(shape.SORT, "grad", None)  # every float op has one now
    x = gc.constant(2.0)
    with gc.GradientTape() as tape:
        tape.watch(x)
        y = gnp.sort(gnp.stack([x, x * 2.0]))
    with pytest.raises(LookupError, match=r"'sort'.*test_tape.py"):
        tape.gradient(y, x)


@pytest.mark.parametrize("traced", [False, True])
def test_gradient_with_respect_to_an_intermediate_value(traced):
    """d(z)/d(y) for y computed on the tape (TensorFlow gives the total derivative; the
    walk used to free y's cotangent before reading the sources: None)."""
    def f(x):
        with gc.GradientTape() as tape:
            tape.watch(x)
            y = x * x
            z = y * 3.0 + y
        return tape.gradient(z, [x, y])

    gx, gy = (gc.function(f) if traced else f)(gc.constant(2.0))
    assert float(gx) == 16.0 and float(gy) == 4.0
