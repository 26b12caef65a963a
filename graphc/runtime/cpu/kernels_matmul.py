"""Numba emitters (as source) for ``matmul`` and ``dot``; registered into ``kernels.EMITTERS``.

* float operands of the result's dtype: a vector times a matrix not known contiguous (a
  column slice ``x[:, i:]``) is ``H.vecmat``, one pass over the matrix's rows (copying
  it for BLAS cost 2.5x more: NPBench's covariance), or ``H.vecmat_view`` given the
  slice's C-contiguous base (its rows read as the base's rows); two float vectors
  are ``H.dot_1d``, a loop (no copies, no BLAS call; ``H.dot_contiguous`` for two
  contiguous ones: BLAS from 512 values on); otherwise ``H.dot``, Numba's
  ``np.dot`` behind a cached helper (``runtime/numba_helpers_blas.py``: typed and
  compiled once per signature on a machine, not in every program), which calls BLAS
  (gemm/gemv/dot through SciPy's BLAS: within BLAS rounding of NumPy's own); a big
  matrix product is one ``gemm`` per block of rows under ``prange`` (``_row_blocks``),
  or with few rows per block of the summed index, partial results added (``_k_blocks``);
* complex operands of the result's dtype: ``H.dot`` (zgemm/cgemm, as NumPy);
* other dtypes: ``H.int_matmul``, an exact loop in the result dtype (ints wrap, as NumPy);
* batched ``matmul`` (an operand of rank 3 or more): one product per batch element into a
  slice of the result (``H.dot_into(a, b, out)`` for floats); an operand whose batch dims
  broadcast is first copied out to the result's batch dims, a 2-D operand is shared by
  all. A shared 2-D right operand makes one product of all the left rows (one BLAS
  call); a contraction over one index (outer products) is a loop of products. Rank-1
  operands next to batched ones are not compiled.
"""

from __future__ import annotations

import math

import numpy as np

from graphc.ir.graph import Aval
from graphc.runtime.cpu.kernels import (
    FortranVal,
    Unsupported,
    Val,
    ViewVal,
    WindowVal,
    contiguous,
    emitter,
    np_type,
    shape_expr,
)
from graphc.runtime.cpu.parallel import machine_threads, parallel_settings


@emitter("matmul", "dot")
def _matmul(g, node, ins, outs):
    a, b = ins
    aval = node.outputs[0].aval
    out_t = aval.dtype
    ra, rb = len(a.aval.shape), len(b.aval.shape)
    if ra == 0 or rb == 0:
        raise Unsupported(f"{node.op.name} of a 0-d operand")
    if ra > 2 or rb > 2:
        if node.op.name != "matmul":
            raise Unsupported(f"dot of rank {ra} and {rb} operands (only 1-D/2-D compiled)")
        return _batched(g, node, a, b, outs[0])
    o = outs[0]
    if out_t.kind == "c" and not a.aval.dtype == b.aval.dtype == out_t:
        # NumPy casts a real operand to the complex result dtype, then calls BLAS
        a, b = (_cast_to(g, x, out_t) for x in (a, b))
    if out_t.kind in "fc" and a.aval.dtype == b.aval.dtype == out_t:
        # np.dot inside Numba calls BLAS gemm/gemv/dot; an F-contiguous matrix (a
        # transpose) goes in as it is, BLAS's transposed flag in place of a copy
        if (ra == 1 and rb == 2 and out_t.kind == "f" and not b.contig
                and not isinstance(b, FortranVal)):
            # a strided matrix (a column slice): one pass over it beats a copy + BLAS
            g.line(f"{o} = {_vecmat(a, b)}")
        elif ra == rb == 1 and out_t.kind == "f":
            # a loop: no copies of strided vectors (columns A[i:, j]) for BLAS, and no
            # BLAS call's overhead on short ones (cholesky's rows A[i, :j])
            helper = "dot_contiguous" if a.contig and b.contig else "dot_1d"
            g.line(f"{o} = H.{helper}({a.name}, {b.name})")
        elif not _row_blocks(g, a, b, aval, o):
            g.line(f"{o} = H.dot({_blas_operand(g, a)}, {_blas_operand(g, b)})")
        return [Val(o, aval)]
    if out_t == np.bool_ or out_t.kind not in "iuf":
        raise Unsupported(f"{node.op.name} producing {out_t} from {a.aval.dtype} and "
                          f"{b.aval.dtype}")
    T = np_type(out_t)
    a2 = f"{contiguous(g, a)}.astype({T})" if a.aval.dtype != out_t else contiguous(g, a)
    b2 = f"{contiguous(g, b)}.astype({T})" if b.aval.dtype != out_t else contiguous(g, b)
    if ra == 1:
        a2 = f"{a2}.reshape((1, {a.dim(0)}))"
    if rb == 1:
        b2 = f"{b2}.reshape(({b.dim(0)}, 1))"
    rows = "1" if ra == 1 else a.dim(0)
    cols = "1" if rb == 1 else b.dim(1)
    g.line(f"{o} = H.int_matmul({a2}, {b2}, np.empty(({rows}, {cols}), {T}))")
    if ra == 1 or rb == 1:
        if not aval.shape:
            g.line(f"{o} = {o}[0, 0]")
        else:
            g.line(f"{o} = {o}.reshape(({', '.join(_dims(aval, o))},))")
    return [Val(o, aval)]


