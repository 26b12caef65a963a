"""``gnp.linalg``'s factorizations against NumPy: ``eigh``/``eigvalsh``, ``qr`` (every
mode), ``svd``/``svdvals``, ``lstsq``: eagerly, traced and compiled; their gradients
through whole computations and their batching.

Tolerances: float64 1e-12 relative (compiled ``svdvals``: 1e-13 relative, LAPACK's
gesdd with vectors), float32 1e-5. Eigen- and singular vectors are compared as NumPy
gives them (the same LAPACK drivers fix the same signs).
"""

from __future__ import annotations

import numpy as np
import pytest
from linalg_helpers import RNG, close, compiling, numeric_grad, spd, tall

import graphc as gc
import graphc.numpy as gnp


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    with compiling(tmp_path_factory.mktemp("linalg-cache")):
        yield


def _pairs(got, want):
    got = list(got) if isinstance(got, tuple) else [got]
    want = list(want) if isinstance(want, tuple) else [want]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        close(g, w)


CASES = {
    "eigh": lambda lib, a: tuple(lib.linalg.eigh(a)),
    "eigh_U": lambda lib, a: tuple(lib.linalg.eigh(a, UPLO="U")),
    "eigvalsh": lambda lib, a: lib.linalg.eigvalsh(a),
    "qr": lambda lib, a: tuple(lib.linalg.qr(a)),
    "qr_complete": lambda lib, a: tuple(lib.linalg.qr(a, mode="complete")),
    "qr_r": lambda lib, a: lib.linalg.qr(a, mode="r"),
    "svd": lambda lib, a: tuple(lib.linalg.svd(a)),
    "svd_reduced": lambda lib, a: tuple(lib.linalg.svd(a, full_matrices=False)),
    "svd_values": lambda lib, a: lib.linalg.svd(a, compute_uv=False),
    "svdvals": lambda lib, a: lib.linalg.svdvals(a),
}
SQUARE_ONLY = {"eigh", "eigh_U", "eigvalsh"}


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.complex128])
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 3), (3, 4)], ids=["square", "tall", "wide"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_numpy_eager_and_traced(name, shape, dtype):
    if name in SQUARE_ONLY:
        if shape[-1] != shape[-2]:
            shape = shape[:-1] + (shape[-2],)
        a = spd(shape[-1], shape[:-2], np.complex128 if np.dtype(dtype).kind == "c"
                else np.float64).astype(dtype) if np.dtype(dtype).kind != "i" else (
            np.array([[4, 1, 0], [1, 3, 1], [0, 1, 2]], dtype))
    else:
        a = tall(shape, dtype) if np.dtype(dtype).kind != "i" else (
            np.arange(np.prod(shape)).reshape(shape) % 5 - 2).astype(dtype)
    fn = CASES[name]
    want = fn(np, a)
    _pairs(fn(gnp, a), want)
    _pairs(gc.function(lambda x: fn(gnp, x))(a), want)


def test_hermitian_svd():
    a = spd(3)
    _pairs(tuple(gnp.linalg.svd(a, hermitian=True)), tuple(np.linalg.svd(a, hermitian=True)))
    close(gnp.linalg.svd(a, compute_uv=False, hermitian=True),
          np.linalg.svd(a, compute_uv=False, hermitian=True))


def test_result_types_are_numpys():
    a = spd(2)
    assert type(gnp.linalg.eigh(a)).__name__ == type(np.linalg.eigh(a)).__name__
    assert gnp.linalg.eigh(a).eigenvectors.shape == (2, 2)
    assert gnp.linalg.qr(a).R.shape == (2, 2)
    assert gnp.linalg.svd(a).Vh.shape == (2, 2)
    assert gnp.linalg.slogdet(a).logabsdet.shape == ()


def test_bad_arguments():
    with pytest.raises(ValueError, match="UPLO"):
        gnp.linalg.eigh(spd(2), UPLO="X")
    with pytest.raises(ValueError, match="mode"):
        gnp.linalg.qr(spd(2), mode="full")
    with pytest.raises(NotImplementedError, match="raw"):
        gnp.linalg.qr(spd(2), mode="raw")
    with pytest.raises(gnp.linalg.LinAlgError, match="two-dimensional"):
        gnp.linalg.svd(np.ones(3))


# --------------------------------------------------------------------------- lstsq
@pytest.mark.parametrize("shape_a, shape_b", [((4, 2), (4,)), ((4, 2), (4, 3)),
                                              ((3, 3), (3, 2)), ((2, 4), (2,))])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128])
def test_lstsq_matches_numpy(shape_a, shape_b, dtype):
    a, b = tall(shape_a, dtype), tall(shape_b, dtype)
    want = np.linalg.lstsq(a, b)
    for got in (gnp.linalg.lstsq(a, b), gc.function(gnp.linalg.lstsq)(a, b)):
        for g, w in zip(got, want):
            close(g, np.asarray(w))


