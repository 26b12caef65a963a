"""``gnp.fft``'s gradients and batching.

Gradients: the ``fft`` op's rule is the transpose of each transform (JAX's convention for
complex values: a cotangent ``v`` of a complex result pairs as ``Re(sum(v * dz))``), so
for any transform ``f`` and a random complex ``v``, the tape's ``v . J`` must equal the
finite differences of ``Re(sum(v * f(x)))``, for real inputs and (where NumPy takes
them) complex ones (``Re`` of the gradient is ``dL/dRe(x)``, ``-Im`` is ``dL/dIm(x)``).
Then whole real-valued computations (filters, spectra) eagerly and traced, second
derivatives, float32, and the errors of what is not differentiable. Batching:
``gc.vectorized_map`` against a per-example loop.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp

RNG = np.random.default_rng(11)
NORMS = [None, "ortho", "forward"]


def data(shape, complex_=False):
    x = RNG.uniform(-1, 1, shape)
    return x + 1j * RNG.uniform(-1, 1, shape) if complex_ else x


def numeric(loss, x, eps=1e-6):
    """``dL/dRe(x) - 1j dL/dIm(x)`` by central differences (real ``x``: ``dL/dx``)."""
    g = np.zeros(x.shape, x.dtype)
    for idx in np.ndindex(x.shape):
        for step in ([1, 1j] if x.dtype.kind == "c" else [1]):
            up, down = x.copy(), x.copy()
            up[idx] += eps * step
            down[idx] -= eps * step
            d = (loss(up) - loss(down)) / (2 * eps)
            g[idx] += d if step == 1 else -1j * d
    return g


def vjp(fn, x, v, traced=False):
    def grad(a):
        with gc.GradientTape() as tape:
            tape.watch(a)
            y = fn(a)
        return tape.gradient(y, a, output_gradients=gc.constant(v.astype(y.dtype)))

    if traced:
        return gc.function(grad, backend="numpy")(x).numpy()
    return grad(gc.constant(x)).numpy()


def check_transpose(name, x, traced=False, **kw):
    want_out = getattr(np.fft, name)(x, **kw)
    v = data(want_out.shape, want_out.dtype.kind == "c")
    got = vjp(lambda a: getattr(gnp.fft, name)(a, **kw), x, v, traced)
    want = numeric(lambda a: float(np.real(np.sum(v * getattr(np.fft, name)(a, **kw)))), x)
    assert got.dtype == x.dtype and got.shape == x.shape
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"])
def test_one_dimensional_transposes(name, norm):
    inputs = [False] if name in ("rfft", "ihfft") else [False, True]
    for complex_ in inputs:
        for shape, n, axis in [((6,), None, -1), ((2, 5), 4, -1), ((2, 5), 7, 0),
                               ((3, 4), 9, -1), ((5, 2), None, 0)]:
            check_transpose(name, data(shape, complex_), n=n, axis=axis, norm=norm)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn", "fft2", "rfft2",
                                  "irfft2"])
def test_n_dimensional_transposes(name, norm):
    inputs = [False] if name.startswith("rfft") else [False, True]
    cases = [(None, (-2, -1)), ((3, 4), (0, 1)), ((2, 5), (1, 0))]
    if name.endswith("n"):
        cases += [((3, 3), (1, 1)), (None, (0, 1, 2))]
    for complex_ in inputs:
        x = data((2, 3, 4), complex_)
        for s, axes in cases:
            if len(axes) == 3 and name.startswith("i"):
                continue
            check_transpose(name, x, s=s, axes=axes, norm=norm)


@pytest.mark.parametrize("name", ["fft", "rfft", "irfft", "hfft", "ihfft", "rfft2",
                                  "irfftn"])
def test_transposes_traced(name):
    x = data((3, 4), name in ("irfft", "hfft", "irfftn"))
    check_transpose(name, x, traced=True, norm="ortho")


# --------------------------------------------------------------------------- real losses
def _grad(loss, *xs, traced=False):
    def grad(*a):
        with gc.GradientTape() as tape:
            tape.watch(list(a))
            y = loss(gnp, *a)
        return tape.gradient(y, list(a))

    fn = gc.function(grad, backend="numpy") if traced else grad
    return [g.numpy() for g in fn(*[gc.constant(x) for x in xs])]


def _numeric_all(loss, *xs):
    out = []
    for i, x in enumerate(xs):
        def part(a, i=i):
            args = list(xs)
            args[i] = a
            return float(loss(np, *args))
        out.append(numeric(part, x))
    return out


LOSSES = {
    "circular_convolution": (lambda lib, x, k: lib.sum(
        lib.fft.irfft(lib.fft.rfft(x) * lib.fft.rfft(k), n=6) ** 2), [(6,), (6,)]),
    "filter_and_crop": (lambda lib, x, h: lib.sum(
        lib.fft.irfft(lib.fft.rfft(x, n=8) * h, n=5) * lib.arange(5.0)), [(2, 6), (5,)]),
    "image_blur": (lambda lib, x, k: lib.sum(lib.fft.irfft2(
        lib.fft.rfft2(x) * lib.fft.rfft2(k, s=(4, 4)), s=(4, 4)) ** 3), [(4, 4), (2, 3)]),
    "hermitian_pair": (lambda lib, x: lib.sum(lib.fft.hfft(
        lib.fft.ihfft(x, norm="ortho") * (1.0 + lib.fft.rfftfreq(6)), n=6) * x), [(6,)]),
    "shifted_spectrum": (lambda lib, x: lib.sum(lib.fft.fftshift(
        lib.fft.irfft(lib.fft.rfft(x) ** 2, n=5)) * lib.arange(5.0)), [(5,)]),
}
# a real operand of a complex product (a filter ``h``) gets its cotangent's real part
# through the autodiff walk's cast (graphc/transforms/autodiff.py ``unbroadcast``), which
# NumPy warns about; the value is right
CAST_WARNS = pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")


@CAST_WARNS
@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("name", sorted(LOSSES))
def test_real_losses_match_finite_differences(name, traced):
    loss, shapes = LOSSES[name]
    xs = [data(s) for s in shapes]
    got = _grad(loss, *xs, traced=traced)
    for g, w in zip(got, _numeric_all(loss, *xs)):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6)


@CAST_WARNS
def test_complex_roundtrip():
    """A complex chain (fft with padding, a real filter, ifft with cropping) read back as
    the real part of a weighted sum: the DC bin of a 1-point ``hfft``."""
    w = np.arange(1.0, 6.0)

    def loss(lib, x):
        z = lib.fft.ifft(lib.fft.fft(x, n=7) * lib.fft.fftfreq(7), n=5)
        return lib.fft.hfft(lib.sum(z * w)[None], n=1)[0]

    x = data((5,))
    (got,) = _grad(loss, x)
    np.testing.assert_allclose(got, _numeric_all(loss, x)[0], rtol=1e-6, atol=1e-6)


def test_second_derivative():
    """The rule is built from fft ops, so it differentiates again: a Hessian-vector
    product of a real-to-real chain."""
    h, u = data((4,)), data((6,))

    def loss(lib, x):
        return lib.sum(lib.fft.irfft(lib.fft.rfft(x) * h, n=6) ** 3)

    x = gc.constant(data((6,)))
    with gc.GradientTape() as outer:
        outer.watch(x)
        with gc.GradientTape() as inner:
            inner.watch(x)
            y = loss(gnp, x)
        g = inner.gradient(y, x)
        gu = gnp.sum(g * u)
    hv = outer.gradient(gu, x).numpy()

    def grad_np(a):
        return _grad(loss, a)[0]

    want = (grad_np(x.numpy() + 1e-6 * u) - grad_np(x.numpy() - 1e-6 * u)) / 2e-6
    np.testing.assert_allclose(hv, want, rtol=1e-5, atol=1e-6)


def test_float32_gradient_dtype():
    x = data((2, 6)).astype(np.float32)
    (g,) = _grad(lambda lib, a: lib.sum(lib.fft.irfft(lib.fft.rfft(a) * 2.0) ** 2), x)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, 8 * x.astype(np.float64), rtol=1e-5)


def test_no_complex_warning():
    """A real operand's cotangent is a real part taken by an fft node, not a cast."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _grad(lambda lib, x: lib.sum(lib.fft.irfft(lib.fft.fft(x), n=4)), data((3,)))


