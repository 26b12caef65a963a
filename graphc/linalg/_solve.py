"""``gc.linalg``'s solvers and factorizations with TensorFlow's signatures.

``triangular_solve`` and ``lu`` bind the ops of ``graphc/ops/linalg_tf.py``;
``cholesky_solve``, ``banded_triangular_solve``, ``lu_solve``, ``lu_matrix_inverse``,
``lu_reconstruct``, ``tridiagonal_solve``, ``tridiagonal_matmul``, ``lstsq``, ``pinv``,
``matrix_rank`` and ``logdet`` are compositions of existing ops.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from graphc.core.registry import bind
from graphc.linalg._diag import (
    band_part,
    diag_part,
    matrix_transpose,
    set_diag,
    static_dims,
    tensor,
)
from graphc.ops import linalg as _linalg
from graphc.ops import linalg_decomp as _ld
from graphc.ops import linalg_namespace as _ns
from graphc.ops import linalg_tf as _lt
from graphc.ops import ufuncs as _u
from graphc.ops.complex_parts import conjugate, real
from graphc.ops.convert import asarray
from graphc.ops.creation import eye, zeros
from graphc.ops.indexing import take_along_axis
from graphc.ops.join import concatenate, stack
from graphc.ops.reduce import max as _max
from graphc.ops.reduce import sum as _sum
from graphc.ops.shape import argsort, broadcast_to, expand_dims, swapaxes
from graphc.ops.tf_elementwise import _tf_args

Lu = namedtuple("Lu", "lu p")


def _pair(a, b):
    return tuple(asarray(t) for t in _tf_args(a, b))


def _adj(x):
    x = swapaxes(x, -1, -2)
    return conjugate(x) if x.dtype.kind == "c" else x


def _rhs_matrix(rhs, name):
    if rhs.shape is not None and len(rhs.shape) < 2:
        raise ValueError(f"{name}: rhs must be a (batch of) matrices [..., M, K], got "
                         f"shape {rhs.shape}")


def triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None):
    """``tf.linalg.triangular_solve``: ``x`` with ``A x = rhs`` (``A^H x = rhs`` with
    ``adjoint``), ``A`` the lower (``lower=True``) or upper triangle of ``matrix``; the
    other triangle is not read. Batch dims broadcast; a zero diagonal gives inf/nan."""
    a, b = _pair(matrix, rhs)
    _rhs_matrix(b, "triangular_solve")
    return bind(_lt.TRIANGULAR_SOLVE, a, b, lower=bool(lower), adjoint=bool(adjoint))


def cholesky_solve(chol, rhs, name=None):
    """``tf.linalg.cholesky_solve``: ``x`` with ``A x = rhs`` given ``chol``, the lower
    Cholesky factor of ``A`` (``tf.linalg.cholesky(A)``)."""
    c, b = _pair(chol, rhs)
    _rhs_matrix(b, "cholesky_solve")
    y = bind(_lt.TRIANGULAR_SOLVE, c, b, lower=True, adjoint=False)
    return bind(_lt.TRIANGULAR_SOLVE, c, y, lower=True, adjoint=True)


def banded_triangular_solve(bands, rhs, lower=True, adjoint=False, name=None):
    """``tf.linalg.banded_triangular_solve``: ``bands`` ``[..., K, M]`` holds the ``K``
    diagonals of a triangular matrix in ``LEFT_RIGHT`` alignment (lower: the diagonal
    first, then the subdiagonals; upper: the ``K - 1``-th superdiagonal first, the
    diagonal last); solves as ``triangular_solve`` does."""
    v, b = _pair(bands, rhs)
    k, m = static_dims(v, 2, "banded_triangular_solve")
    if k > m:
        raise ValueError(f"banded_triangular_solve: {k} bands for a {m}x{m} matrix")
    band = (-(k - 1), 0) if lower else (0, k - 1)
    if k == 1:
        v = v[..., 0, :]
    dense = set_diag(zeros(v.shape[:-2 if k > 1 else -1] + (m, m), v.dtype), v, k=band,
                     align="LEFT_RIGHT")
    return triangular_solve(dense, b, lower=lower, adjoint=adjoint)


# --------------------------------------------------------------------------- LU
def lu(input, output_idx_type=np.int32, name=None):  # noqa: A002 - TensorFlow's name
    """``tf.linalg.lu``: ``(lu, p)``, the LU factorization with partial pivoting of each
    square matrix: ``L`` (unit diagonal, strictly below) and ``U`` packed in ``lu``, and
    ``p`` the row permutation, ``input[..., p, :] = L @ U``."""
    x = tensor(input)
    out, perm = bind(_lt.LU, x, output_idx_type=np.dtype(output_idx_type))
    return Lu(out, perm)


def _unit_lower(lower_upper):
    """``L`` of a packed LU: the strict lower triangle and ones on the diagonal."""
    m = static_dims(lower_upper, 2, "lu")[-1]
    strict = _u.where(np.tri(m, k=-1, dtype=bool), lower_upper,
                      np.zeros((), lower_upper.dtype))
    return strict + eye(m, dtype=lower_upper.dtype)


def _permuted_rows(x, perm, batch, cols):
    idx = broadcast_to(expand_dims(perm, -1), batch + (perm.shape[-1], cols))
    return take_along_axis(broadcast_to(x, batch + x.shape[-2:]), idx, axis=-2)


def lu_solve(lower_upper, perm, rhs, validate_args=False, name=None):
    """``tf.linalg.lu_solve``: ``x`` with ``A x = rhs`` from ``tf.linalg.lu(A)``."""
    lu_, b = _pair(lower_upper, rhs)
    perm = asarray(perm)
    _rhs_matrix(b, "lu_solve")
    m, k = static_dims(b, 2, "lu_solve")
    batch = tuple(np.broadcast_shapes(lu_.shape[:-2], perm.shape[:-1], b.shape[:-2]))
    pb = _permuted_rows(b, perm, batch, k)
    y = bind(_lt.TRIANGULAR_SOLVE, _unit_lower(lu_), pb, lower=True, adjoint=False)
    return bind(_lt.TRIANGULAR_SOLVE, lu_, y, lower=False, adjoint=False)


def lu_matrix_inverse(lower_upper, perm, validate_args=False, name=None):
    """``tf.linalg.lu_matrix_inverse``: the inverse of ``A`` from ``tf.linalg.lu(A)``."""
    lu_ = tensor(lower_upper)
    m = static_dims(lu_, 2, "lu_matrix_inverse")[-1]
    ident = broadcast_to(eye(m, dtype=lu_.dtype), lu_.shape[:-2] + (m, m))
    return lu_solve(lu_, perm, ident)


def lu_reconstruct(lower_upper, perm, validate_args=False, name=None):
    """``tf.linalg.lu_reconstruct``: ``A`` again from ``tf.linalg.lu(A)``."""
    lu_ = tensor(lower_upper)
    perm = asarray(perm)
    m = static_dims(lu_, 2, "lu_reconstruct")[-1]
    prod = _linalg.matmul(_unit_lower(lu_), band_part(lu_, 0, -1))
    batch = tuple(np.broadcast_shapes(lu_.shape[:-2], perm.shape[:-1]))
    return _permuted_rows(prod, argsort(perm, axis=-1), batch, m)


# --------------------------------------------------------------------------- tridiagonal
def _compact(diagonals, diagonals_format, name):
    """The ``[..., 3, M]`` compact form (superdiagonal, diagonal, subdiagonal)."""
    if diagonals_format == "compact":
        d = tensor(diagonals)
        if d.shape is not None and (len(d.shape) < 2 or d.shape[-2] != 3):
            raise ValueError(f"Expected 3 diagonals got {d.shape[-2] if d.shape else d}")
        return d
    if diagonals_format == "sequence":
        sup, main, sub = (tensor(t) for t in diagonals)
        m = main.shape[-1]

        def pad(t, what, before):
            n = t.shape[-1]
            if n == m:
                return t
            if n == m - 1:
                z = zeros(t.shape[:-1] + (1,), t.dtype)
                return concatenate([z, t] if before else [t, z], axis=-1)
            raise ValueError(f"Expected {what} to be have length {m} or {m - 1}, got {n}.")
        return stack([pad(sup, "superdiagonal", False), main,
                      pad(sub, "subdiagonal", True)], axis=-2)
    if diagonals_format == "matrix":
        d = tensor(diagonals)
        m1, m2 = static_dims(d, 2, name)
        if m1 != m2:
            raise ValueError(f"Expected last two dimensions of diagonals to be same, got "
                             f"{m1} and {m2}")
        return diag_part(d, k=(-1, 1), align="LEFT_RIGHT")
    raise ValueError(f"Unrecognized diagonals_format: {diagonals_format}")


def _dense_tridiagonal(compact):
    m = static_dims(compact, 1, "tridiagonal")[-1]
    return set_diag(zeros(compact.shape[:-2] + (m, m), compact.dtype), compact, k=(-1, 1),
                    align="LEFT_RIGHT")


def tridiagonal_solve(diagonals, rhs, diagonals_format="compact", transpose_rhs=False,
                      conjugate_rhs=False, name=None, partial_pivoting=True,
                      perturb_singular=False):
    """``tf.linalg.tridiagonal_solve``: ``x`` with ``A x = rhs`` for a tridiagonal ``A``
    given as ``'compact'`` (``[..., 3, M]``: superdiagonal, diagonal, subdiagonal),
    ``'sequence'`` or ``'matrix'``; ``rhs`` ``[..., M, K]`` or ``[..., M]``. Solved by
    LU with partial pivoting on the dense matrix (``partial_pivoting=False`` pivots
    too); a singular matrix raises ``LinAlgError``."""
    if perturb_singular:
        raise NotImplementedError("tridiagonal_solve(perturb_singular=True) is not "
                                  "supported; regularize the matrix instead")
    compact = _compact(diagonals, diagonals_format, "tridiagonal_solve")
    b = tensor(rhs)
    if transpose_rhs:
        b = matrix_transpose(b, conjugate=conjugate_rhs)
    elif conjugate_rhs and b.dtype.kind == "c":
        b = conjugate(b)
    vector = len(b.shape) == len(compact.shape) - 1
    if not vector and len(b.shape) != len(compact.shape):
        raise ValueError(f"Expected the rank of rhs to be {len(compact.shape) - 1} or "
                         f"{len(compact.shape)}, got {len(b.shape)}")
    if vector:
        b = expand_dims(b, -1)
    if compact.shape[-1] != b.shape[-2]:
        raise ValueError(f"Expected number of left-hand sided and right-hand sides to be "
                         f"equal, got {compact.shape[-1]} and {b.shape[-2]}")
    x = bind(_ld.SOLVE, _dense_tridiagonal(compact), b)
    return x[..., 0] if vector else x


def tridiagonal_matmul(diagonals, rhs, diagonals_format="compact", name=None):
    """``tf.linalg.tridiagonal_matmul``: ``A @ rhs`` for a tridiagonal ``A`` given as
    ``'compact'``, ``'sequence'`` or ``'matrix'`` (as ``tridiagonal_solve``), ``rhs``
    ``[..., M, N]``."""
    compact = _compact(diagonals, diagonals_format, "tridiagonal_matmul")
    b = asarray(_tf_args(rhs)[0])
    _rhs_matrix(b, "tridiagonal_matmul")
    sup, main, sub = (expand_dims(compact[..., r, :], -1) for r in range(3))
    zero = zeros(b.shape[:-2] + (1, b.shape[-1]), b.dtype)
    below = concatenate([b[..., 1:, :], zero], axis=-2)  # rhs[i + 1]
    above = concatenate([zero, b[..., :-1, :]], axis=-2)  # rhs[i - 1]
    return sup * below + main * b + sub * above


# --------------------------------------------------------------------------- least squares
def _gram_cholesky(a, l2, first_kind):
    gram = _linalg.matmul(_adj(a), a) if first_kind else _linalg.matmul(a, _adj(a))
    if l2 is not None:
        n = gram.shape[-1]
        gram = gram + asarray(l2).astype(gram.dtype) * eye(n, dtype=gram.dtype)
    return bind(_ld.CHOLESKY, gram, upper=False)


def lstsq(matrix, rhs, l2_regularizer=0.0, fast=True, name=None):
    """``tf.linalg.lstsq``: the least-squares solution of ``matrix @ x = rhs`` (``rhs``
    ``[..., M, K]``). ``fast=True``: through the (``l2_regularizer``-regularized) normal
    equations and Cholesky, as TensorFlow; ``fast=False``: the minimum-norm solution from
    the SVD (TensorFlow's complete orthogonal decomposition gives the same solution),
    without a regularizer."""
    a, b = _pair(matrix, rhs)
    _rhs_matrix(b, "lstsq")
    m, n = static_dims(a, 2, "lstsq")
    l2 = l2_regularizer
    static_zero = isinstance(l2, int | float) and l2 == 0
    if a.dtype == np.complex128 and not static_zero:
        raise NotImplementedError("matrix_solve_ls is currently disabled for complex128 and "
                                  "l2_regularizer != 0 due to poor accuracy.")
    if not fast:
        if not static_zero:
            raise NotImplementedError("lstsq(fast=False) with an l2_regularizer is not "
                                      "supported")
        return _linalg.matmul(pinv(a, rcond=np.finfo(a.dtype).eps * max(m, n)), b)
    l2 = None if static_zero else l2
    if m >= n:
        chol = _gram_cholesky(a, l2, True)
        return cholesky_solve(chol, _linalg.matmul(_adj(a), b))
    chol = _gram_cholesky(a, l2, False)
    return _linalg.matmul(_adj(a), cholesky_solve(chol, b))


def pinv(a, rcond=None, validate_args=False, name=None):
    """``tf.linalg.pinv``: the Moore-Penrose pseudo-inverse from the SVD, singular values
    at most ``rcond * max(s)`` dropped (default ``rcond``: ``10 * max(M, N) * eps``)."""
    x = tensor(a)
    if x.dtype not in (np.float32, np.float64):
        raise TypeError(f"pinv: input must be float32 or float64, got {x.dtype}")
    m, n = static_dims(x, 2, "pinv")
    if rcond is None:
        rcond = 10.0 * max(m, n) * np.finfo(x.dtype).eps
    u, s, vh = _ns.svd(x, full_matrices=False)
    cutoff = asarray(rcond).astype(x.dtype) * _max(s, axis=-1, keepdims=True)
    s = _u.where(s > cutoff, s, np.asarray(np.inf, x.dtype))
    return _linalg.matmul(swapaxes(vh, -1, -2) / expand_dims(s, -2), swapaxes(u, -1, -2))


def matrix_rank(a, tol=None, validate_args=False, name=None):
    """``tf.linalg.matrix_rank``: the number of singular values above ``tol`` (default
    ``eps * max(M, N) * max(s)``), as int32."""
    x = tensor(a)
    m, n = static_dims(x, 2, "matrix_rank")
    s = _ns.svd(x, compute_uv=False)
    if tol is None:
        tol = np.finfo(s.dtype).eps * max(m, n) * _max(s, axis=-1, keepdims=True)
    else:
        tol = asarray(tol).astype(s.dtype)
    return _sum((s > tol).astype(np.int32), axis=-1, dtype=np.int32)


def logdet(matrix, name=None):
    """``tf.linalg.logdet``: ``log(det(matrix))`` of Hermitian positive definite
    matrices, through the Cholesky factor (``2 * sum(log(diag(L)))``)."""
    x = tensor(matrix)
    chol = bind(_ld.CHOLESKY, x, upper=False)
    d = diag_part(chol)
    d = real(d) if d.dtype.kind == "c" else d
    return 2.0 * _sum(_u.log(d), axis=-1)
