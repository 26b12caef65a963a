"""Complex parts (conjugate/real/imag ops and angle, iscomplex, isreal, real_if_close) and
the Array-API aliases of graphc.numpy, against NumPy: eager, traced, compiled, gradients."""

from __future__ import annotations

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.runtime.cpu import numba_cpu, runners

Z = np.array([[1.5 - 2j, -0.5 + 0.25j, 0j], [3 + 1j, -2 - 2j, 1e-20j]])
INPUTS = [Z, Z.astype(np.complex64), np.array([-1.5, 0.0, 2.0, -0.0]),
          np.array([-1.5, 2.0], np.float32), np.array([3, -4, 0], np.int32),
          np.array([True, False]), np.array(2 - 1j)]


def same(got, want):
    want = np.asarray(want)
    got = np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", ["conj", "conjugate", "real", "imag", "angle",
                                  "iscomplex", "isreal", "real_if_close"])
@pytest.mark.parametrize("k", range(len(INPUTS)))
def test_matches_numpy_eager_and_traced(name, k):
    a = INPUTS[k]
    with np.errstate(all="ignore"):
        want = getattr(np, name)(a)
    same(getattr(gnp, name)(gnp.asarray(a)), want)
    if name == "real_if_close" and a.dtype.kind == "c":
        return  # the dtype depends on the values: eager only (test_real_if_close)
    same(gc.function(getattr(gnp, name))(a), want)


def test_angle_degrees_and_scalars():
    for a in INPUTS:
        same(gnp.angle(a, deg=True), np.angle(a, deg=True))
        same(gc.function(lambda x: gnp.angle(x, deg=True))(a), np.angle(a, deg=True))
    assert gnp.real(1 + 2j) == np.real(1 + 2j) and gnp.imag(3) == np.imag(3)
    same(gnp.real([1 + 2j, 3]), np.real([1 + 2j, 3]))


def test_real_of_real_is_the_tensor_and_conj_is_a_ufunc():
    t = gnp.asarray([1.0, 2.0])
    assert gnp.real(t) is t  # as np.real returns the array itself
    assert gnp.conj is gnp.conjugate and isinstance(gnp.conjugate, gnp.ufunc)
    assert gnp.conjugate.nin == 1 and gnp.conjugate.nout == 1
    # NumPy's ufuncs on tensors reach graphc's op (Tensor.__array_ufunc__)
    same(np.conjugate(gnp.asarray(Z)), np.conjugate(Z))


def test_real_if_close():
    tiny = np.array([1 + 1e-15j, 2 - 1e-16j])
    for a in (tiny, Z, tiny.astype(np.complex64), np.array([1.0, 2.0])):
        for tol in (100, 1e-3, 1):
            same(gnp.real_if_close(gnp.asarray(a), tol), np.real_if_close(a, tol))
    with pytest.raises(TypeError, match="depends on the values"):
        gc.function(gnp.real_if_close)(tiny)


def test_gradients_follow_jax_convention():
    """For a real loss of ``z = x + iy`` graphc's gradient (as JAX's) is
    ``dL/dx - i dL/dy``; checked against finite differences in x and y."""
    z0 = np.array([1.0 - 0.5j, -2.0 + 1.5j, 0.25 + 0.75j])
    w = np.array([0.5, -1.0, 2.0])

    def loss_np(z):
        return np.sum(np.real(z) ** 2 * w + np.imag(z) * w + np.real(np.conj(z) * (1 + 2j)))

    def loss(z):
        return gnp.sum(gnp.real(z) ** 2 * w + gnp.imag(z) * w
                       + gnp.real(gnp.conj(z) * (1 + 2j)))

    eps = 1e-6
    dx = np.array([(loss_np(z0 + eps * e) - loss_np(z0 - eps * e)) / (2 * eps)
                   for e in np.eye(3)])
    dy = np.array([(loss_np(z0 + 1j * eps * e) - loss_np(z0 - 1j * eps * e)) / (2 * eps)
                   for e in np.eye(3)])

    def grad(z):
        with gc.GradientTape() as tape:
            tape.watch(z)
            y = loss(z)
        return tape.gradient(y, z)

    for g in (grad(gnp.asarray(z0)), gc.function(grad)(z0)):
        assert g.dtype == np.complex128
        np.testing.assert_allclose(g.numpy(), dx - 1j * dy, rtol=1e-6, atol=1e-8)


def test_gradients_on_real_inputs():
    x = gnp.asarray([0.5, -1.0, 2.0])
    with gc.GradientTape() as tape:
        tape.watch(x)
        y = gnp.sum(gnp.conj(x) * 3 + gnp.real(x) ** 2 + gnp.imag(x) + gnp.angle(x))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), 3 + 2 * x.numpy())


