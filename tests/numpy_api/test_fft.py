"""``gnp.fft`` against ``numpy.fft``: every name, every ``norm``, lengths that crop and
zero-pad, NumPy's dtypes, eagerly and traced (``gc.function`` on the interpreter), plus
NumPy's errors and warnings, ``out=``, and unknown dims while tracing.

Tolerances: float64/complex128 1e-12, float32/complex64 1e-5 (the op's reference is
NumPy's own function, so results agree to the bit in practice).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import graphc as gc
import graphc.numpy as gnp

RNG = np.random.default_rng(3)
ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
N_D = ["fftn", "ifftn", "rfftn", "irfftn", "fft2", "ifft2", "rfft2", "irfft2"]
REAL_INPUT = {"rfft", "ihfft", "rfftn", "rfft2"}
NORMS = [None, "backward", "ortho", "forward"]


def data(shape, dtype=np.float64):
    x = RNG.uniform(-1, 1, shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * RNG.uniform(-1, 1, shape)
    if np.dtype(dtype).kind in "iub":
        x = RNG.integers(-3, 4, shape)
    return x.astype(dtype)


def close(got, want):
    got = got.numpy() if isinstance(got, gc.Tensor) else np.asarray(got)
    want = np.asarray(want)
    assert (got.dtype, got.shape) == (want.dtype, want.shape)
    t = 1e-5 if want.dtype in (np.float32, np.complex64) else 1e-12
    np.testing.assert_allclose(got, want, rtol=t, atol=t)


def both(fn, *args):
    """``fn(gnp)`` eagerly and traced (the arrays ``args`` as the function's arguments)
    against ``fn(np)``."""
    want = fn(np, *args)
    close(fn(gnp, *args), want)
    close(gc.function(lambda *a: fn(gnp, *a), backend="numpy")(*args), want)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name", ONE_D)
def test_one_dimensional(name, norm):
    dtypes = [np.float64, np.float32] + ([] if name in REAL_INPUT else [np.complex128])
    for dtype in dtypes:
        for shape, n, axis in [((6,), None, -1), ((3, 5), 4, -1), ((3, 5), 8, 0),
                               ((2, 3, 4), 7, 1), ((4, 3), None, -2)]:
            x = data(shape, dtype)
            both(lambda lib, a: getattr(lib.fft, name)(a, n=n, axis=axis, norm=norm), x)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name", N_D)
def test_n_dimensional(name, norm):
    dtypes = [np.float64, np.float32] + ([] if name in REAL_INPUT else [np.complex64])
    two = name.endswith("2")
    cases = [(None, None), ((3, 6), (-2, -1)), ((2, 5), (0, 2)), (None, (2, 0)),
             ((4, -1), (1, 2)), (None, (1, 1))]
    if two:
        cases = [(None, (-2, -1)), ((3, 6), (-2, -1)), ((2, 5), (0, 2)), (None, (2, 0))]
    for dtype in dtypes:
        x = data((3, 4, 5), dtype)
        for s, axes in cases:
            both(lambda lib, a: getattr(lib.fft, name)(a, s=s, axes=axes, norm=norm), x)


@pytest.mark.parametrize("name", ONE_D + ["fftn", "rfftn", "irfftn"])
def test_dtypes_as_numpy(name):
    """NumPy 2's rules: float32 (and float16) give complex64 / float32-precision results,
    float64, ints and bools complex128 / float64; complex input to a real-input
    transform raises TypeError."""
    for dtype in (np.float16, np.float32, np.float64, np.int8, np.int64, np.bool_,
                  np.complex64, np.complex128):
        x = data((2, 4), dtype)
        fn = getattr(np.fft, name)
        try:
            want = fn(x)
        except TypeError:
            with pytest.raises(TypeError):
                getattr(gnp.fft, name)(x)
            continue
        got = getattr(gnp.fft, name)(x)
        assert got.dtype == want.dtype, (dtype, got.dtype, want.dtype)
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6, atol=1e-6)


def test_round_trips_and_python_input():
    x = data((4, 6))
    close(gnp.fft.ifft(gnp.fft.fft(x)), np.fft.ifft(np.fft.fft(x)))
    close(gnp.fft.irfftn(gnp.fft.rfftn(x), s=x.shape, axes=(0, 1)),
          np.fft.irfftn(np.fft.rfftn(x), s=x.shape, axes=(0, 1)))
    close(gnp.fft.hfft(gnp.fft.ihfft(x[0]), n=6), np.fft.hfft(np.fft.ihfft(x[0]), n=6))
    close(gnp.fft.fft([1, 2, 3, 4]), np.fft.fft([1, 2, 3, 4]))
    close(gnp.fft.rfft(gc.constant(x), n=np.int64(5)), np.fft.rfft(x, n=5))
    close(gnp.fft.fft(x, n=gc.constant(3)), np.fft.fft(x, n=3))


def test_no_axes_returns_the_input():
    x = data((2, 3))
    close(gnp.fft.fftn(x, axes=()), np.fft.fftn(x, axes=()))
    close(gnp.fft.ifftn(np.float64(2.5)), np.fft.ifftn(np.float64(2.5)))


def test_numpy_deprecation_warnings():
    x = data((3, 4))
    for lib in (np, gnp):
        with pytest.warns(DeprecationWarning, match="`axes` should not be `None`"):
            got = lib.fft.fftn(x, s=(2, 3))
        close(got, np.fft.fftn(x, s=(2, 3), axes=(0, 1)))
        with pytest.warns(DeprecationWarning, match="containing `None` values"):
            got = lib.fft.irfftn(x, s=(2, None), axes=(0, 1))
        close(got, np.fft.irfftn(x, s=(2, 6), axes=(0, 1)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gnp.fft.fftn(x, s=(2, 3), axes=(0, 1))


ERRORS = [
    (lambda lib, x: lib.fft.fft(x, n=0), ValueError, r"Invalid number of FFT data points \(0\)"),
    (lambda lib, x: lib.fft.rfft(x, n=-2), ValueError, "Invalid number of FFT data points"),
    (lambda lib, x: lib.fft.irfft(x[:, :1]), ValueError, "Invalid number of FFT data points"),
    (lambda lib, x: lib.fft.fft2(x, s=(0, 2)), ValueError, "Invalid number of FFT data"),
    (lambda lib, x: lib.fft.fft(x[:, :0]), ValueError, "Invalid number of FFT data points"),
    (lambda lib, x: lib.fft.fft(x, norm="bad"), ValueError, "Invalid norm value bad"),
    (lambda lib, x: lib.fft.rfftn(x, norm="Ortho"), ValueError, "Invalid norm value"),
    (lambda lib, x: lib.fft.fft(x, axis=2), IndexError, None),
    (lambda lib, x: lib.fft.hfft(x, n=4, axis=-3), IndexError, None),
    (lambda lib, x: lib.fft.fftn(x, axes=(0, 5)), IndexError, None),
    (lambda lib, x: lib.fft.fft(x[0, 0]), IndexError, None),
    (lambda lib, x: lib.fft.rfftn(x, axes=()), IndexError, None),
    (lambda lib, x: lib.fft.fftn(x, s=(2, 3), axes=(0,)), ValueError,
     "Shape and axes have different lengths"),
    (lambda lib, x: lib.fft.rfft(x + 1j), TypeError, None),
    (lambda lib, x: lib.fft.ihfft(x.astype(np.complex64)), TypeError, None),
    (lambda lib, x: lib.fft.fft(x, n=2.0), TypeError, None),
    (lambda lib, x: lib.fft.fft(x, axis=1.0), TypeError, None),
]


@pytest.mark.parametrize("k", range(len(ERRORS)))
def test_errors_as_numpy(k):
    fn, exc, match = ERRORS[k]
    x = data((2, 3))
    with pytest.raises(exc, match=match):
        fn(np, x)
    with pytest.raises(exc, match=match):
        fn(gnp, x)
    with pytest.raises(exc, match=match):  # raised while tracing
        gc.function(lambda a: fn(gnp, a), backend="numpy")(x)


def test_out():
    x = data((2, 4))
    out = np.zeros((2, 3), np.complex128)
    assert gnp.fft.rfft(x, out=out) is out
    close(out, np.fft.rfft(x))
    t = gc.constant(np.zeros((2, 4), np.complex128))
    assert gnp.fft.fft(x, out=t) is t
    close(t, np.fft.fft(x))
    with pytest.raises(ValueError, match="wrong shape"):
        gnp.fft.fft(x, out=np.zeros((2, 3), np.complex128))

    @gc.function(backend="numpy")
    def into(a):
        buf = gnp.zeros((2, 4), np.complex128)
        gnp.fft.ifft(a, out=buf)
        return buf

    close(into(x), np.fft.ifft(x))


def test_unknown_dims_while_tracing():
    """Default lengths follow the input's dims at run time; given ones are known dims."""
    spec = [gc.TensorSpec([None, None], np.float64)]
    x = data((3, 4))
    for name in ONE_D + N_D:
        a = np.fft.rfft2(x) if name in ("irfft", "hfft", "irfftn", "irfft2") else x
        spec_a = [gc.TensorSpec([None, None], a.dtype)]
        f = gc.function(lambda t: getattr(gnp.fft, name)(t), input_signature=spec_a,
                        backend="numpy")
        close(f(a), getattr(np.fft, name)(a))
    f = gc.function(lambda t: gnp.fft.rfft2(t, s=(4, 6)), input_signature=spec,
                    backend="numpy")
    assert f.get_concrete_function(x).graph.outputs[0].aval.shape == (4, 4)
    close(f(x), np.fft.rfft2(x, s=(4, 6)))
    f = gc.function(lambda t: gnp.fft.irfftn(t, s=(-1, -1), axes=(0, 1)),
                    input_signature=[gc.TensorSpec([None, None], np.complex128)],
                    backend="numpy")
    close(f(x + 0j), np.fft.irfftn(x + 0j, s=(-1, -1), axes=(0, 1)))


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(ONE_D), st.lists(st.integers(1, 5), min_size=1, max_size=3),
       st.one_of(st.none(), st.integers(1, 9)), st.sampled_from(NORMS), st.integers(0, 2**16))
