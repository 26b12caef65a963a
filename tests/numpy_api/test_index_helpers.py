"""``gnp``'s index helpers and selection names against NumPy (``graphc/ops/index_helpers.py``,
``graphc/ops/selection.py``): eagerly, traced, the in-place writes (tensors, NumPy arrays,
traced arguments with views and write-back), compiled, gradients, errors."""

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.runtime.cpu import numba_cpu, runners

X = np.arange(12.0).reshape(3, 4)


def same(got, want):
    if isinstance(want, list | tuple):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w)
        return
    got = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
    want = np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
    np.testing.assert_array_equal(got, want)


def test_index_sets():
    same(gnp.indices((2, 3)), np.indices((2, 3)))
    same(gnp.indices((2, 3), np.int8, sparse=True), np.indices((2, 3), np.int8, sparse=True))
    same(gnp.indices(()), np.indices(()))
    same(gnp.diag_indices(3, 3), np.diag_indices(3, 3))
    same(gnp.diag_indices_from(np.zeros((2, 2, 2))), np.diag_indices_from(np.zeros((2, 2, 2))))
    for k in (-1, 0, 2):
        for m in (None, 5, 2):
            same(gnp.tril_indices(3, k, m), np.tril_indices(3, k, m))
            same(gnp.triu_indices(3, k, m), np.triu_indices(3, k, m))
        same(gnp.tril_indices_from(X, k), np.tril_indices_from(X, k))
        same(gnp.triu_indices_from(X, k), np.triu_indices_from(X, k))
        same(gnp.mask_indices(3, np.triu, k), np.mask_indices(3, np.triu, k))
        same(gnp.mask_indices(3, gnp.tril, k), np.mask_indices(3, np.tril, k))
    same(gnp.flatnonzero(X % 3), np.flatnonzero(X % 3))
    same(gc.function(gnp.flatnonzero)(X % 3), np.flatnonzero(X % 3))
    with pytest.raises(ValueError, match="equal length"):
        gnp.diag_indices_from(X)
    with pytest.raises(ValueError, match="must be 2-d"):
        gnp.triu_indices_from(np.zeros(3))


MI = (np.array([0, 2, 1]), np.array([3, 0, 1]))


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip", ("wrap", "clip")], ids=str)
@pytest.mark.parametrize("order", ["C", "F"])
def test_ravel_unravel(mode, order):
    same(gnp.ravel_multi_index(MI, (3, 4), mode, order),
         np.ravel_multi_index(MI, (3, 4), mode, order))
    far = (np.array([5, -1]), np.array([7, 2]))
    m2 = "wrap" if mode == "raise" else mode
    same(gnp.ravel_multi_index(far, (3, 4), m2, order),
         np.ravel_multi_index(far, (3, 4), m2, order))
    flat = np.array([0, 5, 11])
    same(gnp.unravel_index(flat, (3, 4), order), np.unravel_index(flat, (3, 4), order))
    same(gnp.unravel_index(7, (3, 4), order), np.unravel_index(7, (3, 4), order))
    same(gc.function(lambda f: gnp.unravel_index(f, (3, 4), order))(flat),
         np.unravel_index(flat, (3, 4), order))


def test_ravel_unravel_errors():
    f = gc.function(lambda a, b: gnp.ravel_multi_index((a, b), (3, 4)))
    same(f(*MI), np.ravel_multi_index(MI, (3, 4)))
    with pytest.raises(ValueError, match="invalid entry in coordinates array"):
        f(np.array([3]), np.array([0]))  # checked when the graph runs
    with pytest.raises(ValueError, match="invalid entry in coordinates array"):
        gnp.ravel_multi_index((np.array([3]), np.array([0])), (3, 4))
    with pytest.raises(ValueError, match="index 12 is out of bounds for array with size 12"):
        gnp.unravel_index(12, (3, 4))
    with pytest.raises(TypeError, match="only int indices"):
        gnp.unravel_index(1.0, (3, 4))
    with pytest.raises(ValueError, match="sequence of length 2"):
        gnp.ravel_multi_index((np.array([1]),), (3, 4))


def _writes(name, npfn, gfn, *args, shape=(3, 4)):
    """The write into a tensor, an ndarray and a traced argument (with a view) gives
    NumPy's contents."""
    want = np.arange(int(np.prod(shape))).reshape(shape)
    npfn(want, *args)
    t = gnp.asarray(np.arange(want.size).reshape(shape))
    view = t[1:]
    assert gfn(t, *args) is None
    same(t, want)
    same(view, want[1:])  # an eager view sees the write
    a = np.arange(want.size).reshape(shape)
    gfn(a, *args)
    same(a, want)

    def traced(v):
        part = v[1:]
        gfn(v, *args)
        return part

    b = np.arange(want.size).reshape(shape)
    same(gc.function(traced)(b), want[1:])
    same(b, want)  # argument write-back


