"""The NaN-ignoring reductions and the other reductions of graphc/ops/nan_reductions.py
against NumPy: values, dtypes, axes and ``keepdims``, NumPy's warnings for all-NaN
slices and its errors, eagerly, traced, compiled, with gradients and batching."""

import warnings

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.errors import InvalidArgumentError
from graphc.runtime.cpu import numba_cpu, runners

A = np.array([[1.0, np.nan, 3.0], [2.0, 7.0, np.nan], [4.0, 5.0, -1.0]], np.float32)
ALL_NAN = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan]])
I8 = np.array([[1, 2, 3], [4, -5, 6]], np.int8)
REDUCTIONS = "nansum nanprod nanmax nanmin nanmean nanvar nanstd count_nonzero ptp".split()
AXES = [None, 0, 1, -1, (0, 1)]


def check(got, want, rtol=1e-6):
    if isinstance(want, tuple):
        for g, w in zip(got, want):
            check(g, w, rtol)
        return
    got = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
    want = np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype,
                                                                 got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("name", REDUCTIONS)
def test_reductions(name, axis, keepdims):
    for x in (A, I8, A.astype(np.float64)):
        fn = getattr(gnp, name)
        check(fn(x, axis=axis, keepdims=keepdims), getattr(np, name)(x, axis=axis,
                                                                      keepdims=keepdims))
    check(gc.function(lambda x: fn(x, axis=axis, keepdims=keepdims))(A),
          getattr(np, name)(A, axis=axis, keepdims=keepdims))


@pytest.mark.parametrize("name", ["nanargmax", "nanargmin", "nancumsum", "nancumprod"])
def test_arg_and_scan(name):
    for x in (A, I8):
        for axis in (None, 0, 1):
            check(getattr(gnp, name)(x, axis=axis), getattr(np, name)(x, axis=axis))
    check(gnp.nanargmax(A, axis=1, keepdims=True), np.nanargmax(A, axis=1, keepdims=True))
    check(gnp.nanvar(A, axis=1, ddof=1), np.nanvar(A, axis=1, ddof=1))
    check(gnp.nansum(A, dtype=np.float64), np.nansum(A, dtype=np.float64))


@pytest.mark.parametrize("name, message", [
    ("nanmax", "All-NaN slice encountered"), ("nanmin", "All-NaN slice encountered"),
    ("nanmean", "Mean of empty slice"), ("nanvar", "Degrees of freedom <= 0 for slice."),
    ("nanstd", "Degrees of freedom <= 0 for slice.")])
def test_all_nan_warnings(name, message):
    with pytest.warns(RuntimeWarning, match=message):
        got = getattr(gnp, name)(ALL_NAN, axis=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(got, getattr(np, name)(ALL_NAN, axis=1))
        check(gc.function(lambda x: getattr(gnp, name)(x, axis=1))(ALL_NAN),
              getattr(np, name)(ALL_NAN, axis=1))


def test_nanargmax_all_nan_raises():
    with pytest.raises(ValueError, match="All-NaN slice encountered"):
        gnp.nanargmax(ALL_NAN, axis=1)
    f = gc.function(lambda x: gnp.nanargmin(x, axis=1))
    check(f(A), np.nanargmin(A, axis=1))
    with pytest.raises(InvalidArgumentError, match="All-NaN slice"):
        f(ALL_NAN.astype(np.float32))


def test_average():
    x, w = np.arange(6.0).reshape(2, 3), np.array([1, 2, 3.0])
    check(gnp.average(x, axis=1, weights=w, returned=True),
          np.average(x, axis=1, weights=w, returned=True))
    check(gnp.average(x, axis=1, weights=w, keepdims=True),
          np.average(x, axis=1, weights=w, keepdims=True))
    check(gnp.average(x, returned=True), np.average(x, returned=True))
    check(gnp.average(I8, axis=0, returned=True), np.average(I8, axis=0, returned=True))
    check(gnp.average(I8, weights=I8), np.average(I8, weights=I8))
    x3 = x.reshape(1, 2, 3)
    check(gnp.average(x3, axis=(2, 1), weights=x.T), np.average(x3, axis=(2, 1), weights=x.T))
    check(gc.function(lambda a, b: gnp.average(a, axis=1, weights=b))(x, w),
          np.average(x, axis=1, weights=w))
    with pytest.raises(ZeroDivisionError, match="Weights sum to zero"):
        gnp.average(x, weights=[0, 0, 0.0], axis=1)
    with pytest.raises(TypeError, match="Axis must be specified"):
        gnp.average(x, weights=w)
    with pytest.raises(ValueError, match="Shape of weights"):
        gnp.average(x, weights=[1, 2.0], axis=1)


@pytest.mark.parametrize("name", ["cumulative_sum", "cumulative_prod"])
def test_cumulative(name):
    fn, ref = getattr(gnp, name), getattr(np, name)
    check(fn(I8, axis=1, include_initial=True), ref(I8, axis=1, include_initial=True))
    check(fn(I8, axis=0), ref(I8, axis=0))
    check(fn(I8[0], include_initial=True, dtype=np.float32),
          ref(I8[0], include_initial=True, dtype=np.float32))
    check(fn(np.array(5.0)), ref(np.array(5.0)))
    with pytest.raises(ValueError, match="axis"):
        fn(I8)


def test_gradients():
    x = np.array([[1.0, np.nan, 3.0], [2.0, 7.0, -0.5]])
    t = gnp.asarray(x)
    with gc.GradientTape() as tape:
        tape.watch(t)
        out = gnp.sum(gnp.nanmean(t, axis=1) + gnp.nanstd(t, axis=1) + gnp.nanmax(t, axis=1))
    g = tape.gradient(out, t).numpy()
    eps, want = 1e-6, np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        if np.isnan(x[idx]):
            continue
        d = np.zeros_like(x)
        d[idx] = eps
        f = lambda v: np.sum(np.nanmean(v, 1) + np.nanstd(v, 1) + np.nanmax(v, 1))  # noqa: E731
        want[idx] = (f(x + d) - f(x - d)) / (2 * eps)
    np.testing.assert_allclose(np.nan_to_num(g), want, rtol=1e-6, atol=1e-8)


def test_vectorized_and_compiled(tmp_path, monkeypatch):
    batch = np.stack([A, A[::-1]]).astype(np.float64)
    check(gc.vectorized_map(lambda r: gnp.nanmean(r, axis=0), batch),
          np.nanmean(batch, axis=1))
    monkeypatch.setenv("GRAPHC_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(numba_cpu.settings, "mode", "eager")
    monkeypatch.setattr(numba_cpu.settings, "worker", False)

    @gc.function(jit_compile=True)
    def f(x):
        return (gnp.nansum(x, axis=0), gnp.nanmax(x, axis=1), gnp.nanvar(x, axis=0),
                gnp.nancumprod(x, axis=1), gnp.ptp(x, axis=0), gnp.count_nonzero(x))

    with monkeypatch.context() as mp:
        mp.setattr(runners, "run_graph", lambda *a: pytest.fail("ran on the interpreter"))
        got = f(A)
    assert f.get_concrete_function(A).runtime.backend == "numba"
    check(got, (np.nansum(A, 0), np.nanmax(A, 1), np.nanvar(A, 0), np.nancumprod(A, 1),
                np.ptp(A, 0), np.count_nonzero(A)))