def test_lstsq_rank_deficient_has_no_residuals():
    a = np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])
    b = np.array([1.0, 2.0, 2.0])
    x, res, rank, s = gc.function(gnp.linalg.lstsq)(a, b)
    assert res.shape == (0,) and int(rank) == 1
    close(x, np.linalg.lstsq(a, b)[0])


# --------------------------------------------------------------------------- compiled
def _all_decomps(a, w):
    return (*gnp.linalg.eigh(a), gnp.linalg.eigvalsh(a[0]), *gnp.linalg.qr(w),
            *gnp.linalg.svd(w, full_matrices=False), *gnp.linalg.svd(w[0]),
            gnp.linalg.svdvals(w), *gnp.linalg.lstsq(w[0], a[0, :, 0]))


def _numpy_decomps(a, w):
    return (*np.linalg.eigh(a), np.linalg.eigvalsh(a[0]), *np.linalg.qr(w),
            *np.linalg.svd(w, full_matrices=False), *np.linalg.svd(w[0]),
            np.linalg.svdvals(w), *(np.asarray(r) for r in np.linalg.lstsq(w[0], a[0, :, 0])))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_compiled_matches_numpy(dtype, compiled):
    a = spd(3, (2,), dtype)
    w = tall((2, 3, 2), dtype)
    fn = gc.function(_all_decomps, jit_compile=True)
    got = fn(a, w)
    assert "backend: numba" in fn.explain(a, w)
    for g, want in zip(got, _numpy_decomps(a, w)):
        if want.dtype == np.float64:  # svdvals within a few ULP of NumPy's
            np.testing.assert_allclose(g.numpy(), want, rtol=1e-13, atol=1e-14)
        else:
            close(g, want.astype(np.int32) if want.dtype.kind == "i" else want)


def test_uncompiled_variants_run_on_the_interpreter(compiled):
    a = spd(3)

    def f(x):
        return gnp.linalg.eigh(x, UPLO="U")[0], gnp.linalg.qr(x[:, :2], mode="complete")[0]

    fn = gc.function(f)
    with pytest.warns(gc.errors.FallbackWarning):
        got = fn(a)
    close(got[0], np.linalg.eigh(a, UPLO="U")[0])
    close(got[1], np.linalg.qr(a[:, :2], mode="complete")[0])


# --------------------------------------------------------------------------- gradients
def _spectral_loss(lib, x):
    """Uses every factorization on one symmetric and one rectangular matrix."""
    sym = x @ x.T + lib.eye(3)
    w, v = lib.linalg.eigh(sym)
    q, r = lib.linalg.qr(x[:, :2])
    u, s, vh = lib.linalg.svd(x[:2], full_matrices=False)
    sol = lib.linalg.lstsq(x, lib.ones(3))[0]
    return (lib.sum(w * w) + lib.sum(v[:, -1] ** 4) + lib.sum(q * q * q) + lib.sum(r)
            + lib.sum(u ** 3) + lib.sum(s) + lib.sum(vh ** 3) + lib.sum(sol)
            + lib.sum(lib.linalg.svdvals(x)))


@pytest.mark.parametrize("how", ["eager", "traced", "compiled"])
def test_gradient_through_factorizations(how, compiled):
    x = spd(3) / 3 + RNG.normal(size=(3, 3)) * 0.3

    def grad(x):
        with gc.GradientTape() as tape:
            tape.watch(x)
            loss = _spectral_loss(gnp, x)
        return tape.gradient(loss, x)

    fn = {"eager": lambda v: grad(gc.constant(v)), "traced": gc.function(grad, backend="numpy"),
          "compiled": gc.function(grad, jit_compile=True)}[how]
    want = numeric_grad(lambda v: _spectral_loss(np, v), x)
    np.testing.assert_allclose(fn(x).numpy(), want, rtol=1e-5, atol=1e-6)


def test_unsupported_gradients_say_so():
    x = gc.constant(tall((3, 2)))
    with gc.GradientTape() as tape:
        tape.watch(x)
        u = gnp.linalg.svd(x)[0]  # full_matrices=True of a non-square matrix
    with pytest.raises(NotImplementedError, match="full_matrices"):
        tape.gradient(u, x)


# --------------------------------------------------------------------------- batching
@pytest.mark.parametrize("name", ["eigh", "qr", "svd", "svdvals"])
def test_vectorized_map(name):
    a = spd(3, (4,))
    got = gc.vectorized_map(lambda t: getattr(gnp.linalg, name)(t), a)
    want = [getattr(np.linalg, name)(a[i]) for i in range(4)]
    if isinstance(want[0], tuple):
        for k, g in enumerate(got):
            close(g, np.stack([w[k] for w in want]))
    else:
        close(got, np.stack(want))
