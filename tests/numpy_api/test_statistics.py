"""``gnp.cov`` and ``gnp.corrcoef`` against NumPy: values and dtypes (float32 data gives
float64 unless ``dtype=``), weights, ``ddof``, eagerly, traced, compiled, with gradients
and batching (NPBench's ``np.cov(np.transpose(data))``)."""

import warnings

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.runtime.cpu import numba_cpu, runners

RNG = np.random.default_rng(0)
X = RNG.normal(size=(3, 5))
Y = RNG.normal(size=(2, 5))
INTS = RNG.integers(0, 9, size=(4, 6))
FW = np.array([1, 2, 1, 3, 1])
AW = RNG.uniform(0.1, 1, 5)


def close(got, want, rtol=1e-12):
    got = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
    want = np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-14)


COV_CASES = [
    ((X,), {}), ((X.T,), {"rowvar": False}), ((X[0],), {}), ((X, Y), {}), ((X[0], X[1]), {}),
    ((X.T, Y.T), {"rowvar": False}), ((X,), {"bias": True}), ((X,), {"ddof": 3}),
    ((X,), {"fweights": FW}), ((X,), {"aweights": AW}), ((X,), {"fweights": FW, "aweights": AW}),
    ((X,), {"fweights": FW, "aweights": AW, "ddof": 0}), ((X,), {"aweights": AW, "ddof": 2}),
    ((X,), {"fweights": FW, "bias": True}), ((INTS,), {}), ((INTS.astype(np.float32),), {}),
    ((X.astype(np.float32),), {"dtype": np.float32}), ((np.zeros((0, 3)),), {}),
    (([[1, 2, 3], [2, 4, 7]],), {}), ((X[:1],), {}),
]


@pytest.mark.parametrize("args, kwargs", COV_CASES)
def test_cov_matches_numpy(args, kwargs):
    want = np.cov(*args, **kwargs)
    rtol = 1e-6 if want.dtype == np.float32 else 1e-12
    close(gnp.cov(*args, **kwargs), want, rtol)
    close(gc.function(lambda *a: gnp.cov(*a, **kwargs))(*args), want, rtol)


@pytest.mark.parametrize("args, kwargs", [c for c in COV_CASES if not set(c[1]) - {"rowvar"}])
def test_corrcoef_matches_numpy(args, kwargs):
    want = np.corrcoef(*args, **kwargs)
    close(gnp.corrcoef(*args, **kwargs), want)
    close(gc.function(lambda *a: gnp.corrcoef(*a, **kwargs))(*args), want)


def test_corrcoef_dtype_and_constant_rows():
    x = np.array([[1.0, 2.0, 3.0], [2.0, 2.0, 2.0], [3.0, 1.0, 0.0]])
    with np.errstate(all="ignore"):
        want = np.corrcoef(x)
        close(gnp.corrcoef(x), want)  # the constant row: nan, as NumPy
        close(gnp.corrcoef(x[1]), np.corrcoef(x[1]))
    close(gnp.corrcoef(X.astype(np.float32), dtype=np.float32),
          np.corrcoef(X.astype(np.float32), dtype=np.float32), rtol=1e-6)


def test_weights_traced_and_unknown_dims():
    f = gc.function(lambda a, w: gnp.cov(a, aweights=w, ddof=2))
    close(f(X, AW), np.cov(X, aweights=AW, ddof=2))
    g = gc.function(lambda a: (gnp.cov(a), gnp.corrcoef(a), gnp.cov(a, aweights=a[0] ** 2)),
                    input_signature=[gc.TensorSpec([3, None], np.float64)])
    for x in (X, X[:, :2], X[:, :1]):
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            got, want = g(x), (np.cov(x), np.corrcoef(x), np.cov(x, aweights=x[0] ** 2))
        for gv, wv in zip(got, want):
            close(gv, wv)
    h = gc.function(gnp.cov, input_signature=[gc.TensorSpec([None, 4], np.float64)])
    with pytest.raises(ValueError, match="number of variables"):
        h(X[:, :4])


