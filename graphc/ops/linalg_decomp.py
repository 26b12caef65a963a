"""Matrix factorizations and solvers, NumPy's ``numpy.linalg`` ops: ``cholesky``, ``inv``,
``solve``, ``det``, ``slogdet``, ``eigh``, ``qr``, ``svd``, ``svdvals``, ``eig``,
``lstsq``. Each works on stacks of matrices (``(..., M, N)``) as NumPy's does, except
``lstsq`` (2-D, as in NumPy). Also ``linalg_conj``, the complex conjugate the namespace's
compositions need (``vecdot``, ``pinv``).

``ref`` is NumPy's own function; a ``numpy.linalg.LinAlgError`` it raises (a singular
matrix, one that is not positive definite) becomes graphc's :class:`LinAlgError`, which
is both NumPy's class and graphc's ``InvalidArgumentError``. Result dtypes come from NumPy
itself (each op's ``ref`` run on 1x1 stand-ins of the operands' dtypes, cached): ints
promote to float64, float32 stays float32, complex stays complex, float16 is refused.

The gradient rules are in ``linalg_decomp_grad.py``, the batching rules in
``linalg_decomp_batch.py``, the public functions in ``linalg_namespace.py``.
"""

from __future__ import annotations

import contextlib
import functools

import numpy as np

from graphc.core.attr_types import BOOL, FLOAT, NONE, STR, one_of
from graphc.core.registry import OpDef, register
from graphc.core.shapes import broadcast_shapes
from graphc.errors import InvalidArgumentError
from graphc.ir.graph import Aval


class LinAlgError(InvalidArgumentError, np.linalg.LinAlgError):
    """A linear-algebra op cannot work on its matrix: it is singular (``inv``, ``solve``),
    not positive definite (``cholesky``), not square, or an iteration did not converge.

    It is NumPy's ``numpy.linalg.LinAlgError`` too, so ``except np.linalg.LinAlgError``
    catches it. Fix the matrix (regularize it: ``a + eps * gnp.eye(n)``), or use
    ``gnp.linalg.lstsq`` / ``pinv`` for a singular system.
    """


@contextlib.contextmanager
def _lapack(name):
    """NumPy's LinAlgError raised inside becomes graphc's, naming the op."""
    try:
        yield
    except np.linalg.LinAlgError as e:
        if isinstance(e, LinAlgError):
            raise
        raise LinAlgError(f"{name}: {e}") from None


# --------------------------------------------------------------------------- checks
def matrix_dims(shape, name, square=True, exact_rank=None):
    """``(M, N)`` of a stack of matrices of ``shape``, raising NumPy's errors (as
    ``LinAlgError``) for fewer than 2 dims or, with ``square``, unequal known ones. For a
    square matrix both are the one size known (``None`` when neither is)."""
    if exact_rank is not None and len(shape) != exact_rank:
        raise LinAlgError(f"{name}: {len(shape)}-dimensional array given. Array must be "
                          "two-dimensional")
    if len(shape) < 2:
        raise LinAlgError(f"{name}: {len(shape)}-dimensional array given. Array must be at "
                          "least two-dimensional")
    m, n = shape[-2], shape[-1]
    if square:
        if m is not None and n is not None and m != n:
            raise LinAlgError(f"{name}: Last 2 dimensions of the array must be square")
        m = n = m if m is not None else n
    return m, n


def _kmin(m, n):
    return None if m is None or n is None else min(m, n)


@functools.lru_cache(maxsize=None)
def _dtypes(ref, in_dtypes, ranks, attrs):
    """The dtypes ``ref`` returns for operands of ``in_dtypes`` (1x1 identity matrices, or
    ones for rank-1 operands): NumPy's own promotion and refusals (float16)."""
    args = [np.eye(1, dtype=d) if r != 1 else np.ones(1, d) for d, r in zip(in_dtypes, ranks)]
    with np.errstate(all="ignore"):
        out = ref(*args, **dict(attrs))
    return tuple(np.asarray(o).dtype for o in (out if isinstance(out, tuple | list) else [out]))


def result_dtypes(ref, avals, attrs=None):
    return _dtypes(ref, tuple(a.dtype for a in avals),
                   tuple(None if a.shape is None else len(a.shape) for a in avals),
                   tuple(sorted((attrs or {}).items())))


