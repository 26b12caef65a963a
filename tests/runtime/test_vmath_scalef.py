"""The two ways to scale by 2^n give the same bits (exp's ``vmath._scale``, log1p's
``vmath_log._unscale``).

AVX-512 machines use one ``vscalefps`` (``llvm.ldexp``), others multiply by two powers of
two; both must round once, into denormals and to inf included, so results do not depend
on the machine. Both are compiled here whatever the CPU (ldexp is a libm call without
AVX-512: slow, still exact).
"""

from __future__ import annotations

import numba
import numpy as np

from graphc.runtime import vmath as V
from graphc.runtime import vmath_log as L


@numba.njit(error_model="numpy")
def _both(p, n, a, b):
    for i in range(p.shape[0]):
        ni = np.int32(n[i])
        a[i] = V._scale_scalef(p[i], n[i], ni)
        b[i] = V._scale_two_factors(p[i], n[i], ni)


def test_scalef_and_two_factors_agree_bit_for_bit():
    # exp's p is in [0.70, 1.42] and n in [-150, 129] (the clamped range)
    rng = np.random.default_rng(5)
    n = np.repeat(np.arange(-150, 130), 500).astype(np.float32)
    p = rng.uniform(0.70, 1.42, n.size).astype(np.float32)
    p[::7] = np.float32(1.0)
    a, b = np.empty_like(p), np.empty_like(p)
    _both(p, n, a, b)
    np.testing.assert_array_equal(a.view(np.int32), b.view(np.int32))
    assert np.isinf(a[n == 129]).all() and (a[n == -150] <= 1.5e-45).all()
    assert ((a > 0) & (a < np.finfo(np.float32).tiny)).any()  # denormal results checked


def test_exp_float32_nan_and_limits():
    """NaN goes through the clamps (no select for it at the end)."""
    x = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 88.72284, 88.7229, -103.97,
                  -104.0, 1.0], np.float32)
    got = np.array([V.exp_f32(v) for v in x], np.float32)
    with np.errstate(all="ignore"):
        want = np.exp(x)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    np.testing.assert_allclose(got[ok], want[ok], rtol=3e-7, atol=0)


@numba.njit(error_model="numpy")
def _unscale_both(v, k, a, b):
    for i in range(v.shape[0]):
        a[i] = L._unscale_scalef(v[i], k[i])
        b[i] = L._unscale_two_factors(v[i], k[i])


def test_log_unscale_agrees_bit_for_bit():
    """log1p float32 scales u and its rounding error c by 2^-k, k from u sqrt2's exponent
    bits, log float32 x itself: over every binade (x > -1 for log1p, near -1, 0 and the
    top too), both ways agree."""
    f32 = np.float32
    geo = np.geomspace(1e-45, 3.4e38, 200_000).astype(f32)
    x = np.concatenate([geo, -np.geomspace(1e-45, 0.99999994, 50_000).astype(f32),
                        np.linspace(-1, 4, 100_000, dtype=f32)[1:],
                        np.array([np.finfo(f32).max, 2.0 ** 127, 2.0 ** 24 + 2], f32)])
    with np.errstate(all="ignore"):
        u = f32(1) + x
        c = x - (u - f32(1))
        k = ((u * f32(1.4142135)).view(np.int32) >> 23) - 127
    k = k.astype(np.int32)
    assert k.min() == -24 and k.max() == 128
    # log_f32: x itself (denormals scaled by 2^23 first), k down to -126
    y = np.geomspace(np.finfo(f32).tiny, np.finfo(f32).max, 100_000).astype(f32)
    with np.errstate(over="ignore"):
        ky = (((y * f32(1.4142135)).view(np.int32) >> 23) - 127).astype(np.int32)
    assert ky.min() == -126 and ky.max() == 128
    for v, kk in ((u, k), (c, k), (y, ky)):
        a, b = np.empty_like(v), np.empty_like(v)
        _unscale_both(v, kk, a, b)
        np.testing.assert_array_equal(a.view(np.int32), b.view(np.int32))
