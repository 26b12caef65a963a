"""``graphc.numpy.linalg`` (``gnp.linalg``): NumPy's ``numpy.linalg`` names and signatures.

The factorizations and solvers bind the ops of ``linalg_decomp.py``; the norms, ``cond``,
``matrix_rank``, ``pinv``, ``matrix_power``, ``multi_dot`` and ``tensorinv``/
``tensorsolve`` are compositions of existing ops (``linalg_norms.py``), and so are the
names NumPy 2 repeats here from the main namespace (``matmul``, ``outer``, ``tensordot``,
``trace``, ``diagonal``, ``cross``, ``vecdot``, ``matrix_transpose``), with the
``numpy.linalg`` spellings: keyword-only options, last-two-axes conventions.

>>> a = gnp.asarray([[4.0, 2.0], [2.0, 3.0]])
>>> gnp.linalg.cholesky(a) @ gnp.linalg.cholesky(a).T  # a again

Errors are NumPy's: ``LinAlgError`` (also ``numpy.linalg.LinAlgError``) for a singular or
non-positive-definite matrix and for operands that are not (square) matrices, found while
tracing when the shapes already say so. See docs/linalg.md.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from graphc.core.registry import bind
from graphc.ops import linalg as _linalg
from graphc.ops import linalg_decomp as _ld
from graphc.ops import linalg_decomp_batch as _batch  # noqa: F401  (attaches the rules)
from graphc.ops import linalg_decomp_grad as _grad  # noqa: F401  (attaches the rules)
from graphc.ops.convert import asarray
from graphc.ops.join import stack as _stack
from graphc.ops.linalg_decomp import LinAlgError  # noqa: F401  (part of the namespace)
from graphc.ops.linalg_norms import (  # noqa: F401  (part of the namespace)
    cond,
    matrix_norm,
    matrix_power,
    matrix_rank,
    multi_dot,
    norm,
    pinv,
    tensorinv,
    tensorsolve,
    vector_norm,
)
from graphc.ops.linalg_norms import conj as _conj
from graphc.ops.reduce import sum as _sum
from graphc.ops.shape import moveaxis as _moveaxis
from graphc.ops.shape import swapaxes as _swapaxes

EigResult = namedtuple("EigResult", "eigenvalues eigenvectors")
EighResult = namedtuple("EighResult", "eigenvalues eigenvectors")
QRResult = namedtuple("QRResult", "Q R")
SlogdetResult = namedtuple("SlogdetResult", "sign logabsdet")
SVDResult = namedtuple("SVDResult", "U S Vh")


def _matrix(a, name, square=True):
    """``a`` as a tensor, checked to be a (square) stack of matrices while its shape is
    known: NumPy's ``LinAlgError`` at trace time, not at the first run."""
    a = asarray(a)
    if a.shape is not None:
        _ld.matrix_dims(a.shape, name, square)
    return a


# --------------------------------------------------------------------------- solvers
def cholesky(a, /, *, upper=False):
    """``np.linalg.cholesky``: lower-triangular ``L`` with ``a = L @ L.conj().T``
    (``upper=True``: the upper factor ``L.conj().T``). Reads only that triangle of ``a``."""
    return bind(_ld.CHOLESKY, _matrix(a, "cholesky"), upper=bool(upper))


def inv(a):
    """``np.linalg.inv``: the inverse of each matrix of the stack."""
    return bind(_ld.INV, _matrix(a, "inv"))


def solve(a, b):
    """``np.linalg.solve``: ``x`` with ``a @ x = b``; a 1-D ``b`` is one vector for every
    matrix of the stack (NumPy 2), otherwise ``b`` is a stack of ``(M, K)`` matrices."""
    return bind(_ld.SOLVE, _matrix(a, "solve"), asarray(b))


def det(a):
    """``np.linalg.det``."""
    return bind(_ld.DET, _matrix(a, "det"))


def slogdet(a):
    """``np.linalg.slogdet``: ``(sign, logabsdet)`` with ``det = sign * exp(logabsdet)``."""
    return SlogdetResult(*bind(_ld.SLOGDET, _matrix(a, "slogdet")))


def lstsq(a, b, rcond=None):
    """``np.linalg.lstsq`` (2-D ``a``): ``(x, residuals, rank, s)``. While tracing,
    ``residuals`` has an unknown length when ``a`` has more rows than columns (NumPy's
    is empty unless ``a`` has full column rank); ``rank`` is an int32 tensor."""
    a = _matrix(a, "lstsq", square=False)
    rcond = None if rcond is None else float(rcond)
    return tuple(bind(_ld.LSTSQ, a, asarray(b), rcond=rcond))


# --------------------------------------------------------------------------- eigen, svd, qr
def _uplo(UPLO):  # noqa: N803 - NumPy's parameter name
    uplo = str(UPLO).upper()
    if uplo not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    return uplo


def eigh(a, UPLO="L"):  # noqa: N803 - NumPy's parameter name
    """``np.linalg.eigh``: ascending eigenvalues and orthonormal eigenvectors (columns)
    of a symmetric/Hermitian matrix; only the ``UPLO`` triangle is read."""
    w, v = bind(_ld.EIGH, _matrix(a, "eigh"), UPLO=_uplo(UPLO))
    return EighResult(w, v)


def eigvalsh(a, UPLO="L"):  # noqa: N803 - NumPy's parameter name
    """``np.linalg.eigvalsh`` (``eigh``'s eigenvalues)."""
    return eigh(a, UPLO)[0]


