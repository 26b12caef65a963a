"""Gradient rules of the ops of ``linalg_decomp.py``; the end of this module attaches them.

Each is the reverse-mode rule of the function NumPy computes, for real dtypes (a complex
operand raises ``NotImplementedError``: complex gradients are not implemented):

* ``cholesky``, ``eigh`` read one triangle of their operand (``cholesky``: the lower, or
  the upper with ``upper=True``; ``eigh``: ``UPLO``), so the cotangent ``S`` of the
  symmetric matrix they stand for is folded onto that triangle (``S + S.T`` below the
  diagonal, ``S`` on it). For a symmetric perturbation this is JAX's symmetrized rule.
* ``inv``: ``-Y.T @ g @ Y.T``; ``solve``: ``gb = solve(a.T, g)``, ``ga = -gb @ x.T``;
  ``det``: ``g * det * inv(a).T``; ``slogdet``: ``g * inv(a).T`` (the sign passes none).
* ``eigh``: ``V (diag(gw) + F * (V.T gV)) V.T`` with ``F[i, j] = 1 / (w[j] - w[i])``.
* ``qr`` (reduced, or complete with ``M <= N``) and ``svd`` (``full_matrices=False``, or
  square): the standard matrix-backpropagation rules; ``svdvals``: ``U diag(g) Vh``.
* ``lstsq``: for a full-rank ``a``, through the normal equations (the residuals'
  cotangent through ``sum((b - a x)**2)``), ``s`` as ``svdvals``.
* ``eig``: not differentiable here (its results are complex); a tape raises.
"""

from __future__ import annotations

from graphc.core.registry import bind
from graphc.ops import linalg, linalg_decomp
from graphc.ops.creation import eye
from graphc.ops.elementwise import _want
from graphc.ops.join import concatenate
from graphc.ops.shape import expand_dims, swapaxes
from graphc.ops.triangular import tril, triu


def _T(x):
    return swapaxes(x, -1, -2)


def _real(name, *xs):
    for x in xs:
        if x.dtype.kind == "c":
            raise NotImplementedError(f"the gradient of {name} for complex operands is not "
                                      "implemented")


def _mm(*xs):
    out = xs[0]
    for x in xs[1:]:
        out = linalg.matmul(out, x)
    return out


def _eye_like(x, n=None):
    n = x.shape[-1] if n is None else n
    if n is None:
        raise NotImplementedError("this linalg gradient needs the matrix size while tracing")
    return eye(n, dtype=x.dtype)


def _diag_part(s):
    return s * _eye_like(s)


def _diag(v):
    """A stack of diagonal matrices from a stack of vectors."""
    return expand_dims(v, -2) * _eye_like(v)


def _fold(s, lower=True):
    """The cotangent of the triangle an op reads, from the cotangent ``s`` of the
    symmetric matrix that triangle stands for."""
    both = s + _T(s)
    return (tril(both) if lower else triu(both)) - _diag_part(s)


def _solve(a, b):
    return bind(linalg_decomp.SOLVE, a, b)


def _inv(a):
    return bind(linalg_decomp.INV, a)


def cholesky_grad(cts, args, outs, upper=False):
    (x,), (c,), (g,) = args, outs, cts
    _real("cholesky", x)
    lo, glo = (_T(c), _T(g)) if upper else (c, g)
    p = _mm(_T(lo), glo)
    p = tril(p) - 0.5 * _diag_part(p)  # the lower triangle, half the diagonal
    left = _solve(_T(lo), p)  # L^-T P
    s = _T(_solve(_T(lo), _T(left)))  # L^-T P L^-1
    return (_fold(s, lower=not upper),)


def inv_grad(cts, args, outs):
    _real("inv", args[0])
    yt = _T(outs[0])
    return (-_mm(yt, cts[0], yt),)


def solve_grad(cts, args, outs):
    a, b = args
    _real("solve", a, b)
    x, g = outs[0], cts[0]
    if len(b.shape) == 1:  # one vector for the whole stack: as a column
        gb = _solve(_T(a), expand_dims(g, -1))
        ga = -_mm(gb, expand_dims(x, -2))
        gb = gb[..., 0]
    else:
        gb = _solve(_T(a), g)
        ga = -_mm(gb, _T(x))
    return (ga if _want(a) else None, gb if _want(b) else None)


def _scalar_cols(v):
    return expand_dims(expand_dims(v, -1), -1)


def det_grad(cts, args, outs):
    _real("det", args[0])
    return (_scalar_cols(cts[0] * outs[0]) * _T(_inv(args[0])),)


def slogdet_grad(cts, args, outs):
    _real("slogdet", args[0])
    return (_scalar_cols(cts[1]) * _T(_inv(args[0])),)


def _spectral_f(w):
    """``F[..., i, j] = 1 / (w[j] - w[i])`` off the diagonal, 0 on it."""
    i = _eye_like(w)
    diff = expand_dims(w, -2) - expand_dims(w, -1)
    return (1.0 - i) / (diff + i)


def eigh_grad(cts, args, outs, UPLO="L"):  # noqa: N803 - NumPy's parameter name
    _real("eigh", args[0])
    (w, v), (gw, gv) = outs, cts
    inner = _diag(gw) + _spectral_f(w) * _mm(_T(v), gv)
    return (_fold(_mm(v, inner, _T(v)), lower=UPLO.upper() == "L"),)


def _qr_square(q, r, gq, gr):
    """The cotangent of ``a = q r`` with ``a`` of at least as many rows as columns."""
    m = _mm(r, _T(gr)) - _mm(_T(gq), q)
    sym = tril(m) + _T(tril(m, -1))
    b = gq + _mm(q, sym)
    return _T(_solve(r, _T(b)))  # b R^-T


