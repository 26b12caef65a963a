"""Numba emitters (as source) for the factorizations and solvers of
``graphc/ops/linalg_decomp.py``; registered into ``kernels.EMITTERS``.

Numba compiles ``np.linalg.*`` for one 2-D float32/float64 matrix through LAPACK (SciPy's
``cython_lapack``), so a stack ``(..., M, N)`` is a loop over its matrices, each result
written into a slice of a C-contiguous stack; an integer operand is cast to float64
first, as NumPy does. Agreement with the interpreter (NumPy): the same LAPACK drivers
(gesv, getrf, syevd, geqrf/orgqr, gesdd), so float64 results are NumPy's bit for
bit where both libraries round alike (measured equal on small matrices); float32 ones
agree within float32 rounding. In detail:

* ``inv`` is ``solve(a, I)`` (NumPy's own algorithm, gesv), not Numba's getri;
* ``cholesky``: Numba factors the lower triangle as potrf('U') of the transposed data,
  NumPy as potrf('L'): a few ULP apart (``upper=True`` is NumPy's potrf('U') exactly);
* ``det``/``slogdet`` of float32 come back from Numba in float64 and are cast;
* ``svdvals`` is ``svd(a, False)[1]``: LAPACK's gesdd with vectors, where NumPy asks for
  the values alone; they agree within a few ULP.

``solve`` and ``inv`` also compile for complex matrices (zgesv/cgesv, as NumPy).

Not compiled (the node runs on the interpreter): the other ops on complex dtypes,
``eigh(UPLO='U')``, ``qr(mode='complete')`` of a matrix with more rows than
columns, ``svd``/``svdvals`` with ``hermitian=True`` and ``eig`` (complex results).
``lstsq`` (2-D) is Numba's, which matches NumPy's gelsd, residuals included.
"""

from __future__ import annotations

import numpy as np

from graphc.runtime.cpu.kernels import Unsupported, Val, contiguous, emitter, np_type, shape_expr


def _matrix_src(g, x: Val, T) -> str:
    """``x`` in dtype ``T`` (a cast copy for integer operands)."""
    if x.aval.dtype != T:
        return f"{contiguous(g, x)}.astype({np_type(T)})"
    return x.name


def _stack(g, node, x: Val, call, cores, outs):
    """Run ``call(matrix_source)`` (one expression: the one result, or a tuple of the
    node's results) on each matrix of ``x``. ``cores(M, N)``: each result's core dims as
    source (``[]`` for a scalar). Scalar results are cast to their dtype (Numba's
    float32 det is float64)."""
    avals = [v.aval for v in node.outputs]
    T = avals[0].dtype
    nd = len(x.aval.shape)
    if nd < 2:
        raise Unsupported(f"{node.op.name} of a {nd}-d operand")
    m, n = x.dim(nd - 2), x.dim(nd - 1)
    core = cores(m, n)
    if nd == 2:
        raw = [g.tmp("lr") for _ in avals]
        g.line(f"{_targets(raw)} = {call(_matrix_src(g, x, T))}")
        vals = []
        for o, r, c, aval in zip(outs, raw, core, avals):
            g.line(f"{o} = {r}" if c else f"{o} = {np_type(aval.dtype)}({r})")
            vals.append(Val(o, aval, contig=False) if c else Val(o, aval))
        return vals
    batch = [x.dim(i) for i in range(nd - 2)]
    xb = g.tmp("xb")
    src = contiguous(g, x) if x.aval.dtype == T else _matrix_src(g, x, T)
    g.line(f"{xb} = {src}.reshape(({' * '.join(batch)}, {m}, {n}))")
    stacks = []
    for c, aval in zip(core, avals):
        s = g.tmp("ls")
        g.line(f"{s} = np.empty({shape_expr([xb + '.shape[0]', *c])}, {np_type(aval.dtype)})")
        stacks.append(s)
    raw = [g.tmp("lr") for _ in avals]
    g.line(f"for _b in range({xb}.shape[0]):")
    g.line(f"    {_targets(raw)} = {call(xb + '[_b]')}")
    for s, r, c, aval in zip(stacks, raw, core, avals):
        g.line(f"    {s}[_b] = {r}" if c else f"    {s}[_b] = {np_type(aval.dtype)}({r})")
    vals = []
    for o, s, c, aval in zip(outs, stacks, core, avals):
        g.line(f"{o} = {s}.reshape({shape_expr(batch + c)})")
        vals.append(Val(o, aval))
    return vals


def _targets(names) -> str:
    return names[0] if len(names) == 1 else ", ".join(names)


def _kmin(m, n):
    return f"min({m}, {n})"


@emitter("cholesky")
def _cholesky(g, node, ins, outs):
    # upper: the lower factor of the transpose (the same triangle, read by potrf('L'))
    if node.attrs.get("upper", False):
        call = lambda m: f"H.cholesky({m}.T.copy()).T"  # noqa: E731
    else:
        call = lambda m: f"H.cholesky({m})"  # noqa: E731
    return _stack(g, node, ins[0], call, lambda m, n: [[m, m]], outs)


@emitter("inv")
def _inv(g, node, ins, outs):
    T = np_type(node.outputs[0].aval.dtype)
    return _stack(g, node, ins[0],
                  lambda m: f"H.solve({m}, np.eye({m}.shape[0], dtype={T}))",
                  lambda m, n: [[m, m]], outs)


@emitter("det")
def _det(g, node, ins, outs):
    return _stack(g, node, ins[0], lambda m: f"H.det({m})", lambda m, n: [[]], outs)


@emitter("slogdet")
def _slogdet(g, node, ins, outs):
    return _stack(g, node, ins[0], lambda m: f"H.slogdet({m})",
                  lambda m, n: [[], []], outs)