def _warnings(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn()
    return out, sorted(str(w.message) for w in caught)


def test_ddof_past_the_samples_warns_as_numpy():
    want, want_warnings = _warnings(lambda: np.cov(X, ddof=5))
    got, got_warnings = _warnings(lambda: gnp.cov(X, ddof=5))
    assert got_warnings == want_warnings
    assert "Degrees of freedom <= 0 for slice" in got_warnings
    close(got, want)
    with pytest.warns(RuntimeWarning, match="Degrees of freedom"), np.errstate(divide="ignore"):
        traced = gc.function(lambda a: gnp.cov(a, ddof=7))(X)
    with pytest.warns(RuntimeWarning, match="Degrees of freedom"), np.errstate(divide="ignore"):
        close(traced, np.cov(X, ddof=7))


def test_errors():
    with pytest.raises(ValueError, match="ddof must be integer"):
        gnp.cov(X, ddof=1.5)
    with pytest.raises(ValueError, match="m has more than 2 dimensions"):
        gnp.cov(np.ones((2, 2, 2)))
    with pytest.raises(ValueError, match="y has more than 2 dimensions"):
        gnp.cov(X, np.ones((2, 2, 2)))
    with pytest.raises(TypeError, match="fweights must be integer"):
        gnp.cov(X, fweights=[1, 2, 1.5, 1, 1])
    with pytest.raises(ValueError, match="fweights cannot be negative"):
        gnp.cov(X, fweights=[1, 2, -1, 1, 1])
    with pytest.raises(ValueError, match="aweights cannot be negative"):
        gnp.cov(X, aweights=[1, 2, -1, 1, 1])
    with pytest.raises(RuntimeError, match="incompatible numbers of samples and aweights"):
        gnp.cov(X, aweights=[1, 2])
    with pytest.raises(RuntimeError, match="cannot handle multidimensional fweights"):
        gnp.cov(X, fweights=np.ones((5, 1)))
    with pytest.raises(ZeroDivisionError, match="Weights sum to zero"):
        gnp.cov(X, aweights=np.zeros(5))
    with pytest.raises(NotImplementedError, match="complex"):
        gnp.cov(X + 1j)


def _numeric_grad(f, x, eps=1e-6):
    return np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps)
                     for e in np.eye(x.size).reshape((x.size,) + x.shape)]).reshape(x.shape)


@pytest.mark.parametrize("name, kwargs", [("cov", {}), ("cov", {"aweights": AW, "fweights": FW}),
                                          ("corrcoef", {})])
def test_gradients(name, kwargs):
    w = np.arange(9.0).reshape(3, 3) - 4

    def loss(x, lib):
        return lib.sum(getattr(lib, name)(x, **kwargs) * w)

    def grad(x):
        with gc.GradientTape() as tape:
            tape.watch(x)
            y = loss(x, gnp)
        return tape.gradient(y, x)

    want = _numeric_grad(lambda x: loss(x, np), X)
    np.testing.assert_allclose(grad(gnp.asarray(X)).numpy(), want, rtol=1e-5, atol=1e-8)
    np.testing.assert_allclose(gc.function(grad)(X).numpy(), want, rtol=1e-5, atol=1e-8)


def test_vectorized():
    batch = RNG.normal(size=(4, 3, 6))
    close(gc.vectorized_map(gnp.cov, batch), np.stack([np.cov(b) for b in batch]))
    close(gc.vectorized_map(gnp.corrcoef, batch), np.stack([np.corrcoef(b) for b in batch]))


def test_compiled(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHC_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(numba_cpu.settings, "mode", "eager")
    monkeypatch.setattr(numba_cpu.settings, "worker", False)

    @gc.function(jit_compile=True)
    def f(data):
        return gnp.cov(gnp.transpose(data)), gnp.corrcoef(data)

    with monkeypatch.context() as mp:  # no interpreter fallback
        mp.setattr(runners, "run_graph", lambda *a: pytest.fail("ran on the interpreter"))
        got = f(X)
    assert f.get_concrete_function(X).runtime.backend == "numba"
    close(got[0], np.cov(np.transpose(X)))
    close(got[1], np.corrcoef(X))
