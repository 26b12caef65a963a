"""``gc.linalg``'s factorizations, determinants and matrix functions with TensorFlow's
signatures and result orders, over the ops of ``graphc/ops/linalg_decomp.py`` (NumPy's)
and ``graphc/ops/linalg_tf.py`` (``expm``, ``sqrtm``, ``logm``).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from graphc.core.registry import bind
from graphc.linalg._diag import conjugate_if, diag, static_dims, tensor
from graphc.ops import linalg_decomp as _ld
from graphc.ops import linalg_tf as _lt
from graphc.ops.complex_parts import real
from graphc.ops.convert import asarray
from graphc.ops.shape import swapaxes
from graphc.ops.tf_elementwise import _tf_args

Qr = namedtuple("Qr", "q r")
Slogdet = namedtuple("Slogdet", "sign log_abs_determinant")


def _square(x, name):
    x = tensor(x)
    if x.shape is not None:
        _ld.matrix_dims(x.shape, name)
    return x


def cholesky(input, name=None):  # noqa: A002 - TensorFlow's name
    """``tf.linalg.cholesky``: the lower Cholesky factor of each Hermitian positive
    definite matrix (only the lower triangle is read)."""
    return bind(_ld.CHOLESKY, _square(input, "cholesky"), upper=False)


def det(input, name=None):  # noqa: A002
    """``tf.linalg.det``: the determinant of each square matrix."""
    return bind(_ld.DET, _square(input, "det"))


def slogdet(input, name=None):  # noqa: A002
    """``tf.linalg.slogdet``: ``(sign, log_abs_determinant)``."""
    return Slogdet(*bind(_ld.SLOGDET, _square(input, "slogdet")))


def inv(input, adjoint=False, name=None):  # noqa: A002
    """``tf.linalg.inv``: the inverse of each matrix (of its adjoint with ``adjoint``);
    a singular matrix raises ``LinAlgError``."""
    x = _square(input, "inv")
    if adjoint:
        x = conjugate_if(swapaxes(x, -1, -2), True)
    return bind(_ld.INV, x)


def solve(matrix, rhs, adjoint=False, name=None):
    """``tf.linalg.solve``: ``x`` with ``matrix @ x = rhs`` (``adjoint(matrix) @ x`` with
    ``adjoint``), ``rhs`` ``[..., M, K]``."""
    a, b = (asarray(t) for t in _tf_args(matrix, rhs))
    if a.shape is not None:
        _ld.matrix_dims(a.shape, "solve")
    if b.shape is not None and len(b.shape) < 2:
        raise ValueError(f"solve: rhs must be a (batch of) matrices [..., M, K], got "
                         f"shape {b.shape}")
    if adjoint:
        a = conjugate_if(swapaxes(a, -1, -2), True)
    return bind(_ld.SOLVE, a, b)


def eig(tensor, name=None):  # noqa: A002 - TensorFlow's name (shadows the helper here)
    """``tf.linalg.eig``: ``(e, v)``, the eigenvalues and eigenvectors (columns) of each
    square matrix, complex (complex64 for float32, complex128 for float64)."""
    e, v = bind(_ld.EIG, _square(tensor, "eig"))
    return e, v


def eigvals(tensor, name=None):  # noqa: A002
    """``tf.linalg.eigvals``: the eigenvalues of ``eig``."""
    return eig(tensor)[0]


def eigh(tensor, name=None):  # noqa: A002
    """``tf.linalg.eigh``: ``(e, v)``, ascending eigenvalues and orthonormal
    eigenvectors of each self-adjoint matrix (the lower triangle is read)."""
    e, v = bind(_ld.EIGH, _square(tensor, "eigh"), UPLO="L")
    return e, v


def eigvalsh(tensor, name=None):  # noqa: A002
    """``tf.linalg.eigvalsh``: the eigenvalues of ``eigh``."""
    return eigh(tensor)[0]


def qr(input, full_matrices=False, name=None):  # noqa: A002
    """``tf.linalg.qr``: ``(q, r)``; ``full_matrices=True`` gives the square ``q``."""
    x = tensor(input)
    if x.shape is not None:
        _ld.matrix_dims(x.shape, "qr", square=False)
    q, r = bind(_ld.QR, x, mode="complete" if full_matrices else "reduced")
    return Qr(q, r)


def svd(tensor, full_matrices=False, compute_uv=True, name=None):  # noqa: A002
    """``tf.linalg.svd``: ``(s, u, v)`` with ``tensor = u @ diag(s) @ adjoint(v)`` (``v``
    itself, not its adjoint; ``s`` descending); ``compute_uv=False``: ``s`` alone."""
    x = asarray(_tf_args(tensor)[0])
    if x.shape is not None:
        _ld.matrix_dims(x.shape, "svd", square=False)
    if not compute_uv:
        return bind(_ld.SVDVALS, x, hermitian=False)
    u, s, vh = bind(_ld.SVD, x, full_matrices=bool(full_matrices), hermitian=False)
    return s, u, conjugate_if(swapaxes(vh, -1, -2), True)


def expm(input, name=None):  # noqa: A002
    """``tf.linalg.expm``: the matrix exponential of each square matrix (SciPy's
    scaling and squaring Padé algorithm)."""
    return bind(_lt.EXPM, _square(input, "expm"))


def sqrtm(input, name=None):  # noqa: A002
    """``tf.linalg.sqrtm``: the principal square root of each square matrix (Schur
    method); NaN for a real matrix whose square root is not real."""
    return bind(_lt.SQRTM, _square(input, "sqrtm"))


def logm(input, name=None):  # noqa: A002
    """``tf.linalg.logm``: the principal logarithm of each complex square matrix (as in
    TensorFlow, the input must be complex64 or complex128)."""
    x = _square(input, "logm")
    if x.dtype.kind != "c":
        raise TypeError(f"logm: input must be complex64 or complex128, got {x.dtype}")
    return bind(_lt.LOGM, x)


def eigh_tridiagonal(alpha, beta, eigvals_only=True, select="a", select_range=None,
                     tol=None, name=None):
    """``tf.linalg.eigh_tridiagonal``: the eigenvalues (ascending; with
    ``eigvals_only=False`` also the eigenvectors) of the self-adjoint tridiagonal matrix
    of diagonal ``alpha`` (``n``) and superdiagonal ``beta`` (``n - 1``). ``select``:
    ``'a'`` all, ``'i'`` the indices ``select_range[0]..select_range[1]`` (inclusive),
    ``'v'`` the eigenvalues in ``(lo, hi]`` (a length known only when it runs).
    Computed with ``eigh`` of the dense matrix; ``tol`` is not needed."""
    a, b = (asarray(t) for t in _tf_args(alpha, beta))
    n = static_dims(a, 1, "eigh_tridiagonal")[-1]
    if len(a.shape) != 1 or len(b.shape) != 1:
        raise ValueError("eigh_tridiagonal: alpha and beta must be 1-D")
    if b.shape[0] != n - 1:
        raise ValueError(f"eigh_tridiagonal: beta must have length {n - 1}, got "
                         f"{b.shape[0]}")
    if select not in ("a", "i", "v"):
        raise ValueError(f"select must be 'a', 'i' or 'v', got {select!r}")
    if a.dtype.kind == "c":
        a = real(a)
    dt = np.result_type(a.dtype, b.dtype)
    a = a.astype(dt)
    b = b.astype(dt)
    if n == 1:
        mat = a.reshape((1, 1))
    else:
        sub = conjugate_if(b, True)
        mat = (diag(a) + diag(b, k=1, num_rows=n, num_cols=n)
               + diag(sub, k=-1, num_rows=n, num_cols=n))
    e, v = bind(_ld.EIGH, mat, UPLO="L")
    if select == "i":
        lo, hi = (int(i) for i in select_range)
        e, v = e[lo:hi + 1], v[:, lo:hi + 1]
    elif select == "v":
        lo, hi = (asarray(t).astype(e.dtype) for t in select_range)
        keep = (e > lo) & (e <= hi)
        e, v = e[keep], v[:, keep]
    return e if eigvals_only else (e, v)