def qr_grad(cts, args, outs, mode="reduced"):
    x = args[0]
    _real("qr", x)
    (q, r), (gq, gr) = outs, cts
    m, n = x.shape[-2], x.shape[-1]
    if m is None or n is None:
        raise NotImplementedError("the gradient of qr needs the matrix dims while tracing")
    if m >= n:
        if mode == "complete" and m > n:
            raise NotImplementedError("the gradient of qr(mode='complete') of a matrix with "
                                      "more rows than columns is not defined (Q's extra "
                                      "columns are not unique); use mode='reduced'")
        return (_qr_square(q, r, gq, gr),)
    # wide: a = [x | y], x = q u (square), y = q v
    u = r[..., :, :m]
    gu, gv = gr[..., :, :m], gr[..., :, m:]
    y = x[..., :, m:]
    gx = _qr_square(q, u, gq + _mm(y, _T(gv)), gu)
    return (concatenate([gx, _mm(q, gv)], axis=-1),)


def svd_grad(cts, args, outs, full_matrices=True, hermitian=False):
    x = args[0]
    _real("svd", x)
    (u, s, vh), (gu, gs, gvh) = outs, cts
    m, n = x.shape[-2], x.shape[-1]
    if m is None or n is None:
        raise NotImplementedError("the gradient of svd needs the matrix dims while tracing")
    if hermitian:
        raise NotImplementedError("the gradient of svd(hermitian=True) is not implemented")
    if full_matrices and m != n:
        raise NotImplementedError("the gradient of svd(full_matrices=True) of a non-square "
                                  "matrix is not defined (U or V's extra columns are not "
                                  "unique); use full_matrices=False")
    v, gv = _T(vh), _T(gvh)
    f = _spectral_f(s * s)
    j = f * (_mm(_T(u), gu) - _mm(_T(gu), u))
    k = f * (_mm(_T(v), gv) - _mm(_T(gv), v))
    inner = j * expand_dims(s, -2) + _diag(gs) + expand_dims(s, -1) * k
    out = _mm(u, inner, vh)
    if m > n:  # the part of gu outside U's columns
        gu_s = gu / expand_dims(s, -2)
        out = out + _mm(gu_s - _mm(u, _T(u), gu_s), vh)
    elif n > m:
        gv_s = gv / expand_dims(s, -2)
        out = out + _mm(u, _T(gv_s - _mm(v, _T(v), gv_s)))
    return (out,)


def svdvals_grad(cts, args, outs, hermitian=False):
    """``U diag(g) Vh``; with ``hermitian`` (NumPy reads the lower triangle), of the
    symmetric matrix that triangle stands for, folded onto it."""
    x = args[0]
    _real("svdvals", x)
    if hermitian:
        x = tril(x) + _T(tril(x, -1))
    u, _, vh = bind(linalg_decomp.SVD, x, full_matrices=False, hermitian=False)
    g = _mm(u * expand_dims(cts[0], -2), vh)
    return (_fold(g) if hermitian else g,)


def lstsq_grad(cts, args, outs, rcond=None):
    """For ``a`` of full rank, through the normal equations: ``x = (a.T a)^-1 a.T b``
    (at least as many rows as columns) or ``a.T (a a.T)^-1 b``. The residuals
    ``sum((b - a x)**2, axis=0)`` (present with more rows than columns) pass
    ``2 r g`` to ``b`` and ``-2 r g x.T`` to ``a`` (``a.T r = 0`` cancels the rest);
    ``s`` passes as ``svdvals``."""
    a, b = args
    _real("lstsq", a, b)
    x, _, _, s = outs
    gx, gres, _, gs = cts
    m, n = a.shape
    if m is None or n is None:
        raise NotImplementedError("the gradient of lstsq needs the matrix dims while tracing")
    vec = len(b.shape) == 1
    bm, xm, gxm = (expand_dims(t, -1) for t in (b, x, gx)) if vec else (b, x, gx)
    if m >= n:
        z = _solve(_mm(_T(a), a), gxm)  # (a.T a)^-1 gx
        r = bm - _mm(a, xm)
        gb = _mm(a, z)
        ga = _mm(r, _T(z)) - _mm(gb, _T(xm))
        if m > n:
            gr = 2.0 * r * gres
            gb = gb + gr
            ga = ga - _mm(gr, _T(xm))
    else:
        gram = _mm(a, _T(a))
        w = _solve(gram, bm)  # (a a.T)^-1 b
        gb = _solve(gram, _mm(a, gxm))
        ga = _mm(w, _T(gxm)) - _mm(gb, _T(xm)) - _mm(w, _T(_mm(_T(a), gb)))
    ga = ga + svdvals_grad([gs], [a], [s])[0]
    return (ga if _want(a) else None, (gb[..., 0] if vec else gb) if _want(b) else None)


def eig_grad(cts, args, outs):
    raise NotImplementedError("the gradient of eig is not implemented (its results are "
                              "complex); for a symmetric matrix use eigh")


linalg_decomp.CHOLESKY.grad = cholesky_grad
linalg_decomp.INV.grad = inv_grad
linalg_decomp.SOLVE.grad = solve_grad
linalg_decomp.DET.grad = det_grad
linalg_decomp.SLOGDET.grad = slogdet_grad
linalg_decomp.EIGH.grad = eigh_grad
linalg_decomp.QR.grad = qr_grad
linalg_decomp.SVD.grad = svd_grad
linalg_decomp.SVDVALS.grad = svdvals_grad
linalg_decomp.LSTSQ.grad = lstsq_grad
linalg_decomp.EIG.grad = eig_grad
linalg_decomp.CONJ.grad = lambda cts, args, outs: (bind(linalg_decomp.CONJ, cts[0]),)
