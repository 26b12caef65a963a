"""Gradients of the special functions (rules and compositions) against central
differences of SciPy, eagerly and traced; batching (gc.vectorized_map) against a loop
over the examples; the gradients that are absent by design."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sp

import graphc as gc
import graphc.scipy.special as gsp


def _fd(ref, args, i, eps=1e-6):
    args = [np.asarray(a, np.float64) for a in args]
    up, down = list(args), list(args)
    h = eps * np.maximum(1.0, np.abs(args[i]))
    up[i], down[i] = args[i] + h, args[i] - h
    return (ref(*up) - ref(*down)) / (2 * h)


def _grad(fn, args, i, traced):
    def g(*xs):
        with gc.GradientTape() as tape:
            tape.watch(xs[i])
            y = fn(*xs)
        return tape.gradient(y, xs[i])

    xs = [gc.constant(np.asarray(a, np.float64)) for a in args]
    out = gc.function(g, backend="numpy")(*xs) if traced else g(*xs)
    return out.numpy()


CASES = [  # (graphc fn, SciPy reference, args, which argument)
    (gsp.erfinv, sp.erfinv, [np.array([-0.9, -0.2, 0.4, 0.95])], 0),
    (gsp.ndtri, sp.ndtri, [np.array([0.01, 0.3, 0.5, 0.97])], 0),
    (gsp.gammaln, sp.gammaln, [np.array([0.3, 1.5, 7.0, -2.5])], 0),
    (gsp.digamma, sp.digamma, [np.array([0.3, 1.5, 7.0, -2.5])], 0),
    (gsp.polygamma, sp.polygamma, [np.array([1, 2, 3]), np.array([0.4, 2.0, 5.0])], 1),
    (gsp.zeta, sp.zeta, [np.array([2.5, 3.0, 6.0]), np.array([0.4, 2.0, 5.0])], 0),
    (gsp.zeta, sp.zeta, [np.array([2.5, 3.0, 6.0]), np.array([0.4, 2.0, 5.0])], 1),
    (gsp.i1, sp.i1, [np.array([-3.0, 0.0, 0.5, 45.0])], 0),
    (gsp.i1e, sp.i1e, [np.array([-3.0, 0.0, 0.5, 45.0])], 0),
    (gsp.i0e, sp.i0e, [np.array([-3.0, 0.25, 45.0])], 0),
    (gsp.gammainc, sp.gammainc, [np.array([0.5, 2.0, 9.0]), np.array([0.3, 2.5, 7.0])], 0),
    (gsp.gammaincc, sp.gammaincc, [np.array([0.5, 2.0, 9.0]), np.array([0.3, 2.5, 7.0])], 1),
    (gsp.betainc, sp.betainc, [np.array([0.5, 2.0]), np.array([3.0, 1.5]),
                               np.array([0.2, 0.7])], 0),
    (gsp.betainc, sp.betainc, [np.array([0.5, 2.0]), np.array([3.0, 1.5]),
                               np.array([0.2, 0.7])], 1),
    (gsp.betainc, sp.betainc, [np.array([0.5, 2.0]), np.array([3.0, 1.5]),
                               np.array([0.2, 0.7])], 2),
    (gsp.log_ndtr, sp.log_ndtr, [np.array([-45.0, -3.0, 0.5, 6.0])], 0),
    (gsp.xlogy, sp.xlogy, [np.array([0.5, 2.0]), np.array([3.0, 0.25])], 1),
    (gsp.entr, sp.entr, [np.array([0.2, 0.7, 3.0])], 0),
    (gsp.kl_div, sp.kl_div, [np.array([0.2, 0.7]), np.array([0.4, 0.1])], 1),
    (gc.math.erfcinv, sp.erfcinv, [np.array([0.05, 0.7, 1.6])], 0),
    (gc.math.lbeta, lambda x: np.sum(sp.gammaln(x), -1) - sp.gammaln(np.sum(x, -1)),
     [np.array([[0.5, 2.0, 3.0], [1.5, 1.5, 4.0]])], 0),
]


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("k", range(len(CASES)))
def test_gradient_matches_finite_differences(k, traced):
    fn, ref, args, i = CASES[k]
    got = _grad(fn, args, i, traced)
    if fn is not gc.math.lbeta:
        want = _fd(ref, args, i)
    else:  # a reduction: finite differences element by element
        want = np.zeros_like(np.asarray(args[i], np.float64))
        for idx in np.ndindex(want.shape):
            def one(v, idx=idx):
                a = [np.array(x, np.float64) for x in args]
                a[i][idx] = v
                return np.sum(ref(*a))
            x0 = float(args[i][idx])
            h = 1e-6 * max(1.0, abs(x0))
            want[idx] = (one(x0 + h) - one(x0 - h)) / (2 * h)
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-9)


def test_conventional_zeros_have_finite_gradients():
    """Where a value is 0 by convention the other branch runs on a safe stand-in."""
    x = gc.constant(np.array([0.0, 0.5]))
    y = gc.constant(np.array([0.0, 2.0]))
    with gc.GradientTape(persistent=True) as tape:
        tape.watch([x, y])
        out = gsp.xlogy(x, y) + gsp.entr(x)
    gx, gy = tape.gradient(out, [x, y])
    assert np.isfinite(gy.numpy()).all() and gy.numpy()[0] == 0.0
    assert np.isnan(gx.numpy()[0]) or np.isfinite(gx.numpy()[0])


def test_polygamma_order_has_no_gradient():
    n, x = gc.constant(np.array([1.0, 2.0])), gc.constant(np.array([0.5, 3.0]))
    with gc.GradientTape() as tape:
        tape.watch(n)
        y = gsp.polygamma(n, x)
    assert tape.gradient(y, n) is None


@pytest.mark.parametrize("fn,args", [
    (gsp.erfinv, [np.array([[-0.5, 0.1], [0.3, 0.9], [0.0, -0.99]])]),
    (gsp.zeta, [np.array([[2.0, 3.5], [4.0, 2.5], [6.0, 7.0]]), np.array([0.5, 2.0])]),
    (gsp.gammainc, [np.array([[0.5, 2.0], [1.0, 4.0], [3.0, 3.0]]), np.array([1.0, 2.0])]),
    (gsp.i1e, [np.array([[-1.0, 2.0], [0.0, 50.0], [3.0, -4.0]])]),
    (gsp.log_ndtr, [np.array([[-40.0, 2.0], [0.0, 5.0], [-1.0, -31.0]])]),
])
def test_vectorized_map_matches_a_loop(fn, args):
    batched = gc.vectorized_map(lambda t: fn(t, *args[1:]), gc.constant(args[0]))
    loop = np.stack([fn(row, *args[1:]).numpy() for row in args[0]])
    np.testing.assert_allclose(batched.numpy(), loop, rtol=1e-15)