def test_property_one_dimensional(name, shape, n, norm, seed):
    """Any shape, length and norm: NumPy's values, or NumPy's error type."""
    x = np.random.default_rng(seed).normal(size=shape)
    try:
        want = getattr(np.fft, name)(x, n=n, norm=norm)
    except ValueError:
        with pytest.raises(ValueError):
            getattr(gnp.fft, name)(x, n=n, norm=norm)
        return
    close(getattr(gnp.fft, name)(x, n=n, norm=norm), want)


def test_saved_graph_round_trip():
    """The op's attrs (unresolved lengths among them) survive a saved graph."""
    @gc.function(input_signature=[gc.TensorSpec([None, 6], np.float64)], backend="numpy")
    def f(x):
        return (gnp.fft.irfft(gnp.fft.rfft(x, norm="ortho") * 2.0, n=6, norm="ortho"),
                gnp.fft.hfft(gnp.fft.fftn(x, s=(-1, 4), axes=(0, 1)), axis=0))

    cf = f.get_concrete_function(gc.TensorSpec([None, 6], np.float64))
    loaded = gc.saved_model.deserialize_concrete(*gc.saved_model.serialize_concrete(cf))
    x = data((3, 6))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gc.errors.FallbackWarning)
        first, second = loaded(x)
    close(first, np.fft.irfft(np.fft.rfft(x, norm="ortho") * 2.0, n=6, norm="ortho"))
    close(second, np.fft.hfft(np.fft.fftn(x, s=(3, 4), axes=(0, 1)), axis=0))


