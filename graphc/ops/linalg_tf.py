"""TensorFlow's ``tf.linalg`` ops that no composition of existing ops does well:
``triangular_solve`` (``tf.linalg.triangular_solve``, BLAS's trsm), ``lu``
(``tf.linalg.lu``: LU with partial pivoting, SciPy's ``lu_factor``), and the matrix
functions ``expm``, ``sqrtm``, ``logm`` (SciPy's ``scipy.linalg`` functions).

Each works on stacks of matrices (``[..., M, M]``); ``triangular_solve`` broadcasts the
batch dims of its two operands, as TensorFlow's does. Dtypes follow ``numpy.linalg``'s
rules (float32 stays float32, complex stays complex, ints and bools are computed in
float64, float16 is refused); the public ``gc.linalg`` functions (``graphc/linalg.py``)
give them TensorFlow's signatures.

No error for a singular matrix, as in TensorFlow: ``triangular_solve`` of a zero
diagonal gives inf/nan, ``lu`` of a singular matrix gives a zero pivot in ``U``.
``sqrtm``/``logm`` of a real matrix whose result is not real give NaN (TensorFlow's real
kernels do too; pass a complex matrix for the complex result).

SciPy is imported when a reference first runs (``import graphc`` does not load it).
The gradient and batching rules are in ``linalg_tf_rules.py``; the Numba emitters in
``graphc/runtime/cpu/kernels_linalg_tf.py``.
"""

from __future__ import annotations

import warnings

import numpy as np

from graphc.core.attr_types import BOOL, DTYPE
from graphc.core.registry import OpDef, register
from graphc.core.shapes import broadcast_shapes
from graphc.ir.graph import Aval
from graphc.ops.linalg_decomp import LinAlgError, matrix_dims


def float_type(*dtypes) -> np.dtype:
    """The dtype a linalg op computes in: ints and bools as float64, float16 refused."""
    t = np.result_type(*dtypes)
    if t.kind in "iub":
        return np.dtype(np.float64)
    if t == np.float16 or t.kind not in "fc":
        raise TypeError(f"array type {t} is unsupported in linalg")
    return t


def _stack(x, core_rank=2):
    """``x`` as ``(count, *core)`` and its batch shape."""
    batch = x.shape[:-core_rank]
    return x.reshape((-1,) + x.shape[len(batch):]), batch


# --------------------------------------------------------------------------- triangular_solve
def _triangular_solve_ref(a, b, lower=True, adjoint=False):
    from scipy.linalg import blas  # deferred: SciPy, loaded by the first reference run

    a, b = np.asarray(a), np.asarray(b)
    _triangular_solve_infer(Aval(a.shape, a.dtype), Aval(b.shape, b.dtype))  # the checks
    t = float_type(a.dtype, b.dtype)
    m, k = a.shape[-1], b.shape[-1]
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    out = np.zeros(batch + (m, k), t)
    if out.size == 0:
        return out
    a3 = np.broadcast_to(a, batch + a.shape[-2:]).astype(t).reshape(-1, m, m)
    b3 = np.broadcast_to(b, batch + b.shape[-2:]).astype(t).reshape(-1, m, k)
    trsm = blas.get_blas_funcs("trsm", dtype=t)
    flat = out.reshape(-1, m, k)
    with np.errstate(all="ignore"):
        for i in range(flat.shape[0]):
            flat[i] = trsm(1.0, a3[i], b3[i], lower=int(lower), trans_a=2 if adjoint else 0)
    return out


def _triangular_solve_infer(a, b, lower=True, adjoint=False):
    t = float_type(a.dtype, b.dtype)
    if a.shape is None or b.shape is None:
        return Aval(None, t)
    m, _ = matrix_dims(a.shape, "triangular_solve")
    if len(b.shape) < 2:
        raise ValueError(f"triangular_solve: rhs must have at least 2 dims (a stack of "
                         f"[M, K] matrices), got shape {b.shape}")
    bm = b.shape[-2]
    if m is not None and bm is not None and m != bm:
        raise ValueError(f"triangular_solve: the matrix is {m}x{m} but rhs has {bm} rows "
                         f"(shapes {a.shape} and {b.shape})")
    batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return Aval(batch + (m if m is not None else bm, b.shape[-1]), t)