def _vecmat(a, b) -> str:
    """``a @ b`` by rows of the strided ``b``, read through its C-contiguous 2-D base
    when the code knows one (a view or a window of it)."""
    if isinstance(b, ViewVal) or (isinstance(b, WindowVal) and len(b.base_shape) == 2):
        return f"H.vecmat_view({a.name}, {b.name}, {b.base})"
    return f"H.vecmat({a.name}, {b.name})"


def _cast_to(g, x, dtype) -> Val:
    if x.aval.dtype == dtype:
        return x
    name = g.tmp("mc")
    g.line(f"{name} = {x.name}.astype({np_type(dtype)})")
    return Val(name, type(x.aval)(x.aval.shape, dtype))


# A float matrix product of at least this many multiply-adds is split into blocks of rows
# of the left operand, one BLAS call each, run under prange: 2mm's 800x900 @ 900x1100
# 22 -> 11-16 ms on 2 cores (BLAS itself on one thread, as NumPy was measured). The
# block count depends on the machine's core count only (parallel.machine_threads(),
# read when the source is generated), not on the threads a call runs on
# (threads.py), so a program's results are the same call after call; they are within
# BLAS rounding of one unsplit call (BLAS may take another path for fewer rows).
PARALLEL_MATMUL_MIN = 1 << 22
BLOCK_ROWS_MIN = 64


