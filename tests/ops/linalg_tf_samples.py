"""Registry samples of the ops of graphc/ops/linalg_tf.py (``triangular_solve``, ``lu``,
``expm``, ``sqrtm``, ``logm``), merged into ``test_registry.SAMPLES`` so every registry
walk covers them.

The matrices suit each op and its gradient check: well-conditioned triangles, matrices
whose pivots stay put under small perturbations (``lu``), positive definite matrices
for ``sqrtm``/``logm`` (real principal square root and logarithm). Each op's first
sample is float64 (the Numba walk compiles it); stacks and broadcasting, float32, ints
(computed in float64) and complex (the interpreter runs those) follow. The oracles are
SciPy's functions called matrix by matrix.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sl

F32, F64, I32, I64 = (np.dtype(n) for n in ("float32", "float64", "int32", "int64"))
C64, C128 = np.dtype("complex64"), np.dtype("complex128")


def s(*args, **attrs):
    return (args, attrs)


def rand(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.uniform(-1, 1, shape)
    return x.astype(dtype)


def general(shape, dtype, seed=0):
    """Random entries plus ``n`` on the diagonal: well conditioned."""
    return (rand(shape, dtype, seed) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def pivoting(shape, dtype, seed=0):
    """Random entries with one large entry per column in a shuffled row: ``lu`` pivots
    (the same rows under small perturbations)."""
    x = rand(shape, F64, seed)
    n = shape[-1]
    rows = np.random.default_rng(seed + 7).permutation(n)
    x[..., rows, np.arange(n)] += 4.0 + np.arange(n)
    return x.astype(dtype)


def spd(shape, dtype, seed=0):
    """Symmetric positive definite (eigenvalues in about [1, 3]) for sqrtm/logm."""
    x = rand(shape, np.complex128 if np.dtype(dtype).kind == "c" else F64, seed) * 0.4
    a = x @ np.conj(np.swapaxes(x, -1, -2)) + np.eye(shape[-1])
    return a.astype(dtype)


def _per_matrix(f, x):
    x = np.asarray(x)
    t = np.result_type(x.dtype, np.float16) if x.dtype.kind in "fc" else np.dtype(F64)
    xs = x.astype(t).reshape((-1,) + x.shape[-2:])
    return np.stack([np.asarray(f(m)).astype(t) for m in xs]).reshape(x.shape)


def _trsm_oracle(a, b, lower, adjoint):
    t = np.result_type(a.dtype, b.dtype, np.float16) if np.result_type(
        a.dtype, b.dtype).kind in "fc" else F64
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a2 = np.broadcast_to(a, batch + a.shape[-2:]).reshape((-1,) + a.shape[-2:]).astype(t)
    b2 = np.broadcast_to(b, batch + b.shape[-2:]).reshape((-1,) + b.shape[-2:]).astype(t)
    out = [sl.solve_triangular(x, y, lower=lower, trans="C" if adjoint else "N")
           for x, y in zip(a2, b2)]
    return np.stack(out).astype(t).reshape(batch + b.shape[-2:])


def _lu_oracle(x, output_idx_type):
    t = np.result_type(x.dtype, np.float16) if x.dtype.kind in "fc" else F64
    xs = x.astype(t).reshape((-1,) + x.shape[-2:])
    lus, perms = [], []
    for m in xs:
        p, low, up = sl.lu(m)  # m = p @ low @ up
        lus.append(np.tril(low, -1) + up)
        perms.append(np.argmax(p, axis=0))  # row i of low @ up is row perm[i] of m
    return [np.stack(lus).astype(t).reshape(x.shape),
            np.stack(perms).astype(output_idx_type).reshape(x.shape[:-1])]


LINALG_TF_SAMPLES = {
    "triangular_solve": [
        s(general((3, 3), F64), rand((3, 2), F64, 1), lower=True, adjoint=False),
        s(general((2, 3, 3), F32), rand((3, 1), F32, 1), lower=False, adjoint=False),
        s(general((3, 3), F64, 2), rand((2, 3, 2), F64, 3), lower=True, adjoint=True),
        s(general((2, 2), I64), np.array([[1, 2], [3, 4]], I32), lower=False, adjoint=True),
        s(general((2, 2), C128), rand((2, 1), C128, 1), lower=True, adjoint=True),
        s(general((2, 1, 2, 2), F64, 4), rand((3, 2, 2), F64, 5), lower=False, adjoint=False)],
    "lu": [s(pivoting((4, 4), F64), output_idx_type=I32),
           s(pivoting((2, 3, 3), F32, 1), output_idx_type=I64),
           s(np.array([[1, 2], [3, 4]], I64), output_idx_type=I32),
           s(general((3, 3), C128), output_idx_type=I32),
           s(pivoting((2, 2, 3, 3), F64, 2), output_idx_type=I64)],
    "expm": [s(rand((3, 3), F64)), s(rand((2, 3, 3), F32, 1)),
             s(np.array([[0, 1], [-1, 0]], I64)), s(rand((2, 2), C128, 2)),
             s(rand((2, 2), F64, 3) * 6.0)],
    "sqrtm": [s(spd((3, 3), F64)), s(spd((2, 3, 3), F32, 1)),
              s(np.array([[4, 1], [1, 3]], I32)), s(spd((2, 2), C128, 2)),
              s(spd((2, 2, 2), F64, 3))],
    "logm": [s(spd((3, 3), F64)), s(spd((2, 3, 3), F32, 1)),
             s(np.array([[4, 1], [1, 3]], I64)), s(spd((2, 2), C128, 2)),
             s(spd((2, 2, 2), F64, 3))],
}

LINALG_TF_EQUIV = {
    "triangular_solve": _trsm_oracle,
    "lu": _lu_oracle,
    "expm": lambda x: _per_matrix(sl.expm, x),
    "sqrtm": lambda x: _per_matrix(sl.sqrtm, x),
    "logm": lambda x: _per_matrix(sl.logm, x),
}