@pytest.mark.parametrize("shape, wrap, val", [((3, 3), False, 5), ((5, 3), True, [1, 2]),
                                              ((5, 3), False, [1, 2]), ((2, 2, 2), False, 7.5),
                                              ((3, 5), False, np.arange(10))], ids=str)
def test_fill_diagonal(shape, wrap, val):
    _writes("fill_diagonal", np.fill_diagonal, gnp.fill_diagonal, val, wrap, shape=shape)


def test_place_put_putmask():
    m = np.arange(12).reshape(3, 4) % 5 == 1
    _writes("place", np.place, gnp.place, m, [10, 20.7])
    _writes("putmask", np.putmask, gnp.putmask, m, [10, 20.7, 30])
    for mode in ("raise", "wrap", "clip"):
        _writes("put", np.put, gnp.put, [0, -1, 5, 5], [7, 8, 9], mode)
    _writes("put", np.put, gnp.put, [13, -14], [7], "wrap")
    _writes("put", np.put, gnp.put, [13, -14], [7, 8], "clip")
    _writes("pala", np.put_along_axis, gnp.put_along_axis, np.array([[1], [0], [3]]), 99, 1)
    _writes("pala", np.put_along_axis, gnp.put_along_axis, np.array([[2, 0, 1, 1]]),
            np.array([[5, 6, 7, 8]]), 0)
    _writes("pala", np.put_along_axis, gnp.put_along_axis, np.array([0, 11, -1]), 5, None)


def test_write_errors():
    t = gnp.asarray(np.arange(6))
    with pytest.raises(IndexError, match="index 10 is out of bounds"):
        gnp.put(t, [10], 1)
    with pytest.raises(ValueError, match="same size"):
        gnp.putmask(t, np.array([True]), 1)
    with pytest.raises(ValueError, match="empty array"):
        gnp.place(t, t > 2, [])
    with pytest.raises(TypeError, match="ndarray"):
        gnp.put([1, 2], 0, 5)
    with pytest.raises(ValueError, match="at least 2-d"):
        gnp.fill_diagonal(t, 1)
    with pytest.raises(ValueError, match="single dimension"):
        gnp.put_along_axis(np.zeros((2, 2)), np.zeros((1, 1), int), 1, None)
    with pytest.raises(ValueError, match="read-only"):
        gnp.putmask(np.broadcast_to(np.zeros(3), (3,)), [True] * 3, 1)


CH = [np.arange(4, dtype=np.int8), 3, np.full((4, 4), 7, np.int8)]
A = np.array([[0, 1, 2, 1]]).T * np.ones((1, 4), int)


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
def test_choose(mode):
    same(gnp.choose(A, CH, mode=mode), np.choose(A, CH, mode=mode))
    same(gc.function(lambda v: gnp.choose(v, CH, mode=mode))(A), np.choose(A, CH, mode=mode))
    if mode != "raise":
        same(gnp.choose(A + 2, CH, mode=mode), np.choose(A + 2, CH, mode=mode))
    arr = np.array([[1, 2, 3], [4, 5, 6]])
    same(gnp.choose(np.array([[0], [1]]), arr), np.choose(np.array([[0], [1]]), arr))
    out = gnp.zeros((4, 4), np.int8)
    assert gnp.choose(A, CH, out=out) is out
    same(out, np.choose(A, CH))
    with pytest.raises(ValueError, match="invalid entry in choice array"):
        gnp.choose([2], [[1], [2]])
    with pytest.raises(TypeError, match="Cannot cast"):
        gnp.choose(np.array([0.5]), [[1], [2]])


@pytest.mark.parametrize("cond, axis", [([0, 1, 1], 0), ([1, 0, 0, 1], 1), ([True, False], None),
                                        ([1, 0, 1, 0, 0], -1)], ids=str)
def test_compress_extract(cond, axis):
    same(gnp.compress(cond, X, axis), np.compress(cond, X, axis))
    same(gc.function(lambda c, v: gnp.compress(c, v, axis))(np.array(cond), X),
         np.compress(cond, X, axis))
    same(gnp.extract(X % 3 == 0, X), np.extract(X % 3 == 0, X))
    same(gc.function(lambda v: gnp.extract(v % 3 == 0, v))(X), np.extract(X % 3 == 0, X))
    with pytest.raises(IndexError, match="out of bounds"):
        gnp.compress([0, 1, 0, 1], [1, 2, 3])
    with pytest.raises(ValueError, match="1-d"):
        gnp.compress([[1]], [1, 2, 3])


