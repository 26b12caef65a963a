"""SPEC §12, allocation: ``gnp.ndarray(shape, dtype)`` with NumPy's constructor meaning,
``empty``/``zeros``/``ones``/``full`` and the ``*_like`` functions with NumPy's
signatures, and ``gnp.array``/``gnp.asarray`` of nested lists holding traced tensors;
each against NumPy, eagerly and under ``gc.function``."""

from __future__ import annotations

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp


def run_both(make):
    """``make()`` eagerly and traced (a ``gc.function`` of no arguments)."""
    return [make(), gc.function(make)()]


def same_array(got, want):
    got = np.asarray(got)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_array_equal(got, want)


def numpy_error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the message NumPy gives
        return type(e), str(e)
    raise AssertionError("NumPy raised nothing")


# --------------------------------------------------------------------------- ndarray
@pytest.mark.parametrize("shape", [3, (2, 3), (), (0, 2)])
@pytest.mark.parametrize("dtype", [float, np.int32, "i1", bool, np.complex64])
def test_ndarray_constructor_allocates_as_numpy(shape, dtype):
    want = np.ndarray(shape, dtype)
    for got in run_both(lambda: gnp.ndarray(shape, dtype)):
        assert isinstance(got, gc.Tensor)
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_array_equal(got.numpy(), np.zeros(shape, dtype))  # zero-filled


def test_ndarray_keywords_and_defaults():
    for got in run_both(lambda: gnp.ndarray(shape=(2,), dtype=np.int8)):
        same_array(got, np.zeros(2, np.int8))
    for got in run_both(lambda: gnp.ndarray((2, 2))):  # dtype=float, as NumPy
        same_array(got, np.zeros((2, 2)))
    # strides and offset mean nothing without a buffer (NumPy ignores them too)
    same_array(gnp.ndarray((2,), np.int16, offset=8, strides=(4,)), np.zeros(2, np.int16))
    for order in ("C", "F", "A", "K", None):
        same_array(gnp.ndarray(2, order=order), np.ndarray(2, order=order) * 0)


def test_ndarray_with_a_traced_shape():
    @gc.function
    def make(n):
        return gnp.ndarray((n, 2), gnp.int32)

    same_array(make(gnp.asarray(3)), np.zeros((3, 2), np.int32))


def test_ndarray_errors():
    with pytest.raises(NotImplementedError, match="buffer"):
        gnp.ndarray((2,), np.uint8, buffer=bytearray(2))
    kind, message = numpy_error(lambda: np.ndarray(2, order="X"))
    with pytest.raises(kind) as info:
        gnp.ndarray(2, order="X")
    assert str(info.value) == message
    with pytest.raises(Exception, match="negative"):
        gnp.ndarray(-1)


def test_isinstance_of_ndarray_holds_for_tensors():
    t = gnp.ones(2)
    assert isinstance(t, gnp.ndarray) and isinstance(gnp.asarray(1.5), gnp.ndarray)
    assert isinstance(gc.constant([1]), gnp.ndarray)
    assert isinstance(t, (int, gnp.ndarray))
    assert issubclass(gc.Tensor, gnp.ndarray) and issubclass(gnp.ndarray, gnp.ndarray)
    assert not isinstance(np.ones(2), gnp.ndarray) and not isinstance(1.0, gnp.ndarray)
    assert not issubclass(np.ndarray, gnp.ndarray)
    # gc.Tensor stays the tensors' one class
    assert type(t) is gc.Tensor and gnp.ndarray is not gc.Tensor
    assert gnp.ndarray.__name__ == "ndarray"
    assert float(gnp.ndarray.sum(gnp.asarray([1.0, 2.0]))) == 3.0  # np.ndarray.sum(a)

    seen = []

    @gc.function
    def f(x):
        seen.append(isinstance(x, gnp.ndarray) and isinstance(x * 2, gnp.ndarray))
        return x

    f(gnp.asarray([1.0]))
    assert seen == [True]


