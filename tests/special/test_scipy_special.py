"""``graphc.scipy.special`` (jax.scipy.special's names) against SciPy computed by hand,
eagerly and inside ``gc.function`` on the interpreter; dtype rules; JAX's conventions
where they differ from SciPy's; errors; the list's coverage."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest
import scipy.special as sp

import graphc as gc
import graphc.scipy.special as gsp

X = np.array([-3.2, -1.5, -0.4, 0.0, 0.3, 1.7, 4.5])
P = np.array([1e-6, 0.05, 0.3, 0.5, 0.81, 0.999])
POS = np.array([0.2, 0.9, 1.5, 3.25, 8.0])

UNARY = [  # (graphc name, reference, input)
    ("erf", sp.erf, X), ("erfc", sp.erfc, X), ("erfinv", sp.erfinv, 2 * P - 1),
    ("ndtri", sp.ndtri, P), ("ndtr", sp.ndtr, X), ("log_ndtr", sp.log_ndtr, X),
    ("gammaln", sp.gammaln, POS), ("gamma", sp.gamma, X[X != 0]),
    ("digamma", sp.digamma, X[X != 0]), ("i0", sp.i0, X), ("i0e", sp.i0e, X),
    ("i1", sp.i1, X), ("i1e", sp.i1e, X), ("expit", sp.expit, X), ("logit", sp.logit, P),
    ("entr", sp.entr, np.concatenate([X, POS])),
]


def _both(fn, *args):
    """``fn`` eagerly and in a gc.function run by the interpreter."""
    eager = fn(*args)
    traced = gc.function(fn, backend="numpy")(*args)
    return [np.asarray(eager.numpy()), np.asarray(traced.numpy())]


@pytest.mark.parametrize("name,ref,x", UNARY, ids=[u[0] for u in UNARY])
def test_unary_matches_scipy(name, ref, x):
    for got in _both(getattr(gsp, name), x):
        np.testing.assert_allclose(got, ref(x), rtol=1e-13, atol=1e-300)


BINARY = [
    ("xlogy", sp.xlogy, np.array([0.5, 2.0, 1.0]), np.array([3.0, 0.25, 1e-300])),
    ("xlog1py", sp.xlog1py, np.array([0.5, 2.0, 1.0]), np.array([3.0, -0.5, 1e-20])),
    ("gammainc", sp.gammainc, POS, POS[::-1]), ("gammaincc", sp.gammaincc, POS, POS[::-1]),
    ("zeta", sp.zeta, POS + 1.5, POS), ("rel_entr", sp.rel_entr, P, P[::-1]),
    ("kl_div", sp.kl_div, P, P[::-1]), ("betaln", sp.betaln, POS, POS[::-1]),
]


@pytest.mark.parametrize("name,ref,x,y", BINARY, ids=[b[0] for b in BINARY])
def test_binary_matches_scipy(name, ref, x, y):
    for got in _both(getattr(gsp, name), x, y):
        np.testing.assert_allclose(got, ref(x, y), rtol=1e-13)


def test_polygamma_betainc_factorial_multigammaln():
    n = np.array([0, 1, 2, 3, 4])
    np.testing.assert_allclose(gsp.polygamma(n, POS).numpy(), sp.polygamma(n, POS),
                               rtol=1e-13)
    x = np.array([0.1, 0.5, 0.9])
    np.testing.assert_allclose(gsp.betainc(np.array([0.5, 2.0, 3.0]), 2.5, x).numpy(),
                               sp.betainc([0.5, 2.0, 3.0], 2.5, x), rtol=1e-13)
    np.testing.assert_allclose(gsp.factorial(np.array([-1.0, 0.0, 3.0, 4.5])).numpy(),
                               [0.0, 1.0, 6.0, sp.gamma(5.5)], rtol=1e-14)
    np.testing.assert_allclose(gsp.multigammaln(np.array([2.5, 7.0]), 3).numpy(),
                               sp.multigammaln(np.array([2.5, 7.0]), 3), rtol=1e-13)


def test_jax_conventions_where_scipy_differs():
    # x == 0 gives 0 whatever y (SciPy: NaN for a NaN y)
    assert gsp.xlogy(0.0, np.nan).numpy() == 0.0
    assert gsp.xlog1py(0.0, np.nan).numpy() == 0.0
    # rel_entr / kl_div: inf outside the domain, NaN included
    assert gsp.rel_entr(np.nan, 1.0).numpy() == np.inf
    assert gsp.kl_div(1.0, -1.0).numpy() == np.inf
    assert gsp.kl_div(0.0, 2.0).numpy() == 2.0
    assert np.isnan(gsp.entr(np.nan).numpy()) and gsp.entr(-1.0).numpy() == -np.inf


def test_extreme_tails():
    x = np.array([-1e3, -100.0, -40.0, -30.5, -29.5, 5.0, 30.0])
    # the upper tail rounds x/sqrt2 before erfc: about x^2 ulp there
    np.testing.assert_allclose(gsp.log_ndtr(x).numpy(), sp.log_ndtr(x), rtol=1e-12)
    p = np.array([1e-300, 1e-20, 1 - 1e-12])
    np.testing.assert_allclose(gsp.ndtri(p).numpy(), sp.ndtri(p), rtol=1e-14)
    assert gsp.erfinv(np.array([1.0, -1.0, 1.5])).numpy().tolist()[:2] == [np.inf, -np.inf]


def test_logsumexp_softmax():
    a = np.array([[1.0, 2.0, -np.inf], [1000.0, 999.0, 0.5]])
    b = np.array([[1.0, -2.0, 1.0], [0.5, 1.0, 2.0]])
    np.testing.assert_allclose(gsp.logsumexp(a).numpy(), sp.logsumexp(a), rtol=1e-14)
    np.testing.assert_allclose(gsp.logsumexp(a, axis=1, keepdims=True).numpy(),
                               sp.logsumexp(a, axis=1, keepdims=True), rtol=1e-14)
    got, sign = gsp.logsumexp(a, axis=1, b=b, return_sign=True)
    want, wsign = sp.logsumexp(a, axis=1, b=b, return_sign=True)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-14)
    np.testing.assert_array_equal(sign.numpy(), wsign)
    for axis in (None, 0, 1, (0, 1)):
        np.testing.assert_allclose(gsp.softmax(a, axis=axis).numpy(),
                                   sp.softmax(a, axis=axis), rtol=1e-14, atol=1e-300)
        np.testing.assert_allclose(gsp.log_softmax(a[:, :2], axis=axis).numpy(),
                                   sp.log_softmax(a[:, :2], axis=axis), rtol=1e-14)


def test_dtypes():
    f32 = np.array([0.5, 1.5], np.float32)
    for name in ("erf", "erfc", "gammaln", "digamma", "i0e", "ndtr", "log_ndtr", "expit"):
        assert getattr(gsp, name)(f32).dtype == np.float32, name
    assert gsp.erf(np.array([1, 2], np.int32)).dtype == np.float64
    assert gsp.polygamma(np.array([1, 2]), f32).dtype == np.float32
    assert gsp.zeta(f32 + 2, 1.0).dtype == np.float32  # a Python float is weak
    with pytest.raises(TypeError, match="real"):
        gsp.digamma(np.array([1j]))


def test_errors():
    with pytest.raises(TypeError, match="q is required"):
        gsp.zeta(2.0)
    with pytest.raises(NotImplementedError, match="exact=True"):
        gsp.factorial(3, exact=True)
    with pytest.raises(ValueError, match="positive int"):
        gsp.multigammaln(3.0, 0)
    with pytest.raises(ValueError, match="out of bounds"):
        gsp.softmax(np.ones(3), axis=2)


def test_coverage_of_the_list():
    root = pathlib.Path(__file__).resolve().parents[3] / "shared" / "api_targets"
    lines = (root / "jax.scipy.special.txt").read_text().splitlines()[1:]
    missing = [n for n in lines if n and not hasattr(gsp, n)]
    assert missing == []
    assert gc.scipy.special is gsp
    for n in lines:
        assert getattr(gsp, n).__doc__, n
