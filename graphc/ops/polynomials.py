"""NumPy's polynomial functions on coefficient arrays (highest power first): ``poly``,
``polyadd``, ``polysub``, ``polymul``, ``polyder``, ``polyint``, ``polydiv``,
``polyval``, ``polyfit``, ``roots``; built from elementwise ops, ``concatenate``,
``matmul`` (the convolution) and ``gnp.linalg`` (``lstsq``, ``eig``, ``inv``), following
NumPy's steps (no op of their own). Coefficient counts must be known while tracing.

``roots`` (its length depends on the zero coefficients, its dtype on whether the roots
are real), ``poly`` of a matrix or of complex roots (real or complex result by the
values) and ``polyfit``'s rank warning need values: they run eagerly, or while tracing on
values known then; ``polydiv`` trims the remainder's leading near-zeros with a bound
computed in the graph (unknown length while tracing). The ``poly1d`` class is not
provided.
"""

from __future__ import annotations

import warnings

import numpy as np

from graphc import source_info
from graphc.core.tensor import Tensor
from graphc.ops import linalg_namespace as _la
from graphc.ops.array_helpers import known, rank, strong, traced
from graphc.ops.convert import asarray
from graphc.ops.creation import arange, ones, zeros, zeros_like
from graphc.ops.indexing import take
from graphc.ops.join import atleast_1d, concatenate, stack
from graphc.ops.linalg import matmul, outer
from graphc.ops.reduce import cumprod
from graphc.ops.reduce import sum as _sum
from graphc.ops.shape import reshape, transpose
from graphc.ops.ufuncs import absolute, sqrt
from graphc.ops.windows import vander


def _coefs(p, name):
    p = atleast_1d(strong(p))
    if rank(p) != 1:
        raise ValueError(f"{name}: coefficients must be a 1-D array")
    if p.shape[0] is None:
        raise ValueError(f"{name}: the number of coefficients must be known while tracing"
                         f"{source_info.where()}")
    return p


def _convolve(a, b):
    """``np.convolve(a, b)`` (full): ``c[k] = sum_i a[i] b[k - i]``, as a product with
    the Toeplitz matrix of ``b``."""
    n, m = a.shape[0], b.shape[0]
    if n == 0:
        raise ValueError("a cannot be empty")
    if m == 0:
        raise ValueError("v cannot be empty")
    dt = np.result_type(a.dtype, b.dtype)
    padded = concatenate([zeros((n - 1,), dtype=dt), b.astype(dt), zeros((n - 1,), dtype=dt)])
    index = np.arange(n + m - 1)[:, None] - np.arange(n)[None, :] + (n - 1)
    return matmul(take(padded, index), a.astype(dt))


def polyadd(a1, a2):
    """``np.polyadd``: the sum of two polynomials (the shorter padded in front)."""
    a1, a2 = _coefs(a1, "polyadd"), _coefs(a2, "polyadd")
    diff = a2.shape[0] - a1.shape[0]
    if diff > 0:
        a1 = concatenate([zeros((diff,), dtype=a1.dtype), a1])
    elif diff < 0:
        a2 = concatenate([zeros((-diff,), dtype=a2.dtype), a2])
    return a1 + a2


def polysub(a1, a2):
    """``np.polysub``: ``a1 - a2`` as polynomials."""
    a1, a2 = _coefs(a1, "polysub"), _coefs(a2, "polysub")
    diff = a2.shape[0] - a1.shape[0]
    if diff > 0:
        a1 = concatenate([zeros((diff,), dtype=a1.dtype), a1])
    elif diff < 0:
        a2 = concatenate([zeros((-diff,), dtype=a2.dtype), a2])
    return a1 - a2


def _poly1d_trim(p):
    """NumPy's ``poly1d(p)`` coefficients: leading zeros dropped (``[0]`` if all are),
    when the values are known while tracing; traced coefficients are kept whole."""
    value = known(p)
    if value is None:
        return p
    nz = np.flatnonzero(value)
    return p[int(nz[0]):] if nz.size else p[-1:] * 0


