"""TensorFlow's ``kernel_tests/control_flow/scan_ops_test.py`` (``CumsumTest``,
``CumprodTest``: the scan *ops* ``cumsum`` / ``cumprod``) ported to ``gc.math.cumsum`` /
``gc.math.cumprod``, with ``gc.scan`` cross-checks (see tests/tf_reference/README.md).

Expected values come from NumPy's ``cumsum`` / ``cumprod`` with TensorFlow's
``exclusive`` / ``reverse`` options restated below, from literals worked out by hand,
from central differences, or from ``gc.scan`` (two graphc computations that must agree).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from tfref import central_difference, tensorflow, value

import graphc as gc

OPS = {"cumsum": (gc.math.cumsum, np.cumsum, 0), "cumprod": (gc.math.cumprod, np.cumprod, 1)}
# TensorFlow's list, less bfloat16 (graphc has no bfloat16 dtype).
DTYPES = [np.int32, np.int64, np.float16, np.float32, np.float64, np.complex64,
          np.complex128]
OPTIONS = list(itertools.product([False, True], [False, True]))  # (exclusive, reverse)


def reference(op, x, axis, exclusive, reverse):
    """NumPy's running sum / product with TensorFlow's options: ``reverse`` runs from the
    end of ``axis``; ``exclusive`` shifts by one, starting at 0 (sum) or 1 (product)."""
    _, np_fn, start = OPS[op]
    axis %= x.ndim
    y = np.flip(x, axis) if reverse else x
    out = np_fn(y, axis=axis, dtype=x.dtype)
    if exclusive:
        head = np.full_like(np.take(out, [0], axis=axis), start)
        out = np.concatenate([head, np.delete(out, -1, axis=axis)], axis=axis)[
            tuple(slice(0, n) for n in y.shape)]
    return np.flip(out, axis) if reverse else out


def check_all(op, x, axes):
    gc_fn = OPS[op][0]
    tol = 1e-2 if x.dtype == np.float16 else 1e-6
    for axis in axes:
        for exclusive, reverse in OPTIONS:
            got = value(gc_fn(x, axis, exclusive=exclusive, reverse=reverse))
            want = reference(op, x, axis, exclusive, reverse)
            assert got.dtype == x.dtype
            assert got.shape == x.shape
            np.testing.assert_allclose(got, want, rtol=tol, atol=tol, equal_nan=True,
                                       err_msg=f"{op} axis={axis} exclusive={exclusive} "
                                               f"reverse={reverse}")


def test_reference_by_hand():
    # The reference itself, against sums and products worked out by hand.
    x = np.array([1, 2, 3, 4])
    assert reference("cumsum", x, 0, False, False).tolist() == [1, 3, 6, 10]
    assert reference("cumsum", x, 0, True, False).tolist() == [0, 1, 3, 6]
    assert reference("cumsum", x, 0, False, True).tolist() == [10, 9, 7, 4]
    assert reference("cumsum", x, 0, True, True).tolist() == [9, 7, 4, 0]
    assert reference("cumprod", x, 0, True, True).tolist() == [24, 12, 4, 1]


@pytest.mark.parametrize("op", OPS)
def test_by_hand(op):
    fn = OPS[op][0]
    x = gc.constant([1.0, 2.0, 3.0, 4.0])
    results = [value(fn(x, 0, exclusive=e, reverse=r)).tolist() for e, r in OPTIONS]
    if op == "cumsum":
        assert results == [[1, 3, 6, 10], [10, 9, 7, 4], [0, 1, 3, 6], [9, 7, 4, 0]]
    else:
        assert results == [[1, 2, 6, 24], [24, 24, 12, 4], [1, 1, 2, 6], [24, 12, 4, 1]]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", OPS)
def test_empty(op, dtype):
    x = np.zeros([0], dtype)
    for axis in (-1, 0):
        for reverse in (False, True):
            got = value(OPS[op][0](x, axis, exclusive=False, reverse=reverse))
            assert got.shape == (0,) and got.dtype == dtype


@pytest.mark.parametrize("op", OPS)
def test_empty_exclusive(op):
    x = np.zeros([0], np.float32)
    for reverse in (False, True):
        assert value(OPS[op][0](x, 0, exclusive=True, reverse=reverse)).shape == (0,)


@pytest.mark.parametrize("axis_dtype", [gc.int32, gc.int64], ids=["int32", "int64"])
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", OPS)
def test_axis_as_tensor(op, dtype, axis_dtype):
    x = np.arange(1, 6).astype(dtype)
    got = value(OPS[op][0](x, gc.constant(0, axis_dtype)))
    np.testing.assert_array_equal(got, reference(op, x, 0, False, False))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64],
                         ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", OPS)
def test_nan(op, dtype):
    for nan_idx in range(5):
        x = np.arange(1, 6).astype(dtype)
        x[nan_idx] = np.nan
        check_all(op, x, (-1, 0))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", OPS)
def test_1d(op, dtype):
    check_all(op, np.arange(1, 6).astype(dtype), (-1, 0))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", OPS)
def test_2d(op, dtype):
    start = 0 if op == "cumsum" else 1
    check_all(op, np.arange(start, start + 10).reshape([2, 5]).astype(dtype),
              (-2, -1, 0, 1))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", OPS)
def test_3d(op, dtype):
    start = 0 if op == "cumsum" else 1
    check_all(op, np.arange(start, start + 20).reshape([2, 2, 5]).astype(dtype),
              range(-3, 3))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", OPS)
def test_6d(op, dtype):
    # TensorFlow's 144 elements; products run over axes of length 2 or 3 only.
    check_all(op, np.arange(1, 145).reshape([2, 2, 3, 3, 2, 2]).astype(dtype),
              range(-6, 6, 3))


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_long_sum(dtype):
    # TensorFlow sums 10^6 values; 2^12 of 1/1024 keeps every partial sum exact: k/1024.
    x = np.ones([4096], dtype) / 1024
    for exclusive, reverse in OPTIONS:
        got = value(gc.math.cumsum(x, 0, exclusive=exclusive, reverse=reverse))
        k = np.arange(0, 4096) if exclusive else np.arange(1, 4097)
        np.testing.assert_array_equal(got, (k[::-1] if reverse else k) / 1024)


@pytest.mark.parametrize("axis", [-3, 2], ids=["minus3", "2"])
@pytest.mark.parametrize("op", OPS)
def test_axis_out_of_range(op, axis):
    x = np.arange(0, 10).reshape([2, 5]).astype(np.float32)
    with pytest.raises(gc.errors.InvalidArgumentError):
        OPS[op][0](gc.constant(x), axis)


@pytest.mark.parametrize("op", OPS)
def test_axis_not_scalar(op):
    x = np.arange(0, 10).reshape([2, 5]).astype(np.float32)
    with pytest.raises(gc.errors.InvalidArgumentError):
        OPS[op][0](gc.constant(x), [0])


def _check_gradient(op, shape, axis, exclusive, reverse):
    start = 0 if op == "cumsum" else 1
    x = np.arange(start, start + int(np.prod(shape))).reshape(shape).astype(np.float64)
    fn = OPS[op][0]
    xt = gc.constant(x)
    with gc.GradientTape() as tape:
        tape.watch(xt)
        y = fn(xt, axis, exclusive=exclusive, reverse=reverse)
    jac = value(tape.jacobian(y, xt))
    # Each output is linear in every single input, so a step of 1 is exact.
    numeric = np.stack([
        central_difference(lambda v, i=i: value(fn(v, axis, exclusive=exclusive,
                                                    reverse=reverse)).reshape(-1)[i],
                           x, eps=1.0)
        for i in range(x.size)]).reshape(shape + shape)
    np.testing.assert_allclose(jac, numeric, rtol=1e-8, atol=1e-8)


@pytest.mark.parametrize(("exclusive", "reverse"), OPTIONS)
@pytest.mark.parametrize("op", OPS)
def test_gradient_1d(op, exclusive, reverse):
    shape = [12] if op == "cumsum" else [8]
    for axis in (-1, 0):
        _check_gradient(op, shape, axis, exclusive, reverse)


@pytest.mark.parametrize(("exclusive", "reverse"), OPTIONS)
@pytest.mark.parametrize("op", OPS)
def test_gradient_2d(op, exclusive, reverse):
    shape = [3, 4] if op == "cumsum" else [2, 4]
    for axis in (-2, -1, 0, 1):
        _check_gradient(op, shape, axis, exclusive, reverse)


# ------------------------------------------------------------- gc.scan cross-checks
@pytest.mark.parametrize("mode", ["eager", "function"])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("op", OPS)
def test_scan_agrees_with_scan_op(op, reverse, mode):
    step = (lambda a, x: a + x) if op == "cumsum" else (lambda a, x: a * x)
    x = gc.constant(np.arange(1, 13).reshape([4, 3]).astype(np.float64))

    def both(x):
        return gc.scan(step, x, reverse=reverse), OPS[op][0](x, 0, reverse=reverse)

    scanned, direct = both(x) if mode == "eager" else gc.function(both)(x)
    np.testing.assert_array_equal(value(scanned), value(direct))


@pytest.mark.parametrize("op", OPS)
def test_scan_with_initializer_is_exclusive_plus_one(op):
    # Scanning from the 0 / 1 an exclusive op starts with gives the exclusive result of
    # one more element: exclusive(x ++ [anything])[1:].
    step = (lambda a, x: a + x) if op == "cumsum" else (lambda a, x: a * x)
    x = np.array([2.0, 3.0, 5.0])
    scanned = value(gc.scan(step, gc.constant(x), initializer=gc.constant(
        float(OPS[op][2]))))
    exclusive = value(OPS[op][0](np.append(x, 7.0), 0, exclusive=True))
    np.testing.assert_array_equal(scanned, exclusive[1:])


# ------------------------------------------------------------- TensorFlow as a witness
def test_scan_ops_tensorflow():
    tf = tensorflow()
    x = np.array([1.0, 2.0, 3.0, 4.0])
    assert tf.math.cumsum(x, 0, exclusive=True, reverse=True).numpy().tolist() == [
        9, 7, 4, 0]
    assert tf.math.cumprod(x, 0, exclusive=True, reverse=True).numpy().tolist() == [
        24, 12, 4, 1]
    assert tf.math.cumsum(np.zeros([0], np.float32), 0, exclusive=True).shape == (0,)
    m = tf.constant(np.arange(10.0).reshape(2, 5).astype(np.float32))
    for axis in (-3, 2):
        with pytest.raises(tf.errors.InvalidArgumentError, match="scan axis"):
            tf.math.cumsum(m, axis)
    with pytest.raises(tf.errors.InvalidArgumentError, match="scalar"):
        tf.math.cumprod(m, [0])
