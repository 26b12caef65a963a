"""``quantile``, ``percentile``, ``median`` and their ``nan*`` versions
(graphc/ops/quantiles.py) against NumPy: all 13 methods, scalar and array ``q`` (weak
Python numbers, float32 ``q``), axes and ``keepdims``, NaN handling and warnings, errors,
eagerly, traced, compiled, with gradients and batching."""

import warnings

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.ops.quantiles import METHODS
from graphc.runtime.cpu import numba_cpu, runners

RNG = np.random.default_rng(1)
DATA = [RNG.normal(size=(3, 5)), RNG.normal(size=(4, 6)).astype(np.float32),
        RNG.integers(-5, 5, size=(3, 4)).astype(np.int8)]
QS = [0.3, np.array([0.0, 0.25, 0.5, 1.0]), np.array(0.7, np.float32), 1.0, 0]
NANNY = RNG.normal(size=(4, 5))
NANNY[0, 1] = np.nan
NANNY[2, :] = np.nan
NANNY[3, [0, 2, 4]] = np.nan


def check(got, want):
    got = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
    want = np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype,
                                                                 got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=0, equal_nan=True)


@pytest.mark.parametrize("method", METHODS)
def test_quantile_methods(method):
    for x in DATA:
        for q in QS:
            for axis in (None, 0, -1, (0, 1)):
                for keepdims in (False, True):
                    check(gnp.quantile(x, q, axis=axis, method=method, keepdims=keepdims),
                          np.quantile(x, q, axis=axis, method=method, keepdims=keepdims))
    f = gc.function(lambda x, q: gnp.quantile(x, q, axis=1, method=method))
    check(f(DATA[0], QS[1]), np.quantile(DATA[0], QS[1], axis=1, method=method))


@pytest.mark.parametrize("method", METHODS)
def test_nan_versions(method):
    y = NANNY.copy()
    y[2, :] = 1.0
    for axis in (0, 1):
        check(gnp.nanquantile(y, [0.1, 0.5, 0.9], axis=axis, method=method),
              np.nanquantile(y, [0.1, 0.5, 0.9], axis=axis, method=method))
    check(gnp.quantile(NANNY, 0.4, axis=1, method=method),
          np.quantile(NANNY, 0.4, axis=1, method=method))
    check(gnp.nanpercentile(y, 30, axis=0, keepdims=True, method=method),
          np.nanpercentile(y, 30, axis=0, keepdims=True, method=method))


def test_median_and_percentile():
    for x in DATA:
        for axis in (None, 0, -1):
            check(gnp.median(x, axis=axis), np.median(x, axis=axis))
            check(gnp.percentile(x, [10, 50, 90], axis=axis),
                  np.percentile(x, [10, 50, 90], axis=axis))
    y = NANNY.copy()
    y[2, :] = 1.0
    check(gnp.nanmedian(y, axis=1), np.nanmedian(y, axis=1))
    check(gnp.nanmedian(y), np.nanmedian(y))
    check(gnp.median(NANNY, axis=0, keepdims=True), np.median(NANNY, axis=0, keepdims=True))
    big = np.array([1e308, 1.5e308])  # the mean of the middle two overflows, as NumPy's
    with np.errstate(over="ignore"):
        check(gnp.median(big), np.median(big))


def test_all_nan_slices_and_errors():
    with pytest.warns(RuntimeWarning, match="All-NaN slice encountered"):
        got = gnp.nanmedian(NANNY, axis=1)
    with pytest.warns(RuntimeWarning, match="All-NaN slice encountered"):
        gnp.nanquantile(NANNY, 0.5, axis=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(got, np.nanmedian(NANNY, axis=1))
        check(gc.function(lambda x: gnp.nanquantile(x, 0.3, axis=1))(NANNY),
              np.nanquantile(NANNY, 0.3, axis=1))
    with pytest.raises(ValueError, match="Quantiles must be in the range"):
        gnp.quantile(DATA[0], 1.5)
    with pytest.raises(ValueError, match="Percentiles must be in the range"):
        gnp.percentile(DATA[0], -1)
    with pytest.raises(ValueError, match="is not a valid method"):
        gnp.quantile(DATA[0], 0.5, method="bogus")
    with pytest.raises(TypeError):
        gnp.median(np.array([1j]))
    with pytest.raises(NotImplementedError):
        gnp.quantile(DATA[0], 0.5, weights=np.ones(15))


def test_traced_q_and_unknown_length():
    f = gc.function(lambda x, q: gnp.quantile(x, q, method="hazen"),
                    input_signature=[gc.TensorSpec([None], np.float64),
                                     gc.TensorSpec([], np.float64)])
    x = RNG.normal(size=7)
    check(f(x, np.float64(0.35)), np.quantile(x, np.float64(0.35), method="hazen"))


def test_gradient_and_batching():
    x = np.array([0.3, -1.7, 2.2, 0.9, 1.1])
    t = gnp.asarray(x)
    with gc.GradientTape() as tape:
        tape.watch(t)
        out = gnp.quantile(t, 0.3) + gnp.median(t)
    # 0.3 of 5 values: index 1.2, 0.8 of the 2nd smallest and 0.2 of the 3rd (the median)
    np.testing.assert_allclose(tape.gradient(out, t).numpy(), [0.8, 0, 0, 1.2, 0])
    batch = RNG.normal(size=(3, 6))
    check(gc.vectorized_map(lambda r: gnp.percentile(r, 40.0), batch),
          np.percentile(batch, 40.0, axis=1))


def test_compiled(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHC_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(numba_cpu.settings, "mode", "eager")
    monkeypatch.setattr(numba_cpu.settings, "worker", False)

    @gc.function(jit_compile=True)
    def f(x):
        return (gnp.quantile(x, [0.1, 0.9], axis=1), gnp.nanmedian(x, axis=0),
                gnp.percentile(x, 50, method="nearest"))

    y = NANNY.copy()
    y[2, :] = 1.0
    with monkeypatch.context() as mp:
        mp.setattr(runners, "run_graph", lambda *a: pytest.fail("ran on the interpreter"))
        got = f(y)
    assert f.get_concrete_function(y).runtime.backend == "numba"
    for g, w in zip(got, (np.quantile(y, [0.1, 0.9], axis=1), np.nanmedian(y, axis=0),
                          np.percentile(y, 50, method="nearest"))):
        check(g, w)