def _row_blocks(g, a, b, aval, o) -> bool:
    """``o = a @ b`` for 2-D float operands as row blocks under prange (see above); False
    (nothing emitted) when the product is small, of unknown size or not 2-D x 2-D, or
    parallel loops are off."""
    if len(a.aval.shape) != 2 or len(b.aval.shape) != 2:
        return False
    (m, k), n = a.aval.shape, b.aval.shape[1]
    if None in (m, k, n) or m * k * n < PARALLEL_MATMUL_MIN or not parallel_settings.allowed():
        return False
    blocks = min(machine_threads(), m // BLOCK_ROWS_MIN)
    if blocks < 2:
        return _k_blocks(g, a, b, aval, o)
    left, right, rows = _prange_blocks(g, a, _blas_operand(g, b), m, blocks)
    g.line(f"{o} = np.empty(({m}, {n}), {np_type(aval.dtype)})")
    g.line(f"for {rows[0]} in numba.prange({blocks}):")
    g.line(f"    H.dot_into({left}[{rows[1]}], {right}, {o}[{rows[1]}])")
    return True


# Too few rows to split (mlp's 8 x 30000 @ 30000 x 2000): blocks of the summed index,
# each a product of a column block of ``a`` (copied: m rows only) and a row block of
# ``b`` into its own partial result, added up in block order after the prange (SciPy's
# sgemm for 8 rows took 2x NumPy's; split in two, 61 -> 32 ms on 2 cores). Each block
# sums at least BLOCK_SUM_MIN terms.
BLOCK_SUM_MIN = 256


def _k_blocks(g, a, b, aval, o) -> bool:
    (m, k), n = a.aval.shape, b.aval.shape[1]
    blocks = min(machine_threads(), k // BLOCK_SUM_MIN)
    if blocks < 2 or isinstance(b, FortranVal):
        return False
    left, right, (p, ks) = _prange_blocks(g, a, contiguous(g, b), k, blocks)
    parts = g.tmp("parts")
    g.line(f"{parts} = np.empty(({blocks}, {m}, {n}), {np_type(aval.dtype)})")
    g.line(f"for {p} in numba.prange({blocks}):")
    g.line(f"    H.dot_into({left}[:, {ks}].copy(), {right}[{ks}], {parts}[{p}])")
    g.line(f"{o} = {parts}[0].copy()")
    g.line(f"for {p} in range(1, {blocks}):")
    g.line(f"    {o} += {parts}[{p}]")
    return True


def _prange_blocks(g, a, right_src, size, blocks):
    """Bind the operands (``a`` C-contiguous) and mark the program parallel; the names
    and ``(block index, slice of block p of range(size))``."""
    g.flags["parallel"] = True
    left, right, p = g.tmp("a"), g.tmp("b"), g.tmp("p")
    g.line(f"{left} = {contiguous(g, a)}")
    g.line(f"{right} = {right_src}")
    step = -(-size // blocks)
    return left, right, (p, f"{p} * {step}:min({size}, ({p} + 1) * {step})")


def _blas_operand(g, v) -> str:
    return v.name if isinstance(v, FortranVal) else contiguous(g, v)


def _dims(aval, name):
    return [str(d) if d is not None else f"{name}.size" for d in aval.shape]


def _operand(g, x, batch, out_t):
    """``x`` in the result dtype, C-contiguous, as ``(B, m, k)``; None for a 2-D operand
    shared by every batch element."""
    shape = x.aval.shape
    src = contiguous(g, x)
    if x.aval.dtype != out_t:
        src = f"{src}.astype({np_type(out_t)})"
    if len(shape) == 2:
        return src, False
    xb = tuple(shape[:-2])
    if xb != batch:
        pad = (1,) * (len(batch) - len(xb)) + xb
        if len(xb) > len(batch) or any(d not in (1, b) for d, b in zip(pad, batch)):
            raise Unsupported(f"batched matmul whose batch dims {xb} do not broadcast to "
                              f"the result's {batch}")
        # broadcast batch dims: a C-contiguous copy with the result's batch dims
        full = [str(b) for b in batch] + [x.dim(len(shape) - 2), x.dim(len(shape) - 1)]
        src = f"np.broadcast_to({src}, {shape_expr(full)}).copy()"
    name = g.tmp("mm")
    g.line(f"{name} = {src}.reshape(({math.prod(batch)}, {x.dim(len(shape) - 2)}, "
           f"{x.dim(len(shape) - 1)}))")
    return name, True


def _batched(g, node, a, b, o):
    aval = node.outputs[0].aval
    out_t, shape = aval.dtype, aval.shape
    if len(a.aval.shape) < 2 or len(b.aval.shape) < 2:
        raise Unsupported("batched matmul with a 1-D operand")
    batch = tuple(shape[:-2])
    if None in batch:
        raise Unsupported("batched matmul with unknown batch dims")
    if out_t == np.bool_ or out_t.kind not in "iufc":
        raise Unsupported(f"matmul producing {out_t}")
    (a3, a_b), (b3, b_b) = _operand(g, a, batch, out_t), _operand(g, b, batch, out_t)
    rows = a.dim(len(a.aval.shape) - 2)
    cols = b.dim(len(b.aval.shape) - 1)
    dims = [str(d) for d in batch] + [rows, cols]
    if a.aval.shape[-1] == 1:  # outer products: no BLAS call per batch element
        return [_outer(g, aval, (a3, a_b), (b3, b_b), batch, rows, cols, o)]
    if a_b and not b_b:  # a 2-D right operand shared by all: one product of the rows
        k = a.dim(len(a.aval.shape) - 1)
        flat = f"{a3}.reshape(({math.prod(batch)} * {rows}, {k}))"
        if out_t.kind in "fc" and _shared_in_blocks(g, a, b, flat, b3, batch, dims, out_t, o):
            return [Val(o, aval)]
        product = (f"H.dot({flat}, {b3})" if out_t.kind in "fc" else
                   f"H.int_matmul({flat}, {b3}, np.empty(({math.prod(batch)} * {rows}, "
                   f"{cols}), {np_type(out_t)}))")
        g.line(f"{o} = {product}.reshape({shape_expr(dims)})")
        return [Val(o, aval)]
    o3 = g.tmp("mo")
    g.line(f"{o3} = np.empty(({math.prod(batch)}, {rows}, {cols}), {np_type(out_t)})")
    g.line(f"for _b in range({o3}.shape[0]):")
    lhs = f"{a3}[_b]" if a_b else a3
    rhs = f"{b3}[_b]" if b_b else b3
    if out_t.kind in "fc":
        g.line(f"    H.dot_into({lhs}, {rhs}, {o3}[_b])")
    else:
        g.line(f"    H.int_matmul({lhs}, {rhs}, {o3}[_b])")
    g.line(f"{o} = {o3}.reshape({shape_expr(dims)})")
    return [Val(o, aval)]


def _shared_in_blocks(g, a, b, flat, b3, batch, dims, out_t, o) -> bool:
    """The rows of every batch element times the shared 2-D ``b``, as one 2-D product
    in row blocks under prange (``_row_blocks``; doitgen's (60, 60, 1, 128) @ (128, 128))
    when its sizes are static; False (nothing emitted) otherwise. ``flat`` (an
    expression: a C-contiguous reshape) stands in as the left operand's name."""
    (m, k), n, t = a.aval.shape[-2:], b.aval.shape[-1], out_t
    if None in (m, k, n):
        return False
    mm, rows = g.tmp("mm"), math.prod(batch) * m
    if not _row_blocks(g, Val(flat, Aval((rows, k), t)), Val(b3, Aval((k, n), t)),
                       Aval((rows, n), t), mm):
        return False
    g.line(f"{o} = {mm}.reshape({shape_expr(dims)})")
    return True


def _outer(g, aval, a, b, batch, rows, cols, o) -> Val:
    """A batched matmul over one shared index: each element is one product, written as
    BLAS leaves it (``0 + a*b``: a -0.0 product becomes +0.0)."""
    (a3, a_b), (b3, b_b) = a, b
    o3 = g.tmp("mo")
    g.line(f"{o3} = np.empty(({math.prod(batch)}, {rows}, {cols}), "
           f"{np_type(aval.dtype)})")
    zero = {"f": " + 0.0", "c": " + 0j"}.get(aval.dtype.kind, "")
    g.line(f"for _b in range({o3}.shape[0]):")
    g.line(f"    for _i in range({o3}.shape[1]):")
    g.line(f"        _av = {a3}[_b, _i, 0]" if a_b else f"        _av = {a3}[_i, 0]")
    g.line(f"        for _j in range({o3}.shape[2]):")
    rhs = f"{b3}[_b, 0, _j]" if b_b else f"{b3}[0, _j]"
    g.line(f"            {o3}[_b, _i, _j] = _av * {rhs}{zero}")
    dims = [str(d) for d in batch] + [rows, cols]
    g.line(f"{o} = {o3}.reshape({shape_expr(dims)})")
    return Val(o, aval)
