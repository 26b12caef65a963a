"""gc.linalg's solvers against SciPy/NumPy: triangular_solve, cholesky_solve,
banded_triangular_solve, the lu family, tridiagonal_solve/matmul (three formats),
lstsq (fast and not), pinv, matrix_rank, logdet; and their errors."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sl
from tf_linalg_helpers import RNG, check_both, general, tri

import graphc as gc
from graphc.errors import InvalidArgumentError

L = gc.linalg


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128])
def test_triangular_solve(lower, adjoint, dtype):
    a = tri(3, batch=(2,)).astype(dtype)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * tri(3, batch=(2,))
    b = RNG.normal(size=(3, 2)).astype(dtype)  # broadcast over a's batch
    want = np.stack([sl.solve_triangular(m, b, lower=lower, trans="C" if adjoint else "N")
                     for m in a]).astype(dtype)
    check_both(lambda x, y: L.triangular_solve(x, y, lower=lower, adjoint=adjoint), (a, b),
               want)


def test_triangular_solve_edges():
    a = np.array([[0.0, 0.0], [1.0, 1.0]])  # zero on the diagonal: inf/nan, no error
    out = L.triangular_solve(a, np.ones((2, 1))).numpy()
    assert not np.isfinite(out).all()
    with pytest.raises(ValueError, match="matrices"):
        L.triangular_solve(np.eye(2), np.ones(2))
    with pytest.raises(ValueError, match="rows"):
        L.triangular_solve(np.eye(2), np.ones((3, 1)))
    # Python lists are float32, as in TensorFlow
    assert L.triangular_solve([[2.0, 0.0], [1.0, 1.0]], [[2.0], [2.0]]).dtype == np.float32


def test_cholesky_solve_and_banded():
    x = RNG.normal(size=(2, 3, 3))
    a = x @ np.swapaxes(x, -1, -2) + 3 * np.eye(3)
    b = RNG.normal(size=(2, 3, 2))
    check_both(lambda c, y: L.cholesky_solve(L.cholesky(c), y), (a, b), np.linalg.solve(a, b))
    # TensorFlow's docstring example: LEFT_RIGHT bands, the subdiagonal's first entry unread
    bands = np.array([[2.0, 3.0, 4.0], [10000.0, 2.0, 3.0]])
    dense = np.array([[2.0, 0, 0], [2, 3, 0], [0, 3, 4]])
    check_both(lambda v, y: L.banded_triangular_solve(v, y), (bands, np.ones((3, 1))),
               np.linalg.solve(dense, np.ones((3, 1))))
    # upper: the K-1-th superdiagonal first (its last entry unread), the diagonal last
    bands = np.array([[1.0, 2.0, 99.0], [4.0, 5.0, 6.0]])
    dense = np.array([[4.0, 1, 0], [0, 5, 2], [0, 0, 6]])
    for adjoint in (False, True):
        m = dense.T if adjoint else dense
        check_both(lambda v, y, a=adjoint: L.banded_triangular_solve(v, y, lower=False,
                                                                     adjoint=a),
                   (bands, np.ones((3, 2))), np.linalg.solve(m, np.ones((3, 2))))
    check_both(lambda v, y: L.banded_triangular_solve(v, y), (np.array([[2.0, 4.0]]),
               np.ones((2, 1))), np.array([[0.5], [0.25]]))


def test_lu_family():
    a = RNG.normal(size=(2, 4, 4))
    lu, p = L.lu(a)
    assert p.dtype == np.int32 and L.lu(a, output_idx_type=gc.int64).p.dtype == np.int64
    for m, lum, pm in zip(a, lu.numpy(), p.numpy()):
        perm, low, up = sl.lu(m)
        np.testing.assert_allclose(lum, np.tril(low, -1) + up, rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(pm, np.argmax(perm, axis=0))
        np.testing.assert_allclose(m[pm], (np.tril(lum, -1) + np.eye(4)) @ np.triu(lum),
                                   atol=1e-12)
    b = RNG.normal(size=(4, 3))
    check_both(lambda x, y: L.lu_solve(*L.lu(x), y), (a, b), np.linalg.solve(a, b))
    check_both(lambda x: L.lu_matrix_inverse(*L.lu(x)), (a,), np.linalg.inv(a))
    check_both(lambda x: L.lu_reconstruct(*L.lu(x)), (a,), a)
    # singular: no error, a zero pivot
    lu1, _ = L.lu(np.array([[1.0, 2.0], [2.0, 4.0]]))
    assert lu1.numpy()[1, 1] == 0
    with pytest.raises(ValueError):
        L.lu(np.ones((2, 3)))


@pytest.mark.parametrize("fmt", ["compact", "sequence", "matrix"])
def test_tridiagonal(fmt):
    sup, main, sub = RNG.normal(size=3), RNG.normal(size=3) + 4, RNG.normal(size=3)
    dense = np.diag(main) + np.diag(sup[:-1], 1) + np.diag(sub[1:], -1)
    if fmt == "compact":
        diags = np.stack([sup, main, sub])
    elif fmt == "sequence":
        diags = (sup[:-1], main, sub[1:])
    else:
        diags = dense + np.diag([50.0], 2)  # outside the band: not read
    b = RNG.normal(size=(3, 2))
    for got in (L.tridiagonal_solve(diags, b, diagonals_format=fmt),
                gc.function(lambda r: L.tridiagonal_solve(diags, r, diagonals_format=fmt),
                            backend="numpy")(b)):
        np.testing.assert_allclose(got.numpy(), np.linalg.solve(dense, b), rtol=1e-10)
    np.testing.assert_allclose(L.tridiagonal_solve(diags, b[:, 0],
                                                   diagonals_format=fmt).numpy(),
                               np.linalg.solve(dense, b[:, 0]), rtol=1e-10)
    np.testing.assert_allclose(L.tridiagonal_solve(diags, b.T, diagonals_format=fmt,
                                                   transpose_rhs=True).numpy(),
                               np.linalg.solve(dense, b), rtol=1e-10)
    np.testing.assert_allclose(L.tridiagonal_matmul(diags, b, diagonals_format=fmt).numpy(),
                               dense @ b, rtol=1e-12)


def test_tridiagonal_errors():
    with pytest.raises(ValueError, match="Expected 3 diagonals"):
        L.tridiagonal_solve(np.ones((2, 3)), np.ones((3, 1)))
    with pytest.raises(ValueError, match="Unrecognized"):
        L.tridiagonal_solve(np.ones((3, 3)), np.ones((3, 1)), diagonals_format="band")
    with pytest.raises(ValueError, match="equal"):
        L.tridiagonal_solve(np.ones((3, 3)), np.ones((4, 1)))
    with pytest.raises(InvalidArgumentError):  # singular
        L.tridiagonal_solve(np.zeros((3, 3)), np.ones((3, 1)))
    with pytest.raises(NotImplementedError):
        L.tridiagonal_solve(np.ones((3, 3)), np.ones((3, 1)), perturb_singular=True)


def test_lstsq():
    tall, wide = RNG.normal(size=(2, 5, 3)), RNG.normal(size=(3, 5))
    b = RNG.normal(size=(2, 5, 2))
    check_both(L.lstsq, (tall, b), np.stack([np.linalg.lstsq(m, y, rcond=None)[0]
                                             for m, y in zip(tall, b)]), rtol=1e-8)
    check_both(lambda a, y: L.lstsq(a, y, fast=False), (tall, b),
               np.stack([np.linalg.lstsq(m, y, rcond=None)[0] for m, y in zip(tall, b)]),
               rtol=1e-8)
    # underdetermined: the minimum-norm solution
    check_both(L.lstsq, (wide, b[0, :3]), np.linalg.lstsq(wide, b[0, :3], rcond=None)[0],
               rtol=1e-8)
    lam = 0.5
    want = np.linalg.solve(tall[0].T @ tall[0] + lam * np.eye(3), tall[0].T @ b[0])
    check_both(lambda a, y: L.lstsq(a, y, l2_regularizer=lam), (tall[0], b[0]), want)
    with pytest.raises(NotImplementedError):
        L.lstsq(tall[0] + 0j, b[0] + 0j, l2_regularizer=1.0)


def test_pinv_rank_logdet():
    a = RNG.normal(size=(4, 3))
    check_both(L.pinv, (a,), np.linalg.pinv(a), rtol=1e-8)
    rank2 = a[:, :2] @ RNG.normal(size=(2, 3))
    check_both(L.pinv, (rank2,), np.linalg.pinv(rank2, rcond=30 * np.finfo(float).eps),
               rtol=1e-6)
    check_both(L.matrix_rank, (np.stack([a, rank2]),), np.array([3, 2], np.int32))
    check_both(lambda x: L.matrix_rank(x, tol=0.5), (np.diag([1.0, 0.4, 2.0]),),
               np.array(2, np.int32))
    x = general((2, 3, 3))
    spd = x @ np.swapaxes(x, -1, -2)
    check_both(L.logdet, (spd,), np.linalg.slogdet(spd)[1])
    z = spd + 1j * (x - np.swapaxes(x, -1, -2)) * 0.1
    check_both(L.logdet, (z,), np.linalg.slogdet(z)[1])
    with pytest.raises(TypeError):
        L.pinv(np.eye(2, dtype=np.complex128))
