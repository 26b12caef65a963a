"""Batching rules (``OpDef.batch``, for gc.vectorized_map) of the ops of
``linalg_decomp.py``; the end of this module attaches them.

NumPy's linalg ops work on stacks of matrices, so a batch axis moved to the front is one
more stack dim: the op runs once on the batched operand and each result has the batch
axis first. ``solve`` with a 1-D ``b`` (one vector for the whole stack) gives ``b`` a
column axis when ``b`` is batched, since a batched ``(B, M)`` would read as a matrix.
``lstsq`` is 2-D only in NumPy: it has no rule (gc.vectorized_map loops).
"""

from __future__ import annotations

from graphc.core.registry import bind
from graphc.ops import batch_util as bu
from graphc.ops import linalg_decomp as ld
from graphc.ops.shape import SQUEEZE


def stacked(op):
    """The batching rule of a stacked-matrix op (``[..., M, N]`` in, stacks out): the
    batch axis moved to the front is one more stack dim (gc.linalg's ops use it too)."""
    def rule(args, dims, **attrs):
        (x,), (d,) = args, dims
        if bu.example_rank(x, d) is None:
            return NotImplemented
        out = bind(op, bu.to_front(x, d), **attrs)
        if op.multiple_results:
            return list(out), [0] * len(out)
        return out, 0
    return rule


def solve(args, dims):
    """Stack dims line up after the batch axis: the operand with fewer gets ones there
    (only a batched one needs them; an unbatched one broadcasts from the right)."""
    (a, b), (da, db) = args, dims
    ra, rb = bu.example_rank(a, da), bu.example_rank(b, db)
    if ra is None or rb is None or ra < 2 or rb < 1:
        return NotImplemented
    a, b = bu.to_front(a, da), bu.to_front(b, db)
    if rb == 1:
        if db is None:  # one vector for every matrix of the batched stack
            return bind(ld.SOLVE, a, b), 0
        b = bu.bind_expand(b, *range(1, ra - 1), -1)  # (B, 1.., M, 1): columns
        return bind(SQUEEZE, bind(ld.SOLVE, a, b), axis=-1), 0
    if da is not None and rb > ra:
        a = bu.bind_expand(a, *range(1, 1 + rb - ra))
    if db is not None and ra > rb:
        b = bu.bind_expand(b, *range(1, 1 + ra - rb))
    return bind(ld.SOLVE, a, b), 0


for _op in (ld.CHOLESKY, ld.INV, ld.DET, ld.SLOGDET, ld.EIGH, ld.EIG, ld.QR, ld.SVD,
            ld.SVDVALS):
    _op.batch = stacked(_op)
ld.SOLVE.batch = solve


def _conj(args, dims):
    return bind(ld.CONJ, args[0]), dims[0]


ld.CONJ.batch = _conj