def _unknown_rank(op_ref, avals, attrs, n_out):
    dts = result_dtypes(op_ref, avals, attrs)
    outs = tuple(Aval(None, d) for d in dts)
    return outs if n_out > 1 else outs[0]


# --------------------------------------------------------------------------- one operand
def _cholesky_ref(x, upper=False):
    with _lapack("cholesky"):
        return np.linalg.cholesky(x, upper=upper)


def _inv_ref(x):
    with _lapack("inv"):
        return np.linalg.inv(x)


def _det_ref(x):
    with _lapack("det"):
        return np.linalg.det(x)


def _slogdet_ref(x):
    with _lapack("slogdet"):
        sign, logabsdet = np.linalg.slogdet(x)
    return sign, logabsdet


def _square_infer(ref, name, n_out=1, core=lambda m: ((m, m),)):
    """Infer for an op of one square operand: ``core(M)`` gives each output's core dims,
    appended to the batch dims."""
    def infer(x, **attrs):
        if x.shape is None:
            return _unknown_rank(ref, [x], attrs, n_out)
        m, _ = matrix_dims(x.shape, name)
        dts = result_dtypes(ref, [x], attrs)
        outs = tuple(Aval(x.shape[:-2] + c, d) for c, d in zip(core(m), dts))
        return outs if n_out > 1 else outs[0]
    return infer


CHOLESKY = register(OpDef(name="cholesky", attrs={"upper": BOOL},
                          infer=_square_infer(_cholesky_ref, "cholesky"), ref=_cholesky_ref))
INV = register(OpDef(name="inv", attrs={}, infer=_square_infer(_inv_ref, "inv"), ref=_inv_ref))
DET = register(OpDef(name="det", attrs={}, infer=_square_infer(_det_ref, "det",
                                                               core=lambda m: ((),)),
                     ref=_det_ref))
SLOGDET = register(OpDef(name="slogdet", attrs={}, multiple_results=True,
                         infer=_square_infer(_slogdet_ref, "slogdet", 2,
                                             core=lambda m: ((), ())),
                         ref=_slogdet_ref))


def _eigh_ref(x, UPLO="L"):  # noqa: N803 - NumPy's parameter name
    with _lapack("eigh"):
        w, v = np.linalg.eigh(x, UPLO=UPLO)
    return w, v


EIGH = register(OpDef(name="eigh", attrs={"UPLO": STR}, multiple_results=True,
                      infer=_square_infer(_eigh_ref, "eigh", 2, core=lambda m: ((m,), (m, m))),
                      ref=_eigh_ref))


def _eig_ref(x):
    """``np.linalg.eig`` with complex results always (NumPy's are real when every
    eigenvalue is: a dtype that depends on values, which a graph cannot have)."""
    with _lapack("eig"):
        w, v = np.linalg.eig(x)
    t = np.result_type(w.dtype, np.complex64)
    return w.astype(t), v.astype(t)


EIG = register(OpDef(name="eig", attrs={}, multiple_results=True,
                     infer=_square_infer(_eig_ref, "eig", 2, core=lambda m: ((m,), (m, m))),
                     ref=_eig_ref))


# --------------------------------------------------------------------------- qr / svd
def _qr_ref(x, mode="reduced"):
    with _lapack("qr"):
        q, r = np.linalg.qr(x, mode=mode)
    return q, r


def _qr_infer(x, mode="reduced"):
    if mode not in ("reduced", "complete"):
        raise ValueError(f"qr: unrecognized mode {mode!r}")
    if x.shape is None:
        return _unknown_rank(_qr_ref, [x], {"mode": mode}, 2)
    m, n = matrix_dims(x.shape, "qr", square=False)
    k = m if mode == "complete" else _kmin(m, n)
    dq, dr = result_dtypes(_qr_ref, [x], {"mode": mode})
    batch = x.shape[:-2]
    return Aval(batch + (m, k), dq), Aval(batch + (k, n), dr)


QR = register(OpDef(name="qr", attrs={"mode": STR}, multiple_results=True, infer=_qr_infer,
                    ref=_qr_ref))


def _svd_ref(x, full_matrices=True, hermitian=False):
    with _lapack("svd"):
        u, s, vh = np.linalg.svd(x, full_matrices=full_matrices, hermitian=hermitian)
    return u, s, vh