# --------------------------------------------------------------------------- fills
FILLS = [
    ("zeros", (3,), {}),
    ("zeros", ((2, 3),), {"dtype": np.int16}),
    ("zeros", (2,), {"dtype": bool, "order": "F"}),
    ("ones", ((2, 1),), {"dtype": "f4", "order": "C"}),
    ("ones", (0,), {}),
    ("full", ((2,), 7), {"dtype": np.int8}),
    ("full", (3, 2.5), {}),
    ("full", ((1, 2), True), {"order": "F"}),
    ("full", ((2,), 2.5), {"dtype": np.int32}),
]


@pytest.mark.parametrize("name,args,kwargs", FILLS, ids=lambda v: str(v))
def test_fills_match_numpy(name, args, kwargs):
    want = getattr(np, name)(*args, **kwargs)
    for got in run_both(lambda: getattr(gnp, name)(*args, **kwargs)):
        same_array(got, want)


@pytest.mark.parametrize("shape", [4, (2, 3), ()])
@pytest.mark.parametrize("dtype", [None, np.float32, np.int64, bool])
def test_empty_has_numpy_shape_and_dtype_and_is_zero_filled(shape, dtype):
    want = np.empty(shape, dtype)
    for got in run_both(lambda: gnp.empty(shape, dtype, "C")):
        same_array(got, np.zeros_like(want))


def test_device_and_like_keywords():
    same_array(gnp.zeros(2, device="cpu"), np.zeros(2))
    same_array(gnp.empty(2, like=None), np.zeros(2))
    same_array(gnp.full(2, 3, device="cpu:0"), np.full(2, 3))
    same_array(gnp.ones_like(gnp.zeros(2), device="cpu"), np.ones(2))


@pytest.mark.parametrize("name", ["zeros", "ones", "empty"])
@pytest.mark.parametrize("order", ["A", "K", "X", "", 1])
def test_fill_order_errors_match_numpy(name, order):
    kind, message = numpy_error(lambda: getattr(np, name)(2, order=order))
    with pytest.raises(kind) as info:
        getattr(gnp, name)(2, order=order)
    assert str(info.value) == message


LIKES = [
    ("empty_like", {}),
    ("empty_like", {"dtype": np.int8}),
    ("empty_like", {"shape": (3,)}),
    ("empty_like", {"shape": 2, "dtype": bool, "order": "C"}),
    ("zeros_like", {"order": "K"}),
    ("zeros_like", {"shape": (1, 4)}),
    ("ones_like", {"dtype": np.float32, "order": "F"}),
    ("ones_like", {"shape": ()}),
]


@pytest.mark.parametrize("name,kwargs", LIKES, ids=lambda v: str(v))
@pytest.mark.parametrize("proto", [np.arange(6, dtype=np.int32).reshape(2, 3),
                                   np.array([1.5, 2.5], np.float32)], ids=["i32", "f32"])
def test_like_functions_match_numpy(name, kwargs, proto):
    want = getattr(np, name)(proto, **kwargs)
    if name == "empty_like":
        want = np.zeros_like(want)  # graphc's empty is zero-filled
    got_eager = getattr(gnp, name)(gnp.asarray(proto), **kwargs)
    got_traced = gc.function(lambda p: getattr(gnp, name)(p, **kwargs))(gnp.asarray(proto))
    same_array(got_eager, want)
    same_array(got_traced, want)


def test_full_like_with_shape_and_lists():
    proto = np.array([1, 2], np.int16)
    same_array(gnp.full_like(gnp.asarray(proto), 7.9, shape=(3,)),
               np.full_like(proto, 7.9, shape=(3,)))
    same_array(gnp.zeros_like([1.5, 2.5], shape=(2, 2)), np.zeros_like([1.5, 2.5], shape=(2, 2)))
    same_array(gnp.empty_like([1, 2]), np.zeros(2, int))
    kind, message = numpy_error(lambda: np.zeros_like(proto, order="X"))
    with pytest.raises(kind, match="order must be one of"):
        gnp.zeros_like(gnp.asarray(proto), order="X")


# --------------------------------------------------------------------------- lists of traced
X32 = np.array(1.5, np.float32)
Y32 = np.array(-2.0, np.float32)
I32 = np.array(3, np.int32)
I8 = np.array(-4, np.int8)
B = np.array(True)
V3 = np.array([1.0, 2.0, 3.0], np.float32)
W3 = np.array([4, 5, 6], np.int16)