TRIANGULAR_SOLVE = register(OpDef(name="triangular_solve",
                                  attrs={"lower": BOOL, "adjoint": BOOL},
                                  infer=_triangular_solve_infer, ref=_triangular_solve_ref))


# --------------------------------------------------------------------------- lu
def pivots_to_permutation(piv, n):
    """LAPACK's row interchanges (0-based ``piv``: row ``i`` swapped with ``piv[i]``) as
    a permutation ``p``: row ``i`` of ``L @ U`` is row ``p[i]`` of the matrix."""
    perm = np.arange(n)
    for i, j in enumerate(piv):
        perm[i], perm[j] = perm[j], perm[i]
    return perm


def _lu_ref(x, output_idx_type=np.dtype(np.int32)):
    from scipy.linalg import LinAlgWarning, lu_factor  # deferred: SciPy, on first run

    x = np.asarray(x)
    _lu_infer(Aval(x.shape, x.dtype), output_idx_type)  # the checks
    t = float_type(x.dtype)
    n = x.shape[-1]
    xs, batch = _stack(x.astype(t))
    lu = np.zeros(xs.shape, t)
    perm = np.zeros(xs.shape[:2], output_idx_type)
    if n:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", LinAlgWarning)  # singular: a zero pivot
            for i in range(xs.shape[0]):
                lu[i], piv = lu_factor(xs[i], check_finite=False)
                perm[i] = pivots_to_permutation(piv, n)
    return lu.reshape(batch + (n, n)), perm.reshape(batch + (n,))


def _lu_infer(x, output_idx_type=np.dtype(np.int32)):
    if np.dtype(output_idx_type) not in (np.int32, np.int64):
        raise TypeError(f"lu: output_idx_type must be int32 or int64, not {output_idx_type}")
    t = float_type(x.dtype)
    if x.shape is None:
        return Aval(None, t), Aval(None, np.dtype(output_idx_type))
    m, _ = matrix_dims(x.shape, "lu")
    return (Aval(x.shape[:-2] + (m, m), t),
            Aval(x.shape[:-2] + (m,), np.dtype(output_idx_type)))


LU = register(OpDef(name="lu", attrs={"output_idx_type": DTYPE}, multiple_results=True,
                    infer=_lu_infer, ref=_lu_ref))


# --------------------------------------------------------------------------- expm, sqrtm, logm
def _real_or_nan(r, t):
    """``r`` in dtype ``t``; a complex ``r`` for a real ``t`` is NaN where it is not real."""
    r = np.asarray(r)
    if r.dtype.kind == "c" and t.kind != "c":
        scale = max(1.0, float(np.abs(r).max(initial=0.0)))
        if np.abs(r.imag).max(initial=0.0) > 1e3 * np.finfo(t).eps * scale:
            return np.full(r.shape, np.nan, t)
        r = r.real
    return r.astype(t)


def _matrix_function(fname):
    def ref(x):
        import scipy.linalg  # deferred: SciPy, loaded by the first reference run

        f = getattr(scipy.linalg, fname)
        x = np.asarray(x)
        infer(Aval(x.shape, x.dtype))  # the checks
        t = float_type(x.dtype)
        xs, batch = _stack(x.astype(t))
        out = np.zeros(xs.shape, t)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            for i in range(xs.shape[0]):
                if xs.shape[-1]:
                    out[i] = _real_or_nan(f(xs[i]), t)
        return out.reshape(x.shape)

    def infer(x):
        t = float_type(x.dtype)
        if x.shape is None:
            return Aval(None, t)
        m, _ = matrix_dims(x.shape, fname)
        return Aval(x.shape[:-2] + (m, m), t)

    ref.__name__ = f"_{fname}_ref"
    ref.__doc__ = f"``scipy.linalg.{fname}`` of each matrix of the stack."
    return register(OpDef(name=fname, attrs={}, infer=infer, ref=ref))


EXPM = _matrix_function("expm")
SQRTM = _matrix_function("sqrtm")
LOGM = _matrix_function("logm")

__all__ = ["EXPM", "LOGM", "LU", "SQRTM", "TRIANGULAR_SOLVE", "LinAlgError",
           "float_type", "pivots_to_permutation"]
