"""The new elementwise ops of graphc/ops/math_extra.py (``copysign``, ``signbit``,
``fmod``, ``ldexp``, ``nextafter``, ``logaddexp``, ``logaddexp2``) against NumPy: values
and dtypes with special values (signed zeros, infinities, NaN, subnormals, the largest
float), eagerly, traced, compiled by Numba, gradients against finite differences,
batching, ``out=`` and errors. The registry walks (tests/ops/math_extra_samples.py)
check them on every backend as well."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import graphc as gc
import graphc.numpy as gnp
from graphc.runtime.cpu import numba_cpu, runners

BINARY = ["copysign", "fmod", "nextafter", "logaddexp", "logaddexp2"]


def specials(dtype):
    info = np.finfo(dtype)
    rng = np.random.default_rng(0)
    a = np.concatenate([rng.normal(size=12) * 10, [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0,
                        -1.0, 0.5, info.max, info.smallest_subnormal, -info.tiny, 2.0, 3.0]])
    b = np.concatenate([rng.normal(size=12) * 3, [1.0, -1.0, 1.0, 0.0, 2.0, np.inf, -np.inf,
                        -0.0, np.inf, 0.0, 0.0, 3.0, 3.0]])
    return a.astype(dtype), b.astype(dtype)


def same(got, want, rtol=0.0):
    got = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
    want = np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype)
    if rtol:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=0, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want)


def tol(name, dtype):
    # float32 logaddexp2 is computed in float64 by the compiled template (NumPy: float32)
    return {"logaddexp": 4e-16, "logaddexp2": 4e-16}.get(name, 0.0) * (
        1 if dtype == np.float64 else 2 ** 32)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", BINARY)
def test_binary_specials_eager_and_traced(name, dtype):
    a, b = specials(dtype)
    with np.errstate(all="ignore"):
        want = getattr(np, name)(a, b)
        same(getattr(gnp, name)(a, b), want, tol(name, dtype))
        same(gc.function(getattr(gnp, name))(a, b), want, tol(name, dtype))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32])
def test_signbit(dtype):
    a = specials(dtype)[0] if dtype != np.int32 else np.arange(-3, 3, dtype=dtype)
    same(gnp.signbit(a), np.signbit(a))
    same(gc.function(gnp.signbit)(a), np.signbit(a))


def test_integer_fmod_and_promotion():
    x = np.array([-7, 7, -7, 7, -128, 5, 0], np.int8)
    y = np.array([2, -2, -2, 2, -1, 0, 3], np.int8)
    with np.errstate(all="ignore"):
        same(gnp.fmod(x, y), np.fmod(x, y))
        same(gc.function(gnp.fmod)(x, y), np.fmod(x, y))
    same(gnp.fmod(np.arange(-4, 4), 3), np.fmod(np.arange(-4, 4), 3))
    same(gnp.copysign(np.arange(-2, 2), -1.0), np.copysign(np.arange(-2, 2), -1.0))
    same(gnp.logaddexp(np.float32([1, 2]), 1.0), np.logaddexp(np.float32([1, 2]), 1.0))


def test_ldexp_exponent_is_an_integer():
    x = np.array([1.5, -0.75, 3.0, 5e-324, 1.0])
    n = np.array([3, -1100, 1023, 1074, 2000])
    with np.errstate(all="ignore"):
        same(gnp.ldexp(x, n), np.ldexp(x, n))
        same(gnp.ldexp(x.astype(np.float32), 3), np.ldexp(x.astype(np.float32), 3))
        same(gnp.ldexp(np.arange(3, dtype=np.int32), 2), np.ldexp(np.arange(3, dtype=np.int32), 2))
        same(gnp.ldexp(2.0, np.arange(3)), np.ldexp(2.0, np.arange(3)))
    with pytest.raises(TypeError):
        gnp.ldexp(x, 0.5)


def test_out_and_outer():
    out = gnp.zeros(3)
    r = gnp.copysign(np.array([1.0, 2.0, 3.0]), -1.0, out=out)
    assert r is out
    same(out, np.array([-1.0, -2.0, -3.0]))
    same(gnp.logaddexp.outer(np.array([0.0, 1.0]), np.array([1.0, 2.0, 3.0])),
         np.logaddexp.outer(np.array([0.0, 1.0]), np.array([1.0, 2.0, 3.0])))


def test_compiled_agrees(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHC_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(numba_cpu.settings, "mode", "eager")
    monkeypatch.setattr(numba_cpu.settings, "worker", False)

    @gc.function(jit_compile=True)
    def f(a, b, n, i, j):
        return (gnp.copysign(a, b), gnp.signbit(a), gnp.fmod(a, b), gnp.nextafter(a, b),
                gnp.logaddexp(a, b), gnp.logaddexp2(a, b), gnp.ldexp(a, n), gnp.fmod(i, j))

    for dtype in (np.float64, np.float32):
        a, b = specials(dtype)
        n = np.arange(len(a)) * 40 - 400
        i, j = np.arange(-13, 12), np.array([3, -2, 0, 5, -1] * 5)
        with monkeypatch.context() as mp, np.errstate(all="ignore"):
            mp.setattr(runners, "run_graph", lambda *a: pytest.fail("ran on the interpreter"))
            got = f(a, b, n, i, j)
        assert f.get_concrete_function(a, b, n, i, j).runtime.backend == "numba"
        with np.errstate(all="ignore"):
            want = (np.copysign(a, b), np.signbit(a), np.fmod(a, b), np.nextafter(a, b),
                    np.logaddexp(a, b), np.logaddexp2(a, b), np.ldexp(a, n), np.fmod(i, j))
        names = ["copysign", "signbit", "fmod", "nextafter", "logaddexp", "logaddexp2",
                 "ldexp", "fmod"]
        for g, w, name in zip(got, want, names):
            same(g, w, tol(name, dtype) or (1e-15 if name == "logaddexp2" else 0.0))


def _fd(fn, x, eps=1e-6):
    return (fn(x + eps) - fn(x - eps)) / (2 * eps)


@pytest.mark.parametrize("name", ["copysign", "fmod", "logaddexp", "logaddexp2"])
def test_gradients_match_finite_differences(name):
    x = np.array([0.3, -1.7, 2.2, 0.9])
    y = np.array([-0.7, 0.4, 2.1, 0.6])
    for wrt in (0, 1):
        if name == "copysign" and wrt == 1:
            continue
        args = [gnp.asarray(x), gnp.asarray(y)]
        with gc.GradientTape() as tape:
            tape.watch(args[wrt])
            out = gnp.sum(getattr(gnp, name)(*args))
        got = tape.gradient(out, args[wrt]).numpy()
        fn = (lambda v: getattr(np, name)(v, y)) if wrt == 0 else \
            (lambda v: getattr(np, name)(x, v))
        np.testing.assert_allclose(got, _fd(fn, x if wrt == 0 else y), rtol=1e-6)


def test_ldexp_gradient_and_logaddexp_tie():
    x = gnp.asarray(np.array([1.5, -2.0]))
    with gc.GradientTape() as tape:
        tape.watch(x)
        out = gnp.sum(gnp.ldexp(x, np.array([3, -1])) + gnp.logaddexp(x, x))
    # d/dx logaddexp(x, x) = 1/2 + 1/2 (the tie splits the cotangent evenly)
    np.testing.assert_allclose(tape.gradient(out, x).numpy(), [9.0, 1.5])


def test_vectorized_map():
    a, b = np.arange(6.0).reshape(2, 3) - 2.5, np.array([1.0, -2.0, 0.5])
    same(gc.vectorized_map(lambda r: gnp.fmod(r, b) + gnp.copysign(r, -1.0), a),
         np.fmod(a, b) + np.copysign(a, -1.0))


@settings(max_examples=40, deadline=None)
@given(st.floats(allow_nan=True, allow_infinity=True, width=64),
       st.floats(allow_nan=True, allow_infinity=True, width=64))
def test_nextafter_and_fmod_property(x, y):
    a, b = np.array([x]), np.array([y])
    with np.errstate(all="ignore"):
        same(gnp.nextafter(a, b), np.nextafter(a, b))
        same(gnp.fmod(a, b), np.fmod(a, b))