def polymul(a1, a2):
    """``np.polymul``: the product of two polynomials (their convolution), each
    without its leading zeros as NumPy's ``poly1d`` drops them."""
    return _convolve(_poly1d_trim(_coefs(a1, "polymul")), _poly1d_trim(_coefs(a2, "polymul")))


def polyder(p, m=1):
    """``np.polyder``: the ``m``-th derivative."""
    m = int(m)
    if m < 0:
        raise ValueError("Order of derivative must be positive (see polyint)")
    p = strong(p)
    for _ in range(m):
        n = p.shape[0] - 1
        p = p[:-1] * arange(n, 0, -1)
    return p


def polyint(p, m=1, k=None):
    """``np.polyint``: the ``m``-th antiderivative, integration constants ``k`` (a
    scalar or ``m`` values, highest order first; zeros by default)."""
    m = int(m)
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    k = np.zeros(m, float) if k is None else k
    k = atleast_1d(strong(k))
    if k.shape[0] == 1 and m > 1:
        k = k[0] * ones((m,), dtype=np.float64)
    if k.shape[0] < m:
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or >m.")
    p = strong(p)
    for i in range(m):
        p = concatenate([p / arange(p.shape[0], 0, -1), reshape(k[i], (1,))])
    return p


def polyval(p, x):
    """``np.polyval``: ``p`` evaluated at ``x`` by Horner's scheme (``x``'s dtype for
    the zero it starts from, promoted by the coefficients)."""
    p, x = strong(p), strong(x)
    if rank(p) == 0 or p.shape[0] is None:
        raise ValueError("polyval: the coefficients must be a 1-D array of known length")
    y = zeros_like(x)
    for i in range(p.shape[0]):
        y = y * x + p[i]
    return y


def polydiv(u, v):
    """``np.polydiv``: quotient and remainder of ``u / v`` (float); the remainder's
    leading entries within 1e-8 of zero are dropped (keeping one), as NumPy does."""
    u, v = _coefs(u, "polydiv") + 0.0, _coefs(v, "polydiv") + 0.0
    dt = np.result_type(u.dtype, v.dtype)
    m, n = u.shape[0] - 1, v.shape[0] - 1
    scale = 1.0 / v[0]
    r = u.astype(dt)
    q = []
    for k in range(0, m - n + 1):
        d = scale * r[k]
        q.append(d)
        r = concatenate([r[:k], r[k:k + n + 1] - d * v, r[k + n + 1:]])
    q = stack(q).astype(dt) if q else zeros((1,), dtype=dt)
    small = (absolute(r) <= 1e-8).astype(np.int64)
    lead = _sum(cumprod(small))
    value = known(lead) if not traced(lead) else None
    length = r.shape[0]
    if value is not None:
        return q, r[min(int(value), length - 1):]
    start = lead - (lead >= length).astype(np.int64)
    return q, r[start:]


def poly(seq_of_zeros):
    """``np.poly``: the coefficients of the monic polynomial with the given roots (or
    the characteristic polynomial of a square matrix); ``1.0`` for none."""
    seq = atleast_1d(strong(seq_of_zeros))
    shape = seq.shape
    if len(shape) == 2 and shape[0] == shape[1] and shape[0] != 0:
        seq = _la.eigvals(seq)
    elif len(shape) != 1:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    elif seq.dtype.kind != "c":
        seq = seq.astype(np.float32 if seq.dtype == np.float32 else np.float64)
    n = seq.shape[0]
    if n is None:
        raise ValueError(f"poly: the number of roots must be known while tracing"
                         f"{source_info.where()}")
    if n == 0:
        return 1.0
    a = ones((1,), dtype=seq.dtype)
    for i in range(n):
        z = reshape(seq[i], (1,))
        a = concatenate([a, zeros((1,), dtype=a.dtype)]) - concatenate(
            [zeros((1,), dtype=a.dtype), z * a])
    if a.dtype.kind != "c":
        return a
    roots = known(seq)
    if roots is None:
        raise ValueError(f"poly: with complex roots (or a matrix) the result's dtype "
                         f"depends on the values: they must be known while tracing"
                         f"{source_info.where()}")
    if np.all(np.sort(roots) == np.sort(roots.conjugate())):
        return asarray(np.real(known(a)).copy())
    return a