def test_select():
    cl, chl = [X < 3, X > 9], [X, X ** 2]
    same(gnp.select(cl, chl), np.select(cl, chl))
    same(gc.function(lambda v: gnp.select([v < 3, v > 9], [v, v ** 2], -1.0))(X),
         np.select(cl, chl, -1.0))
    c, i8 = [np.array([True, False])], [np.array([1, 2], np.int8)]
    same(gnp.select(c, i8), np.select(c, i8))  # int8: a Python default stays weak
    same(gnp.select(c, i8, 1.5), np.select(c, i8, 1.5))
    same(gnp.select(c, [1.5], np.int8(1)), np.select(c, [1.5], np.int8(1)))
    with pytest.raises(TypeError, match="invalid entry 0 in condlist"):
        gnp.select([np.array([1, 0])], [np.array([1, 2])])
    with pytest.raises(ValueError, match="empty condition list"):
        gnp.select([], [])
    with pytest.raises(ValueError, match="same length"):
        gnp.select([X > 1], [])


XS = np.linspace(-2, 2, 9)


@pytest.mark.parametrize("conds, funcs", [
    ([XS < 0, XS >= 0], [-1, 1]), ([XS < 0], [lambda v: -v, lambda v: v ** 2]),
    (XS < 0, [lambda v: v * 10, 7.0]), ([XS < -5, XS > 0], [lambda v: v, lambda v: 2 * v, 0.5]),
], ids=range(4))
def test_piecewise(conds, funcs):
    same(gnp.piecewise(XS, conds, funcs), np.piecewise(XS, conds, funcs))
    same(gc.function(lambda v: gnp.piecewise(v, conds, funcs))(XS), np.piecewise(XS, conds, funcs))


def test_piecewise_edges():
    r = np.arange(5)
    same(gnp.piecewise(r, [r > 2], [lambda v: v * 1.5]),
         np.piecewise(r, [r > 2], [lambda v: v * 1.5]))
    same(gnp.piecewise(np.float64(3), True, [lambda v: v + 1]),
         np.piecewise(np.float64(3), True, [lambda v: v + 1]))
    with pytest.raises(ValueError, match="either 2 or 3 functions"):
        gnp.piecewise(XS, [XS < 0, XS > 1], [1])


def _numeric_grad(f, x, eps=1e-6):
    return np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps)
                     for e in np.eye(x.size).reshape((x.size,) + x.shape)]).reshape(x.shape)


def test_gradients():
    def loss(x, lib):
        y = x * 1.0
        lib.fill_diagonal(y, 0.5)
        lib.putmask(y, np.eye(3, 4, 1) > 0, x[::-1] * 2)
        s = lib.select([x > 0.3, x < -0.5], [x ** 2, 3 * x], 0.1)
        return lib.sum(y ** 2) + lib.sum(s) + lib.sum(lib.choose([[0, 1, 0, 1]], [x, x ** 3]))

    x0 = np.cos(np.arange(12.0)).reshape(3, 4)

    def grad(x):
        with gc.GradientTape() as tape:
            tape.watch(x)
            y = loss(x, gnp)
        return tape.gradient(y, x)

    want = _numeric_grad(lambda x: loss(x, np), x0)
    np.testing.assert_allclose(grad(gnp.asarray(x0)).numpy(), want, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gc.function(grad)(x0).numpy(), want, rtol=1e-6, atol=1e-8)


def test_compiled(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHC_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(numba_cpu.settings, "mode", "eager")
    monkeypatch.setattr(numba_cpu.settings, "worker", False)

    @gc.function(jit_compile=True)
    def f(x, flat):  # (traced unravel_index / mode='raise' add an interpreter assert)
        y = x * 1.0
        gnp.fill_diagonal(y, -1.0)
        gnp.putmask(y, x > 8, 0.0)
        return (y, gnp.select([x < 3], [x], 9.0), gnp.choose(A[:3, :] % 2, [x, -x]),
                gnp.unravel_index(np.array([0, 5, 11]), (3, 4))[1],
                gnp.ravel_multi_index((flat % 3, flat % 4), (3, 4), "wrap"))

    flat = np.array([0, 5, 11])
    with monkeypatch.context() as mp:
        mp.setattr(runners, "run_graph", lambda *a: pytest.fail("ran on the interpreter"))
        got = f(X, flat)
    assert f.get_concrete_function(X, flat).runtime.backend == "numba"
    y = X.copy()
    np.fill_diagonal(y, -1.0)
    np.putmask(y, X > 8, 0.0)
    for g, w in zip(got, (y, np.select([X < 3], [X], 9.0), np.choose(A[:3, :] % 2, [X, -X]),
                          np.unravel_index(flat, (3, 4))[1],
                          np.ravel_multi_index((flat % 3, flat % 4), (3, 4), "wrap"))):
        same(g, w)
