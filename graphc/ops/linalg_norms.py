"""``numpy.linalg``'s compositions: ``norm``, ``vector_norm``, ``matrix_norm``, ``cond``,
``matrix_rank``, ``pinv``, ``matrix_power``, ``multi_dot``, ``tensorinv``, ``tensorsolve``.

Each is written with existing ops as NumPy's own Python code is (no op of its own), so
its gradient, batching and kernels are those of the ops it uses. Options that pick the
computation (``ord``, ``axis``, ``n``, ``rcond``) must be Python values; dims they need
(``matrix_rank``'s default tolerance, ``tensorinv``'s shapes) must be known while tracing.
"""

from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from graphc.core.registry import bind
from graphc.ops import linalg as _linalg
from graphc.ops import linalg_decomp as _ld
from graphc.ops import ufuncs as _u
from graphc.ops.convert import asarray
from graphc.ops.creation import copy, eye, zeros
from graphc.ops.reduce import any as _any
from graphc.ops.reduce import max as _max
from graphc.ops.reduce import min as _min
from graphc.ops.reduce import sum as _sum
from graphc.ops.shape import broadcast_to, expand_dims, moveaxis, reshape, swapaxes, transpose


def conj(x):
    """The complex conjugate (the identity on real dtypes)."""
    x = asarray(x)
    return bind(_ld.CONJ, x) if x.dtype.kind == "c" else x


def _floating(x):
    x = asarray(x)
    return x if x.dtype.kind in "fc" else x.astype(np.float64)


def _real_dtype(dtype):
    return np.empty(0, dtype).real.dtype


def _abs2(x):
    """``|x|**2``, real."""
    return x * x if x.dtype.kind != "c" else _u.square(_u.abs(x))


# --------------------------------------------------------------------------- norms
def _vector(x, axis, ord, keepdims):  # noqa: A002 - NumPy's parameter name
    """The ``ord`` vector norm of ``x`` along ``axis`` (one int), as NumPy's ``norm``."""
    if ord is None or ord == 2:
        return _u.sqrt(_sum(_abs2(x), axis=axis, keepdims=keepdims))
    if isinstance(ord, str):
        raise ValueError(f"Invalid norm order '{ord}' for vectors")
    if ord == np.inf:
        return _max(_u.abs(x), axis=axis, keepdims=keepdims)
    if ord == -np.inf:
        return _min(_u.abs(x), axis=axis, keepdims=keepdims)
    if ord == 0:
        return _sum((x != 0).astype(_real_dtype(x.dtype)), axis=axis, keepdims=keepdims)
    if ord == 1:
        return _sum(_u.abs(x), axis=axis, keepdims=keepdims)
    p = float(ord)
    return _sum(_u.abs(x) ** p, axis=axis, keepdims=keepdims) ** (1.0 / p)


def _svd_norm(x, row, col, reduce):
    s = bind(_ld.SVDVALS, moveaxis(x, (row, col), (-2, -1)), hermitian=False)
    return reduce(s, axis=-1)


def _matrix(x, axes, ord, keepdims):  # noqa: A002 - NumPy's parameter name
    nd = len(x.shape)
    row, col = (a % nd for a in axes)
    if row == col:
        raise ValueError("Duplicate axes given.")
    if ord == 2:
        out = _svd_norm(x, row, col, _max)
    elif ord == -2:
        out = _svd_norm(x, row, col, _min)
    elif ord in (1, -1):
        red = _max if ord == 1 else _min
        out = red(_sum(_u.abs(x), axis=row), axis=col - (col > row))
    elif ord in (np.inf, -np.inf):
        red = _max if ord == np.inf else _min
        out = red(_sum(_u.abs(x), axis=col), axis=row - (row > col))
    elif ord in (None, "fro", "f"):
        out = _u.sqrt(_sum(_abs2(x), axis=(row, col)))
    elif ord == "nuc":
        out = _svd_norm(x, row, col, _sum)
    else:
        raise ValueError("Invalid norm order for matrices.")
    if keepdims:
        out = expand_dims(out, tuple(sorted((row, col))))
    return out


def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002 - NumPy's parameter name
    """``np.linalg.norm``: a vector norm (``axis`` an int, or ``x`` 1-D) or a matrix norm
    (``axis`` a pair, or ``x`` 2-D); ints are computed in float64."""
    x = _floating(x)
    nd = len(x.shape)
    if axis is None:
        if ord is None or (ord in ("f", "fro") and nd == 2) or (ord == 2 and nd == 1):
            out = _u.sqrt(_sum(_abs2(reshape(x, (-1,)))))
            return reshape(out, (1,) * nd) if keepdims else out
        if nd not in (1, 2):
            raise ValueError("Improper number of dimensions to norm.")
        axis = tuple(range(nd))
    elif not isinstance(axis, tuple | list):
        axis = (int(axis),)
    axis = tuple(int(a) for a in axis)
    if len(axis) == 1:
        return _vector(x, axis[0], ord, keepdims)
    if len(axis) == 2:
        return _matrix(x, axis, ord, keepdims)
    raise ValueError("Improper number of dimensions to norm.")


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):  # noqa: A002
    """``np.linalg.vector_norm``: over every element (``axis=None``), one axis, or several
    axes taken as one vector."""
    x = _floating(x)
    nd = len(x.shape)
    shape = x.shape
    if axis is None:
        x, ax = reshape(x, (-1,)), 0
    elif isinstance(axis, tuple | list):
        axes = tuple(a % nd for a in axis)
        rest = [a for a in range(nd) if a not in axes]
        x = transpose(x, rest + list(axes))
        x = reshape(x, tuple(shape[a] for a in rest) + (-1,))
        ax = -1
    else:
        ax = int(axis)
    out = _vector(x, ax, ord, keepdims=False)
    if keepdims:
        kept = range(nd) if axis is None else (
            [a % nd for a in axis] if isinstance(axis, tuple | list) else [ax % nd])
        out = expand_dims(out, tuple(sorted(kept)))
    return out


