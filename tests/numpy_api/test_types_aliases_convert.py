"""graphc.numpy's conversion and broadcasting helpers, fromfunction/vectorize/frompyfunc
and the ufunc type with its reduce/accumulate/at methods, against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.errors import InvalidArgumentError


def same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype,
                                                                 got.shape, want.shape)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", ["asanyarray", "ascontiguousarray", "asfortranarray",
                                  "asarray_chkfinite", "require"])
@pytest.mark.parametrize("a", [5, 2.5, [1, 2], np.arange(6.0).reshape(2, 3)])
def test_array_conversions(name, a):
    same(getattr(gnp, name)(a), getattr(np, name)(a))
    same(getattr(gnp, name)(a, np.float32), getattr(np, name)(a, np.float32))
    if np.ndim(a):
        same(gc.function(getattr(gnp, name))(np.asarray(a)), getattr(np, name)(a))


def test_conversion_options_and_errors():
    t = gnp.asarray([1.0, 2.0])
    assert gnp.asanyarray(t) is t and gnp.asanyarray(t, copy=False) is t
    c = gnp.asanyarray(t, copy=True)
    c[0] = 5
    assert t.numpy()[0] == 1
    with pytest.raises(ValueError, match="avoid copy"):
        gnp.asanyarray([1, 2], copy=False)
    with pytest.raises(ValueError, match="infs or NaNs"):
        gnp.asarray_chkfinite([1.0, np.nan])
    with pytest.raises(InvalidArgumentError, match="infs or NaNs"):
        gc.function(gnp.asarray_chkfinite)(np.array([1.0, np.inf]))
    same(gnp.require([1, 2], np.int8, ["C", "W", "O", "aligned"]),
         np.require([1, 2], np.int8, ["C", "W", "O", "aligned"]))
    with pytest.raises(ValueError, match="both"):
        gnp.require([1], None, "CF")
    with pytest.raises(KeyError):
        gnp.require([1], None, "Q")
    with pytest.raises(KeyError):  # a string is a sequence of one-letter flags
        gnp.require([1], None, "aligned")


def test_copyto():
    for where in (True, np.array([True, False, True])):
        for src in (np.array([7, 8, 9]), 4, np.array(2.0)):
            want = np.zeros(3)
            np.copyto(want, src, where=where)
            t = gnp.zeros(3)
            assert gnp.copyto(t, src, where=where) is None
            same(t, want)
            arr = np.zeros(3)
            gnp.copyto(arr, gnp.asarray(src), where=where)
            same(arr, want)
    with pytest.raises(TypeError, match="Cannot cast"):
        gnp.copyto(gnp.zeros(2, gnp.int32), np.array([1.5, 2.0]))
    with pytest.raises(TypeError, match="Cannot cast"):
        np.copyto(np.zeros(2, np.int32), np.array([1.5, 2.0]))

    @gc.function
    def f(x, y):
        gnp.copyto(x, y, where=y > 1)
        return x

    same(f(np.zeros((2, 3)), np.array([0.5, 2.0, 3.0])),
         np.where(np.array([0.5, 2.0, 3.0]) > 1, [0.5, 2.0, 3.0], np.zeros((2, 3))))


def test_from_dlpack():
    a = np.arange(4.0)
    same(gnp.from_dlpack(a), np.from_dlpack(a))
    t = gnp.asarray(a)
    assert gnp.from_dlpack(t) is t
    with pytest.raises(BufferError):
        gnp.from_dlpack(a, copy=False)


def test_broadcasting():
    shapes = [((2, 1), (3,)), ((), (4, 1, 5), (1, 5)), (3, (2, 3)), ((0, 1), (1, 4))]
    for args in shapes:
        assert gnp.broadcast_shapes(*args) == np.broadcast_shapes(*args)
    with pytest.raises(ValueError):
        gnp.broadcast_shapes((2,), (3,))
    assert gnp.broadcast_shapes((None, 1), (1, 3)) == (None, 3)
    a, b = np.arange(2).reshape(2, 1), np.ones(3, np.float32)
    for got, want in zip(gnp.broadcast_arrays(a, b), np.broadcast_arrays(a, b)):
        same(got, want)
    got = gc.function(lambda x, y: gnp.broadcast_arrays(x, y))(a, b)
    assert isinstance(got, tuple | list) and len(got) == 2
    for g, w in zip(got, np.broadcast_arrays(a, b)):
        same(g, w)

    @gc.function(input_signature=[gc.TensorSpec([None, 1], gc.int64),
                                  gc.TensorSpec([None], gc.float32)])
    def dyn(x, y):
        return gnp.broadcast_arrays(x, y, 1.0)

    for g, w in zip(dyn(a, b), np.broadcast_arrays(a, b, 1.0)):
        same(g, w)
    bc, nbc = gnp.broadcast(a, b), np.broadcast(a, b)
    assert (bc.shape, bc.ndim, bc.nd, bc.size, bc.numiter) == (
        nbc.shape, nbc.ndim, nbc.nd, nbc.size, nbc.numiter)
    assert list(gnp.broadcast(gnp.asarray(a), b)) == list(np.broadcast(a, b))


def test_index_helpers_and_iteration():
    assert gnp.s_[1:3, ::2] == np.s_[1:3, ::2] and gnp.index_exp[1] == np.index_exp[1]
    assert list(gnp.ndindex(2, 3)) == list(np.ndindex(2, 3))
    a = np.arange(6).reshape(2, 3)
    assert list(gnp.ndenumerate(gnp.asarray(a))) == list(np.ndenumerate(a))
    x = gnp.asarray(a)
    same(x[gnp.s_[:, 1:]], a[np.s_[:, 1:]])

    @gc.function
    def f(t):
        return gnp.stack([v * i[0] for i, v in gnp.ndenumerate(t)])

    same(f(a), np.array([v * i[0] for i, v in np.ndenumerate(a)]))


def test_fromiter_fromfunction():
    same(gnp.fromiter(iter(range(5)), gnp.float32), np.fromiter(iter(range(5)), np.float32))
    same(gnp.fromiter((i * i for i in range(9)), int, count=3),
         np.fromiter((i * i for i in range(9)), int, count=3))
    with pytest.raises(ValueError, match="too short"):
        gnp.fromiter(iter([1]), float, count=3)
    same(gc.function(lambda x: gnp.fromiter((x[i] * 2 for i in range(3)), np.float64))(
        np.arange(3.0)), np.arange(3.0) * 2)
    for kw in ({}, {"dtype": int}, {"dtype": np.float32}):
        same(gnp.fromfunction(lambda i, j: i * 10 + j, (2, 3), **kw),
             np.fromfunction(lambda i, j: i * 10 + j, (2, 3), **kw))
    same(gc.function(lambda: gnp.fromfunction(lambda i: i ** 2, (4,), dtype=int))(),
         np.fromfunction(lambda i: i ** 2, (4,), dtype=int))


def test_vectorize_and_frompyfunc():
    def clipped(x, lim):  # no Python branch on values: it also runs on traced scalars
        return gnp.minimum(x, lim) * 1.0

    a = np.array([[0.5, 3.0], [-1.0, 7.0]])
    for opts in ({}, {"otypes": [np.float32]}, {"excluded": {1}}):
        vf, nf = gnp.vectorize(clipped, **opts), np.vectorize(clipped, **opts)
        same(vf(a, 2.0), nf(a, 2.0))
        same(gc.function(lambda x, vf=vf: vf(x, 2.0))(a), nf(a, 2.0))

    @gnp.vectorize(otypes=[np.float64])
    def double(x):
        return 2 * x

    same(double([1, 2]), np.array([2.0, 4.0]))
    two = gnp.vectorize(lambda x: (x + 1, x * 2))
    for g, w in zip(two(np.arange(3)), np.vectorize(lambda x: (x + 1, x * 2))(np.arange(3))):
        same(g, w)
    same(gc.function(lambda x: two(x)[1])(np.arange(3)), np.arange(3) * 2)
    pf = gnp.frompyfunc(lambda x, y: x * y + 1, 2, 1)
    assert (pf.nin, pf.nout, pf.nargs) == (2, 1, 3)
    same(pf(np.arange(3), 2), np.array(np.frompyfunc(
        lambda x, y: x * y + 1, 2, 1)(np.arange(3), 2).tolist()))
    same(gc.function(lambda x: pf(x, 2))(np.arange(3)), np.arange(3) * 2 + 1)


UFUNC_CASES = ["add", "subtract", "multiply", "maximum", "minimum", "logical_and",
               "logical_or", "bitwise_xor", "fmax", "hypot", "floor_divide"]


@pytest.mark.parametrize("name", UFUNC_CASES)
def test_ufunc_reduce_accumulate(name):
    assert isinstance(getattr(gnp, name), gnp.ufunc)
    a = np.array([[3, 1, 4, 1], [5, 9, 2, 6], [5, 3, 5, 8]], np.int32)
    if name in ("hypot", "fmax"):
        a = a.astype(np.float64) / 2
    u, nu = getattr(gnp, name), getattr(np, name)
    assert (u.nin, u.nout, u.nargs, u.identity) == (nu.nin, nu.nout, nu.nargs, nu.identity)
    for kw in ({}, {"axis": 1}, {"axis": None}, {"axis": (0, 1)}, {"keepdims": True},
               {"axis": 1, "initial": 2}, {"dtype": np.float64}):
        try:
            want = nu.reduce(a, **kw)
        except (ValueError, TypeError) as e:
            with pytest.raises(type(e)):
                u.reduce(a, **kw)
            continue
        got = u.reduce(a, **kw)
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-15)
        assert got.dtype == np.asarray(want).dtype, kw
        traced = gc.function(lambda x, kw=kw: u.reduce(x, **kw))(a)
        np.testing.assert_allclose(traced.numpy(), want, rtol=1e-15)
    for axis in (0, 1, -1):
        want = nu.accumulate(a, axis=axis)
        same(u.accumulate(a, axis=axis), want)
        same(gc.function(lambda x, axis=axis: u.accumulate(x, axis=axis))(a), want)


def test_ufunc_type_and_at():
    assert isinstance(gnp.exp, gnp.ufunc) and not isinstance(np.exp, gnp.ufunc)
    assert not isinstance(len, gnp.ufunc)
    with pytest.raises(TypeError):
        gnp.ufunc()
    with pytest.raises(ValueError, match="no identity"):
        gnp.subtract.reduce(np.zeros((0, 2)))
    same(gnp.subtract.reduce(np.zeros((0, 2)), initial=1.0),
         np.subtract.reduce(np.zeros((0, 2)), initial=1.0))
    same(gnp.add.reduce(np.array([100, 100], np.int8)),
         np.add.reduce(np.array([100, 100], np.int8)))
    for name, b in (("add", 1.5), ("multiply", np.array([2.0, 3.0, 4.0])),
                    ("negative", None)):
        t, want = gnp.arange(5.0), np.arange(5.0)
        args = () if b is None else (b,)
        assert getattr(gnp, name).at(t, np.array([0, 0, 3]), *args) is None
        getattr(np, name).at(want, np.array([0, 0, 3]), *args)
        same(t, want)
    arr = np.zeros(3)
    gnp.add.at(arr, gnp.asarray([1, 1]), 2.0)
    same(arr, np.array([0.0, 4.0, 0.0]))
    with pytest.raises(NotImplementedError, match="traced"):
        gc.function(lambda x: gnp.add.at(x, [0], 1.0))(np.zeros(2))
    out = gnp.zeros(2)
    assert gnp.add.reduce(np.ones((3, 2)), out=out) is out
    same(out, np.full(2, 3.0))


def test_ufunc_reduce_gradient():
    x = gnp.asarray(np.array([[1.0, 2.0], [3.0, 4.0]]))
    with gc.GradientTape() as tape:
        tape.watch(x)
        y = (gnp.sum(gnp.subtract.reduce(x, axis=1)) + gnp.sum(gnp.maximum.accumulate(x))
             + gnp.sum(gnp.multiply.reduce(x)))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(),
                               np.array([[1 + 1 + 3, -1 + 1 + 4], [1 + 1 + 1, -1 + 1 + 2]]))
