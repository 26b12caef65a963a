"""``gnp.histogram``/``histogram_bin_edges``/``bincount``/``digitize``/``searchsorted``
against NumPy, exactly (counts, edges, bin choice on the edges): eagerly, traced (data of
unknown length too), compiled, with gradients (weights) and batching; hypothesis
properties. NPBench's azimint: ``np.histogram(radius, npt)[0]`` and its weighted twin."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import graphc as gc
import graphc.numpy as gnp
from graphc.runtime.cpu import numba_cpu, runners

RNG = np.random.default_rng(1)


def same(got, want):
    got = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
    want = np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
    np.testing.assert_array_equal(got, want)


def close(got, want):
    got = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
    want = np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
    np.testing.assert_allclose(got, want, rtol=1e-6 if want.dtype == np.float32 else 1e-12)


# --------------------------------------------------------------------------- searchsorted
SORTED = [np.array([1.0, 2, 2, 3, 5]), np.array([1, 2, np.nan]), np.array([], float),
          np.array([3]), np.arange(16), np.arange(17) * 0.5, np.array([1, 2], np.int8)]
VALUES = [np.array([0.0, 1, 2, 2.5, 5, 6, np.nan]), np.array(2), np.array([[1, 3], [-1, 300]]),
          3.0, np.array([], float)]


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("v", VALUES)
@pytest.mark.parametrize("a", SORTED)
def test_searchsorted_matches_numpy(a, v, side):
    want = np.searchsorted(a, v, side)
    same(gnp.searchsorted(a, v, side), want)
    same(gc.function(lambda a, v: gnp.searchsorted(a, v, side))(a, v), want)
    unknown = gc.function(lambda a, v: gnp.searchsorted(a, v, side), input_signature=[
        gc.TensorSpec([None], a.dtype), gc.TensorSpec(np.shape(v), np.asarray(v).dtype)])
    same(unknown(a, v), want)


def test_searchsorted_sorter_and_errors():
    a = np.array([3, 1, 2, 7, 0])
    order = np.argsort(a)
    same(gnp.searchsorted(a, [2, 0, 5, 9], sorter=order),
         np.searchsorted(a, [2, 0, 5, 9], sorter=order))
    with pytest.raises(ValueError, match="sorter.size must equal a.size"):
        gnp.searchsorted(a, 1, sorter=[0, 1])
    with pytest.raises(ValueError, match="search side must be 'left' or 'right'"):
        gnp.searchsorted(a, 1, side="middle")
    with pytest.raises(ValueError, match="1-D"):
        gnp.searchsorted(np.ones((2, 2)), 1)


# --------------------------------------------------------------------------- digitize
BINS = [np.array([1, 2, 3]), np.array([3, 2, 2, 1]), np.array([1, 1, 1]), np.array([1.0, np.nan]),
        np.array([np.nan, 1.0]), np.array([2, 1, np.nan]), np.array([1, 2, np.nan]),
        np.array([], float), np.array([5])]


@pytest.mark.parametrize("right", [False, True])
@pytest.mark.parametrize("bins", BINS)
def test_digitize_matches_numpy(bins, right):
    for x in (np.array([0, 1, 1.5, 2, 3, 4, np.nan]), np.array(2.0)):
        want = np.digitize(x, bins, right)
        same(gnp.digitize(x, bins, right), want)
        same(gc.function(lambda x, b: gnp.digitize(x, b, right))(x, bins), want)  # traced bins
        same(gc.function(lambda x: gnp.digitize(x, bins, right))(x), want)  # constant bins


def test_digitize_errors():
    with pytest.raises(ValueError, match="monotonically increasing or decreasing"):
        gnp.digitize([1, 2], [1, 3, 2])
    with pytest.raises(TypeError, match="x may not be complex"):
        gnp.digitize([1j], [1, 2])


# --------------------------------------------------------------------------- bincount
BINCOUNT_CASES = [
    (np.array([0, 1, 1, 3, 2, 1, 7]), {}), (np.array([0, 1, 1, 3]), {"minlength": 8}),
    (np.array([], int), {}), (np.array([], int), {"minlength": 3}),
    (np.array([0, 1, 1, 3]), {"weights": np.array([0.5, 1, 2, 3])}),
    (np.array([True, False, True]), {}),
    (np.array([0, 1, 1, 3], np.uint8), {"weights": [1, 2, 3, 4]}),
    (np.array([2, 2], np.int32), {"weights": np.float32([0.25, 0.5]), "minlength": 1}),
]


@pytest.mark.parametrize("x, kwargs", BINCOUNT_CASES)
def test_bincount_matches_numpy(x, kwargs):
    want = np.bincount(x, **kwargs)
    same(gnp.bincount(x, **kwargs), want)
    same(gc.function(lambda: gnp.bincount(x, **kwargs))(), want)  # x known while tracing
    n = len(want)
    same(gc.function(lambda x: gnp.bincount(x, **kwargs, length=n))(x), want)


def test_bincount_length_drops_values_past_it():
    f = gc.function(lambda x: gnp.bincount(x, length=3))
    same(f(np.array([0, 5, 2, 2, 3])), np.array([1, 0, 2]))


def test_bincount_errors():
    with pytest.raises(ValueError, match="no negative elements"):
        gnp.bincount([1, -1])
    with pytest.raises(ValueError, match="'minlength' must not be negative"):
        gnp.bincount([1], minlength=-1)
    with pytest.raises(TypeError, match="according to the rule 'safe'"):
        gnp.bincount([1.0, 2.0])
    with pytest.raises(ValueError, match="too deep"):
        gnp.bincount([[1]])
    with pytest.raises(ValueError, match="same length"):
        gnp.bincount([1, 2], weights=[1.0])
    with pytest.raises(ValueError, match="length=N"):  # NumPy's length is a data value
        gc.function(lambda x: gnp.bincount(x))(np.array([1, 2]))


# --------------------------------------------------------------------------- histogram
DATA = [RNG.normal(size=40), RNG.normal(size=(4, 5)).astype(np.float32),
        RNG.integers(-5, 9, 30), np.array([3.0, 3, 3]), np.array([], float),
        np.array([1, 2, 3], np.uint8), np.arange(1, 11) / 10, np.array([7], np.int8),
        np.array([np.iinfo(np.int64).min, np.iinfo(np.int64).max]),
        np.array([2 ** 60, 2 ** 60 + 1])]
HIST_BINS = [10, 3, 1, [0, 0.5, 1, 2.5], np.array([-1, 0, 1], np.int64)]
RANGES = [None, (0, 1), (-1.5, 2.5), (0.0, 0.0)]


def _weights(kind, shape):
    if kind is None:
        return None
    w = RNG.uniform(size=shape)
    return {"f64": w, "f32": w.astype(np.float32), "int": (w * 5).astype(np.int64)}[kind]


@pytest.mark.parametrize("wkind", [None, "f64", "int"])
@pytest.mark.parametrize("rng", RANGES)
@pytest.mark.parametrize("bins", HIST_BINS)
@pytest.mark.parametrize("a", DATA)
def test_histogram_matches_numpy(a, bins, rng, wkind):
    w = _weights(wkind, a.shape)
    kwargs = dict(bins=bins, range=rng, weights=w)
    try:
        want = np.histogram(a, **kwargs)
    except ValueError as e:  # NumPy's error, word for word
        with pytest.raises(ValueError) as got:
            gnp.histogram(a, **kwargs)
        assert str(got.value) == str(e)
        return
    # given edges with weights: NumPy sums sorted weights, its sort is not stable
    check = close if w is not None and np.ndim(bins) == 1 and w.dtype.kind == "f" else same
    for got in (gnp.histogram(a, **kwargs),
                gc.function(lambda a, w: gnp.histogram(a, bins, rng, weights=w))(a, w)):
        assert isinstance(got, tuple) and len(got) == 2
        check(got[0], want[0])
        same(got[1], want[1])
    same(gnp.histogram_bin_edges(a, bins, rng, weights=w), np.histogram_bin_edges(a, **kwargs))


@pytest.mark.parametrize("bins", [5, [-2.0, 0.0, 0.5, 3.0]])
def test_histogram_density(bins):
    a, w = RNG.normal(size=30), RNG.uniform(size=30)
    for kwargs in ({}, {"weights": w}, {"range": (-1, 1)}):
        want = np.histogram(a, bins, density=True, **kwargs)
        got = gnp.histogram(a, bins, density=True, **kwargs)
        close(got[0], want[0])
        traced = gc.function(lambda a: gnp.histogram(a, bins, density=True, **kwargs))(a)
        close(traced[0], want[0])


def test_histogram_npbench_azimint():
    radius, data = RNG.uniform(0, 10, 500), RNG.normal(size=500)

    @gc.function
    def azimint_hist(data, radius, npt):
        histu = gnp.histogram(radius, npt)[0]
        histw = gnp.histogram(radius, npt, weights=data)[0]
        return histw / histu

    same(azimint_hist(data, radius, 20),
         np.histogram(radius, 20, weights=data)[0] / np.histogram(radius, 20)[0])


def test_histogram_weighted_blocks_as_numpy():
    """Past 65536 values NumPy adds weights per block; the sums agree to the bit."""
    a, w = RNG.normal(size=140_000), RNG.uniform(size=140_000)
    for weights in (w, w.astype(np.float32)):
        want = np.histogram(a, 37, weights=weights)
        same(gnp.histogram(a, 37, weights=weights)[0], want[0])
        same(gc.function(lambda a, w: gnp.histogram(a, 37, weights=w))(a, weights)[0], want[0])


def test_histogram_unknown_length():
    f = gc.function(lambda a, w: gnp.histogram(a, 4, weights=w), input_signature=[
        gc.TensorSpec([None], np.float64), gc.TensorSpec([None], np.float64)])
    for n in (1, 5, 17):
        a, w = RNG.normal(size=n), RNG.uniform(size=n)
        want = np.histogram(a, 4, weights=w)
        got = f(a, w)
        same(got[0], want[0])
        same(got[1], want[1])


def test_histogram_named_bins():
    a = RNG.normal(size=100)
    for name in ("auto", "fd", "sturges"):
        want = np.histogram(a, name)
        got = gnp.histogram(a, name)
        same(got[0], want[0])
        same(got[1], want[1])
        same(gnp.histogram_bin_edges(a, name, range=(0, 1)),
             np.histogram_bin_edges(a, name, range=(0, 1)))
    with pytest.raises(TypeError, match="pass the number of bins"):
        gc.function(lambda x: gnp.histogram(x, "auto"))(a)


def test_histogram_of_booleans_warns_as_numpy():
    b = np.array([True, False, True, True])
    with pytest.warns(RuntimeWarning, match="Converting input from bool"):
        got = gnp.histogram(b, 3)
    with pytest.warns(RuntimeWarning, match="Converting input from bool"):
        want = np.histogram(b, 3)
    same(got[0], want[0])
    same(got[1], want[1])


def test_histogram_errors():
    a = np.array([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="max must be larger than min"):
        gnp.histogram(a, range=(2, 1))
    with pytest.raises(ValueError, match="supplied range of"):
        gnp.histogram(a, range=(0, np.inf))
    with pytest.raises(ValueError, match="autodetected range of"):
        gnp.histogram(np.array([1.0, np.nan]))
    with pytest.raises(ValueError, match="must be positive"):
        gnp.histogram(a, 0)
    with pytest.raises(TypeError, match="an integer, a string, or an array"):
        gnp.histogram(a, 2.5)
    with pytest.raises(ValueError, match="increase monotonically"):
        gnp.histogram(a, [0, 2, 1])
    with pytest.raises(ValueError, match="1d"):
        gnp.histogram(a, [[0, 1]])
    with pytest.raises(ValueError, match="Too many bins"):
        gnp.histogram(np.array([1.0, 1.0 + 2e-16 * 4]), 100)
    with pytest.raises(ValueError, match="same shape"):
        gnp.histogram(a, weights=[1.0, 2.0])
    with pytest.raises(TypeError, match="not supported for weighted data"):
        gnp.histogram(a, "auto", weights=a)
    with pytest.raises(ValueError, match="not a valid estimator"):
        gnp.histogram(a, "nope")
    with pytest.raises(TypeError, match="known while tracing"):
        gc.function(lambda x, lo: gnp.histogram(x, 3, range=(lo, 4.0)))(a, gnp.asarray(0.0))


# --------------------------------------------------------------------------- properties
floats = st.floats(-4, 4, width=64) | st.sampled_from([0.0, 0.5, 1.0, -1.0, 2.0])


@settings(max_examples=30, deadline=None)
@given(a=hnp.arrays(np.float64, st.integers(0, 12), elements=floats),
       bins=st.integers(1, 6),
       rng=st.none() | st.tuples(st.sampled_from([-1.0, 0.0, 0.5]),
                                 st.sampled_from([0.5, 1.0, 3.0])))
def test_histogram_property(a, bins, rng):
    want = np.histogram(a, bins, rng)
    for got in (gnp.histogram(a, bins, rng),
                gc.function(lambda x: gnp.histogram(x, bins, rng))(a)):
        same(got[0], want[0])
        same(got[1], want[1])
    if a.size:
        sorted_edges = np.unique(np.round(a, 1))
        same(gnp.histogram(a, sorted_edges)[0], np.histogram(a, sorted_edges)[0])


@settings(max_examples=30, deadline=None)
@given(a=hnp.arrays(np.float64, st.integers(0, 9), elements=floats | st.just(np.nan)),
       v=hnp.arrays(np.float64, st.integers(0, 6), elements=floats | st.just(np.nan)),
       right=st.booleans(), decreasing=st.booleans())
def test_searchsorted_and_digitize_property(a, v, right, decreasing):
    a = np.sort(a)
    side = "right" if right else "left"
    same(gnp.searchsorted(a, v, side), np.searchsorted(a, v, side))
    bins = a[~np.isnan(a)]
    bins = bins[::-1] if decreasing else bins
    same(gnp.digitize(v, bins, right), np.digitize(v, bins, right))


# --------------------------------------------------------------------------- transforms
def _numeric_grad(f, x, eps=1e-6):
    return np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(x.size)])


@pytest.mark.parametrize("bins", [3, [-3.0, 0.0, 0.5, 3.0]])
def test_gradient_of_weighted_counts(bins):
    a, w0 = RNG.normal(size=8), RNG.uniform(size=8)
    scale = np.array([1.0, -2.0, 3.0])

    def loss(w, lib):
        return lib.sum(lib.histogram(a, bins, weights=w)[0] * scale) + \
            lib.sum(lib.bincount(np.arange(8) % 3, weights=w) ** 2)

    def grad(w):
        with gc.GradientTape() as tape:
            tape.watch(w)
            y = loss(w, gnp)
        return tape.gradient(y, w)

    want = _numeric_grad(lambda w: loss(w, np), w0)
    np.testing.assert_allclose(grad(gnp.asarray(w0)).numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(gc.function(grad)(w0).numpy(), want, rtol=1e-6)


def test_vectorized():
    a, w = RNG.normal(size=(3, 20)), RNG.uniform(size=(3, 20))
    with warnings.catch_warnings():  # the scatter-add has no batching rule: a loop
        warnings.simplefilter("ignore")
        close(gc.vectorized_map(lambda aw: gnp.histogram(aw[0], 5, weights=aw[1])[0], (a, w)),
              np.stack([np.histogram(x, 5, weights=y)[0] for x, y in zip(a, w)]))
        same(gc.vectorized_map(lambda x: gnp.histogram(x, [-1, 0, 1.5])[0], a),
             np.stack([np.histogram(x, [-1, 0, 1.5])[0] for x in a]))
    s = np.sort(a, axis=1)
    same(gc.vectorized_map(lambda x: gnp.searchsorted(x, np.array([-1.0, 0, 1])), s),
         np.stack([np.searchsorted(x, [-1.0, 0, 1]) for x in s]))
    same(gc.vectorized_map(lambda x: gnp.digitize(x, np.array([-1.0, 0, 1])), a),
         np.stack([np.digitize(x, [-1.0, 0, 1]) for x in a]))


def test_compiled(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHC_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(numba_cpu.settings, "mode", "eager")
    monkeypatch.setattr(numba_cpu.settings, "worker", False)

    @gc.function(jit_compile=True)
    def f(a, w, edges):
        return (gnp.histogram(a, 7), gnp.histogram(a, 7, range=(-1, 1), weights=w),
                gnp.bincount(gnp.digitize(a, edges, right=True), length=5))

    a, w, edges = RNG.normal(size=50), RNG.uniform(size=50), np.array([-1.0, 0.0, 0.5, 2.0])
    with monkeypatch.context() as mp:  # no interpreter fallback
        mp.setattr(runners, "run_graph", lambda *x: pytest.fail("ran on the interpreter"))
        got = f(a, w, edges)
    assert f.get_concrete_function(a, w, edges).runtime.backend == "numba"
    for g, want in zip(got[:2], (np.histogram(a, 7), np.histogram(a, 7, range=(-1, 1), weights=w))):
        same(g[0], want[0])
        same(g[1], want[1])
    same(got[2], np.bincount(np.digitize(a, edges, right=True), minlength=5))
