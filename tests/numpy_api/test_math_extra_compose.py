"""The elementwise compositions of graphc/ops/math_compose.py (``fabs``, ``fix``,
``float_power``, ``frexp``, ``gcd``, ``lcm``, ``heaviside``, ``i0``, ``modf``, ``sinc``,
``spacing``, ``isposinf``/``isneginf``, ``nan_to_num``, the degree/radian names and
``bitwise_count``) against NumPy: values and dtypes over float64/float32/float16 and
integers with special values, eagerly, traced, compiled, with gradients where they are
differentiable."""

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.runtime.cpu import numba_cpu, runners

F = np.array([-2.5, -1.0, -0.0, 0.0, 0.3, 1.0, 2.5, np.inf, -np.inf, np.nan, 1e-300, 5e-324,
              1.7e308, -7.25])
INTS = np.array([-7, -1, 0, 3, 12, 100], np.int64)
UNARY = ["fabs", "fix", "frexp", "modf", "sinc", "spacing", "isposinf", "isneginf",
         "nan_to_num", "deg2rad", "rad2deg", "radians", "degrees", "i0"]
# i0 is computed in float64 (NumPy's float32 and float16 paths are less accurate)
TOL = {"i0": {np.float64: 1e-14, np.float32: 1e-6, np.float16: 2e-3}}


def check(got, want, rtol=0.0):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            check(g, w, rtol)
        return
    got = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
    want = np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype)
    if rtol:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=0, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
@pytest.mark.parametrize("name", UNARY)
def test_unary_floats(name, dtype):
    x = F.astype(dtype) if dtype == np.float64 else np.where(np.abs(F) > 1e30, 3.0, F).astype(
        dtype)
    rtol = TOL.get(name, {}).get(dtype, 0.0)
    with np.errstate(all="ignore"):
        want = getattr(np, name)(x)
        check(getattr(gnp, name)(x), want, rtol)
        check(gc.function(getattr(gnp, name))(x), want, rtol)


@pytest.mark.parametrize("dtype", [np.int64, np.int8])
@pytest.mark.parametrize("name", [*UNARY, "bitwise_count"])
def test_unary_integers(name, dtype):
    x = INTS.astype(dtype)
    with np.errstate(all="ignore"):
        check(getattr(gnp, name)(x), getattr(np, name)(x), TOL.get(name, {}).get(np.float64))


def test_bitwise_count_extremes():
    for x in (np.array([-128, 127, 0, -1], np.int8), np.array([True, False]),
              np.array([2**64 - 1, 5], np.uint64), np.array([-(2**63), 2**63 - 1])):
        check(gnp.bitwise_count(x), np.bitwise_count(x))
    with pytest.raises(TypeError):
        gnp.bitwise_count(np.array([1.0]))


@pytest.mark.parametrize("name", ["float_power", "heaviside"])
def test_binary_float(name):
    for dtype in (np.float64, np.float32):
        with np.errstate(all="ignore"):
            a = F.astype(dtype)
            check(getattr(gnp, name)(a, a[::-1].copy()), getattr(np, name)(a, a[::-1].copy()))
            check(getattr(gnp, name)(a, 0.5), getattr(np, name)(a, 0.5))
    check(getattr(gnp, name)(INTS, 2), getattr(np, name)(INTS, 2))


def test_gcd_lcm():
    a, b = np.arange(-20, 20).reshape(4, 10), np.arange(7).reshape(7, 1, 1) * 3
    check(gnp.gcd(a, b), np.gcd(a, b))
    check(gnp.lcm(a, b), np.lcm(a, b))
    check(gnp.gcd(12, 18), np.gcd(12, 18))
    check(gnp.lcm(INTS.astype(np.int8), np.int8(3)), np.lcm(INTS.astype(np.int8), np.int8(3)))
    check(gc.function(gnp.gcd)(a, b[2]), np.gcd(a, b[2]))
    check(gc.vectorized_map(lambda r: gnp.gcd(r, 6), a), np.gcd(a, 6))
    with pytest.raises(TypeError):
        gnp.gcd(np.array([1.5]), 2)


def test_nan_to_num_options_and_errors():
    x = np.array([np.nan, np.inf, -np.inf, 1.5], np.float32)
    check(gnp.nan_to_num(x, nan=-1.0, posinf=7, neginf=-9), np.nan_to_num(x, nan=-1.0, posinf=7,
                                                                          neginf=-9))
    with pytest.raises(TypeError):
        gnp.isposinf(np.array([1j]))


def test_out_argument():
    out = np.zeros(3)
    r = gnp.fabs(np.array([-1, 2, -3]), out=out)
    assert r is out
    np.testing.assert_array_equal(out, [1.0, 2.0, 3.0])


def _fd(fn, x, eps=1e-6):
    return (fn(x + eps) - fn(x - eps)) / (2 * eps)


@pytest.mark.parametrize("name", ["i0", "sinc", "deg2rad", "fabs", "float_power"])
def test_gradients(name):
    x = np.array([0.3, -1.7, 2.2, 0.9, 25.0])[: 4 if name == "float_power" else 5]
    x = np.abs(x) if name == "float_power" else x
    args = (lambda v: (v, 1.5)) if name == "float_power" else (lambda v: (v,))
    t = gnp.asarray(x)
    with gc.GradientTape() as tape:
        tape.watch(t)
        out = gnp.sum(getattr(gnp, name)(*args(t)))
    want = _fd(lambda v: getattr(np, name)(*args(v)), x)
    np.testing.assert_allclose(tape.gradient(out, t).numpy(), want, rtol=1e-6)


def test_compiled(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHC_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(numba_cpu.settings, "mode", "eager")
    monkeypatch.setattr(numba_cpu.settings, "worker", False)

    @gc.function(jit_compile=True)
    def f(x, i):
        m, e = gnp.frexp(x)
        return (m, e, gnp.spacing(x), gnp.i0(x), gnp.sinc(x), gnp.nan_to_num(x),
                gnp.bitwise_count(i), gnp.lcm(i, 6), gnp.heaviside(x, 0.5), gnp.modf(x)[0])

    x = np.where(np.abs(F) > 1e30, 3.0, F)
    with monkeypatch.context() as mp, np.errstate(all="ignore"):
        mp.setattr(runners, "run_graph", lambda *a: pytest.fail("ran on the interpreter"))
        got = f(x, INTS)
        want = (*np.frexp(x), np.spacing(x), np.i0(x), np.sinc(x), np.nan_to_num(x),
                np.bitwise_count(INTS), np.lcm(INTS, 6), np.heaviside(x, 0.5), np.modf(x)[0])
    assert f.get_concrete_function(x, INTS).runtime.backend == "numba"
    for g, w in zip(got, want):
        check(g, w, 1e-14 if w.dtype.kind == "f" else 0.0)