@emitter("eigh")
def _eigh(g, node, ins, outs):
    if node.attrs.get("UPLO", "L") != "L":
        raise Unsupported("eigh(UPLO='U') (Numba's eigh reads the lower triangle)")
    return _stack(g, node, ins[0], lambda m: f"H.eigh({m})",
                  lambda m, n: [[m], [m, m]], outs)


@emitter("qr")
def _qr(g, node, ins, outs):
    x = ins[0]
    if node.attrs.get("mode", "reduced") == "complete":
        m, n = x.aval.shape[-2], x.aval.shape[-1]
        if m is None or n is None or m > n:
            raise Unsupported("qr(mode='complete') of a matrix that may have more rows "
                              "than columns (Numba's qr is the reduced one)")
    return _stack(g, node, x, lambda m: f"H.qr({m})",
                  lambda m, n: [[m, _kmin(m, n)], [_kmin(m, n), n]], outs)


@emitter("svd")
def _svd(g, node, ins, outs):
    if node.attrs.get("hermitian", False):
        raise Unsupported("svd(hermitian=True)")
    full = bool(node.attrs.get("full_matrices", True))
    k = _kmin
    cores = (lambda m, n: [[m, m], [k(m, n)], [n, n]]) if full else (
        lambda m, n: [[m, k(m, n)], [k(m, n)], [k(m, n), n]])
    return _stack(g, node, ins[0], lambda m: f"H.svd({m}, {full})", cores, outs)


@emitter("svdvals")
def _svdvals(g, node, ins, outs):
    if node.attrs.get("hermitian", False):
        raise Unsupported("svdvals(hermitian=True)")
    return _stack(g, node, ins[0], lambda m: f"H.svd({m}, False)[1]",
                  lambda m, n: [[_kmin(m, n)]], outs)


@emitter("lstsq")
def _lstsq(g, node, ins, outs):
    """2-D only (as NumPy); Numba's lstsq is gelsd as NumPy's, and keeps the residuals
    only for full column rank with more rows than columns, as NumPy does."""
    a, b = ins
    avals = [v.aval for v in node.outputs]
    T = avals[0].dtype
    rcond = node.attrs.get("rcond")
    rc = g.tmp("rc")
    if rcond is None:  # NumPy's default: eps * max(M, N)
        g.line(f"{rc} = {float(np.finfo(T).eps)!r} * max({a.dim(0)}, {a.dim(1)})")
    else:
        g.line(f"{rc} = {float(rcond)!r}")
    raw = [g.tmp("lr") for _ in outs]
    g.line(f"{_targets(raw)} = H.lstsq({_matrix_src(g, a, T)}, "
           f"{_matrix_src(g, b, T)}, {rc})")
    g.line(f"{outs[0]}, {outs[1]}, {outs[3]} = {raw[0]}, {raw[1]}, {raw[3]}")
    g.line(f"{outs[2]} = np.int32({raw[2]})")
    return [Val(outs[0], avals[0], contig=False), Val(outs[1], avals[1], contig=False),
            Val(outs[2], avals[2]), Val(outs[3], avals[3], contig=False)]


@emitter("linalg_conj")
def _conj(g, node, ins, outs):
    x = ins[0]  # real dtypes only reach here (complex ones are refused before)
    g.line(f"{outs[0]} = {x.name}" if x.scalar else f"{outs[0]} = {x.name}.copy()")
    return [Val(outs[0], node.outputs[0].aval)]


@emitter("solve")
def _solve(g, node, ins, outs):
    a, b = ins
    aval = node.outputs[0].aval
    T = aval.dtype
    ra, rb = len(a.aval.shape), len(b.aval.shape)
    if ra < 2 or rb < 1:
        raise Unsupported("solve of operands of too few dims")
    a_src, b_src = _matrix_src(g, a, T), _matrix_src(g, b, T)
    o = outs[0]
    if ra == 2 and rb <= 2:
        g.line(f"{o} = H.solve({a_src}, {b_src})")
        return [Val(o, aval, contig=False)]
    vector = rb == 1
    batch = list(aval.shape[:-1] if vector else aval.shape[:-2])
    if None in batch:
        raise Unsupported("batched solve with unknown batch dims")
    # every operand to the result's batch dims (a C-contiguous copy where they broadcast)
    ab = _to_batch(g, a, a_src, batch, 2)
    bb = b_src if vector else _to_batch(g, b, b_src, batch, 2)
    count = int(np.prod(batch))
    m = a.dim(ra - 1)
    core = [m] if vector else [m, b.dim(rb - 1)]
    s = g.tmp("ls")
    g.line(f"{s} = np.empty({shape_expr([str(count), *core])}, {np_type(T)})")
    g.line(f"for _b in range({count}):")
    g.line(f"    {s}[_b] = H.solve({ab}[_b], {bb if vector else bb + '[_b]'})")
    g.line(f"{o} = {s}.reshape({shape_expr([str(d) for d in batch] + core)})")
    return [Val(o, aval)]


def _to_batch(g, x: Val, src, batch, core_rank):
    """``x`` (source ``src``) as ``(prod(batch), *core)``, broadcast over ``batch``."""
    nd = len(x.aval.shape)
    core = [x.dim(i) for i in range(nd - core_rank, nd)]
    full = [str(d) for d in batch] + core
    own = tuple(x.aval.shape[:nd - core_rank])
    name = g.tmp("lb")
    if own != tuple(batch):
        src = f"np.broadcast_to({src}, {shape_expr(full)}).copy()"
    elif src == x.name and not x.contig:
        src = f"{src}.copy()"
    g.line(f"{name} = {src}.reshape({shape_expr([str(int(np.prod(batch)))] + core)})")
    return name