def _svd_infer(x, full_matrices=True, hermitian=False):
    attrs = {"full_matrices": full_matrices, "hermitian": hermitian}
    if x.shape is None:
        return _unknown_rank(_svd_ref, [x], attrs, 3)
    m, n = matrix_dims(x.shape, "svd", square=hermitian)
    k = _kmin(m, n)
    du, ds, dv = result_dtypes(_svd_ref, [x], attrs)
    batch = x.shape[:-2]
    if full_matrices:
        return Aval(batch + (m, m), du), Aval(batch + (k,), ds), Aval(batch + (n, n), dv)
    return Aval(batch + (m, k), du), Aval(batch + (k,), ds), Aval(batch + (k, n), dv)


SVD = register(OpDef(name="svd", attrs={"full_matrices": BOOL, "hermitian": BOOL},
                     multiple_results=True, infer=_svd_infer, ref=_svd_ref))


def _svdvals_ref(x, hermitian=False):
    with _lapack("svdvals"):
        return np.linalg.svd(x, compute_uv=False, hermitian=hermitian)


def _svdvals_infer(x, hermitian=False):
    if x.shape is None:
        return _unknown_rank(_svdvals_ref, [x], {"hermitian": hermitian}, 1)
    m, n = matrix_dims(x.shape, "svdvals", square=hermitian)
    (dt,) = result_dtypes(_svdvals_ref, [x], {"hermitian": hermitian})
    return Aval(x.shape[:-2] + (_kmin(m, n),), dt)


SVDVALS = register(OpDef(name="svdvals", attrs={"hermitian": BOOL}, infer=_svdvals_infer,
                         ref=_svdvals_ref))


# --------------------------------------------------------------------------- two operands
def _solve_ref(a, b):
    with _lapack("solve"):
        return np.linalg.solve(a, b)


def _solve_infer(a, b):
    if a.shape is None or b.shape is None:
        return _unknown_rank(_solve_ref, [a, b], {}, 1)
    m, _ = matrix_dims(a.shape, "solve")
    if len(b.shape) == 0:
        raise ValueError("solve: b must be at least one-dimensional")
    (dt,) = result_dtypes(_solve_ref, [a, b])
    if len(b.shape) == 1:  # NumPy 2: a 1-D b is one vector for every matrix of the stack
        bm = b.shape[0]
        out = a.shape[:-2] + (m if m is not None else bm,)
    else:
        bm = b.shape[-2]
        out = broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (
            m if m is not None else bm, b.shape[-1])
    if m is not None and bm is not None and m != bm:
        raise ValueError(f"solve: a is {m}x{m} but b has {bm} rows (shapes {a.shape} and "
                         f"{b.shape})")
    return Aval(out, dt)


SOLVE = register(OpDef(name="solve", attrs={}, infer=_solve_infer, ref=_solve_ref))


def _lstsq_ref(a, b, rcond=None):
    with _lapack("lstsq"):
        x, residuals, rank, s = np.linalg.lstsq(a, b, rcond=rcond)
    return x, residuals, np.asarray(rank, np.int32), s


def _lstsq_infer(a, b, rcond=None):
    if len(b.shape) not in (1, 2):
        raise LinAlgError(f"lstsq: {len(b.shape)}-dimensional array given. Array must be "
                          "two-dimensional")
    m, n = matrix_dims(a.shape, "lstsq", square=False, exact_rank=2)
    bm = b.shape[0]
    if m is not None and bm is not None and m != bm:
        raise LinAlgError("lstsq: Incompatible dimensions")
    dx, dres, drank, ds = result_dtypes(_lstsq_ref, [a, b], {"rcond": rcond})
    # residuals: one per column of b (1-D b: one) when a has full column rank and more
    # rows than columns, else none: known while tracing only when m <= n
    res = (0,) if m is not None and n is not None and m <= n else (None,)
    return (Aval((n,) + b.shape[1:], dx), Aval(res, dres), Aval((), drank),
            Aval((_kmin(m, n),), ds))


LSTSQ = register(OpDef(name="lstsq", attrs={"rcond": one_of(NONE, FLOAT)},
                       multiple_results=True, infer=_lstsq_infer, ref=_lstsq_ref))



# complex conjugate for the namespace's compositions (vecdot, pinv): graphc has no
# numpy-facing ``conjugate`` op yet; on real dtypes it is the identity (never bound then)
def _conj_ref(x):
    return np.conjugate(x)


CONJ = register(OpDef(name="linalg_conj", attrs={}, infer=lambda x: Aval(x.shape, x.dtype),
                      ref=_conj_ref))
