"""BLAS and LAPACK calls of generated programs, as cached helpers (``H.dot(a, b)``,
``H.cholesky(m)``, ...): the same ``H.`` namespace as ``numba_helpers``.

Typing and lowering Numba's ``np.dot`` or ``np.linalg.*`` inside a program took most of
that program's compile (a 10x10 matrix-vector product: about 1.5 s more than the same
program without it, on a loaded 2-core machine; NumPy's LAPACK wrappers about 5 s each
for the first compile). Behind a helper compiled with ``cache=True`` that work is done
once per signature on a machine and loaded from Numba's cache afterwards, so a new
program that multiplies matrices only links the helper in. The helpers are NumPy's own
functions as Numba compiles them: the results are what the inline calls gave.
"""

from __future__ import annotations

import numba
import numpy as np

_jit = numba.njit(cache=True, error_model="numpy", nogil=True)


@_jit
def dot(a, b):
    """``np.dot(a, b)``: BLAS gemm/gemv/dot for float operands of one dtype."""
    return np.dot(a, b)


@_jit
def dot_into(a, b, out):
    """``np.dot(a, b, out)``: the product written into ``out`` (a result slice)."""
    np.dot(a, b, out)


@_jit
def cholesky(a):
    return np.linalg.cholesky(a)


@_jit
def solve(a, b):
    return np.linalg.solve(a, b)


@_jit
def det(a):
    return np.linalg.det(a)


@_jit
def slogdet(a):
    return np.linalg.slogdet(a)


@_jit
def eigh(a):
    return np.linalg.eigh(a)


@_jit
def qr(a):
    return np.linalg.qr(a)


@_jit
def svd(a, full_matrices):
    return np.linalg.svd(a, full_matrices)


@_jit
def lstsq(a, b, rcond):
    return np.linalg.lstsq(a, b, rcond)