def test_power_spectrum():  # abs of a complex value: JAX's g * conj(sign(z))
    x = data((6,))
    loss = lambda lib, a: lib.sum(lib.abs(lib.fft.rfft(a)) ** 2)  # noqa: E731
    np.testing.assert_allclose(_grad(loss, x)[0], _numeric_all(loss, x)[0], atol=1e-6)


def test_power_spectrum_as_z_times_conj_z():
    """``real(z * conj(z))``: the conjugate's rule (``conj(g)``) and the fft rules agree."""
    from graphc.core.registry import bind
    from graphc.ops import linalg_decomp
    from graphc.ops.fft_grad import real_part

    x = data((2, 6))

    def loss(a):
        z = gnp.fft.rfft(a, norm="ortho")
        return gnp.sum(real_part(z * bind(linalg_decomp.CONJ, z)) * gnp.arange(1.0, 5.0))

    got = vjp(loss, x, np.array(1.0))
    want = numeric(lambda a: float(np.sum(np.abs(np.fft.rfft(a, norm="ortho")) ** 2
                                          * np.arange(1.0, 5.0))), x)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def test_not_differentiable_without_lengths():
    """The real-data kinds' rule needs the transform length while tracing."""
    def grad(a):
        with gc.GradientTape() as tape:
            tape.watch(a)
            y = gnp.sum(gnp.fft.irfft(gnp.fft.rfft(a)))
        return tape.gradient(y, a)

    f = gc.function(grad, input_signature=[gc.TensorSpec([None], np.float64)],
                    backend="numpy")
    with pytest.raises(NotImplementedError, match="known while tracing"):
        f(data((6,)))

    def grad_c2c(a):  # complex transforms of default length need no lengths
        with gc.GradientTape() as tape:
            tape.watch(a)
            y = gnp.sum(gnp.fft.ifft(gnp.fft.fft(a)) * 2.0)
        return tape.gradient(y, a)

    f = gc.function(grad_c2c, input_signature=[gc.TensorSpec([None], np.complex128)],
                    backend="numpy")
    np.testing.assert_allclose(f(data((5,), True)).numpy(), np.full(5, 2.0), atol=1e-12)