def matrix_norm(x, /, *, keepdims=False, ord="fro"):  # noqa: A002
    """``np.linalg.matrix_norm``: the norm of each matrix of the stack (last two axes)."""
    return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


# --------------------------------------------------------------------------- svd based
def _nan_to_inf(r, x):
    """NumPy's ``cond``: NaN results become inf unless the matrix held a NaN."""
    held = _any(_u.isnan(x), axis=(-2, -1))
    return _u.where(_u.isnan(r) & _u.logical_not(held), np.asarray(np.inf, r.dtype), r)


def cond(x, p=None):
    """``np.linalg.cond``: the condition number in the ``p`` norm (``None``: 2-norm from
    the singular values). A singular matrix with ``p`` other than ``None``/``2``/``-2``
    raises ``LinAlgError`` (NumPy returns inf: graphc's ``inv`` raises)."""
    x = _floating(x)
    dims = _ld.matrix_dims(x.shape, "cond", square=p not in (None, 2, -2))
    if 0 in dims:
        raise _ld.LinAlgError("cond is not defined on empty arrays")
    if p is None or p in (2, -2):
        s = bind(_ld.SVDVALS, x, hermitian=False)
        num, den = (s[..., -1], s[..., 0]) if p == -2 else (s[..., 0], s[..., -1])
        zero = den == 0  # NumPy's inf (from x/0 and its NaN from 0/0), without warnings
        r = _u.where(zero, np.asarray(np.inf, s.dtype),
                     num / _u.where(zero, np.ones((), s.dtype), den))
    else:
        inverse = bind(_ld.INV, x)
        r = norm(x, p, axis=(-2, -1)) * norm(inverse, p, axis=(-2, -1))
        r = r.astype(_real_dtype(x.dtype))
    return _nan_to_inf(r, x)


def _eps_times_dims(dtype, shape, what):
    m, n = shape[-2], shape[-1]
    if m is None or n is None:
        raise NotImplementedError(f"{what}'s default tolerance needs the matrix dims "
                                  "while tracing; pass rtol= or tol=")
    return builtins.max(m, n) * float(np.finfo(dtype).eps)


def matrix_rank(A, tol=None, hermitian=False, *, rtol=None):  # noqa: N803
    """``np.linalg.matrix_rank``: the number of singular values above the tolerance
    (``max(M, N) * eps * largest`` by default). A 0-d or 1-D ``A`` gives 1 unless it is
    all zeros; the result is an int64 tensor."""
    if rtol is not None and tol is not None:
        raise ValueError("`tol` and `rtol` can't be both set.")
    A = asarray(A)
    if len(A.shape) < 2:
        return _any(A != 0).astype(np.int64)
    s = bind(_ld.SVDVALS, A, hermitian=bool(hermitian))
    if tol is None:
        if rtol is None:
            rtol = _eps_times_dims(s.dtype, A.shape, "matrix_rank")
        else:
            rtol = expand_dims(asarray(rtol), -1)
        top = _max(s, axis=-1, keepdims=True) if s.shape[-1] != 0 else zeros(
            tuple(s.shape[:-1]) + (1,), s.dtype)
        tol = top * rtol
    else:
        tol = expand_dims(asarray(tol), -1)
    return _sum(s > tol, axis=-1, dtype=np.int64)


_NO_VALUE = object()


def pinv(a, rcond=None, hermitian=False, *, rtol=_NO_VALUE):
    """``np.linalg.pinv``: the pseudo-inverse from the SVD, singular values at most
    ``rcond * largest`` dropped (``rcond=1e-15``, or ``rtol``; ``rtol=None``:
    ``max(M, N) * eps``)."""
    a = _floating(a)
    _ld.matrix_dims(a.shape, "pinv", square=False)
    if rcond is None:
        if rtol is _NO_VALUE:
            rcond = 1e-15
        elif rtol is None:
            rcond = _eps_times_dims(a.dtype, a.shape, "pinv")
        else:
            rcond = rtol
    elif rtol is not _NO_VALUE:
        raise ValueError("`rtol` and `rcond` can't be both set.")
    m, n = a.shape[-2], a.shape[-1]
    if m == 0 or n == 0:
        return zeros(tuple(a.shape[:-2]) + (n, m), a.dtype)
    u, s, vt = bind(_ld.SVD, conj(a), full_matrices=False, hermitian=bool(hermitian))
    rcond = asarray(rcond)
    cutoff = expand_dims(rcond, -1) * _max(s, axis=-1, keepdims=True) if len(
        rcond.shape) else rcond * _max(s, axis=-1, keepdims=True)
    large = s > cutoff
    s_inv = _u.where(large, 1.0 / _u.where(large, s, np.ones((), s.dtype)),
                     np.zeros((), s.dtype))
    return _linalg.matmul(swapaxes(vt, -1, -2),
                          expand_dims(s_inv, -1) * swapaxes(u, -1, -2))


