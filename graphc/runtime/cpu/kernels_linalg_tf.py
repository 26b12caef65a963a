"""Numba emitters (as source) for ``triangular_solve`` and ``lu`` of
``graphc/ops/linalg_tf.py``; registered into ``kernels.EMITTERS``.

Both are plain loops over each matrix of the stack (float32/float64; an integer operand
is cast to float64 first, as the reference does):

* ``triangular_solve``: forward or back substitution, column by column of ``rhs``, the
  operands broadcast over the result's batch dims. A zero on the diagonal gives inf/nan,
  as the reference (BLAS's trsm) does.
* ``lu``: Doolittle elimination with partial pivoting (the first row of largest
  magnitude, as LAPACK's getrf), rows swapped whole, the permutation kept as indices.

The reference is SciPy's (OpenBLAS's trsm and getrf, which order their sums
differently): results agree within a few ULP on well-conditioned matrices, and the pivot
rows agree unless two candidates tie to rounding.

Not compiled (the interpreter runs them): complex dtypes (docs/runtime.md, "Complex
numbers") and ``expm``/``sqrtm``/``logm`` (SciPy's Schur and Padé algorithms have no Numba
counterpart), which have no emitter.
"""

from __future__ import annotations

import numpy as np

from graphc.runtime.cpu.kernels import Unsupported, Val, emitter, np_type, shape_expr
from graphc.runtime.cpu.kernels_linalg_decomp import _matrix_src, _to_batch


@emitter("triangular_solve")
def _triangular_solve(g, node, ins, outs):
    a, b = ins
    aval = node.outputs[0].aval
    T = aval.dtype
    if len(a.aval.shape) < 2 or len(b.aval.shape) < 2:
        raise Unsupported("triangular_solve of operands of fewer than 2 dims")
    batch = list(aval.shape[:-2])
    if None in batch:
        raise Unsupported("triangular_solve with unknown batch dims")
    lower = bool(node.attrs.get("lower", True))
    adjoint = bool(node.attrs.get("adjoint", False))
    ab = _to_batch(g, a, _matrix_src(g, a, T), batch, 2)
    bb = _to_batch(g, b, _matrix_src(g, b, T), batch, 2)
    count = int(np.prod(batch))
    x, bi, c, i, j, s = (g.tmp(p) for p in ("tx", "tb", "tc", "ti", "tj", "ts"))
    m, k = f"{ab}.shape[1]", f"{bb}.shape[2]"
    forward = lower != adjoint  # L x = b, or U^T x = b: from the first row down
    rows = f"range({m})" if forward else f"range({m} - 1, -1, -1)"
    inner = f"range({i})" if forward else f"range({i} + 1, {m})"
    entry = f"{ab}[{bi}, {j}, {i}]" if adjoint else f"{ab}[{bi}, {i}, {j}]"
    g.line(f"{x} = np.empty(({count}, {m}, {k}), {np_type(T)})")
    g.line(f"for {bi} in range({count}):")
    g.line(f"    for {c} in range({k}):")
    g.line(f"        for {i} in {rows}:")
    g.line(f"            {s} = {bb}[{bi}, {i}, {c}]")
    g.line(f"            for {j} in {inner}:")
    g.line(f"                {s} -= {entry} * {x}[{bi}, {j}, {c}]")
    g.line(f"            {x}[{bi}, {i}, {c}] = {s} / {ab}[{bi}, {i}, {i}]")
    o = outs[0]
    g.line(f"{o} = {x}.reshape({shape_expr([str(d) for d in batch] + [m, k])})")
    return [Val(o, aval)]


@emitter("lu")
def _lu(g, node, ins, outs):
    (x,) = ins
    lu_aval, p_aval = (v.aval for v in node.outputs)
    T = lu_aval.dtype
    nd = len(x.aval.shape)
    if nd < 2:
        raise Unsupported("lu of an operand of fewer than 2 dims")
    batch = [x.dim(i) for i in range(nd - 2)]
    n = x.dim(nd - 1)
    count = " * ".join(batch) if batch else "1"
    a, p, bi, col, r, piv, big, i, j, f, tmp = (g.tmp(q) for q in (
        "la", "lp", "lb", "lk", "lr", "lq", "lm", "li", "lj", "lf", "lt"))
    src = _matrix_src(g, x, T)
    if src == x.name:  # a copy: the elimination works in place
        src = f"{x.name}.copy()"
    g.line(f"{a} = {src}.reshape(({count}, {n}, {n}))")
    g.line(f"{p} = np.empty(({count}, {n}), {np_type(p_aval.dtype)})")
    g.line(f"for {bi} in range({count}):")
    g.line(f"    for {i} in range({n}):")
    g.line(f"        {p}[{bi}, {i}] = {i}")
    g.line(f"    for {col} in range({n}):")
    g.line(f"        {piv} = {col}")
    g.line(f"        {big} = abs({a}[{bi}, {col}, {col}])")
    g.line(f"        for {r} in range({col} + 1, {n}):")
    g.line(f"            if abs({a}[{bi}, {r}, {col}]) > {big}:")
    g.line(f"                {big} = abs({a}[{bi}, {r}, {col}])")
    g.line(f"                {piv} = {r}")
    g.line(f"        if {piv} != {col}:")
    g.line(f"            for {j} in range({n}):")
    g.line(f"                {tmp} = {a}[{bi}, {col}, {j}]")
    g.line(f"                {a}[{bi}, {col}, {j}] = {a}[{bi}, {piv}, {j}]")
    g.line(f"                {a}[{bi}, {piv}, {j}] = {tmp}")
    g.line(f"            {r} = {p}[{bi}, {col}]")
    g.line(f"            {p}[{bi}, {col}] = {p}[{bi}, {piv}]")
    g.line(f"            {p}[{bi}, {piv}] = {r}")
    g.line(f"        if {a}[{bi}, {col}, {col}] != 0:")
    g.line(f"            {big} = 1.0 / {a}[{bi}, {col}, {col}]")
    g.line(f"            for {r} in range({col} + 1, {n}):")
    g.line(f"                {f} = {a}[{bi}, {r}, {col}] * {big}")
    g.line(f"                {a}[{bi}, {r}, {col}] = {f}")
    g.line(f"                for {j} in range({col} + 1, {n}):")
    g.line(f"                    {a}[{bi}, {r}, {j}] -= {f} * {a}[{bi}, {col}, {j}]")
    lu_o, p_o = outs
    g.line(f"{lu_o} = {a}.reshape({shape_expr(batch + [n, n])})")
    g.line(f"{p_o} = {p}.reshape({shape_expr(batch + [n])})")
    return [Val(lu_o, lu_aval), Val(p_o, p_aval)]
