"""complex64/complex128 compiled by the Numba backend (``scalar_templates_complex``,
``numba_helpers_complex``, the emitters of ``kernels.COMPLEX_EMITTERS``) against NumPy:
exact where NumPy's scalar code is followed step for step (add, divide, integer powers,
parts, comparisons), within the documented ULP bounds where NumPy's SIMD loops round
otherwise (multiply, abs, matmul, solve)."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import graphc as gc
import graphc.numpy as gnp

pytestmark = pytest.mark.usefixtures("eager_compile")

SPECIALS = [0j, -0.0 + 0j, complex(0, -0.0), 1 + 0j, -2.5j, complex(np.inf, 0),
            complex(-np.inf, 1), complex(1, np.inf), complex(np.nan, 0), complex(0, np.nan),
            complex(np.inf, np.nan), 3 + 4j, complex(1e300, 1e300), complex(5e-320, 0)]


def compiled(fn, *args):
    """``fn`` compiled, run on ``args`` with no part on the interpreter."""
    f = gc.function(fn)
    with warnings.catch_warnings():
        warnings.simplefilter("error", gc.errors.FallbackWarning)
        out = f(*args)
    assert f.get_concrete_function(*args).runtime.backend == "numba"
    return out


def values(dtype, n=64, seed=0):
    rng = np.random.default_rng(seed)
    z = (rng.standard_normal(n) + 1j * rng.standard_normal(n)) * np.exp(rng.uniform(-8, 8, n))
    z[:len(SPECIALS)] = SPECIALS
    with np.errstate(over="ignore"):  # 1e300 in complex64 is inf
        return z.astype(dtype)


def same(got, want):
    """Equal, NaN where NumPy has NaN (either part)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    for g, w in ((got.real, want.real), (got.imag, want.imag)) if got.dtype.kind == "c" \
            else ((got, want),):
        np.testing.assert_array_equal(g, w)


def close(got, want, ulps, scale=None):
    """Within ``ulps`` of ``scale`` (default ``|want|``) per element; non-finite equal."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype
    eps = np.finfo(want.dtype).eps
    scale = np.abs(want) if scale is None else scale
    finite = np.isfinite(want) & np.isfinite(scale)
    same(got[~finite], want[~finite])
    assert np.all(np.abs(got[finite] - want[finite]) <= ulps * eps * scale[finite])


def reference(program, *args):
    """``program`` (written over a module ``xp``) run by NumPy itself."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        return program(np)(*args)


def exact_ops(xp):
    return lambda x, y: (
        x + y, x - y, x / y, -x, xp.conj(x), xp.real(x), xp.imag(x), x == y, x != y,
        xp.isnan(x), xp.isinf(x), xp.isfinite(x), xp.where(xp.real(x) > 0, x, y),
        x.astype(np.float64), (x * 0 + 1).astype(bool))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_exact_ops_equal_numpy(dtype):
    x, y = values(dtype), values(dtype, seed=1)
    with np.errstate(over="ignore"):  # division by zeros, infs and nans both ways
        y[:len(SPECIALS)] = SPECIALS[::-1]
    want = reference(exact_ops, x, y)
    got = compiled(exact_ops(gnp), x, y)
    for g, w in zip(got, want):
        same(g, w)


def integer_powers(xp):
    return lambda x: (x ** 3, x ** -2, x ** 7, x ** -13, x ** 0, x ** 1, x ** 2)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_integer_powers_are_numpys_repeated_squaring(dtype):
    x = values(dtype)
    x = np.where(np.isfinite(x) & (np.abs(x) < 1e6), x, 1.5 - 0.5j).astype(dtype)
    x[:3] = 0  # 0 ** n
    want = reference(integer_powers, x)
    got = compiled(integer_powers(gnp), x)
    for k, (g, w) in enumerate(zip(got, want)):
        if k == len(want) - 1:  # x ** 2: NumPy's SIMD square, an ulp of |x|**2 off
            close(g, w, 2)
        else:
            same(g, w)


