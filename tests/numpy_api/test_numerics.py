"""graphc/ops/numerics.py, products.py and closeness.py against NumPy: ``gradient``,
``trapezoid``, ``interp``, ``unwrap``, ``ediff1d``, ``convolve``/``correlate`` (every
mode and length order), ``cross``, ``vecdot``/``matvec``/``vecmat``, ``kron``,
``isclose``/``allclose``/``array_equal``/``array_equiv``: values, dtypes, errors,
eagerly, traced, compiled, with gradients and batching."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import graphc as gc
import graphc.numpy as gnp
from graphc.runtime.cpu import numba_cpu, runners

RNG = np.random.default_rng(2)
F = RNG.normal(size=(4, 5))
FI = RNG.integers(-9, 9, size=(5, 6))
XS = np.cumsum(RNG.uniform(0.5, 1.5, size=6))
XP = np.array([0.0, 1.0, 1.0, 2.5, 4.0])
FP = np.array([1.0, 2.0, 3.0, -1.0, 0.0])
X = np.array([-1, 0, 0.5, 1, 1.2, 2.5, 3.9, 4, 5, np.nan])


def check(got, want, rtol=1e-13):
    if isinstance(want, tuple | list):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            check(g, w, rtol)
        return
    got = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
    want = np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype,
                                                                 got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-14, equal_nan=True)


@pytest.mark.parametrize("arr", [F, FI, F.astype(np.float32)], ids=["f64", "int", "f32"])
def test_gradient_trapezoid_unwrap_ediff1d(arr):
    rtol = 1e-5 if arr.dtype == np.float32 else 1e-13
    n1 = arr.shape[1]
    for eo in (1, 2):
        check(gnp.gradient(arr, edge_order=eo), np.gradient(arr, edge_order=eo), rtol)
        check(gnp.gradient(arr, 0.5, axis=1, edge_order=eo),
              np.gradient(arr, 0.5, axis=1, edge_order=eo), rtol)
        check(gnp.gradient(arr, 2.0, XS[:n1], edge_order=eo),
              np.gradient(arr, 2.0, XS[:n1], edge_order=eo), rtol)
        check(gnp.gradient(arr, np.arange(arr.shape[0]) * 3, axis=0, edge_order=eo),
              np.gradient(arr, np.arange(arr.shape[0]) * 3, axis=0, edge_order=eo), rtol)
    check(gnp.trapezoid(arr), np.trapezoid(arr), rtol)
    check(gnp.trapezoid(arr, dx=0.3, axis=0), np.trapezoid(arr, dx=0.3, axis=0), rtol)
    check(gnp.trapezoid(arr, XS[:n1]), np.trapezoid(arr, XS[:n1]), rtol)
    check(gnp.ediff1d(arr, to_begin=[1], to_end=[7, 8]), np.ediff1d(arr, to_begin=[1],
                                                                    to_end=[7, 8]))
    check(gnp.unwrap(arr * 4), np.unwrap(arr * 4), rtol)
    check(gnp.unwrap(arr * 4, axis=0, discont=1.0), np.unwrap(arr * 4, axis=0, discont=1.0),
          rtol)


def test_unwrap_integer_period_and_errors():
    p = np.array([0, 7, 14, 3, -9])
    for period in (5, 6):
        check(gnp.unwrap(p, period=period), np.unwrap(p, period=period))
    for fn, err in [(lambda m: m.gradient(np.array([1.0])), ValueError),
                    (lambda m: m.gradient(np.ones((2, 2)), 1, 2, 3), TypeError),
                    (lambda m: m.ediff1d(np.array([1, 2]), to_begin=[1.5]), TypeError)]:
        with pytest.raises(err):
            fn(np)
        with pytest.raises(err):
            fn(gnp)


def test_interp():
    check(gnp.interp(X, XP, FP), np.interp(X, XP, FP))
    check(gnp.interp(X, XP, FP, left=-7, right=9.0), np.interp(X, XP, FP, left=-7, right=9.0))
    check(gnp.interp(X, [1.0], [3.0]), np.interp(X, [1.0], [3.0]))
    xq = np.array([-180, -170, -185, 185, -10, -5, 0, 365])
    xpp, fpp = [190, -190, 350, -350], [5, 10, 3, 4]
    check(gnp.interp(xq, xpp, fpp, period=360), np.interp(xq, xpp, fpp, period=360))
    check(gnp.interp(np.float32(1.5), XP, FP), np.interp(np.float32(1.5), XP, FP))
    fp2 = np.array([1.0, np.inf, 3.0, 3.0, 0.0])
    with np.errstate(all="ignore"):
        check(gnp.interp(X, XP, fp2), np.interp(X, XP, fp2))
    check(gc.function(gnp.interp)(X, XP, FP), np.interp(X, XP, FP))
    with pytest.raises(ValueError, match="same length"):
        gnp.interp([1.0], [1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="empty"):
        gnp.interp([1.0], [], [])
    with pytest.raises(ValueError, match="period"):
        gnp.interp([1.0], XP, FP, period=0)


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_convolve_correlate(mode):
    for n in (1, 2, 3, 4, 6):
        for m in (1, 2, 3, 5):
            a, v = RNG.normal(size=n), RNG.normal(size=m)
            ai, vi = RNG.integers(-5, 5, size=n).astype(np.int8), RNG.integers(-5, 5, size=m)
            check(gnp.convolve(a, v, mode), np.convolve(a, v, mode))
            check(gnp.correlate(a, v, mode), np.correlate(a, v, mode))
            check(gnp.convolve(ai, vi.astype(np.int8), mode),
                  np.convolve(ai, vi.astype(np.int8), mode))
            check(gnp.correlate(ai, vi, mode), np.correlate(ai, vi, mode))
    c = np.array([1 + 2j, 3 - 1j, 0.5j])
    check(gnp.correlate(c, c[:2], mode), np.correlate(c, c[:2], mode))
    check(gnp.convolve([True, False], [True], mode), np.convolve([True, False], [True], mode))


def test_convolve_errors():
    with pytest.raises(ValueError, match="a cannot be empty"):
        gnp.convolve([], [1.0])
    with pytest.raises(ValueError, match="mode"):
        gnp.correlate([1.0], [1.0], "bad")


def test_cross():
    for sa, sb in [((3,), (3,)), ((4, 3), (3,)), ((2,), (3,)), ((3,), (2,)), ((5, 2), (5, 2)),
                   ((2, 1, 3), (4, 3))]:
        a, b = RNG.normal(size=sa), RNG.normal(size=sb)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            check(gnp.cross(a, b), np.cross(a, b))
    a, b = RNG.normal(size=(3, 4)), RNG.normal(size=(4, 3))
    check(gnp.cross(a, b, axisa=0, axisb=1, axisc=0), np.cross(a, b, axisa=0, axisb=1, axisc=0))
    i8 = np.array([1, 2, 3], np.int8)
    check(gnp.cross(i8, i8[::-1].copy()), np.cross(i8, i8[::-1].copy()))
    with pytest.warns(DeprecationWarning):
        gnp.cross([1.0, 2.0], [3.0, 4.0])
    with pytest.raises(ValueError, match="incompatible dimensions"):
        gnp.cross([1, 2, 3, 4], [1, 2, 3])


def test_vecdot_matvec_vecmat_kron():
    for x1, x2 in [(RNG.normal(size=(2, 3)), RNG.normal(size=3)),
                   (np.arange(6, dtype=np.int8).reshape(2, 3), np.arange(3, dtype=np.int8)),
                   (np.array([True, False]), np.array([True, True])),
                   (np.array([1 + 1j, 2j]), np.array([1j, 3.0]))]:
        check(gnp.vecdot(x1, x2), np.vecdot(x1, x2))
    a = RNG.normal(size=(3, 4))
    check(gnp.vecdot(a, a, axis=0), np.vecdot(a, a, axis=0))
    m, v, w = RNG.normal(size=(2, 3, 4)), RNG.normal(size=4), RNG.normal(size=3)
    check(gnp.matvec(m, v), np.matvec(m, v))
    check(gnp.vecmat(w, m), np.vecmat(w, m))
    for sa, sb in [((2, 2), (3,)), ((2,), (3, 3)), ((2, 3), (2, 2)), ((), (3,)),
                   ((2, 1, 2), (3, 2))]:
        x, y = RNG.integers(-3, 3, size=sa), RNG.normal(size=sb)
        check(gnp.kron(x, y), np.kron(x, y))


def test_closeness():
    a = np.array([1.0, np.nan, np.inf, -np.inf, 1e-9, 1.00001, 0.0], np.float32)
    b = np.array([1.0, np.nan, np.inf, np.inf, 0, 1.0, 1e-7])
    big = np.array([1, 2, -(2**63)])
    for x, y in [(a, b), (a, 1.0), (a, 1), (big, big), (1.0, 1.0000001), (a, np.nan),
                 (np.array([1, 2], np.int8), 2)]:
        for equal_nan in (False, True):
            check(gnp.isclose(x, y, equal_nan=equal_nan), np.isclose(x, y, equal_nan=equal_nan))
            got = gnp.allclose(x, y, equal_nan=equal_nan)
            assert type(got) is bool and got == np.allclose(x, y, equal_nan=equal_nan)
    for x, y, kw in [([1, 2], [1, 2], {}), ([1, 2], [1, 2, 3], {}), ([np.nan], [np.nan], {}),
                     ([np.nan], [np.nan], {"equal_nan": True})]:
        assert gnp.array_equal(x, y, **kw) is np.array_equal(x, y, **kw)
    for x, y in [([1, 2], [[1, 2], [1, 2]]), ([1, 2], [1, 3]), ([1, 2], [1, 2, 3])]:
        assert gnp.array_equiv(x, y) is np.array_equiv(x, y)

    @gc.function
    def f(x, y):
        return gnp.allclose(x, y), gnp.array_equal(x, y), gnp.isclose(x, y)

    with np.errstate(invalid="ignore"):  # inf - inf, as in NumPy's own isclose
        got = f(a.astype(np.float64), b)
    assert bool(got[0]) == np.allclose(a.astype(np.float64), b)
    assert bool(got[1]) == np.array_equal(a.astype(np.float64), b)


def test_gradients_and_batching():
    y = gnp.asarray(F)
    with gc.GradientTape() as tape:
        tape.watch(y)
        out = gnp.sum(gnp.trapezoid(y, XS[:5]) ** 2) + gnp.sum(gnp.gradient(y, axis=1) ** 2)
    g = tape.gradient(out, y).numpy()
    eps, want = 1e-6, np.zeros_like(F)
    f = lambda v: np.sum(np.trapezoid(v, XS[:5]) ** 2) + np.sum(np.gradient(v, axis=1) ** 2)  # noqa: E731
    for idx in np.ndindex(F.shape):
        d = np.zeros_like(F)
        d[idx] = eps
        want[idx] = (f(F + d) - f(F - d)) / (2 * eps)
    np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-8)
    check(gc.vectorized_map(lambda r: gnp.convolve(r, np.array([1.0, -2.0, 0.5]), "same"), F),
          np.stack([np.convolve(r, [1.0, -2.0, 0.5], "same") for r in F]))


def test_compiled(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHC_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(numba_cpu.settings, "mode", "eager")
    monkeypatch.setattr(numba_cpu.settings, "worker", False)

    @gc.function(jit_compile=True)
    def f(a, x, c):
        return (gnp.gradient(a, x[:5], axis=1), gnp.interp(c, XP, FP), gnp.trapezoid(a),
                gnp.unwrap(a * 5), gnp.convolve(a[0], a[1], "full"), gnp.cross(a[:, :3], a[0, :3]),
                gnp.kron(a[:2, :2], a[0]), gnp.isclose(a, 0.5))

    with monkeypatch.context() as mp:
        mp.setattr(runners, "run_graph", lambda *a: pytest.fail("ran on the interpreter"))
        got = f(F, XS, X)
    assert f.get_concrete_function(F, XS, X).runtime.backend == "numba"
    check(got, (np.gradient(F, XS[:5], axis=1), np.interp(X, XP, FP), np.trapezoid(F),
                np.unwrap(F * 5), np.convolve(F[0], F[1], "full"), np.cross(F[:, :3], F[0, :3]),
                np.kron(F[:2, :2], F[0]), np.isclose(F, 0.5)))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(-50, 50), min_size=2, max_size=8),
       st.lists(st.floats(-50, 50), min_size=1, max_size=4),
       st.sampled_from(["full", "same", "valid"]))
def test_convolve_property(a, v, mode):
    got = gnp.convolve(a, v, mode).numpy()  # sums in another order: cancellation-sized error
    np.testing.assert_allclose(got, np.convolve(a, v, mode), rtol=1e-12, atol=1e-9)
