"""TensorFlow's ``ops/parallel_for/math_test.py`` (``MathTest``) ported to
``gc.vectorized_map``; its ``LinalgTest`` is in test_tf_pfor_linalg.py. See
tests/tf_reference/README.md. ``check_loop_fn`` (pfor_util.py) compares the vectorized
result with the per-example Python loop, in value, dtype and shape.
"""

from __future__ import annotations

import numpy as np
import pytest
from pfor_util import check_loop_fn, rand

import graphc as gc

MODES = pytest.mark.parametrize("mode", ["eager", "function"])


def _with_gradients(op, x):
    """``loop_fn`` for a unary op: its value on the whole ``x`` (loop invariant) and on
    row ``i``, and, for a float32 result, the gradient of ``op(row)`` with respect to the
    row, without and with an output gradient that depends on ``i``."""
    def loop_fn(i):
        with gc.GradientTape(persistent=True) as tape:
            x_i = gc.gather(x, i)
            tape.watch(x_i)
            y_i = op(x_i)
        outputs = [op(x), y_i]
        if y_i.dtype == gc.float32:
            for seed in (None, y_i * gc.cast(i, gc.float32)):
                grad = tape.gradient(y_i, x_i, output_gradients=seed)
                if grad is not None:
                    outputs.append(grad)
        return outputs

    return loop_fn


COMPLEX_OPS = {
    "angle": gc.math.angle, "imag": gc.math.imag, "abs": gc.math.abs,
    "real": gc.math.real, "conj": gc.math.conj,
}


@pytest.mark.parametrize("name", sorted(COMPLEX_OPS))
def test_unary_complex_ops(name):
    x = gc.complex(rand(3, 5), rand(3, 5))
    check_loop_fn(_with_gradients(COMPLEX_OPS[name], x), 3, rtol=1e-4, atol=1e-5)


REAL_OPS = {
    "acosh(1 + x^2)": lambda x: gc.math.acosh(1 + gc.math.square(x)),
    "abs": gc.math.abs, "acos": gc.math.acos, "asin": gc.math.asin,
    "asinh": gc.math.asinh, "atan": gc.math.atan, "atanh": gc.math.atanh,
    "bessel_i0e": gc.math.bessel_i0e, "bessel_i1e": gc.math.bessel_i1e,
    "cos": gc.math.cos, "cosh": gc.math.cosh, "digamma": gc.math.digamma,
    "erf": gc.math.erf, "erfc": gc.math.erfc, "erfinv": gc.math.erfinv,
    "exp": gc.math.exp, "expm1": gc.math.expm1, "is_finite": gc.math.is_finite,
    "is_inf": gc.math.is_inf, "lgamma": gc.math.lgamma, "log": gc.math.log,
    "log1p": gc.math.log1p, "ndtri": gc.math.ndtri,
    # TensorFlow's test_unary_cwise_real_ops_2 (neg and inv: negative and reciprocal)
    "negative": gc.math.negative, "reciprocal": gc.math.reciprocal,
    "rint": gc.math.rint, "round": gc.math.round, "rsqrt": gc.math.rsqrt,
    "sigmoid": gc.math.sigmoid, "sign": gc.math.sign, "sin": gc.math.sin,
    "sinh": gc.math.sinh, "sqrt": gc.math.sqrt, "square": gc.math.square,
    "tan": gc.math.tan, "tanh": gc.math.tanh, "elu": gc.nn.elu, "relu": gc.nn.relu,
    "relu6": gc.nn.relu6, "leaky_relu": lambda t: gc.nn.leaky_relu(t, alpha=0.1),
    "selu": gc.nn.selu, "softplus": gc.nn.softplus, "softsign": gc.nn.softsign,
}