def test_vectorized_map():
    got = gc.vectorized_map(lambda z: gnp.real(z) * gnp.imag(gnp.conj(z)), Z)
    np.testing.assert_allclose(got.numpy(), np.real(Z) * np.imag(np.conj(Z)))


def test_compiled(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHC_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(numba_cpu.settings, "mode", "eager")
    monkeypatch.setattr(numba_cpu.settings, "worker", False)

    @gc.function(jit_compile=True)
    def f(x, n):
        return (gnp.conj(x) + gnp.imag(x) + gnp.real(x * 2), gnp.angle(x, deg=True),
                gnp.isreal(x), gnp.iscomplex(n), gnp.conjugate(n), gnp.acos(x / 4),
                gnp.pow(x, 2), gnp.atan2(x, 1.5), gnp.bitwise_not(n))

    x, n = np.array([-1.5, 0.0, 2.0]), np.array([3, -4, 0], np.int32)
    with monkeypatch.context() as mp:  # no interpreter fallback
        mp.setattr(runners, "run_graph", lambda *a: pytest.fail("ran on the interpreter"))
        got = f(x, n)
    assert f.get_concrete_function(x, n).runtime.backend == "numba"
    want = (np.conj(x) + np.imag(x) + np.real(x * 2), np.angle(x, deg=True), np.isreal(x),
            np.iscomplex(n), np.conjugate(n), np.acos(x / 4), np.pow(x, 2),
            np.atan2(x, 1.5), np.bitwise_not(n))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-15)
        assert g.dtype == w.dtype


ALIASES = {"acos": "arccos", "acosh": "arccosh", "asin": "arcsin", "asinh": "arcsinh",
           "atan": "arctan", "atanh": "arctanh", "atan2": "arctan2", "pow": "power",
           "bitwise_invert": "invert", "bitwise_not": "invert"}


@pytest.mark.parametrize("alias", sorted(ALIASES))
def test_ufunc_aliases(alias):
    assert getattr(gnp, alias) is getattr(gnp, ALIASES[alias])
    nin = getattr(np, alias).nin
    a = np.array([0.25, 0.5, 0.75]) if "bitwise" not in alias else np.array([1, -2, 7])
    if alias == "acosh":
        a = a + 1
    args = (a,) * nin
    same(getattr(gnp, alias)(*args), getattr(np, alias)(*args))


def test_concat_permute_dims_matrix_transpose():
    a, b = np.arange(6).reshape(2, 3), np.ones((1, 3), np.float32)
    for kw in ({}, {"axis": None}, {"dtype": np.float32}, {"axis": 0, "dtype": "int8",
                                                            "casting": "unsafe"}):
        same(gnp.concat([a, b], **kw), np.concat([a, b], **kw))
        same(gc.function(lambda x, y, kw=kw: gnp.concat([x, y], **kw))(a, b),
             np.concat([a, b], **kw))
    with pytest.raises(TypeError, match="Cannot cast"):
        gnp.concat([a, b], dtype=np.int8)
    out = np.empty((3, 3))
    assert gnp.concat([a, b], out=out) is out
    same(out, np.concat([a, b]))
    x = np.arange(24).reshape(2, 3, 4)
    for axes in (None, (2, 0, 1), (1, 0, 2)):
        same(gnp.permute_dims(x, axes), np.permute_dims(x, axes))
    same(gnp.matrix_transpose(x), np.matrix_transpose(x))
    same(gc.function(gnp.matrix_transpose)(x), np.matrix_transpose(x))
    with pytest.raises(ValueError, match="at least 2-dimensional"):
        gnp.matrix_transpose(np.ones(3))


def test_abs_of_a_complex_value_differentiates_in_jaxs_convention():
    """d|z| is g * conj(z / |z|): df/dx - i df/dy, checked by central differences."""
    z = np.array([1.0 + 1.0j, 3.0 - 4.0j, -2.0 + 0.5j])
    t = gc.constant(z)
    with gc.GradientTape() as tape:
        tape.watch(t)
        y = gnp.sum(gnp.abs(t) * np.array([1.0, 2.0, 3.0]))
    got = np.asarray(tape.gradient(y, t))
    f = lambda v: float(np.sum(np.abs(v) * np.array([1.0, 2.0, 3.0])))  # noqa: E731
    h, want = 1e-6, np.zeros_like(z)
    for i in range(3):
        e = np.zeros(3)
        e[i] = h
        dx = (f(z + e) - f(z - e)) / (2 * h)
        dy = (f(z + 1j * e) - f(z - 1j * e)) / (2 * h)
        want[i] = dx - 1j * dy
    np.testing.assert_allclose(got, want, atol=1e-6)
