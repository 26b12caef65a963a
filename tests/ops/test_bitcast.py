"""gc.bitcast (TensorFlow's tf.bitcast) against the bytes read back with np.frombuffer:
the shape rule for equal, smaller and larger target itemsizes, eagerly and inside
gc.function (dims unknown while tracing checked when the graph runs), batching against a
per-example loop, no gradient, the Numba backend's fallback, errors."""

import warnings

import numpy as np
import pytest

import graphc as gc
from graphc.errors import FallbackError, InvalidArgumentError


def _want(x, dtype):
    x = np.asarray(x)
    i, o = x.dtype.itemsize, np.dtype(dtype).itemsize
    shape = x.shape if i == o else x.shape + (i // o,) if i > o else x.shape[:-1]
    return np.frombuffer(x.tobytes(), dtype=dtype).reshape(shape)


def _same(got, want):
    assert isinstance(got, gc.Tensor) and got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.numpy().view(np.uint8), want.view(np.uint8))


CASES = [
    (np.array([1.0, -2.5, 3.0], np.float32), np.int32),
    (np.array([[1.0, np.nan], [np.inf, -0.0]]), np.uint64),
    (np.array([1.0, 2.0]), np.uint8),
    (np.int16(-2), np.uint8),
    (np.array([[0, 0, 128, 63], [0, 0, 0, 192]], np.uint8), np.float32),
    (np.arange(8, dtype=np.int32).reshape(2, 2, 2), np.float64),
    (np.array([1 + 2j, -3j], np.complex64), np.float64),
    (np.array([1.5, 2.5]), np.complex64),
    (np.array([[1, 2], [3, 4]], np.int32), np.int64),
    (np.zeros((0, 4), np.int16), np.int64),
]


@pytest.mark.parametrize("x,dtype", CASES)
def test_matches_the_bytes(x, dtype):
    want = _want(x, dtype)
    _same(gc.bitcast(x, dtype), want)
    _same(gc.bitcast(gc.constant(x), gc.as_dtype(np.dtype(dtype).name)), want)
    f = gc.function(lambda t: gc.bitcast(t, dtype), backend="numpy")
    _same(f(x), want)


def test_unknown_dims_checked_when_the_graph_runs():
    f = gc.function(lambda t: gc.bitcast(t, gc.float64), backend="numpy",
                    input_signature=[gc.TensorSpec([None, None], gc.int32)])
    x = np.array([[0, 1072693248], [0, -1073741824]], np.int32)
    _same(f(x), _want(x, np.float64))
    with pytest.raises(InvalidArgumentError, match="must be 2"):
        f(np.ones((2, 3), np.int32))
    g = gc.function(lambda t: gc.bitcast(t, gc.uint8), backend="numpy",
                    input_signature=[gc.TensorSpec([None], gc.float32)])
    assert g.get_concrete_function().graph.outputs[0].aval.shape == (None, 4)


def test_numba_backend_runs_it_on_the_interpreter():
    x = np.array([1.0, 2.0], np.float32)
    f = gc.function(lambda t: gc.bitcast(t * 2, gc.int32) + 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # FallbackWarning: no Numba kernel for bitcast
        _same(f(x), _want(x * 2, np.int32) + 1)
    with pytest.raises(FallbackError, match="no Numba kernel for op bitcast"):
        gc.function(lambda t: gc.bitcast(t, gc.int32), jit_compile=True)(x)


def test_vectorized_map_matches_a_loop():
    xs = np.arange(12, dtype=np.float32).reshape(3, 4) - 5.5
    for dtype in (np.int32, np.uint8):
        want = np.stack([_want(x, dtype) for x in xs])
        _same(gc.vectorized_map(lambda t: gc.bitcast(t, dtype), xs), want)
    ys = np.arange(12, dtype=np.int16).reshape(3, 2, 2)
    _same(gc.vectorized_map(lambda t: gc.bitcast(t, gc.int32), ys),
          np.stack([_want(y, np.int32) for y in ys]))


def test_no_gradient():
    x = gc.constant([1.0, 2.0])
    with gc.GradientTape() as tape:
        tape.watch(x)
        y = gc.reduce_sum(gc.cast(gc.bitcast(x, gc.int32), gc.float32))
    assert tape.gradient(y, x) is None


def test_errors():
    with pytest.raises(ValueError, match="must be 4"):
        gc.bitcast(np.ones(3, np.uint8), gc.float32)
    with pytest.raises(ValueError, match="Cannot bitcast"):
        gc.bitcast(np.int32(1), gc.float64)  # a 0-d input has no last dim to remove
    with pytest.raises(TypeError, match="numeric"):
        gc.bitcast(np.array([True]), gc.uint8)
    with pytest.raises(TypeError, match="numeric"):
        gc.bitcast(np.array([1], np.uint8), gc.bool)
    with pytest.raises(TypeError):
        gc.bitcast(np.array([1.0]), "not a dtype")