# --------------------------------------------------------------------------- batching
BATCHED = {
    "fft": lambda lib, a: lib.fft.fft(a, n=6, norm="ortho"),
    "rfft2": lambda lib, a: lib.fft.rfft2(a, s=(3, 4)),
    "irfftn": lambda lib, a: lib.fft.irfftn(a, axes=(0, 1), norm="forward"),
    "hfft": lambda lib, a: lib.fft.hfft(a, axis=0),
    "ihfft": lambda lib, a: lib.fft.ihfft(a, n=5),
    "fftn_all": lambda lib, a: lib.fft.fftn(a),
    "fftshift": lambda lib, a: lib.fft.fftshift(a, axes=0),
}


@pytest.mark.parametrize("name", sorted(BATCHED))
def test_vectorized_map_matches_a_loop(name):
    fn = BATCHED[name]
    xs = data((4, 3, 5), name in ("irfftn", "hfft", "fft"))
    if name == "ihfft":
        xs = xs.real
    want = np.stack([fn(np, x) for x in xs])
    with warnings.catch_warnings():
        warnings.simplefilter("error", gc.errors.VectorizationWarning)
        got = gc.vectorized_map(lambda x: fn(gnp, x), xs)
        traced = gc.function(lambda a: gc.vectorized_map(lambda x: fn(gnp, x), a),
                             backend="numpy")(xs)
    for g in (got, traced):
        assert g.dtype == want.dtype and g.shape == want.shape
        np.testing.assert_allclose(g.numpy(), want, rtol=1e-12, atol=1e-12)


def test_batched_gradient():
    """Per-example gradients of a real loss under vectorized_map (the rule's ops batch)."""
    h = data((4,))

    def per_example(x):
        with gc.GradientTape() as tape:
            tape.watch(x)
            y = gnp.sum(gnp.fft.irfft(gnp.fft.rfft(x) * h, n=6) ** 2)
        return tape.gradient(y, x)

    xs = data((3, 6))
    got = gc.vectorized_map(per_example, xs).numpy()
    want = np.stack([per_example(gc.constant(x)).numpy() for x in xs])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