# --------------------------------------------------------------------------- helpers
@pytest.mark.parametrize("n", [1, 2, 5, 8])
def test_fftfreq_rfftfreq(n):
    for d in (1.0, 0.25, 3, np.float32(0.5)):
        for name in ("fftfreq", "rfftfreq"):
            got, want = getattr(gnp.fft, name)(n, d), getattr(np.fft, name)(n, d)
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_array_equal(got.numpy(), want)
    d = np.array(0.1)
    f = gc.function(lambda t: gnp.fft.fftfreq(n, t), backend="numpy")
    np.testing.assert_array_equal(f(d).numpy(), np.fft.fftfreq(n, 0.1))
    f = gc.function(lambda t: gnp.fft.rfftfreq(n, d=t), backend="numpy")
    np.testing.assert_array_equal(f(np.float32(0.1)).numpy(),
                                  np.fft.rfftfreq(n, np.float32(0.1)))


def test_freq_errors():
    for lib in (np, gnp):
        with pytest.raises(ValueError, match="n should be an integer"):
            lib.fft.fftfreq(4.0)
        with pytest.raises(ValueError, match="Only \"cpu\" is allowed"):
            lib.fft.rfftfreq(4, device="gpu")
        with pytest.raises(ZeroDivisionError):
            lib.fft.fftfreq(0)
    f = gc.function(lambda n: gnp.fft.fftfreq(n), backend="numpy")
    with pytest.raises(ValueError, match="n must be known while tracing"):
        f(np.array(4))