# --------------------------------------------------------------------------- products
def matrix_power(a, n):
    """``np.linalg.matrix_power``: ``a`` to the integer power ``n`` by repeated squaring
    (``n < 0``: of ``inv(a)``; ``n == 0``: identities of ``a``'s dtype)."""
    a = asarray(a)
    _ld.matrix_dims(a.shape, "matrix_power")
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError("exponent must be an integer") from None
    if n == 0:
        size = a.shape[-1]
        if size is None:
            raise NotImplementedError("matrix_power(a, 0) needs a's dims while tracing")
        return copy(broadcast_to(eye(size, dtype=a.dtype), tuple(a.shape)))
    if n < 0:
        a, n = bind(_ld.INV, a), -n
    if n == 1:
        return copy(a)  # a copy, as NumPy's
    if n == 2:
        return _linalg.matmul(a, a)
    if n == 3:
        return _linalg.matmul(_linalg.matmul(a, a), a)
    z = result = None
    while n > 0:  # binary decomposition, in NumPy's order (same rounding)
        z = a if z is None else _linalg.matmul(z, z)
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else _linalg.matmul(result, z)
    return result


def _chain_order(dims):
    """``split[i][j]``: where the product of matrices ``i..j`` splits, minimizing scalar
    multiplications (the classic dynamic program, as NumPy's ``multi_dot``)."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = math.inf
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def multi_dot(arrays, *, out=None):
    """``np.linalg.multi_dot``: the product of 2-D arrays (the first and last may be 1-D)
    in the cheapest order; the dims must be known while tracing."""
    if out is not None:
        raise NotImplementedError("multi_dot(out=...) is not supported; use the result")
    arrays = [asarray(a) for a in arrays]
    n = len(arrays)
    if n < 2:
        raise ValueError("Expecting at least two arrays.")
    if n == 2:
        return _linalg.dot(arrays[0], arrays[1])
    first_1d, last_1d = len(arrays[0].shape) == 1, len(arrays[-1].shape) == 1
    if first_1d:
        arrays[0] = expand_dims(arrays[0], 0)
    if last_1d:
        arrays[-1] = expand_dims(arrays[-1], -1)
    for a in arrays:
        _ld.matrix_dims(a.shape, "multi_dot", square=False, exact_rank=2)
    dims = [a.shape[0] for a in arrays] + [arrays[-1].shape[1]]
    if None in dims:
        raise NotImplementedError("multi_dot needs the arrays' dims while tracing")
    split = _chain_order(dims)

    def product(i, j):
        if i == j:
            return arrays[i]
        k = split[i][j]
        return _linalg.dot(product(i, k), product(k + 1, j))

    result = product(0, n - 1)
    if first_1d and last_1d:
        return result[0, 0]
    if first_1d or last_1d:
        return reshape(result, (-1,))
    return result


# --------------------------------------------------------------------------- tensors
def tensorinv(a, ind=2):
    """``np.linalg.tensorinv``: the inverse of ``a`` read as a matrix of
    ``prod(shape[:ind])`` rows."""
    a = asarray(a)
    if ind <= 0:
        raise ValueError("Invalid ind argument.")
    old = tuple(a.shape)
    if None in old:
        raise NotImplementedError("tensorinv needs a's dims while tracing")
    rows = math.prod(old[ind:])
    inverse = bind(_ld.INV, reshape(a, (rows, -1)))
    return reshape(inverse, old[ind:] + old[:ind])


def tensorsolve(a, b, axes=None):
    """``np.linalg.tensorsolve``: ``x`` with ``tensordot(a, x, x.ndim) == b``."""
    a, b = asarray(a), asarray(b)
    an = len(a.shape)
    if axes is not None:
        order = list(range(an))
        for k in axes:
            order.remove(k)
            order.insert(an, k)
        a = transpose(a, order)
    old = tuple(a.shape[-(an - len(b.shape)):])
    if None in tuple(a.shape) or None in tuple(b.shape):
        raise NotImplementedError("tensorsolve needs the operands' dims while tracing")
    size = math.prod(old)
    if math.prod(a.shape) != size ** 2:
        raise _ld.LinAlgError("Input arrays must satisfy the requirement "
                              "prod(a.shape[b.ndim:]) == prod(a.shape[:b.ndim])")
    x = bind(_ld.SOLVE, reshape(a, (size, size)), reshape(b, (-1,)))
    return reshape(x, old)
