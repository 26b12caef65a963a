"""The compiled scalar helpers of the special functions
(graphc/runtime/numba_helpers_special.py) against SciPy, value by value: grids over each
function's range, tails, and the edge values (NaN, infinities, signed zeros, poles),
then one ``jit_compile=True`` program of every compiled special op against SciPy."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sp

import graphc as gc
import graphc.scipy.special as gsp
from graphc.runtime import numba_helpers_special as H

RNG = np.random.default_rng(7)
EDGES = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 2.0, -2.5, 0.5])


def _apply(fn, *xs):
    xs = np.broadcast_arrays(*[np.asarray(x, np.float64) for x in xs])
    return np.array([fn(*vals) for vals in zip(*[x.ravel() for x in xs])]).reshape(
        xs[0].shape)


def _close(got, want, rtol, atol=0.0):
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)


def test_ndtri_to_a_few_ulp():
    p = np.concatenate([RNG.uniform(0, 1, 400), 10.0 ** RNG.uniform(-300, 0, 100),
                        1 - 10.0 ** RNG.uniform(-16, 0, 60), 0.5 + RNG.uniform(-1e-6, 1e-6, 20)])
    _close(_apply(H.ndtri, p), sp.ndtri(p), 2e-15)


def test_erfinv_to_a_few_ulp_including_the_tails():
    y = np.concatenate([RNG.uniform(-1, 1, 400), 1 - 10.0 ** RNG.uniform(-16, 0, 60),
                        10.0 ** RNG.uniform(-300, 0, 60)])
    _close(_apply(H.erfinv, y), sp.erfinv(y), 2e-15)


def test_digamma_to_1e13():
    x = np.concatenate([RNG.uniform(0, 30, 400), 10.0 ** RNG.uniform(-300, 8, 100),
                        RNG.uniform(-20, 0, 200)])
    # near its roots digamma is small: the reflection's cancellation is measured absolutely
    _close(_apply(H.digamma, x), sp.digamma(x), 1e-13, atol=1e-13)
    pos = x[x > 0]
    _close(_apply(H.digamma, pos), sp.digamma(pos), 1e-13)


def test_zeta_and_polygamma():
    s = np.concatenate([RNG.uniform(1.001, 40, 300), [2, 3, 4, 60, 200]])
    q = np.concatenate([RNG.uniform(0.01, 50, 300), [0.5, 1, 1e-3, 2, 3]])
    _close(_apply(H.zeta, s, q), sp.zeta(s, q), 1e-14)
    # integral exponents allow negative bases
    si, qn = np.array([2.0, 3.0, 4.0]), np.array([-1.5, -2.25, -0.5])
    _close(_apply(H.zeta, si, qn), sp.zeta(si, qn), 1e-13)
    n = RNG.integers(0, 6, 300).astype(np.float64)
    x = RNG.uniform(0.05, 30, 300)
    _close(_apply(H.polygamma, n, x), sp.polygamma(n, x), 1e-13)


@pytest.mark.parametrize("name,ref", [("bessel_i0", sp.i0), ("bessel_i0e", sp.i0e),
                                      ("bessel_i1", sp.i1), ("bessel_i1e", sp.i1e)])
def test_bessel(name, ref):
    x = np.concatenate([RNG.uniform(-60, 60, 400), 10.0 ** RNG.uniform(-10, 2.8, 100),
                        [700.0, 705.0, -705.0, 1e5]])
    _close(_apply(getattr(H, name), x), ref(x), 1e-14)


@pytest.mark.parametrize("name,ref", [
    ("ndtri", sp.ndtri), ("erfinv", sp.erfinv), ("digamma", sp.digamma),
    ("bessel_i0", sp.i0), ("bessel_i0e", sp.i0e), ("bessel_i1", sp.i1),
    ("bessel_i1e", sp.i1e), ("gamma", sp.gamma)])
def test_edge_values_match_scipy(name, ref):
    with np.errstate(all="ignore"):
        want = ref(EDGES)
    got = _apply(getattr(H, name), EDGES)
    _close(got, want, 1e-15)
    assert (np.isnan(got) == np.isnan(want)).all()


def test_two_argument_edge_values_match_scipy():
    a, b = np.meshgrid(EDGES, EDGES)
    with np.errstate(all="ignore"):
        _close(_apply(H.zeta, a, b), sp.zeta(a, b), 1e-15)
        _close(_apply(H.polygamma, np.abs(a), b), sp.polygamma(np.abs(a), b), 1e-15)


def test_lgamma_follows_c_at_minus_infinity():
    """TensorFlow, JAX and C give inf there; SciPy gives -inf (the op's ref fixes it)."""
    assert H.lgamma(-np.inf) == np.inf
    assert gsp.gammaln(np.array([-np.inf, -1.0, 0.5])).numpy().tolist() == [
        np.inf, np.inf, float(sp.gammaln(0.5))]


def test_compiled_program_matches_scipy():
    """Every compiled special op in one jit_compile=True program, float64 and float32."""
    @gc.function(jit_compile=True)
    def f(x, p, n):
        return (gsp.erfc(x), gsp.erfinv(p * 2 - 1), gsp.ndtri(p), gsp.gammaln(x),
                gsp.gamma(x), gsp.digamma(x), gsp.polygamma(n, x + 3),
                gsp.zeta(x + 3, p + 1), gsp.i0(x), gsp.i0e(x), gsp.i1(x), gsp.i1e(x),
                gc.math.erf(x))

    refs = (sp.erfc, lambda p: sp.erfinv(p * 2 - 1), sp.ndtri, sp.gammaln, sp.gamma,
            sp.digamma, None, None, sp.i0, sp.i0e, sp.i1, sp.i1e, sp.erf)
    for dtype, rtol in ((np.float64, 1e-13), (np.float32, 2e-6)):
        x = np.array([-2.5, -0.75, 0.3, 1.5, 4.0, 12.0], dtype)
        p = np.array([1e-3, 0.1, 0.4, 0.5, 0.8, 0.999], dtype)
        n = np.array([0, 1, 2, 3, 1, 0], np.int32)
        outs = f(x, p, n)
        for k, (got, ref) in enumerate(zip(outs, refs)):
            assert got.dtype == dtype, k
            if ref is None:
                continue
            arg = p if k in (1, 2) else x
            want = ref(arg.astype(np.float64))
            _close(got.numpy(), want.astype(dtype), rtol)
        _close(outs[6].numpy(), sp.polygamma(n, x.astype(np.float64) + 3).astype(dtype), rtol)
        _close(outs[7].numpy(), sp.zeta(x.astype(np.float64) + 3,
                                        p.astype(np.float64) + 1).astype(dtype), rtol)