@pytest.mark.parametrize("name", list(REAL_OPS))
def test_unary_real_ops(name):
    # uniform [0, 1) inputs: inside every op's domain
    check_loop_fn(_with_gradients(REAL_OPS[name], rand(3, 5)), 3, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("op", [gc.math.ceil, gc.math.floor, gc.math.logical_not])
def test_unary_ops_without_gradient(op):
    x = rand(3, 5) * 4 - 2
    if op is gc.math.logical_not:
        x = x > 0
    check_loop_fn(lambda i: op(gc.gather(x, i)), 3)


def _safe_polygamma(x, y):
    # the order n a whole number in [1, 10], x above 1 (TensorFlow's own guard)
    return gc.math.polygamma(gc.math.round(gc.clip_by_value(y, 1, 10)), x * x + 1)


BINARY_OPS = {
    "logical_and": gc.math.logical_and, "logical_or": gc.math.logical_or,
    "logical_xor": gc.math.logical_xor,
    "add": gc.math.add, "atan2": gc.math.atan2, "complex": gc.complex,
    "divide": gc.math.divide, "truediv": gc.math.truediv,
    "divide_no_nan": gc.math.divide_no_nan, "equal": gc.math.equal,
    "==": lambda x, y: x == y, "!=": lambda x, y: x != y,
    "floormod": gc.math.floormod, "greater": gc.math.greater,
    "greater_equal": gc.math.greater_equal, "igamma": gc.math.igamma,
    "igammac": gc.math.igammac, "less": gc.math.less, "less_equal": gc.math.less_equal,
    "maximum": gc.math.maximum, "minimum": gc.math.minimum, "mod": gc.math.mod,
    "multiply": gc.math.multiply, "not_equal": gc.math.not_equal, "pow": gc.math.pow,
    "squared_difference": gc.math.squared_difference, "subtract": gc.math.subtract,
    "truncatemod": gc.truncatemod, "polygamma": _safe_polygamma,
    "zeta": lambda x, y: gc.math.zeta(x * x + 1, y * y), "floordiv": gc.math.floordiv,
}


@pytest.mark.parametrize("name", list(BINARY_OPS))
def test_binary_ops(name):
    op = BINARY_OPS[name]
    x, y = rand(7, 3, 5), rand(3, 5)
    if name.startswith("logical"):
        x, y = x > 0.5, y > 0.5

    def loop_fn(i):
        x1, y1 = gc.gather(x, i), gc.gather(y, i)
        return [op(x, y), op(x1, y), op(x, y1), op(x1, y1), op(x1, x1)]

    check_loop_fn(loop_fn, 3, rtol=1e-4, atol=1e-5)


def test_add_n():
    x, y, z = rand(2, 3, 5), rand(3, 5), rand(3, 5)
    check_loop_fn(lambda i: gc.math.add_n([gc.gather(x, i), y, z]), 2)


def test_cross():
    x, y = rand(4, 2, 3), rand(4, 2, 3)

    def loop_fn(i):
        x_i, y_i = gc.gather(x, i), gc.gather(y, i)
        return gc.linalg.cross(x_i, y_i), gc.linalg.cross(gc.gather(x, 0), y_i)

    check_loop_fn(loop_fn, 4)


STACKED = [(a, b) for a in (True, False) for b in (True, False)]


@pytest.mark.parametrize("batch", [(), (4,)], ids=["matmul", "batch_matmul"])
@pytest.mark.parametrize("tr_a", [True, False])
@pytest.mark.parametrize("tr_b", [True, False])
def test_matmul(batch, tr_a, tr_b):
    def loop_fn_for(stack_a, stack_b):
        x = rand(*(2,) * stack_a, *batch, *((5, 3) if tr_a else (3, 5)))
        y = rand(*(2,) * stack_b, *batch, *((7, 5) if tr_b else (5, 7)))

        def loop_fn(i):
            a = gc.gather(x, i) if stack_a else x
            b = gc.gather(y, i) if stack_b else y
            return gc.matmul(a, b, transpose_a=tr_a, transpose_b=tr_b)

        return loop_fn

    for stack_a, stack_b in STACKED:
        check_loop_fn(loop_fn_for(stack_a, stack_b), 2, rtol=1e-5)


@pytest.mark.parametrize("broadcast_a", [True, False])
@pytest.mark.parametrize("broadcast_b", [True, False])
def test_batch_matmul_broadcast(broadcast_a, broadcast_b):
    for stack_a, stack_b in STACKED:
        x = rand(*(2,) * stack_a, *(() if broadcast_a else (4,)), 2, 3, 5)
        y = rand(*(2,) * stack_b, *(() if broadcast_b else (4,)), 2, 5, 7)

        def loop_fn(i, x=x, y=y, stack_a=stack_a, stack_b=stack_b):
            a = gc.gather(x, i) if stack_a else x
            b = gc.gather(y, i) if stack_b else y
            return gc.matmul(a, b)

        check_loop_fn(loop_fn, 2)


REDUCTIONS = [gc.math.reduce_sum, gc.math.reduce_prod, gc.math.reduce_max,
              gc.math.reduce_min, gc.math.reduce_mean]
AXES = ([1], None, [0, 2])


@pytest.mark.parametrize("op", REDUCTIONS, ids=lambda f: f.__name__)
def test_reduction(op):
    x = rand(2, 3, 4, 5)

    def loop_fn(i):
        a = gc.gather(x, i)
        return [op(a, axis=axis, keepdims=k) for axis in AXES for k in (True, False)]

    check_loop_fn(loop_fn, 2)


@pytest.mark.parametrize("op", [gc.math.reduce_any, gc.math.reduce_all],
                         ids=["any", "all"])
def test_boolean_reduction(op):
    x = rand(2, 3, 4, 5) > 0.5

    def loop_fn(i):
        a = gc.gather(x, i)
        return [op(a, axis=axis, keepdims=k) for axis in AXES for k in (True, False)]

    check_loop_fn(loop_fn, 2)


@pytest.mark.parametrize("op", [gc.math.argmin, gc.math.argmax], ids=["min", "max"])
def test_argmin_argmax(op):
    x = rand(2, 3, 4, 5)

    def loop_fn(i):
        a = gc.gather(x, i)
        return [op(a, axis=axis, output_type=t) for axis in (1, None, -1)
                for t in (gc.int32, gc.int64)]

    check_loop_fn(loop_fn, 2)


def test_clip_by_value():
    x = rand(2, 3, 4)
    check_loop_fn(lambda i: gc.clip_by_value(gc.gather(x, i), 0.5, 1.0), 2)


@pytest.mark.parametrize("op", [gc.math.cumsum, gc.math.cumprod], ids=["sum", "prod"])
def test_cumulative(op):
    x = rand(2, 3, 4, 5)

    def loop_fn(i):
        a = gc.gather(x, i)
        return [op(a, axis=axis, exclusive=e, reverse=r)
                for axis in (1, -2) for e in (True, False) for r in (True, False)]

    check_loop_fn(loop_fn, 2)


@pytest.mark.parametrize("data_format", ["NCHW", "NHWC"])
@pytest.mark.parametrize("stacked", [(True, True), (True, False), (False, True)],
                         ids=["both", "value", "bias"])
def test_bias_add_and_its_gradient(data_format, stacked):
    stacked_value, stacked_bias = stacked
    x_shape = [2] * stacked_value + [3, 4, 5, 6]
    x = rand(*x_shape)
    bias_dim = (2 if stacked_value else 1) if data_format == "NCHW" else -1
    bias = rand(*[2] * stacked_bias, x_shape[bias_dim])

    def loop_fn(i):
        with gc.GradientTape() as tape:
            tape.watch(bias)
            a = gc.gather(x, i) if stacked_value else x
            b = gc.gather(bias, i) if stacked_bias else bias
            y = gc.nn.bias_add(a, b, data_format=data_format)
            loss = gc.reduce_sum(y * y)
        # TensorFlow's gradient of a gathered bias is IndexedSlices; graphc's is dense
        return y, tape.gradient(loss, bias)

    check_loop_fn(loop_fn, 2, rtol=1e-4, atol=1e-4)


SEGMENT_OPS = [gc.math.unsorted_segment_sum, gc.math.unsorted_segment_min,
               gc.math.unsorted_segment_max, gc.math.unsorted_segment_prod]


@pytest.mark.parametrize("op", SEGMENT_OPS, ids=lambda f: f.__name__[17:])
@pytest.mark.parametrize("ids_dtype", [gc.int32, gc.int64], ids=["i32", "i64"])
def test_unsorted_segment_reduction(op, ids_dtype):
    t = rand(3, 3, 2)
    segment_ids = gc.constant([[0, 0, 2], [0, 1, 2], [2, 2, 2]], dtype=ids_dtype)
    for n_dtype in (gc.int32, gc.int64):
        num_segments = gc.constant(3, dtype=n_dtype)

        def loop_fn(i, num_segments=num_segments):
            data, ids = gc.gather(t, i), gc.gather(segment_ids, i)
            data_0, ids_0 = gc.gather(t, 0), gc.gather(segment_ids, 0)
            return (op(data, ids, num_segments), op(data_0, ids, num_segments),
                    op(data, ids_0, num_segments))

        check_loop_fn(loop_fn, 3)


def test_cast():
    x, y = gc.constant([[1], [2]]), gc.constant([[1.0], [2.0]])
    check_loop_fn(lambda i: (gc.cast(gc.gather(x, i), gc.float32),
                             gc.cast(gc.gather(y, i), gc.int32)), 2)


@MODES
def test_tanh_axpy(mode):
    a, x, y = gc.constant(3.0), rand(4, 5), rand(6, 5)
    check_loop_fn(lambda i: gc.tanh(a * gc.gather(x, i) + gc.gather(y, i)), 4, mode)


@pytest.mark.parametrize("cond_shape", [(2,), (2, 3), (2, 3, 5)])
def test_select(cond_shape):
    a, b = rand(2, 3, 5), rand(2, 3, 5)
    cond = rand(*cond_shape) > 0.5

    def loop_fn(i):
        c = gc.gather(cond, i)
        # TensorFlow's v1 `where` picks whole rows for a rank-1 condition; `gc.where`
        # broadcasts (v2), so that row choice is written with a trailing unit axis
        c = gc.expand_dims(c, -1) if len(cond_shape) == 2 else c
        return gc.where(c, gc.gather(a, i), gc.gather(b, i))

    check_loop_fn(loop_fn, 2)


SHAPES_V2 = [(2,), (2, 1), (2, 5), (2, 3, 1), (2, 3, 5)]


@pytest.mark.parametrize("a_shape", [(2, 3, 5), (2, 5)], ids=["same", "a_broadcast"])
@pytest.mark.parametrize("cond_shape", SHAPES_V2, ids=str)
def test_where_v2_broadcasts(a_shape, cond_shape):
    a, b = rand(*a_shape), rand(2, 3, 5)
    cond = rand(*cond_shape) > 0.5
    check_loop_fn(lambda i: gc.where(gc.gather(cond, i), gc.gather(a, i),
                                     gc.gather(b, i)), 2)


@pytest.mark.parametrize("a_shape", SHAPES_V2, ids=str)
def test_where_v2_invariant_condition(a_shape):
    cond, a, b = rand(3, 5) > 0.5, rand(*a_shape), rand(2, 3, 5)
    check_loop_fn(lambda i: gc.where(cond, gc.gather(a, i), gc.gather(b, i)), 2)


def test_reference_values():
    # a few hand-worked values, so that the per-example oracle is itself anchored
    x = gc.constant([[1.0, -2.0], [3.0, 0.5]])
    got = gc.vectorized_map(lambda r: gc.math.unsorted_segment_sum(r, [1, 1], 2), x)
    assert np.asarray(got).tolist() == [[0.0, -1.0], [0.0, 3.5]]
    got = gc.vectorized_map(lambda r: gc.math.cumprod(r, exclusive=True, reverse=True), x)
    assert np.asarray(got).tolist() == [[-2.0, 1.0], [0.5, 1.0]]


def test_batched_segment_ids_keep_their_checks():
    # the batching rule of unsorted_segment_sum shifts each example's ids into its own
    # rows: a negative id still drops its row, an id past num_segments still fails
    data = gc.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    ids = gc.constant([[0, -1, 1], [1, 1, -1]])
    got = gc.vectorized_map(lambda a: gc.math.unsorted_segment_sum(a[0], a[1], 2),
                            (data, ids))
    assert np.asarray(got).tolist() == [[1.0, 3.0], [0.0, 9.0]]
    with pytest.raises(IndexError):  # id 2 of example 0 is not in [0, 2)
        gc.vectorized_map(lambda a: gc.math.unsorted_segment_sum(a[0], a[1], 2),
                          (data, gc.constant([[0, 2, 1], [1, 1, 0]])))