NESTED = [
    ("pair", lambda x, y: [x, y], (X32, Y32)),
    ("weak float beside f32", lambda x, y: [x, 1.0], (X32, Y32)),
    ("int beside f32", lambda x, y: [x, 1], (X32, Y32)),
    ("int beside i32", lambda x, y: [x, 1], (I32, Y32)),
    ("float beside i32", lambda x, y: [x, 0.5, y], (I32, Y32)),
    ("int8 and big int", lambda x, y: [x, 1000], (I8, Y32)),
    ("bool beside f32", lambda x, y: [True, x], (X32, B)),
    ("bools", lambda x, y: [x, y, False], (B, B)),
    ("mixed tensors", lambda x, y: (x, y), (I8, X32)),
    ("2x2 diag", lambda x, y: [[x, 0], [0, y]], (X32, Y32)),
    ("2x2 diag floats", lambda x, y: [[x, 0.0], (0, y)], (X32, Y32)),
    ("rows", lambda x, y: [x, y], (V3, W3)),
    ("row and list", lambda x, y: [x, [7, 8, 9]], (V3, W3)),
    ("row and float list", lambda x, y: [[1.0, 2.0, 3.0], y], (V3, W3)),
    ("deep", lambda x, y: [[x, x], [y, x * 2]], (V3, V3)),
    ("single", lambda x, y: [x], (X32, Y32)),
    ("complex", lambda x, y: [x, 1j], (X32, Y32)),
]


@pytest.mark.parametrize("build,inputs", [c[1:] for c in NESTED],
                         ids=[c[0] for c in NESTED])
@pytest.mark.parametrize("convert", ["array", "asarray"])
def test_nested_lists_of_traced_tensors_match_numpy(build, inputs, convert):
    want = getattr(np, convert)(build(*inputs))
    traced = gc.function(lambda x, y: getattr(gnp, convert)(build(x, y)))
    same_array(traced(*[gnp.asarray(a) for a in inputs]), want)
    # eagerly (tensors with values) the same
    same_array(getattr(gnp, convert)(build(*[gnp.asarray(a) for a in inputs])), want)


@pytest.mark.parametrize("dtype", [np.int32, np.float64, bool, np.float16])
def test_nested_list_with_a_dtype(dtype):
    build = lambda x, y: [[x, 2.7], [y, -1]]  # noqa: E731
    want = np.array(build(X32, Y32), dtype=dtype)
    traced = gc.function(lambda x, y: gnp.array(build(x, y), dtype=dtype))
    same_array(traced(gnp.asarray(X32), gnp.asarray(Y32)), want)


def test_nested_list_is_stacked_not_unrolled():
    f = gc.function(lambda x, y: gnp.array([[x, 0], [0, y]]))
    graph = f.get_concrete_function(gnp.asarray(X32), gnp.asarray(Y32)).graph
    ops = [n.op.name for n in graph.nodes]
    assert ops.count("stack") == 3, ops


def test_nested_list_with_an_unknown_dim():
    f = gc.function(lambda v: gnp.array([v, v + 1]),
                    input_signature=[gc.TensorSpec([None], gc.float32)])
    same_array(f(gnp.asarray(V3)), np.array([V3, V3 + 1]))


RAGGED = [
    ("row and short list", lambda x, y: [x, [1, 2]], (V3, V3)),
    ("row and scalar", lambda x, y: [x, 1.0], (V3, V3)),
    ("rows of two lengths", lambda x, y: [x, y], (V3, np.ones(2))),
    ("deeper", lambda x, y: [[x, x], [x, y]], (V3, np.ones(2))),
    ("deeper lists", lambda x, y: [[[x, 1], [2, 3]], [[x, 1], [2]]], (X32, X32)),
]


@pytest.mark.parametrize("build,inputs", [c[1:] for c in RAGGED], ids=[c[0] for c in RAGGED])
def test_ragged_nested_lists_raise_numpy_error(build, inputs):
    kind, message = numpy_error(lambda: np.array(build(*inputs)))
    f = gc.function(lambda x, y: gnp.array(build(x, y)))
    with pytest.raises(kind) as info:
        f(*[gnp.asarray(a) for a in inputs])
    assert str(info.value).startswith(message), (str(info.value), message)