def rounded_ops(xp):
    return lambda x, y, p: (x * y, xp.abs(x), xp.square(x), x ** p)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_rounded_ops_within_documented_ulps(dtype):
    x, y = values(dtype), values(dtype, seed=2)
    p = np.asarray(1.7 - 0.3j, dtype)
    mul, ab, sq, pw = reference(rounded_ops, x, y, p)
    g_mul, g_ab, g_sq, g_pw = compiled(rounded_ops(gnp), x, y, p)
    with np.errstate(over="ignore"):
        big, sq_scale = np.abs(x) * np.abs(y), np.abs(x) ** 2
    ok = np.isfinite(big) & np.isfinite(mul)
    close(g_mul[ok], mul[ok], 2, big[ok])  # 2 ulp of |x| |y| per part
    close(g_ab, ab, 2)
    ok = np.isfinite(sq_scale) & np.isfinite(sq)
    close(g_sq[ok], sq[ok], 2, sq_scale[ok])
    finite = np.isfinite(x) & (x != 0) & (np.abs(x) < 1e3) & (np.abs(x) > 1e-3)
    close(g_pw[finite], pw[finite], 4 * (1 + abs(complex(p))))  # exp(p log x)


divide_and_abs = gc.function(lambda a, b: (a / b, gnp.abs(a)))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.complex_numbers(allow_nan=True, allow_infinity=True), min_size=6,
                max_size=6))
def test_division_and_abs_properties(zs):
    x = np.array(zs, np.complex128)
    y = x[::-1].copy()
    with warnings.catch_warnings():
        warnings.simplefilter("error", gc.errors.FallbackWarning)
        got = divide_and_abs(x, y)
    with np.errstate(all="ignore"):
        same(got[0], x / y)
        close(got[1], np.abs(x), 2)


def linear_algebra(xp):
    def program(a, b, v):
        m = a @ b + 1j * xp.eye(4)
        s = xp.linalg.solve(m, v)
        t = xp.linalg.inv(m).T.reshape(2, 8)
        return m, s, t, xp.real(a) @ b, xp.stack([a[0], b[:, 1]])
    return program


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_matmul_solve_inv_and_shape_ops(dtype):
    rng = np.random.default_rng(3)
    a, b = (rng.standard_normal((2, 4, 4, 2)) @ [1, 1j]).astype(dtype)
    v = (rng.standard_normal(4) + 1j).astype(dtype)
    want = reference(linear_algebra, a, b, v)
    got = compiled(linear_algebra(gnp), a, b, v)
    eps = np.finfo(dtype).eps
    for g, w in zip(got, want):
        assert np.asarray(g).dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=200 * eps, atol=200 * eps * np.abs(w).max())


def mandelbrot(xp):  # NPBench's mandelbrot: masks, a power, abs, writes in a loop
    def program(z, c, n):
        counts = xp.zeros(z.shape, np.int64)
        for k in range(n):
            inside = xp.abs(z) < 2.0
            counts[inside] = k
            z[inside] = z[inside] ** 2 + c[inside]
        return z, counts
    return program


def test_masked_reads_and_writes_in_a_staged_loop():
    x = np.linspace(-2, 1, 12)
    c = x + x[:, None] * 1j
    z0 = np.zeros_like(c)
    want = reference(mandelbrot, z0.copy(), c, 20)
    got = compiled(mandelbrot(gnp), z0.copy(), c, 20)
    np.testing.assert_array_equal(got[1], want[1])
    close(got[0], want[0], 1e6)  # 20 squarings grow an ulp of |z|**2 each


def test_an_op_without_a_complex_kernel_falls_back_and_says_why():
    f = gc.function(lambda z: gnp.sort(z) + 1)
    z = values(np.complex128, 24)[14:]
    with pytest.warns(gc.errors.FallbackWarning, match="complex"):
        got = f(z)
    same(got, np.sort(z) + 1)
