"""TensorFlow's ``ops/parallel_for/gradients_test.py`` (``GradientsTest``: ``jacobian``
and ``batch_jacobian`` through pfor, per-example gradients) ported to
``gc.GradientTape.jacobian`` / ``batch_jacobian`` (with and without
``experimental_use_pfor``) and ``gc.vectorized_map``. TensorFlow's Dense layers and
``BasicLSTMCell`` are written out as plain tensors (the same arithmetic, not Keras). See
tests/tf_reference/README.md.
"""

from __future__ import annotations

import numpy as np
import pytest
from tfref import value

import graphc as gc

PFOR = pytest.mark.parametrize("use_pfor", [True, False], ids=["pfor", "loop"])


_RNG = [np.random.default_rng(29)]


@pytest.fixture(autouse=True)
def _same_values_in_any_order():
    # each test draws the same values whatever ran before it (central differences near a
    # ReLU kink would depend on the draw)
    _RNG[0] = np.random.default_rng(29)


def normal(*shape):
    return gc.constant(_RNG[0].standard_normal(shape).astype(np.float32))


def close(a, b, rtol=1e-4, atol=1e-4):
    for x, y in zip(a if isinstance(a, list) else [a], b if isinstance(b, list) else [b],
                    strict=True):
        np.testing.assert_allclose(value(x), value(y), rtol=rtol, atol=atol)


@PFOR
@pytest.mark.parametrize("batch", [False, True], ids=["jacobian", "batch_jacobian"])
def test_no_path(use_pfor, batch):
    x, y = gc.constant([[1.0]]), gc.constant([[2.0]])
    with gc.GradientTape(persistent=True) as tape:
        tape.watch(x)
    jac = tape.batch_jacobian if batch else tape.jacobian
    assert jac(y, x, experimental_use_pfor=use_pfor) is None


def _jacobian_by_elements(x):
    """The Jacobian of ``x^T x`` (2 x 2) element by element, one gradient each."""
    rows = []
    for a in range(2):
        row = []
        for b in range(2):
            with gc.GradientTape() as tape:
                tape.watch(x)
                y = gc.matmul(x, x, transpose_a=True)[a, b]
            row.append(tape.gradient(y, x))
        rows.append(gc.stack(row))
    return gc.stack(rows)


@PFOR
def test_jacobian_fixed_shape(use_pfor):
    x = normal(2, 2)
    with gc.GradientTape() as tape:
        tape.watch(x)
        y = gc.matmul(x, x, transpose_a=True)
    close(tape.jacobian(y, x, experimental_use_pfor=use_pfor), _jacobian_by_elements(x))


@PFOR
def test_jacobian_unknown_shape(use_pfor):
    # TensorFlow's placeholder of shape [None, None]: a spec with unknown dims
    @gc.function(input_signature=[gc.TensorSpec([None, None], gc.float32)])
    def f(x):
        with gc.GradientTape() as tape:
            tape.watch(x)
            y = gc.matmul(x, x, transpose_a=True)
        return tape.jacobian(y, x, experimental_use_pfor=use_pfor)

    x = gc.constant([[1.0, 2.0], [3.0, 4.0]])
    close(f(x), _jacobian_by_elements(x))


def test_jacobian_scan_shape():
    x, elems = normal(3, 4), normal(6)
    with gc.GradientTape() as tape:
        tape.watch(x)
        y = gc.scan(lambda a, e: a + e, elems, initializer=x)  # shape (6, 3, 4)
    jac = tape.jacobian(y, x)
    assert tuple(jac.shape) == (6, 3, 4, 3, 4)
    # every step is x plus a constant: each y[k] has the identity as its Jacobian
    eye = np.eye(12, dtype=np.float32).reshape(3, 4, 3, 4)
    np.testing.assert_array_equal(value(jac), np.broadcast_to(eye, (6, 3, 4, 3, 4)))


def test_jacobian_while_loop_shape():
    x = normal(3, 4)
    with gc.GradientTape() as tape:
        tape.watch(x)
        # the condition is false at once: y is x itself
        _, y = gc.while_loop(lambda i, a: i > 5.0, lambda i, a: (i + 1, a + i),
                             (gc.constant(0.0), x))
        y = y[:2, :3]
    jac = tape.jacobian(y, x)
    assert tuple(jac.shape) == (2, 3, 3, 4)
    want = np.zeros((2, 3, 3, 4), np.float32)
    for a in range(2):
        for b in range(3):
            want[a, b, a, b] = 1.0
    np.testing.assert_array_equal(value(jac), want)


def test_batch_jacobian_bad_shapes():
    x, y = normal(2, 2), normal(3, 2)
    with gc.GradientTape() as tape:
        tape.watch(x)
    with pytest.raises(ValueError):
        tape.batch_jacobian(y, x)


def test_batch_jacobian_bad_unknown_shapes():
    # the batch sizes (4 and 2) are known only when the function runs
    @gc.function(input_signature=[gc.TensorSpec([None, None], gc.float32)])
    def f(x):
        with gc.GradientTape() as tape:
            tape.watch(x)
            y = gc.concat([x, x], axis=0)
        return tape.batch_jacobian(y, x)

    with pytest.raises(gc.errors.InvalidArgumentError):
        f(gc.constant([[1.0, 2.0], [3.0, 4.0]]))