@pytest.mark.parametrize("name", ["fftshift", "ifftshift"])
def test_shifts(name):
    for shape, axes in [((5,), None), ((4, 5), None), ((4, 5), 1), ((3, 4, 5), (0, 2)),
                        ((3, 4), (-1, -1)), ((0, 3), None)]:
        x = np.arange(int(np.prod(shape))).reshape(shape)
        both(lambda lib, a: getattr(lib.fft, name)(a, axes=axes), x)
        both(lambda lib, a: getattr(lib.fft, name)(a, axes), x.astype(np.complex64))
    x = np.arange(12.0).reshape(3, 4)
    f = gc.function(lambda t: getattr(gnp.fft, name)(t),
                    input_signature=[gc.TensorSpec([None, None], np.float64)],
                    backend="numpy")
    np.testing.assert_array_equal(f(x).numpy(), getattr(np.fft, name)(x))
    for lib in (np, gnp):
        with pytest.raises(ValueError):
            getattr(lib.fft, name)(np.float64(1.0))
        with pytest.raises(IndexError):
            getattr(lib.fft, name)(x, axes=2)


def test_names_and_docstrings():
    with open(__file__.replace("tests/numpy_api/test_fft.py",
                               "../shared/api_targets/numpy.fft.txt")) as f:
        names = [ln.strip() for ln in f if ln.strip() and not ln.startswith("#")]
    assert len(names) == 18
    for name in names:
        fn = getattr(gnp.fft, name)
        assert callable(fn) and fn.__doc__, name


# --------------------------------------------------------------------------- compiled
@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    from linalg_helpers import compiling

    with compiling(tmp_path_factory.mktemp("fft-cache")):
        yield


def test_explain_names_the_fft_nodes(compiled):
    """Numba compiles no complex dtype and has no FFT: the fft nodes run on the
    interpreter, explain() says why, the real parts around them still compile."""
    h = data((5,))

    @gc.function
    def smooth(x):
        return gnp.fft.irfft(gnp.fft.rfft(x) * h, n=8) * 2.0 + 1.0

    x = data((8,))
    with pytest.warns(gc.errors.FallbackWarning, match="fft at"):
        close(smooth(x), np.fft.irfft(np.fft.rfft(x) * h, n=8) * 2.0 + 1.0)
    text = smooth.explain(x)
    assert "not compiled (falls back to Python)" in text
    assert "fft at" in text and "complex128, which the Numba backend compiles only in" in text

    @gc.function(jit_compile=True)
    def strict(x):
        return gnp.fft.fft(x)

    with pytest.raises(gc.errors.FallbackError, match=r"jit_compile=True.*fft at .*complex"):
        strict(x)


def test_compiled_helpers(compiled):
    """fftfreq, rfftfreq, fftshift and ifftshift are compositions of ops Numba compiles."""
    @gc.function(jit_compile=True)
    def helpers(x, d):
        return (gnp.fft.fftshift(x) * gnp.fft.fftfreq(5, d)[:, None]
                + gnp.fft.ifftshift(x, axes=1) + gnp.fft.rfftfreq(6, d)[None, :4])

    x = data((5, 4))
    want = (np.fft.fftshift(x) * np.fft.fftfreq(5, 0.5)[:, None]
            + np.fft.ifftshift(x, axes=1) + np.fft.rfftfreq(6, 0.5)[None, :4])
    close(helpers(x, np.float64(0.5)), want)
    close(helpers(x, np.float64(0.5)), want)
