"""``gnp``'s windows, ranges, polynomials, apply helpers, bit packing and einsum_path
against NumPy (``graphc/ops/windows.py``, ``polynomials.py``, ``array_apply.py``)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import graphc as gc
import graphc.numpy as gnp
from graphc.runtime.cpu import numba_cpu, runners


def close(got, want, rtol=1e-13):
    if isinstance(want, list | tuple):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            close(g, w, rtol)
        return
    got = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
    want = np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-12)


@pytest.mark.parametrize("M", [-1, 0, 1, 2, 5, 8, 5.0])
def test_windows(M):
    for name in ("bartlett", "blackman", "hamming", "hanning"):
        close(getattr(gnp, name)(M), getattr(np, name)(M), 1e-15)
    for beta in (0, 1.5, 8.6, 14, 40.0):
        close(gnp.kaiser(M, beta), np.kaiser(M, beta))
    close(gc.function(lambda b: gnp.kaiser(7, b))(np.float64(5.0)), np.kaiser(7, 5.0))


LOGS = [((0, 3, 7), {}), ((1.0, 2.0, 5), {"endpoint": False}),
        ((np.array([0.0, 1.0]), 3.0, 4), {"axis": 1}),
        ((2, [3, 4], 3), {"base": [2.0, 3.0], "axis": -1}), ((0, 2, 3), {"dtype": int}),
        ((np.float32(0), np.float32(1), 4), {}), ((0, 1, 1), {}), ((0, 1, 0), {})]


@pytest.mark.parametrize("args, kw", LOGS, ids=range(len(LOGS)))
def test_logspace(args, kw):
    close(gnp.logspace(*args, **kw), np.logspace(*args, **kw), 1e-14)


GEOMS = [((1, 1000, 4), {}), ((1, 1000, 4), {"dtype": int}), ((-1, -1000, 4), {}),
         ((2, 3, 5), {"endpoint": False}),
         ((np.array([1.0, 10.0]), np.array([1000.0, 100.0]), 3), {"axis": 1}),
         ((np.float32(1), 8, 4), {}), ((1, 8, 1), {}), ((1, 8, 0), {})]


@pytest.mark.parametrize("args, kw", GEOMS, ids=range(len(GEOMS)))
def test_geomspace(args, kw):
    want = np.geomspace(*args, **kw)
    close(gnp.geomspace(*args, **kw), want, 1e-14)
    f = gc.function(lambda a: gnp.geomspace(a, *args[1:], **kw))
    close(f(np.asarray(args[0])), want, 1e-14)


def test_range_errors():
    with pytest.raises(ValueError, match="cannot include zero"):
        gnp.geomspace(0, 1)
    with pytest.raises(ValueError, match="cannot include zero"):  # checked in the graph
        gc.function(lambda a: gnp.geomspace(a, 1.0, 3))(np.float64(0))
    with pytest.raises(ValueError, match="non-negative"):
        gnp.logspace(0, 1, -1)


@pytest.mark.parametrize("x, N, inc", [([1, 2, 3], None, False),
                                       (np.array([1.5, -2.0, np.inf]), 4, True),
                                       ([True, False], 3, False), (np.arange(3), 0, False),
                                       (np.float32([2, 3]), 5, False)], ids=range(5))
def test_vander(x, N, inc):
    close(gnp.vander(x, N, inc), np.vander(x, N, inc), 0)
    close(gc.function(lambda v: gnp.vander(v, N, inc))(np.asarray(x)), np.vander(x, N, inc), 0)


P1, P2 = np.array([1, -3, 2]), np.array([2.0, 0, 1, 5])


@pytest.mark.parametrize("name", ["polyadd", "polysub", "polymul"])
def test_poly_arithmetic(name):
    for a, b in [(P1, P2), (P2, P1), (P1, P1), ([3], P1)]:
        want = getattr(np, name)(a, b)
        close(getattr(gnp, name)(a, b), want, 1e-15)
        f = gc.function(lambda u, v: getattr(gnp, name)(u, v))
        close(f(np.asarray(a), np.asarray(b)), want)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(-5, 5), min_size=1, max_size=5),
       st.lists(st.integers(-5, 5), min_size=1, max_size=5))
def test_polymul_property(a, b):
    close(gnp.polymul(a, b), np.polymul(a, b))


@pytest.mark.parametrize("m", [0, 1, 2, 5])
def test_polyder_polyint(m):
    close(gnp.polyder(P2, m), np.polyder(P2, m))
    close(gnp.polyder(P1, m), np.polyder(P1, m))
    for k in (None, 3.0, [1.0, 2.0, 3.0, 4.0, 5.0]):
        close(gnp.polyint(P1, m, k), np.polyint(P1, m, k), 1e-15)
    with pytest.raises(ValueError, match="must be positive"):
        gnp.polyder(P1, -1)
    with pytest.raises(ValueError, match="length 1 or >m"):
        gnp.polyint(P1, 3, [1.0, 2.0])


def test_polyval():
    for x in (np.array([0.5, -1, 2]), 3, np.arange(3)):
        close(gnp.polyval(P2, x), np.polyval(P2, x), 0)
        close(gnp.polyval(P1, x), np.polyval(P1, x), 0)
        close(gc.function(gnp.polyval)(P2, np.asarray(x)), np.polyval(P2, x), 0)


@pytest.mark.parametrize("u, v", [(P2, P1), ([1.0, 2, 3, 4, 1], [1, 1]), (P1, P2),
                                  ([1, -3, 2], [1, -1]), (np.polymul([1, 2], [1, 3]), [1, 3])],
                         ids=range(5))
def test_polydiv(u, v):
    want = np.polydiv(u, v)
    close(gnp.polydiv(u, v), want, 1e-14)
    close(gc.function(gnp.polydiv)(np.asarray(u), np.asarray(v)), want, 1e-14)


@pytest.mark.parametrize("z", [[1, 2, 3], np.float32([0.5, 2]), [], [1 + 1j, 1 - 1j], [1j, 2],
                               np.array([[1.0, 2], [3, 4]]), np.array([[0.0, -1], [1, 0]])],
                         ids=range(7))
def test_poly(z):
    close(gnp.poly(z), np.poly(z), 1e-12)


@pytest.mark.parametrize("p", [[1, -3, 2], [1, 0, 1], [0, 0, 1, -1, 0, 0], [0, 0], [5],
                               [1.0, 2, 3, 4], [1j, 2]], ids=str)
def test_roots(p):
    got, want = gnp.roots(p).numpy(), np.roots(p)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(np.sort_complex(got), np.sort_complex(want), rtol=1e-10)
    with pytest.raises(ValueError, match="call it eagerly"):
        gc.function(gnp.roots)(np.asarray(p))


XS = np.linspace(0, 1, 7)
YS = 3 * XS ** 2 - XS + 0.5 + 0.01 * np.sin(9 * XS)


@pytest.mark.parametrize("kw", [{}, {"full": True}, {"w": np.linspace(1, 2, 7)}, {"cov": True},
                                {"cov": "unscaled"}], ids=str)
def test_polyfit(kw):
    for y in (YS, np.stack([YS, 2 * YS], 1)):
        close(gnp.polyfit(XS, y, 2, **kw), np.polyfit(XS, y, 2, **kw), 1e-9)
    close(gc.function(lambda a, b: gnp.polyfit(a, b, 2))(XS, YS), np.polyfit(XS, YS, 2), 1e-9)
    with pytest.warns(np.exceptions.RankWarning):
        gnp.polyfit([0.0, 0.0, 1.0], [1.0, 2.0, 3.0], 2)
    with pytest.raises(TypeError, match="same length"):
        gnp.polyfit(XS, YS[:3], 1)


def _numeric_grad(f, x, eps=1e-6):
    return np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps)
                     for e in np.eye(x.size).reshape((x.size,) + x.shape)]).reshape(x.shape)


def test_gradients():
    pts = np.array([0.3, -1.2, 2.0])

    def loss(c, lib):
        return (lib.sum(lib.polyval(c, pts) ** 2) + lib.sum(lib.polymul(c, c[::-1]) * 0.5)
                + lib.sum(lib.polydiv(c, [1.0, 2.0])[0] ** 2)
                + lib.sum(lib.vander(c, 3) ** 2) + lib.sum(lib.polyfit(pts, c, 1) ** 2))

    c0 = np.array([0.7, -0.4, 1.3])

    def grad(c):
        with gc.GradientTape() as tape:
            tape.watch(c)
            y = loss(c, gnp)
        return tape.gradient(y, c)

    want = _numeric_grad(lambda c: loss(c, np), c0)
    np.testing.assert_allclose(grad(gnp.asarray(c0)).numpy(), want, rtol=1e-5)
    np.testing.assert_allclose(gc.function(grad)(c0).numpy(), want, rtol=1e-5)


X3 = np.arange(24.0).reshape(2, 3, 4)


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_apply_along_axis(axis):
    close(gnp.apply_along_axis(np.sum, axis, X3), np.apply_along_axis(np.sum, axis, X3), 0)
    close(gnp.apply_along_axis(lambda v: gnp.stack([v.max(), v.min()]), axis, X3),
          np.apply_along_axis(lambda v: np.stack([v.max(), v.min()]), axis, X3), 0)
    close(gnp.apply_along_axis(lambda v: np.outer(v, v), axis, X3),
          np.apply_along_axis(lambda v: np.outer(v, v), axis, X3), 0)
    close(gc.function(lambda t: gnp.apply_along_axis(lambda v: gnp.sum(v * 2), axis, t))(X3),
          np.apply_along_axis(lambda v: np.sum(v * 2), axis, X3), 0)
    with pytest.raises(ValueError, match="iteration dimensions are 0"):
        gnp.apply_along_axis(np.sum, axis, np.zeros((0, 2, 2)) if axis else np.zeros((2, 0, 2)))


def test_apply_over_axes():
    close(gnp.apply_over_axes(gnp.sum, X3, [0, 2]), np.apply_over_axes(np.sum, X3, [0, 2]), 0)
    close(gnp.apply_over_axes(lambda a, ax: gnp.sum(a, ax, keepdims=True), X3, -1),
          np.apply_over_axes(lambda a, ax: np.sum(a, ax, keepdims=True), X3, -1), 0)
    with pytest.raises(ValueError, match="correct shape"):
        gnp.apply_over_axes(lambda a, ax: gnp.sum(a), X3, 0)


BITS = np.array([[1, 0, 1, 1, 0, 0, 1, 0, 1], [0, 0, 0, 1, 1, 1, 0, 1, 1]])


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("order", ["big", "little"])
def test_packbits(axis, order):
    close(gnp.packbits(BITS, axis=axis, bitorder=order),
          np.packbits(BITS, axis=axis, bitorder=order))
    close(gc.function(lambda v: gnp.packbits(v, axis=axis, bitorder=order))(BITS.astype(bool)),
          np.packbits(BITS.astype(bool), axis=axis, bitorder=order))
    packed = np.packbits(BITS, axis=axis, bitorder=order)
    for count in ((None, 3, 20, -3, 0) if axis is None else (None,)):
        close(gnp.unpackbits(packed, axis=axis, count=count, bitorder=order),
              np.unpackbits(packed, axis=axis, count=count, bitorder=order))


def test_bits_errors():
    with pytest.raises(TypeError, match="integer or boolean"):
        gnp.packbits([1.0])
    with pytest.raises(TypeError, match="unsigned byte"):
        gnp.unpackbits(np.array([1]))
    with pytest.raises(ValueError, match="-count larger"):
        gnp.unpackbits(np.array([7], np.uint8), count=-9)
    with pytest.raises(ValueError, match="'little' or 'big'"):
        gnp.packbits([1], bitorder="middle")


@pytest.mark.parametrize("optimize", ["greedy", "optimal", True, False])
def test_einsum_path(optimize):
    a, b, c = np.ones((2, 3)), np.ones((3, 4)), np.ones((4, 5))
    want = np.einsum_path("ij,jk,kl->il", a, b, c, optimize=optimize)
    assert gnp.einsum_path("ij,jk,kl->il", gnp.asarray(a), b, c, optimize=optimize) == want
    assert gnp.einsum_path(a, [0, 1], gnp.asarray(b), [1, 2], [0, 2]) == \
        np.einsum_path(a, [0, 1], b, [1, 2], [0, 2])


def test_compiled(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHC_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(numba_cpu.settings, "mode", "eager")
    monkeypatch.setattr(numba_cpu.settings, "worker", False)

    @gc.function(jit_compile=True)
    def f(c, x, bits, beta):
        return (gnp.polyval(c, x), gnp.polymul(c, c), gnp.vander(x, 3), gnp.kaiser(6, beta),
                gnp.hanning(5), gnp.packbits(bits, axis=1), gnp.logspace(0.0, x, 3))

    args = (P2, np.array([0.5, 2.0]), BITS, np.float64(3.0))
    with monkeypatch.context() as mp:
        mp.setattr(runners, "run_graph", lambda *a: pytest.fail("ran on the interpreter"))
        got = f(*args)
    assert f.get_concrete_function(*args).runtime.backend == "numba"
    x = args[1]
    close(got, (np.polyval(P2, x), np.polymul(P2, P2), np.vander(x, 3), np.kaiser(6, 3.0),
                np.hanning(5), np.packbits(BITS, axis=1), np.logspace(0.0, x, 3)))
