"""gnp.histogramdd and gnp.histogram2d against NumPy (exact: float64 counts and edges),
eagerly and inside gc.function (traced data, bins and range known), compiled, with
gradients (weights) and batching; hypothesis properties; NumPy's errors."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import graphc as gc
import graphc.numpy as gnp
from graphc.runtime.cpu import numba_cpu, runners

RNG = np.random.default_rng(7)


def same(got, want):
    want = np.asarray(want)
    assert isinstance(got, gc.Tensor), type(got)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_array_equal(got.numpy(), want)


def same_dd(got, want):
    same(got[0], want[0])
    assert len(got[1]) == len(want[1])
    for g, w in zip(got[1], want[1]):
        same(g, w)


def same_2d(got, want):
    for g, w in zip(got, want):
        same(g, w)


X, Y = RNG.normal(size=30), RNG.integers(-2, 5, 30)
W = RNG.uniform(size=30)
S3 = RNG.uniform(-1, 2, size=(25, 3)).astype(np.float32)

CASES_2D = [
    {}, {"bins": 4}, {"bins": [3, 5]}, {"bins": [-1.0, 0.0, 0.5, 2.0]},
    {"bins": [3, [-2, 0, 1, 4]]}, {"bins": 1},
    {"range": [[-1, 1], [0, 3]]}, {"bins": [2, 3], "range": [[-1.5, 1.0], [-2, 4]]},
    {"weights": W}, {"density": True}, {"bins": [4, 2], "density": True, "weights": W},
    {"bins": [-3.0, -1.0, 0.0, 4.0], "density": True},
]


@pytest.mark.parametrize("kw", CASES_2D)
def test_histogram2d_matches_numpy(kw):
    want = np.histogram2d(X, Y, **kw)
    same_2d(gnp.histogram2d(X, Y, **kw), want)
    same_2d(gc.function(lambda x, y: gnp.histogram2d(x, y, **kw))(X, Y), want)


CASES_DD = [
    {}, {"bins": (2, 3, 4)}, {"bins": 5, "density": True},
    {"bins": [3, [0.0, 0.5, 1.0], 2]}, {"range": [(-1, 2), None, (0.0, 1.0)]},
    {"bins": (2, 2, 3), "weights": W[:25]}, {"bins": 2, "weights": W[:25], "density": True},
]


@pytest.mark.parametrize("kw", CASES_DD)
def test_histogramdd_matches_numpy(kw):
    want = np.histogramdd(S3, **kw)
    same_dd(gnp.histogramdd(S3, **kw), want)
    same_dd(gc.function(lambda s: gnp.histogramdd(s, **kw))(S3), want)


def test_sample_forms_and_dtypes():
    # a sequence of coordinate vectors, a 1-D sample (D = 1), ints, a list of lists
    same_dd(gnp.histogramdd([X, Y], bins=3), np.histogramdd([X, Y], bins=3))
    same_dd(gnp.histogramdd(X), np.histogramdd(X))
    same_dd(gnp.histogramdd(Y, bins=4), np.histogramdd(Y, bins=4))
    same_dd(gnp.histogramdd([[1, 2, 3], [4, 4, 4]]), np.histogramdd([[1, 2, 3], [4, 4, 4]]))
    same_dd(gnp.histogramdd(gnp.asarray(S3), bins=2), np.histogramdd(S3, bins=2))
    same_dd(gnp.histogramdd([gnp.asarray(X), gnp.asarray(Y)], bins=3),
            np.histogramdd([X, Y], bins=3))
    # empty data: NumPy's [0, 1] range
    e = np.zeros((0, 2))
    same_dd(gnp.histogramdd(e, bins=2), np.histogramdd(e, bins=2))
    # values on the last edge count in the last bin; NaN and outside values are dropped
    v = np.array([0.0, 1.0, 1.0, 0.5, np.nan, 2.0, -1.0])
    kw = {"bins": [[0.0, 0.5, 1.0]] * 2}
    same_2d(gnp.histogram2d(v, v[::-1], **kw), np.histogram2d(v, v[::-1], **kw))
    # equal ends are widened by 0.5; float32 data gives float32 edges
    c = np.full(4, 3.0, np.float32)
    same_2d(gnp.histogram2d(c, c, 2), np.histogram2d(c, c, 2))


def test_traced_unknown_length():
    f = gc.function(lambda x, y: gnp.histogram2d(x, y, bins=[3, 4], weights=x * 0 + 1.5),
                    input_signature=[gc.TensorSpec([None], gc.float64)] * 2)
    for n in (1, 5, 30):
        same_2d(f(X[:n], X[::-1][:n]),
                np.histogram2d(X[:n], X[::-1][:n], bins=[3, 4], weights=np.full(n, 1.5)))


def test_errors():
    with pytest.raises(ValueError, match="dimension of bins"):
        gnp.histogramdd(S3, bins=[2, 3])
    with pytest.raises(ValueError, match="one entry per dimension"):
        gnp.histogramdd(S3, range=[(0, 1)])
    with pytest.raises(ValueError, match="must be positive"):
        gnp.histogram2d(X, Y, bins=[0, 2])
    with pytest.raises(TypeError, match="must be an integer"):
        gnp.histogram2d(X, Y, bins=[2.5, 2])
    with pytest.raises(ValueError, match="monotonically increasing"):
        gnp.histogram2d(X, Y, bins=[[0, 2, 1], 2])
    with pytest.raises(ValueError, match="scalar or 1d array"):
        gnp.histogramdd(S3, bins=[2, 2, [[0, 1]]])
    with pytest.raises(ValueError, match="max must be larger than min"):
        gnp.histogram2d(X, Y, range=[[1, 0], [0, 1]])
    with pytest.raises(ValueError, match="not finite"):
        gnp.histogram2d(X, Y, range=[[0, np.inf], [0, 1]])
    with pytest.raises(ValueError, match="autodetected range"):
        gnp.histogram2d(np.array([0.0, np.inf]), np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match="one length"):
        gnp.histogram2d(X, Y[:5])
    with pytest.raises(NotImplementedError, match="complex"):
        gnp.histogramdd(np.ones((2, 2), np.complex128))
    with pytest.raises(TypeError, match="known while tracing"):
        gc.function(lambda x, b: gnp.histogram2d(x, x, bins=b))(X, gnp.asarray(3))


# --------------------------------------------------------------------------- properties
floats = st.floats(-4, 4, width=64) | st.sampled_from([0.0, 0.5, 1.0, -1.0, 2.0])


@settings(max_examples=25, deadline=None)
@given(data=hnp.arrays(np.float64, st.tuples(st.integers(0, 10), st.integers(1, 3)),
                       elements=floats),
       bins=st.integers(1, 4), ranged=st.booleans(), density=st.booleans())
def test_histogramdd_property(data, bins, ranged, density):
    d = data.shape[1]
    rng = [(-1.0, 2.0)] * d if ranged else None
    if density and (data.size == 0 or (ranged and not ((data >= -1) & (data <= 2)).all(1).any())):
        density = False  # NumPy divides 0 by 0 there (a warning and NaN)
    want = np.histogramdd(data, bins, rng, density)
    same_dd(gnp.histogramdd(data, bins, rng, density), want)
    same_dd(gc.function(lambda s: gnp.histogramdd(s, bins, rng, density))(data), want)


@settings(max_examples=25, deadline=None)
@given(x=hnp.arrays(np.float64, 8, elements=floats), y=hnp.arrays(np.float64, 8, elements=floats),
       w=hnp.arrays(np.float64, 8, elements=st.floats(0, 2, width=64)))
def test_histogram2d_edges_property(x, y, w):
    xe, ye = np.unique(np.round(x, 1)), np.unique(np.round(y, 1))
    want = np.histogram2d(x, y, [xe, ye], weights=w)
    same_2d(gnp.histogram2d(x, y, [xe, ye], weights=w), want)


# --------------------------------------------------------------------------- transforms
def test_gradient_of_weighted_counts():
    scale = RNG.normal(size=(3, 2))

    def loss(w, lib):
        return lib.sum(lib.histogram2d(X, Y, bins=[3, 2], weights=w)[0] * scale)

    w0 = W.copy()
    with gc.GradientTape() as tape:
        w = gnp.asarray(w0)
        tape.watch(w)
        y = loss(w, gnp)
    eps = 1e-6
    want = np.array([(loss(w0 + eps * e, np) - loss(w0 - eps * e, np)) / (2 * eps)
                     for e in np.eye(w0.size)])
    np.testing.assert_allclose(tape.gradient(y, w).numpy(), want, rtol=1e-6, atol=1e-9)


def test_vectorized():
    xs, ys = RNG.normal(size=(3, 12)), RNG.normal(size=(3, 12))
    with warnings.catch_warnings():  # the scatter-add has no batching rule: a loop
        warnings.simplefilter("ignore")
        got = gc.vectorized_map(lambda xy: gnp.histogram2d(xy[0], xy[1], [2, 3],
                                                           range=[[-2, 2], [-2, 2]])[0],
                                (xs, ys))
    same(got, np.stack([np.histogram2d(a, b, [2, 3], range=[[-2, 2], [-2, 2]])[0]
                        for a, b in zip(xs, ys)]))


def test_compiled(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHC_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(numba_cpu.settings, "mode", "eager")
    monkeypatch.setattr(numba_cpu.settings, "worker", False)

    @gc.function(jit_compile=True)
    def f(x, y, w):
        return (gnp.histogram2d(x, y, [3, 4], weights=w),
                gnp.histogram2d(x, y, [[-1.0, 0.0, 1.0], 2], range=[None, [0, 3]]))

    with monkeypatch.context() as mp:  # no interpreter fallback
        mp.setattr(runners, "run_graph", lambda *x: pytest.fail("ran on the interpreter"))
        got = f(X, Y, W)
    assert f.get_concrete_function(X, Y, W).runtime.backend == "numba"
    same_2d(got[0], np.histogram2d(X, Y, [3, 4], weights=W))
    same_2d(got[1], np.histogram2d(X, Y, [[-1.0, 0.0, 1.0], 2], range=[None, [0, 3]]))
