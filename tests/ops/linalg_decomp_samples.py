"""Registry samples of the ops of graphc/ops/linalg_decomp.py (merged into
``test_registry.SAMPLES``, so every registry walk covers them).

The matrices suit each op and its gradient check (finite differences): symmetric
positive definite for ``cholesky``/``eigh``, well conditioned and of distinct
eigen/singular values elsewhere, full rank for ``qr``/``lstsq``. Each op's first sample is
float64 (the Numba registry walk compiles it: bit-equal to NumPy there). Shapes cover
stacks (``(2, n, n)``), and dtypes float32, float64, ints (computed in float64) and
complex (the interpreter runs those).
"""

from __future__ import annotations

import numpy as np

F32, F64, I32, I64 = (np.dtype(n) for n in ("float32", "float64", "int32", "int64"))
C64, C128 = np.dtype("complex64"), np.dtype("complex128")


def s(*args, **attrs):
    return (args, attrs)


def general(shape, dtype, seed=0):
    """Well-conditioned matrices: random entries plus ``n`` on the diagonal."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.uniform(-1, 1, shape)
    m, n = shape[-2], shape[-1]
    return (x + max(m, n) * np.eye(m, n)).astype(dtype)


def spd(n, dtype, batch=(), seed=0):
    """Symmetric (Hermitian) positive definite, distinct eigenvalues."""
    x = general(batch + (n, n), np.complex128 if np.dtype(dtype).kind == "c" else F64, seed)
    a = x @ np.conj(np.swapaxes(x, -1, -2)) + np.diag(np.arange(1.0, n + 1))
    return a.astype(dtype)


def tall(shape, dtype, seed=0):
    """Full-rank rectangular matrices with distinct singular values: random entries
    plus ``2, 3, ...`` down the diagonal."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.uniform(-1, 1, shape)
    m, n = shape[-2], shape[-1]
    k = min(m, n)
    d = np.zeros((m, n))
    d[range(k), range(k)] = np.arange(2.0, 2 + k)
    return (x + d).astype(dtype)


INT_SPD = np.array([[4, 1, 0], [1, 3, 1], [0, 1, 2]])
INT_GENERAL = np.array([[3, 1], [-1, 2]])

LINALG_SAMPLES = {
    "cholesky": [s(spd(3, F64), upper=False), s(spd(2, F32, (2,)), upper=True),
                 s(INT_SPD.astype(I64), upper=False), s(spd(2, C128), upper=False),
                 s(spd(3, F64, (2,), seed=1), upper=True)],
    "inv": [s(general((3, 3), F64)), s(general((2, 2, 2), F32)), s(INT_GENERAL.astype(I32)),
            s(general((2, 2), C64))],
    "solve": [s(general((3, 3), F64), general((3, 1), F64, 1)[:, 0]),
              s(general((2, 2, 2), F32), general((2, 2, 3), F32, 1)),
              s(INT_GENERAL.astype(I64), np.array([[1], [2]], I32)),
              s(general((2, 3, 3), F64), general((3, 1), F64, 2)[:, 0]),
              s(general((2, 2), C128), np.array([1.0, -2.0])),
              s(general((3, 3), F64), general((2, 3, 2), F64, 3))],
    "det": [s(general((3, 3), F64)), s(general((2, 2, 2), F32)), s(INT_GENERAL.astype(I64)),
            s(general((2, 2), C128)), s(general((2, 1, 3, 3), F64, 1))],
    "slogdet": [s(general((3, 3), F64)), s(general((2, 2, 2), F32)),
                s(INT_GENERAL.astype(I32)), s(general((2, 2), C128)),
                s(-general((2, 3, 3), F64, 1))],
    "eigh": [s(spd(3, F64), UPLO="L"), s(spd(3, F32, (2,)), UPLO="U"),
             s(INT_SPD.astype(I64), UPLO="L"), s(spd(2, C128), UPLO="L"),
             s(spd(3, F64, seed=2), UPLO="U")],
    "eig": [s(general((3, 3), F64)), s(general((2, 2, 2), F32)), s(INT_GENERAL.astype(I64)),
            s(general((2, 2), C128))],
    "qr": [s(tall((4, 3), F64), mode="reduced"), s(tall((2, 3, 4), F32), mode="reduced"),
           s(tall((3, 3), I64), mode="complete"), s(tall((3, 2), C128), mode="reduced"),
           s(tall((2, 3), F64, 1), mode="complete"), s(tall((2, 4, 2), F64, 2), mode="reduced")],
    "svd": [s(tall((4, 3), F64), full_matrices=False, hermitian=False),
            s(tall((2, 3, 4), F32), full_matrices=False, hermitian=False),
            s(tall((3, 3), I64), full_matrices=True, hermitian=False),
            s(tall((3, 2), C128), full_matrices=False, hermitian=False),
            s(tall((2, 3), F64, 1), full_matrices=False, hermitian=False),
            s(tall((3, 3), F64, 2), full_matrices=True, hermitian=False)],
    "svdvals": [s(tall((4, 3), F64), hermitian=False), s(tall((2, 3, 4), F32), hermitian=False),
                s(tall((3, 3), I64), hermitian=False), s(tall((2, 2), C128), hermitian=False),
                s(spd(3, F64), hermitian=True)],
    "lstsq": [s(tall((4, 2), F64), general((4, 1), F64, 1)[:, 0], rcond=None),
              s(tall((3, 3), F32), general((3, 2), F32, 1), rcond=None),
              s(tall((2, 3), I64), np.array([1, 2], I32), rcond=None),
              s(tall((4, 3), F64, 1), general((4, 2), F64, 2), rcond=1e-10),
              s(tall((3, 2), C128), np.array([1.0, 0.5j, -1.0]), rcond=None),
              s(tall((2, 4), F64, 2), general((2, 2), F64, 3), rcond=None)],
    "linalg_conj": [s(general((2, 3), F64)), s(general((3, 3), C128)),
                    s(general((2, 2), C64)), s(np.asarray(1.5, F32))],
}

LINALG_EQUIV = {
    "cholesky": lambda x, upper: np.linalg.cholesky(x, upper=upper),
    "inv": np.linalg.inv,
    "solve": np.linalg.solve,
    "det": np.linalg.det,
    "slogdet": lambda x: list(np.linalg.slogdet(x)),
    "eigh": lambda x, UPLO: list(np.linalg.eigh(x, UPLO=UPLO)),  # noqa: N803
    "eig": lambda x: [np.asarray(r, np.result_type(r.dtype, np.complex64))
                      for r in np.linalg.eig(x)],
    "qr": lambda x, mode: list(np.linalg.qr(x, mode=mode)),
    "svd": lambda x, full_matrices, hermitian: list(np.linalg.svd(
        x, full_matrices=full_matrices, hermitian=hermitian)),
    "svdvals": lambda x, hermitian: np.linalg.svd(x, compute_uv=False, hermitian=hermitian),
    "lstsq": lambda a, b, rcond: [np.asarray(r) for r in np.linalg.lstsq(a, b, rcond=rcond)],
    "linalg_conj": np.conjugate,
}

LINALG_DATA_DEPENDENT_DIMS = {
    "lstsq": "the residuals are there only when the matrix has full column rank",
}
