"""TensorFlow's ``ops/parallel_for/control_flow_ops_test.py`` (``PForTest``,
``BitwiseTest``, ``ImageTest``, ``NNTest``, ``RandomTest``, ``LoggingTest``,
``TensorTest``, ``SpectralTest``, ``VariableTest``) ported to ``gc.vectorized_map``; the
control-flow and function-call classes are in test_tf_pfor_control_flow.py. See
tests/tf_reference/README.md. ``check_loop_fn`` (pfor_util.py) compares the vectorized
result with the per-example Python loop.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pfor_util import check_loop_fn, rand, vectorized
from tfref import tensorflow, value

import graphc as gc
import graphc.numpy as gnp

MODES = pytest.mark.parametrize("mode", ["eager", "function"])


# ------------------------------------------------------------------------- PForTest
@MODES
def test_op_without_a_rule_falls_back_to_a_loop(mode):
    x = gc.constant([[3.0, 1.0, 3.0], [2.0, 2.0, 5.0]])
    # unique has no batching rule: graphc runs it example by example and warns
    check_loop_fn(lambda i: gc.unique(gc.gather(x, i)).y, 2, mode, looped=True)
    with pytest.raises(ValueError, match="no batching rule for op"):
        vectorized(lambda i: gc.unique(gc.gather(x, i)).y, 2, mode,
                   fallback_to_while_loop=False)


@MODES
def test_top_k_vectorizes(mode):
    x = rand(3, 2, 4)
    check_loop_fn(lambda i: gc.math.top_k(gc.gather(x, i)), 3, mode)


@pytest.mark.parametrize("chunk_size", [2, 3, 8, 10])
def test_chunk_size(chunk_size):
    # TensorFlow's parallel_iterations; graphc's chunk_size bounds the batch the same way
    x = rand(8, 3)
    check_loop_fn(lambda i: gc.gather(x, i), 8, chunk_size=chunk_size)
    got = vectorized(lambda i: gc.gather(x, i), 4 * gc.constant(2), chunk_size=chunk_size)
    assert value(got).tolist() == value(x).tolist()


@pytest.mark.parametrize("chunk_size", [2, 3, 8, 10])
def test_chunk_size_keeps_the_static_shape(chunk_size):
    seen = []

    @gc.function
    def f():
        y = gc.vectorized_map(lambda i: gc.ones([2, 3]) * gc.cast(i, gc.float32),
                              gc.range(8), chunk_size=chunk_size)
        seen.append(tuple(y.shape))
        return y

    assert value(f()).shape == (8, 2, 3) and seen == [(8, 2, 3)]


def test_chunk_size_zero_raises():
    with pytest.raises(ValueError, match="positive"):
        gc.vectorized_map(lambda i: i, gc.range(8), chunk_size=0)


@MODES
def test_zero_iterations(mode):
    r = vectorized(lambda i: 1, 0, mode)
    # TensorFlow's int32 for the Python 1; graphc's int64 (NumPy's, README)
    assert value(r).shape == (0,)
    r = vectorized(lambda i: gc.zeros([10, 3], dtype=gc.int32), 0, mode)
    assert r.dtype == gc.int32 and value(r).shape == (0, 10, 3)


@MODES
def test_reduce_mean_keepdims(mode):
    def run(x):
        return gc.vectorized_map(lambda e: gc.reduce_mean(e, axis=0, keepdims=True), x)

    r = run(gc.ones((4, 5, 3))) if mode == "eager" else gc.function(run)(gc.ones((4, 5, 3)))
    assert value(r).tolist() == np.ones((4, 1, 3)).tolist()


def test_dynamic_batch_size():
    @gc.function(input_signature=[gc.TensorSpec([None, 5, 3], gc.float32)])
    def f(x):
        return gc.vectorized_map(lambda e: gc.reduce_mean(e, axis=0, keepdims=True), x)

    assert value(f(gc.ones((4, 5, 3)))).tolist() == np.ones((4, 1, 3)).tolist()


def test_where_keeps_the_static_shape():
    seen = []

    @gc.function
    def f():
        b = gc.constant([1.0])
        r = gc.vectorized_map(lambda x: gc.where(x > 0, x, b), gc.constant([[1.0], [1.0]]))
        seen.append(tuple(r.shape))
        return r

    f()
    assert seen == [(2, 1)]


def test_builtin_sum_over_elems_of_unit_dimension():
    # (the broadcasting of a unit dimension 0 itself: test_tf_runtime_contract.py)
    a, b = gc.constant([3.0]), gc.constant([-2.0, 6.0, 9.0])
    assert value(gc.vectorized_map(lambda e: e + 1, a)).tolist() == [4.0]
    assert value(gc.vectorized_map(sum, (a, a))).tolist() == [6.0]
    assert value(gc.vectorized_map(sum, (a, b))).tolist() == [1.0, 9.0, 12.0]


@MODES
def test_outer_product(mode):
    a = rand(4, 3, 3)
    r = check_loop_fn(lambda i: gc.tensordot(gc.gather(a, i), gc.gather(a, i), 0), 4, mode)
    assert value(r[0]).shape == (4, 3, 3, 3, 3)


def test_ignores_run_functions_eagerly():
    gc.config.run_functions_eagerly(True)
    try:
        r = gc.vectorized_map(lambda x: x * x, gc.range(4))
        assert gc.config.functions_run_eagerly()
    finally:
        gc.config.run_functions_eagerly(False)
    assert value(r).tolist() == [0, 1, 4, 9]


# ---------------------------------------------------------------------- BitwiseTest
@MODES
def test_bitwise(mode):
    x = gc.constant(np.random.default_rng(1).integers(0, 10, (3, 3, 5), dtype=np.int32))
    y = gc.constant(np.random.default_rng(2).integers(0, 10, (3, 5), dtype=np.int32))
    ops = [gnp.bitwise_and, gnp.bitwise_or, gnp.bitwise_xor, gnp.left_shift,
           gnp.right_shift]

    def loop_fn(i):
        x1, y1 = gc.gather(x, i), gc.gather(y, i)
        out = [gnp.invert(x1)]
        for op in ops:
            out += [op(x, y), op(x1, y), op(x, y1), op(x1, y1), op(x1, x1)]
        return out

    check_loop_fn(loop_fn, 3, mode)


# ------------------------------------------------------------------ ImageTest, NNTest
def test_adjust_contrast():
    images = rand(3, 2, 4, 4, 3)
    check_loop_fn(lambda i: gc.image.adjust_contrast(gc.gather(images, i), 2.0), 3)


@MODES
def test_softmax_and_log_softmax(mode):
    logits = rand(3, 2, 4)

    def loop_fn(i):
        x = gc.gather(logits, i)
        return [f(x, axis=a) for f in (gc.nn.softmax, gc.nn.log_softmax) for a in (0, -1)]

    check_loop_fn(loop_fn, 3, mode)


@MODES
def test_roll_with_a_per_example_shift(mode):
    x, y = rand(3, 5, 6, 7), rand(5, 5, 6)
    check_loop_fn(lambda i: gc.roll(gc.gather(x, i), [i - 2, -1, i], axis=[1, 2, 2]), 3,
                  mode)
    check_loop_fn(lambda i: gc.roll(gc.gather(y, i), i, axis=0), 5, mode)


def test_ensure_shape():
    x = rand(3, 6, 7)
    check_loop_fn(lambda i: gc.ensure_shape(gc.gather(x, i), [6, 7]), 3)


@MODES
def test_softmax_cross_entropy_with_a_gradient_per_example(mode):
    logits = rand(3, 2, 4)
    labels = rand(3, 2, 4)
    labels = labels / gc.reduce_sum(labels, axis=2, keepdims=True)

    def loop_fn(i):
        logits_i, labels_i = gc.gather(logits, i), gc.gather(labels, i)
        with gc.GradientTape() as tape:
            tape.watch(logits_i)
            loss = gc.nn.softmax_cross_entropy_with_logits(labels=labels_i, logits=logits_i)
            total = gc.reduce_sum(loss)
        return loss, tape.gradient(total, logits_i)

    loss, grad = check_loop_fn(loop_fn, 3, mode)
    # d/dlogits of sum(-labels * log_softmax(logits)) = softmax(logits) - labels
    want = value(gc.nn.softmax(logits, axis=-1)) - value(labels)
    np.testing.assert_allclose(value(grad), want, atol=1e-6)


def test_sparse_softmax_cross_entropy():
    logits = rand(3, 2, 4)
    labels = gc.constant([[0, 3], [1, 1], [2, 0]], dtype=gc.int32)
    check_loop_fn(lambda i: gc.nn.sparse_softmax_cross_entropy_with_logits(
        labels=gc.gather(labels, i), logits=gc.gather(logits, i)), 3)


# ----------------------------------------------------------------------- RandomTest
def test_random_uniform_shape():
    # draws are effects: one per example, in a loop (TensorFlow vectorizes the op;
    # either way only the shape is checked)
    with pytest.warns(gc.errors.VectorizationWarning):
        r = gc.vectorized_map(lambda _: gc.random.uniform([3]), gc.range(5))
    assert value(r).shape == (5, 3)


# ---------------------------------------------------------------------- LoggingTest
def test_print_inside(capsys):
    x = gc.constant([1, 2, 3])

    def loop_fn(i):
        x1 = gc.gather(x, i)
        gc.print(x1, "x1", gc.shape(x1), summarize=10)
        return gc.identity(x1)

    r = gc.vectorized_map(loop_fn, gc.range(3), warn=False)
    assert value(r).tolist() == [1, 2, 3]
    # graphc prints once per example, in order; TensorFlow once, the batch: "[1 2 3] x1 []"
    assert capsys.readouterr().out == "1 x1 []\n2 x1 []\n3 x1 []\n"


def test_assert_inside():
    loop_fn = lambda i: gc.debugging.Assert(i < 10, [i, [10], [i + 1]])  # noqa: E731
    gc.vectorized_map(lambda i: (loop_fn(i), i)[1], gc.range(3), warn=False)
    with pytest.raises(gc.errors.InvalidArgumentError, match="assertion failed"):
        gc.vectorized_map(lambda i: (loop_fn(i + 8), i)[1], gc.range(3), warn=False)


# ----------------------------------------------------------------------- TensorTest
@MODES
def test_scatter_update_with_per_example_indices(mode):
    def singles(i):
        return gc.tensor_scatter_nd_update([0, 0, 0, 0, 0, 0, 0, 0],
                                           [[i], [i + 1], [i + 3], [i + 2]],
                                           [i, i - 10, i + 11, 12])

    def rows(i):
        return gc.tensor_scatter_nd_update(gc.zeros([10, 3], dtype=gc.int32),
                                           [[i + 2], [4]],
                                           [[1, i * 2, 3], [i + 4, i - 5, 6]])

    def elements(i):
        return gc.tensor_scatter_nd_update(gc.zeros([10, 3], dtype=gc.int32),
                                           [[i + 2, 1], [4, 2]], [i, 5])

    for loop_fn in (singles, rows, elements):
        check_loop_fn(loop_fn, 5, mode)


@MODES
def test_scatter_update_folded_indices(mode):
    def loop_fn(i):
        fi = gc.cast(i, gc.float32)
        indices = [[[0, 0], [1, 1], [2, 2], [3, 3], [4, 4]],
                   [[0, 4], [1, 3], [2, 2], [3, 1], [4, 0]]]
        updates = gc.stack([gc.stack([1.0, fi, 1.0, 1.0, 1.0]),
                            gc.stack([1.0, 1.0, fi + 2, 1.0, fi - 5])])
        return gc.tensor_scatter_nd_update(gc.zeros([5, 5]), indices, updates)

    check_loop_fn(loop_fn, 5, mode)


# --------------------------------------------------------------------- SpectralTest
@pytest.mark.parametrize("op", ["fft", "ifft", "rfft", "irfft"])
def test_fft(op):
    rng = np.random.default_rng(3)
    shape = (2, 3, 4)
    if op in ("fft", "ifft", "irfft"):
        x = gc.constant(rng.uniform(size=shape) + 1j * rng.uniform(size=shape))
    else:
        x = gc.constant(rng.uniform(size=shape))
    check_loop_fn(lambda i: getattr(gc.signal, op)(gc.gather(x, i)), 2, rtol=1e-10,
                  atol=1e-12)


# --------------------------------------------------------------------- VariableTest
def test_variable_created_on_the_first_call():
    x, y = gc.ones((3, 2, 2)), gc.ones((2, 3))
    made = []

    def f(z):
        if not made:
            made.append(gc.Variable(y))
        return gc.matmul(z, made[0] / 16)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gc.errors.VectorizationWarning)  # see below
        r = gc.vectorized_map(f, x)
    assert value(r).tolist() == [[[0.125] * 3] * 2] * 3  # 2 * 1/16 each


def test_variable_read_is_vectorized():
    v = gc.Variable(gc.ones((2, 3)))
    with warnings.catch_warnings():
        warnings.simplefilter("error", gc.errors.VectorizationWarning)
        r = gc.vectorized_map(lambda z: gc.matmul(z, v), gc.ones((3, 2, 2)))
    assert value(r).tolist() == [[[2.0] * 3] * 2] * 3


@pytest.mark.xfail(strict=True, reason="deliberate: vectorized_map traces fn once, so a "
                   "variable fn creates is created once; TensorFlow wraps fn in a "
                   "tf.function and refuses a variable made on every call (ValueError)")
def test_variable_created_on_every_call_raises():
    def f(z):
        return gc.matmul(z, gc.Variable(gc.ones((2, 3))) / 64)

    with pytest.raises(ValueError, match="Variable"):
        gc.vectorized_map(f, gc.ones((3, 2, 2)), warn=False)


def test_variable_as_elems():
    assert value(gc.vectorized_map(lambda x: x + 1, gc.Variable([1, 2]))).tolist() == [2, 3]


@MODES
def test_switch_case_per_example_index(mode):
    x = gc.constant(10)
    branches = [lambda: x, lambda: x + 1, lambda: x + 2]
    elems = gc.constant([1, 0, 0, 0, 2, 1, 0, 2, 0, 1])

    def run():
        return gc.vectorized_map(lambda z: gc.switch_case(z, branches), elems,
                                 fallback_to_while_loop=False)

    r = run() if mode == "eager" else gc.function(run)()
    assert value(r).tolist() == [11, 10, 10, 10, 12, 11, 10, 12, 10, 11]  # 10 + index


def test_switch_case_unbatched_index():
    case_input = gc.constant(1)

    @gc.function
    def fn(z):
        return gc.switch_case(case_input, [lambda: z + 1, lambda: z + 2])

    r = gc.vectorized_map(fn, gc.constant([0, 1, 1, 0, 1, 0, 1, 0, 0]),
                          fallback_to_while_loop=False)
    assert value(r).tolist() == [2, 3, 3, 2, 3, 2, 3, 2, 2]  # each + 2


# ------------------------------------------------------------- TensorFlow as a witness
def test_pfor_cases_tensorflow(capfd):
    tf = tensorflow()
    assert tf.vectorized_map(lambda i: 1, tf.range(0)).shape == (0,)
    with pytest.raises(ValueError, match="singleton"):
        tf.vectorized_map(lambda z: tf.matmul(z, tf.Variable(tf.ones((2, 3)))),
                          tf.ones((3, 2, 2)))
    x = tf.constant([1, 2, 3])

    def loop_fn(i):
        x1 = tf.gather(x, i)
        with tf.control_dependencies([tf.print(x1, "x1", tf.shape(x1), summarize=10)]):
            return tf.identity(x1)

    assert tf.vectorized_map(loop_fn, tf.range(3)).numpy().tolist() == [1, 2, 3]
    assert "[1 2 3] x1 []" in capfd.readouterr().err
