"""dtype promotion (NumPy 2 / NEP 50), weak Python scalars, strict mode and literal dtypes
(SPEC section 1)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp

MAIN = [np.dtype(n) for n in ("int32", "int64", "float32", "float64")]
PAIRS = list(itertools.product(MAIN, MAIN))


@pytest.fixture
def strict():
    gc.config.set_dtype_promotion("strict")
    try:
        yield
    finally:
        gc.config.set_dtype_promotion("numpy")


@pytest.fixture
def prefer_float32():
    gnp.experimental_enable_numpy_behavior(prefer_float32=True)
    try:
        yield
    finally:
        gnp.experimental_enable_numpy_behavior(prefer_float32=False)


def test_defaults():
    assert gc.config.get_dtype_promotion() == "numpy"
    assert gnp.asarray(1.0).dtype == np.float64


# --------------------------------------------------------------------------- promotion table
@pytest.mark.parametrize("a,b", PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_promotion_table_eager(a, b):
    x, y = gnp.ones([2], dtype=a), gnp.ones([2], dtype=b)
    want = np.result_type(a, b)
    assert gnp.add(x, y).dtype == want
    assert (x + y).dtype == want
    assert (x * y).dtype == want
    assert gnp.result_type(x, y) == want
    np.testing.assert_array_equal(gnp.add(x, y).numpy(), np.add(np.ones(2, a), np.ones(2, b)))


@pytest.mark.parametrize("a,b", PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_promotion_table_traced(a, b):
    @gc.function
    def f(x, y):
        out = gnp.add(x, y)
        assert out.is_symbolic  # the dtype comes from inference, not from running NumPy
        return out

    out = f(gnp.ones([2], dtype=a), gnp.ones([2], dtype=b))
    assert out.dtype == np.result_type(a, b)
    assert f.get_concrete_function(gnp.ones([2], dtype=a),
                                   gnp.ones([2], dtype=b)).output_dtypes == np.result_type(a, b)


def test_spec_examples():
    i32, i64 = gnp.ones(2, gnp.int32), gnp.ones(2, gnp.int64)
    f32, f64 = gnp.ones(2, gnp.float32), gnp.ones(2, gnp.float64)
    assert (i32 + i64).dtype == gnp.int64
    assert (i32 + f32).dtype == gnp.float64
    assert (f32 + f64).dtype == gnp.float64


def test_numpy_arrays_are_strong():
    # A NumPy array is a typed value, not a weak literal.
    assert (gnp.ones(2, gnp.float32) + np.ones(2)).dtype == np.float64
    assert (np.ones(2, np.int32) + gnp.ones(2, gnp.float32)).dtype == np.float64


# --------------------------------------------------------------------------- weak scalars
@pytest.mark.parametrize("dtype,scalar,want", [
    ("float32", 2.0, "float32"),
    ("float32", 2, "float32"),
    ("int32", 2, "int32"),
    ("int32", 2.5, "float64"),
    ("int8", 1, "int8"),
    ("int64", 2.5, "float64"),
    ("float16", 3.0, "float16"),
    ("bool", 1, "int64"),
    ("bool", 1.5, "float64"),
    ("float32", 1j, "complex64"),
])
def test_weak_python_scalars(dtype, scalar, want):
    t = gnp.ones([3], dtype=dtype)
    for out in (t + scalar, scalar + t, t * scalar, gnp.multiply(t, scalar),
                gnp.maximum(scalar, t), gnp.where(t == t, t, scalar)):
        assert out.dtype == np.dtype(want), out
    assert gnp.result_type(t, scalar) == np.dtype(want)
    assert np.result_type(np.ones(3, dtype), scalar) == np.dtype(want)


def test_weak_scalars_traced():
    @gc.function
    def f(x):
        return x * 2.0, x + 1, x / 2

    a, b, c = f(gnp.ones([2], gnp.float32))
    assert (a.dtype, b.dtype, c.dtype) == (np.float32,) * 3
    a, b, c = f(gnp.ones([2], gnp.int32))
    assert (a.dtype, b.dtype, c.dtype) == (np.float64, np.int32, np.float64)


def test_weak_scalar_out_of_range_is_clear():
    with pytest.raises(gc.errors.InvalidArgumentError, match="does not fit"):
        gnp.ones(2, gnp.int8) + 1000


# --------------------------------------------------------------------------- strict mode
@pytest.mark.usefixtures("strict")
def test_strict_rejects_mixed_tensor_dtypes():
    assert gc.config.get_dtype_promotion() == "strict"
    with pytest.raises(TypeError, match="strict"):
        gnp.ones(2, gnp.float32) + gnp.ones(2, gnp.float64)
    with pytest.raises(TypeError, match="cast"):
        gnp.add(gnp.ones(2, gnp.int32), gnp.ones(2, gnp.int64))
    with pytest.raises(TypeError):
        gnp.ones(2, gnp.float32) * np.ones(2, np.float64)


@pytest.mark.usefixtures("strict")
def test_strict_accepts_same_dtypes_and_weak_scalars():
    x = gnp.ones(2, gnp.float32)
    assert (x + x).dtype == np.float32
    assert (x * 2.0).dtype == np.float32
    assert (2 + x).dtype == np.float32
    assert (gnp.ones(2, gnp.int32) + 2).dtype == np.int32


@pytest.mark.usefixtures("strict")
def test_strict_traced():
    @gc.function
    def f(x, y):
        return x + y

    with pytest.raises(TypeError, match="strict"):
        f(gnp.ones(2, gnp.float32), gnp.ones(2, gnp.float64))
    assert f(gnp.ones(2, gnp.float32), gnp.ones(2, gnp.float32)).dtype == np.float32


def test_set_dtype_promotion_validates():
    with pytest.raises(ValueError, match="bogus"):
        gc.config.set_dtype_promotion("bogus")
    assert gc.config.get_dtype_promotion() == "numpy"


# --------------------------------------------------------------------------- literal dtypes
def test_numpy_literals():
    assert gnp.asarray(1).dtype == np.int64
    assert gnp.asarray(1.0).dtype == np.float64
    assert gnp.asarray(True).dtype == np.bool_
    assert gnp.asarray([1, 2.5]).dtype == np.float64
    assert gnp.add(1.0, 2.0).dtype == np.float64
    assert gnp.add(1, 2).dtype == np.int64
    assert gnp.ones(2).dtype == np.float64
    assert gnp.arange(3).dtype == np.int64
    assert gnp.asarray(np.float32(1)).dtype == np.float32  # NumPy values keep their dtype
    assert gnp.asarray(np.ones(2, np.int32)).dtype == np.int32


@pytest.mark.usefixtures("prefer_float32")
def test_prefer_float32():
    assert gnp.asarray(1.0).dtype == np.float32
    assert gnp.add(1.0, 2.0).dtype == np.float32
    assert gnp.asarray([1.0, 2.0]).dtype == np.float32
    assert gnp.asarray(1).dtype == np.int64  # ints are unaffected
    assert gnp.asarray(np.float64(1)).dtype == np.float64  # NumPy values keep their dtype
    assert gnp.asarray(np.ones(2)).dtype == np.float64
    # promotion itself is unchanged
    assert (gnp.ones(2, gnp.int32) + gnp.ones(2, gnp.float32)).dtype == np.float64


def test_prefer_float32_false_restores():
    gnp.experimental_enable_numpy_behavior(prefer_float32=True)
    try:
        assert gnp.asarray(1.0).dtype == np.float32
    finally:
        gnp.experimental_enable_numpy_behavior(prefer_float32=False)
    assert gnp.asarray(1.0).dtype == np.float64
    assert gnp.add(1.0, 2.0).dtype == np.float64


def test_tensorflow_literals():
    assert gc.constant(1.0).dtype == np.float32
    assert gc.constant(1).dtype == np.int32
    assert gc.constant([1, 2]).dtype == np.int32
    assert gc.constant([1.0, 2]).dtype == np.float32
    assert gc.constant(2**40).dtype == np.int64  # too big for int32
    assert gc.constant(np.ones(2)).dtype == np.float64  # NumPy arrays keep their dtype
    assert gc.constant(1, dtype=gc.float64).dtype == np.float64
    assert gc.convert_to_tensor(1.0).dtype == np.float32
    assert gc.convert_to_tensor(1).dtype == np.int32
    assert gc.convert_to_tensor(gnp.asarray(1.0)).dtype == np.float64  # tensors unchanged


def test_tensorflow_constructor_defaults():
    for t in (gc.zeros([2]), gc.ones([2, 2]), gc.eye(2), gc.fill([2], 1.0)):
        assert t.dtype == np.float32, t
    assert gc.fill([2], 1).dtype == np.int32
    assert gc.range(5).dtype == np.int32
    assert gc.range(0.0, 1.0, 0.5).dtype == np.float32
    np.testing.assert_array_equal(gc.range(5).numpy(), np.arange(5))
    assert gc.random.uniform([2]).dtype == np.float32
    assert gc.random.normal([2]).dtype == np.float32
    assert gc.random.uniform([2], dtype=gc.float64).dtype == np.float64


def test_tensorflow_binary_literals():
    assert gc.add(1.0, 2.0).dtype == np.float32
    assert gc.add(1, 2).dtype == np.int32
    assert gc.maximum(0.0, [1, -1]).dtype == np.float32
    assert gc.multiply(gnp.ones(2, gnp.float64), 2).dtype == np.float64


def test_reduce_mean_keeps_int_dtype():
    t = gc.constant([1, 2])
    m = gc.reduce_mean(t)
    assert m.dtype == np.int32
    assert m.numpy() == 1  # 1.5 truncated, as TensorFlow
    assert gc.reduce_mean(gc.constant([-1, -2])).numpy() == -1  # toward zero
    assert gc.reduce_sum(t).dtype == np.int32
    assert gc.reduce_mean(gc.constant([1.0, 2.0])).dtype == np.float32


def test_numpy_mean_of_ints_is_float64():
    m = gnp.mean(gnp.asarray([1, 2], dtype=gnp.int32))
    assert m.dtype == np.float64
    assert m.numpy() == 1.5
    assert gnp.sum(gnp.asarray([1, 2], dtype=gnp.int32)).dtype == np.sum(
        np.array([1, 2], np.int32)).dtype


def test_result_type():
    assert gnp.result_type(gnp.int32, gnp.float32) == np.float64
    assert gnp.result_type(gnp.ones(2, gnp.float32), 1.0) == np.float32
    assert gnp.result_type(gnp.ones(2, gnp.int8), np.ones(2, np.int16)) == np.int16
    assert gnp.result_type("int32", "int64") == np.int64


def test_dtype_names_are_numpy_dtypes():
    names = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
             "complex64", "complex128"]
    for n in names:
        assert getattr(gc, n) == np.dtype(n)
        assert isinstance(getattr(gc, n), np.dtype)
        assert getattr(gnp, n) == np.dtype(n)
    assert gc.bool == np.dtype(bool) and isinstance(gc.bool, np.dtype)
    assert gnp.bool_ == np.dtype(bool)


def test_astype_and_cast():
    t = gnp.asarray([1.7, -1.7])
    assert t.astype(gnp.int32).dtype == np.int32
    np.testing.assert_array_equal(t.astype("int32").numpy(), [1, -1])  # toward zero
    np.testing.assert_array_equal(gc.cast(t, gc.int64).numpy(), [1, -1])
    assert gc.cast([1, 2], gc.float32).dtype == np.float32