@PFOR
@pytest.mark.parametrize("known", [True, False], ids=["fixed", "unknown_shape"])
def test_batch_jacobian_of_a_square(use_pfor, known):
    def jac(x):
        with gc.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        return tape.batch_jacobian(y, x, experimental_use_pfor=use_pfor)

    x = normal(2, 3) if known else gc.constant([[1.0, 2.0], [3.0, 4.0]])
    got = jac(x) if known else gc.function(
        jac, input_signature=[gc.TensorSpec([None, None], gc.float32)])(x)
    # d(x_bj^2)/dx_bk = 2 x_bj where j == k: a diagonal per example
    want = np.stack([np.diag(2 * row) for row in value(x)])
    close(got, want)


# ------------------------------------------------ models: TensorFlow's Dense and LSTM
def dense_layers(size, n):
    return [(normal(size, size) * 0.5, normal(size) * 0.1) for _ in range(n)]


def fully_connected(layers, x):
    for w, b in layers:
        x = gc.nn.relu(gc.matmul(x, w) + b)
    return x


def lstm_weights(size):
    return normal(2 * size, 4 * size) * 0.5, normal(4 * size) * 0.1


def lstm(weights, inputs, c, h):
    """BasicLSTMCell's step, repeated: gates from [input, h], forget bias 1."""
    w, b = weights
    for x in inputs:
        i, j, f, o = gc.split(gc.matmul(gc.concat([x, h], axis=1), w) + b, 4, axis=1)
        c = c * gc.sigmoid(f + 1.0) + gc.sigmoid(i) * gc.tanh(j)
        h = gc.tanh(c) * gc.sigmoid(o)
    return c


@pytest.mark.parametrize("model", ["fc", "lstm"])
def test_batch_jacobian_of_a_model(model):
    batch, size = 3, 4
    if model == "fc":
        layers, inp = dense_layers(size, 2), normal(batch, size)
        run = lambda x: fully_connected(layers, x)  # noqa: E731
    else:
        weights, inp, c0 = lstm_weights(size), normal(batch, size), normal(batch, size)
        run = lambda x: lstm(weights, [x, x * 0.5], c0, gc.zeros([batch, size]))  # noqa: E731
    with gc.GradientTape(persistent=True) as tape:
        tape.watch(inp)
        out = run(inp)
    pfor = tape.batch_jacobian(out, inp)
    close(pfor, tape.batch_jacobian(out, inp, experimental_use_pfor=False))
    # and central differences, example by example (the model acts on rows alone)
    x0 = value(inp).astype(np.float64)
    for b in range(batch):
        for k in range(size):
            def f(xb, b=b, k=k):
                x = x0.copy()
                x[b] = xb
                return value(run(gc.constant(x.astype(np.float32))))[b, k]
            got = value(pfor)[b, k]
            np.testing.assert_allclose(got, central(f, x0[b]), rtol=2e-2, atol=2e-2)


def central(f, x0, eps=1e-2):
    grad = np.zeros_like(x0)
    for i in range(x0.size):
        up, down = x0.copy(), x0.copy()
        up[i] += eps
        down[i] -= eps
        grad[i] = (f(up) - f(down)) / (2 * eps)
    return grad


@pytest.mark.parametrize("model", ["fc", "lstm"])
def test_per_example_gradients(model):
    # TensorFlow's create_*_per_eg_grad: gradients of each example's loss with respect
    # to the weights, vectorized, against the per-example loop
    batch, size = 3, 4
    inp = normal(batch, size)
    if model == "fc":
        params = [t for layer in dense_layers(size, 2) for t in layer]
        proj = normal(size, 1)

        def loss(p, x):
            layers = list(zip(p[::2], p[1::2], strict=True))
            return gc.nn.l2_loss(gc.matmul(fully_connected(layers, x), proj))
    else:
        params = list(lstm_weights(size))

        def loss(p, x):
            return gc.nn.l2_loss(lstm(p, [x, 2 * x], x * 0.5, gc.zeros([1, size])))

    def per_example(i):
        with gc.GradientTape() as tape:
            for p in params:
                tape.watch(p)
            value_i = loss(params, gc.expand_dims(gc.gather(inp, i), 0))
        return tape.gradient(value_i, params)

    got = gc.vectorized_map(per_example, gc.range(batch))
    loop = [per_example(gc.constant(i)) for i in range(batch)]
    close(list(got), [gc.stack([ex[k] for ex in loop]) for k in range(len(params))])


def test_jacobian_of_a_batch_equals_per_example_jacobians():
    # TensorFlow's create_fc_per_eg_jacobians: the Jacobian of the whole batch's output
    # with respect to the weights, example by example, against jacobians taken inside
    # gc.vectorized_map (with and without pfor inside)
    batch, size = 2, 3
    layers, inp = dense_layers(size, 2), normal(batch, size)
    params = [t for layer in layers for t in layer]
    with gc.GradientTape() as tape:
        for p in params:
            tape.watch(p)
        out = fully_connected(layers, inp)
    whole = tape.jacobian(out, params)

    def per_example(i, use_pfor):
        with gc.GradientTape() as tape:
            for p in params:
                tape.watch(p)
            out_i = gc.reshape(fully_connected(layers, gc.expand_dims(gc.gather(inp, i), 0)),
                               [-1])
        return tape.jacobian(out_i, params, experimental_use_pfor=use_pfor)

    for use_pfor in (True, False):
        got = gc.vectorized_map(lambda i, u=use_pfor: per_example(i, u), gc.range(batch))
        close(list(got), list(whole), rtol=2e-3, atol=1e-3)
