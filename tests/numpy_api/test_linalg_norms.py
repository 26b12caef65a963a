"""``gnp.linalg``'s compositions against NumPy: ``norm``, ``vector_norm``,
``matrix_norm``, ``cond``, ``matrix_rank``, ``pinv``, ``matrix_power``, ``multi_dot``,
``tensorinv``, ``tensorsolve``: eagerly, traced, compiled (float64), with gradients.

Tolerance: 1e-12 relative for float64 (the compositions sum in another order than
NumPy's BLAS ``dot``), 1e-5 for float32.
"""

from __future__ import annotations

import numpy as np
import pytest
from linalg_helpers import RNG, close, compiling, numeric_grad, spd, tall

import graphc as gc
import graphc.numpy as gnp

X = tall((3, 4))
V = tall((5,))
S = tall((2, 3, 3))
XC = tall((3, 3), np.complex128)


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    with compiling(tmp_path_factory.mktemp("linalg-cache")):
        yield


def both(fn, *args):
    """``fn`` over gnp, eagerly and traced."""
    return [fn(gnp, *args), gc.function(lambda *a: fn(gnp, *a))(*args)]


def check(fn, *args):
    want = fn(np, *args)
    for got in both(fn, *args):
        close(got, want)


NORM_CASES = [
    (V, {}), (V, {"ord": np.inf}), (V, {"ord": -np.inf}), (V, {"ord": 0}), (V, {"ord": 1}),
    (V, {"ord": 3}), (V, {"ord": -1.5}), (V, {"keepdims": True}),
    (X, {}), (X, {"ord": "fro"}), (X, {"ord": "nuc"}), (X, {"ord": 2}), (X, {"ord": -2}),
    (X, {"ord": 1}), (X, {"ord": -1}), (X, {"ord": np.inf}), (X, {"ord": -np.inf}),
    (X, {"axis": 1}), (X, {"axis": 0, "ord": 1}), (X, {"axis": (1, 0), "ord": 1}),
    (S, {"axis": (1, 2)}), (S, {"axis": (-1, -2), "ord": np.inf, "keepdims": True}),
    (S, {"axis": (0, 2), "ord": 2}), (S, {}), (S, {"keepdims": True}),
    (XC, {}), (XC, {"ord": 2}), (XC, {"axis": 0, "ord": 3}),
    (np.arange(6).reshape(2, 3), {}), (X.astype(np.float32), {"ord": 1}),
]


@pytest.mark.parametrize("x, kw", NORM_CASES)
def test_norm(x, kw):
    check(lambda lib, a: lib.linalg.norm(a, **kw), x)


@pytest.mark.parametrize("kw", [{}, {"axis": 1}, {"axis": (0, 2)}, {"ord": np.inf},
                                {"ord": 1, "axis": -1, "keepdims": True},
                                {"axis": (1, 2), "keepdims": True}, {"ord": 0}])
def test_vector_norm(kw):
    check(lambda lib, a: lib.linalg.vector_norm(a, **kw), S)


@pytest.mark.parametrize("ord_", ["fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf])
def test_matrix_norm(ord_):
    check(lambda lib, a: lib.linalg.matrix_norm(a, ord=ord_, keepdims=True), S)


def test_norm_errors():
    with pytest.raises(ValueError, match="Invalid norm order"):
        gnp.linalg.norm(V, ord="fro")
    with pytest.raises(ValueError, match="Invalid norm order"):
        gnp.linalg.norm(X, ord=3)
    with pytest.raises(ValueError, match="Improper number of dimensions"):
        gnp.linalg.norm(S, ord=1)


@pytest.mark.parametrize("p", [None, 2, -2, 1, -1, np.inf, -np.inf, "fro", "nuc"])
def test_cond(p):
    check(lambda lib, a: lib.linalg.cond(a, p), S)


def test_cond_nan_becomes_inf():
    a = np.stack([np.zeros((2, 2)), np.eye(2)])
    with np.errstate(all="ignore"):
        want = np.linalg.cond(a)
    assert np.isinf(want[0])
    for got in both(lambda lib, m: lib.linalg.cond(m), a):
        np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("kw", [{}, {"tol": 0.5}, {"rtol": 0.1}, {"hermitian": True}])
def test_matrix_rank(kw):
    a = np.diag([3.0, 1.0, 1e-20])
    stack = np.stack([a, np.eye(3), np.zeros((3, 3))])
    check(lambda lib, m: lib.linalg.matrix_rank(m, **kw), stack)
    check(lambda lib, m: lib.linalg.matrix_rank(m, **kw), a)


def test_matrix_rank_of_vectors():
    assert int(gnp.linalg.matrix_rank(np.zeros(3))) == 0
    assert int(gnp.linalg.matrix_rank(np.ones(3))) == 1


@pytest.mark.parametrize("kw", [{}, {"rcond": 0.5}, {"rtol": None}, {"hermitian": True}])
def test_pinv(kw):
    a = spd(3) if kw.get("hermitian") else X
    check(lambda lib, m: lib.linalg.pinv(m, **kw), a)
    check(lambda lib, m: lib.linalg.pinv(m, **kw), S)


def test_pinv_complex():
    check(lambda lib, m: lib.linalg.pinv(m), tall((3, 2), np.complex128))


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 8, -1, -3])
def test_matrix_power(n):
    check(lambda lib, a: lib.linalg.matrix_power(a, n), S)
    if n >= 0:
        ints = np.array([[1, 2], [0, 1]], np.int32)
        check(lambda lib, a: lib.linalg.matrix_power(a, n), ints)