def roots(p):
    """``np.roots``: the roots of the polynomial ``p`` (eigenvalues of its companion
    matrix), real when all are real. Runs on values known while tracing."""
    p = atleast_1d(strong(p))
    if rank(p) != 1:
        raise ValueError("Input must be a rank-1 array.")
    value = known(p)
    if value is None:
        raise ValueError(f"roots: the number of roots depends on the coefficients' values; "
                         f"call it eagerly or with coefficients known while tracing"
                         f"{source_info.where()}")
    nonzero = np.nonzero(value)[0]
    if len(nonzero) == 0:
        return asarray(np.array([]))
    trailing = len(value) - int(nonzero[-1]) - 1
    p = p[int(nonzero[0]):int(nonzero[-1]) + 1]
    if p.dtype.kind not in "fc":
        p = p.astype(np.float64)
    n = p.shape[0]
    if n > 1:
        below = np.eye(n - 1, k=-1, dtype=p.dtype)
        first_row = reshape(-p[1:] / p[0], (1, n - 1))
        companion = concatenate([first_row, asarray(below[1:])])
        found = _la.eigvals(companion)
        vals = known(found)
        if not np.iscomplexobj(known(p)) and np.all(vals.imag == 0):
            found = asarray(vals.real.copy())
    else:
        found = asarray(np.array([], p.dtype))
    if trailing:
        found = concatenate([found, zeros((trailing,), dtype=found.dtype)])
    return found


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """``np.polyfit``: least-squares polynomial coefficients of degree ``deg`` (columns
    for 2-D ``y``), by ``lstsq`` on the column-scaled Vandermonde matrix; ``full``,
    ``w`` and ``cov`` as in NumPy."""
    order = int(deg) + 1
    x, y = strong(x) + 0.0, strong(y) + 0.0
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if rank(x) != 1:
        raise TypeError("expected 1D vector for x")
    if x.shape[0] == 0:
        raise TypeError("expected non-empty vector for x")
    if rank(y) < 1 or rank(y) > 2:
        raise TypeError("expected 1D or 2D array for y")
    if x.shape[0] != y.shape[0]:
        raise TypeError("expected x and y to have same length")
    n = x.shape[0]
    if rcond is None:
        rcond = n * np.finfo(x.dtype).eps
    lhs, rhs = vander(x, order), y
    if w is not None:
        w = strong(w) + 0.0
        if rank(w) != 1:
            raise TypeError("expected a 1-d array for weights")
        if w.shape[0] != y.shape[0]:
            raise TypeError("expected w and y to have the same length")
        lhs = lhs * w[:, None]
        rhs = rhs * (w[:, None] if rank(rhs) == 2 else w)
    scale = sqrt(_sum(lhs * lhs, axis=0))
    lhs = lhs / scale
    c, resids, rank_, s = _la.lstsq(lhs, rhs, rcond)
    c = transpose(transpose(c) / scale)
    r = known(rank_) if isinstance(rank_, Tensor) else rank_
    if r is not None and int(r) != order and not full:
        warnings.warn("Polyfit may be poorly conditioned", np.exceptions.RankWarning,
                      stacklevel=2)
    if full:
        return c, resids, rank_, s, rcond
    if cov:
        base = _la.inv(matmul(transpose(lhs), lhs)) / outer(scale, scale)
        if cov == "unscaled":
            fac = 1
        else:
            if n <= order:
                raise ValueError("the number of data points must exceed order to scale "
                                 "the covariance matrix")
            fac = resids / (n - order)
        if rank(y) == 1:
            return c, base * fac
        return c, base[:, :, None] * fac
    return c