def eig(a):
    """``np.linalg.eig``. The results are always complex (NumPy's are real when every
    eigenvalue is, a dtype that depends on the values); the interpreter runs it."""
    w, v = bind(_ld.EIG, _matrix(a, "eig"))
    return EigResult(w, v)


def eigvals(a):
    """``np.linalg.eigvals`` (``eig``'s eigenvalues, always complex)."""
    return eig(a)[0]


def qr(a, mode="reduced"):
    """``np.linalg.qr`` with ``mode`` ``'reduced'``, ``'complete'`` (``(Q, R)``) or
    ``'r'`` (``R`` alone); ``'raw'`` (LAPACK's Householder form) is not supported."""
    if mode == "raw":
        raise NotImplementedError("qr(mode='raw') is not supported; use 'reduced', "
                                  "'complete' or 'r'")
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"Unrecognized mode '{mode}'")
    a = _matrix(a, "qr", square=False)
    q, r = bind(_ld.QR, a, mode="reduced" if mode == "r" else mode)
    return r if mode == "r" else QRResult(q, r)


def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    """``np.linalg.svd``: ``(U, S, Vh)`` with ``a = U @ diag(S) @ Vh`` (``S`` descending);
    ``compute_uv=False``: ``S`` alone."""
    a = _matrix(a, "svd", square=bool(hermitian))
    if not compute_uv:
        return bind(_ld.SVDVALS, a, hermitian=bool(hermitian))
    u, s, vh = bind(_ld.SVD, a, full_matrices=bool(full_matrices), hermitian=bool(hermitian))
    return SVDResult(u, s, vh)


def svdvals(x, /):
    """``np.linalg.svdvals``: the singular values, descending."""
    return bind(_ld.SVDVALS, _matrix(x, "svdvals", square=False), hermitian=False)


# --------------------------------------------------------------------------- NumPy 2's
def matmul(x1, x2, /):
    """``np.linalg.matmul`` (``np.matmul`` without its ufunc options)."""
    return _linalg.matmul(x1, x2)


def outer(x1, x2, /):
    """``np.linalg.outer``: of two 1-D arrays only."""
    x1, x2 = asarray(x1), asarray(x2)
    if len(x1.shape) != 1 or len(x2.shape) != 1:
        raise ValueError("Input arrays must be one-dimensional, but they are "
                         f"x1.ndim={len(x1.shape)} and x2.ndim={len(x2.shape)}.")
    return _linalg.outer(x1, x2)


def tensordot(x1, x2, /, *, axes=2):
    """``np.linalg.tensordot``."""
    return _linalg.tensordot(x1, x2, axes=axes)


def trace(x, /, *, offset=0, dtype=None):
    """``np.linalg.trace``: the sum along the diagonals of the last two axes."""
    x = asarray(x)
    if len(x.shape) < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    if dtype is not None:
        return _linalg.trace(x.astype(dtype), offset=offset, axis1=-2,
                             axis2=-1).astype(dtype)
    return _linalg.trace(x, offset=offset, axis1=-2, axis2=-1)


def diagonal(x, /, *, offset=0):
    """``np.linalg.diagonal``: the diagonals of the last two axes (a copy)."""
    x = asarray(x)
    if len(x.shape) < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    m, n = x.shape[-2], x.shape[-1]
    offset = int(offset)
    if offset or m != n:
        if m is None or n is None:
            raise NotImplementedError("diagonal(offset != 0) of a non-square matrix needs "
                                      "the last two dims known while tracing")
        k = max(0, min(m + min(offset, 0), n - max(offset, 0)))
        r0, c0 = max(-offset, 0), max(offset, 0)
        x = x[..., r0:r0 + k, c0:c0 + k]
    return _linalg.einsum("...ii->...i", x)


def cross(x1, x2, /, *, axis=-1):
    """``np.linalg.cross``: of 3-element vectors along ``axis``."""
    x1, x2 = asarray(x1), asarray(x2)
    n1, n2 = x1.shape[axis], x2.shape[axis]
    if n1 != 3 or n2 != 3:
        raise ValueError("Both input arrays must be (arrays of) 3-dimensional vectors, but "
                         f"they are {n1} and {n2} dimensional instead.")
    a, b = _moveaxis(x1, axis, -1), _moveaxis(x2, axis, -1)
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    out = _stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)
    return _moveaxis(out, -1, axis) if axis not in (-1, len(out.shape) - 1) else out


def vecdot(x1, x2, /, *, axis=-1):
    """``np.linalg.vecdot``: ``sum(conj(x1) * x2, axis)`` in the operands' dtype."""
    x1, x2 = asarray(x1), asarray(x2)
    n1, n2 = x1.shape[axis], x2.shape[axis]
    if n1 is not None and n2 is not None and n1 != n2:
        raise ValueError(f"vecdot: the operands differ along axis {axis} ({n1} != {n2})")
    dtype = np.result_type(x1.dtype, x2.dtype)
    return _sum(_conj(x1) * x2, axis=axis, dtype=dtype)


def matrix_transpose(x, /):
    """``np.linalg.matrix_transpose``: the last two axes swapped."""
    x = asarray(x)
    if len(x.shape) < 2:
        raise ValueError(f"Input array must be at least 2-dimensional, but it is "
                         f"{len(x.shape)}")
    return _swapaxes(x, -1, -2)


__all__ = [n for n in (
    "LinAlgError cholesky cond cross det diagonal eig eigh eigvals eigvalsh inv lstsq "
    "matmul matrix_norm matrix_power matrix_rank matrix_transpose multi_dot norm outer "
    "pinv qr slogdet solve svd svdvals tensordot tensorinv tensorsolve trace vecdot "
    "vector_norm").split()]