def test_matrix_power_needs_an_integer():
    with pytest.raises(TypeError, match="integer"):
        gnp.linalg.matrix_power(S, 1.5)


@pytest.mark.parametrize("shapes", [[(2, 3), (3, 4)], [(3,), (3, 4), (4, 2)],
                                    [(5, 2), (2, 6), (6, 3), (3,)],
                                    [(4,), (4, 3), (3, 5), (5, 2), (2,)],
                                    [(10, 2), (2, 9), (9, 3), (3, 8)]])
def test_multi_dot(shapes):
    arrays = [tall(s) for s in shapes]
    want = np.linalg.multi_dot(arrays)
    close(gnp.linalg.multi_dot(arrays), want)
    close(gc.function(lambda *a: gnp.linalg.multi_dot(list(a)))(*arrays), want)


def test_multi_dot_errors():
    with pytest.raises(ValueError, match="at least two"):
        gnp.linalg.multi_dot([X])


def test_tensorinv_and_tensorsolve():
    a = np.eye(4 * 6).reshape(4, 6, 8, 3) + 0.1 * RNG.normal(size=(4, 6, 8, 3))
    check(lambda lib, t: lib.linalg.tensorinv(t, ind=2), a)
    a = np.eye(24).reshape(6, 4, 2, 3, 4) + 0.1 * RNG.normal(size=(6, 4, 2, 3, 4))
    b = RNG.normal(size=(6, 4))
    check(lambda lib, t, u: lib.linalg.tensorsolve(t, u), a, b)
    check(lambda lib, t, u: lib.linalg.tensorsolve(t, u, axes=(0,)), np.moveaxis(a, 4, 0), b)
    with pytest.raises(np.linalg.LinAlgError):
        gnp.linalg.tensorsolve(a[:, :, :1], b)


def test_compiled(compiled):
    def f(x, s):
        return (gnp.linalg.norm(x), gnp.linalg.norm(x, 2), gnp.linalg.cond(s),
                gnp.linalg.matrix_rank(s), gnp.linalg.pinv(x), gnp.linalg.matrix_power(s, 5),
                gnp.linalg.multi_dot([x.T, x, x.T]), gnp.linalg.vector_norm(s, ord=3))

    fn = gc.function(f, jit_compile=True)
    got = fn(X, S)
    assert "backend: numba" in fn.explain(X, S)
    want = (np.linalg.norm(X), np.linalg.norm(X, 2), np.linalg.cond(S),
            np.linalg.matrix_rank(S), np.linalg.pinv(X), np.linalg.matrix_power(S, 5),
            np.linalg.multi_dot([X.T, X, X.T]), np.linalg.vector_norm(S, ord=3))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-12, atol=1e-12)
        assert g.dtype == np.asarray(w).dtype


def _loss(lib, x):
    return (lib.linalg.norm(x) + lib.linalg.norm(x, "nuc") + lib.linalg.cond(x)
            + lib.sum(lib.linalg.pinv(x) ** 2) + lib.sum(lib.linalg.matrix_power(x, -2))
            + lib.linalg.vector_norm(x, ord=3))


@pytest.mark.parametrize("how", ["eager", "traced"])
def test_gradients(how):
    x = spd(3) / 3 + 0.2 * RNG.normal(size=(3, 3))

    def grad(x):
        with gc.GradientTape() as tape:
            tape.watch(x)
            loss = _loss(gnp, x)
        return tape.gradient(loss, x)

    fn = gc.function(grad, backend="numpy") if how == "traced" else (
        lambda v: grad(gc.constant(v)))
    np.testing.assert_allclose(fn(x).numpy(), numeric_grad(lambda v: _loss(np, v), x),
                               rtol=1e-5, atol=1e-6)
