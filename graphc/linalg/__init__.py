"""``gc.linalg``: TensorFlow's ``tf.linalg`` names, signatures and conventions.

Loaded on first use (``gc.linalg``; ``import graphc`` does not import it). The names
follow TensorFlow: ``svd`` returns ``(s, u, v)`` with ``v`` not transposed, ``eigh``
``(e, v)``, ``slogdet`` ``(sign, log_abs_determinant)``, ``qr(full_matrices=False)``,
``triangular_solve(lower=True, adjoint=False)``, the ``k`` bands and alignments of
``diag``/``diag_part``/``set_diag``, ``norm``'s ``ord``/``axis`` rules, Python literals
as float32/int32. Matrices are the last two dims of ``[..., M, N]`` tensors.

>>> import graphc as gc
>>> a = gc.constant([[4.0, 2.0], [2.0, 3.0]])
>>> gc.linalg.cholesky_solve(gc.linalg.cholesky(a), [[1.0], [2.0]])

The new ops (``triangular_solve``, ``lu``, ``expm``, ``sqrtm``, ``logm``) are in
``graphc/ops/linalg_tf.py``; everything else is a composition of existing ops. See
docs/tf_linalg.md (what compiles, what differentiates, what is absent and why).
"""

from __future__ import annotations

from graphc.linalg._decomp import (
    cholesky,
    det,
    eig,
    eigh,
    eigh_tridiagonal,
    eigvals,
    eigvalsh,
    expm,
    inv,
    logm,
    qr,
    slogdet,
    solve,
    sqrtm,
    svd,
)
from graphc.linalg._diag import (
    adjoint,
    band_part,
    diag,
    diag_part,
    eye,
    matrix_transpose,
    set_diag,
    tensor_diag,
    tensor_diag_part,
    trace,
)
from graphc.linalg._products import (
    cross,
    einsum,
    global_norm,
    l2_normalize,
    matmul,
    matvec,
    norm,
    normalize,
    tensordot,
)
from graphc.linalg._solve import (
    banded_triangular_solve,
    cholesky_solve,
    logdet,
    lstsq,
    lu,
    lu_matrix_inverse,
    lu_reconstruct,
    lu_solve,
    matrix_rank,
    pinv,
    triangular_solve,
    tridiagonal_matmul,
    tridiagonal_solve,
)
from graphc.ops.linalg_decomp import LinAlgError

__all__ = [
    "LinAlgError", "adjoint", "band_part", "banded_triangular_solve", "cholesky",
    "cholesky_solve", "cross", "det", "diag", "diag_part", "eig", "eigh",
    "eigh_tridiagonal", "eigvals", "eigvalsh", "einsum", "expm", "eye", "global_norm",
    "inv", "l2_normalize", "logdet", "logm", "lstsq", "lu", "lu_matrix_inverse",
    "lu_reconstruct", "lu_solve", "matmul", "matrix_rank", "matrix_transpose", "matvec",
    "norm", "normalize", "pinv", "qr", "set_diag", "slogdet", "solve", "sqrtm", "svd",
    "tensor_diag", "tensor_diag_part", "tensordot", "trace", "triangular_solve",
    "tridiagonal_matmul", "tridiagonal_solve",
]
