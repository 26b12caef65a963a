"""Batching rules (``OpDef.batch``, for gc.vectorized_map) of the ops of
graphc/ops/linalg.py; the end of this module attaches them to the ops.

``matmul`` of batched operands is a batched matmul. ``dot``, ``inner``, ``outer``,
``tensordot`` and ``einsum`` each become one ``einsum`` whose batched operands carry an
extra label for the batch axis (put first), the result's batch axis at 0. 0-d examples in
``dot``/``inner`` multiply."""

from __future__ import annotations

import string

from graphc.core.registry import bind
from graphc.ops import batch_util as bu
from graphc.ops import linalg
from graphc.ops.elementwise import MULTIPLY
from graphc.ops.shape import RESHAPE, SQUEEZE


def matmul(args, dims):
    """A 1-D operand becomes a matrix (a row for the left, a column for the right) and that
    axis is squeezed from the result; each batched operand gets its batch axis at 0 and
    ones after it up to the result's batch rank, so NumPy's matmul broadcasting pairs
    example k of one with example k of the other."""
    ranks = [bu.example_rank(a, d) for a, d in zip(args, dims)]
    if None in ranks or 0 in ranks:
        return NotImplemented
    (a, b), (da, db) = args, dims
    a, b = bu.to_front(a, da), bu.to_front(b, db)
    da, db = (None if d is None else 0 for d in dims)
    squeeze = []
    if ranks[0] == 1:
        a, ranks[0] = bu.bind_expand(a, -2), 2
        squeeze.append(-2)
    if ranks[1] == 1:
        b, ranks[1] = bu.bind_expand(b, -1), 2
        squeeze.append(-1)
    widest = max(ranks)
    operands = []
    for x, d, k in ((a, da, ranks[0]), (b, db, ranks[1])):
        if d is not None and k < widest:
            x = bu.bind_expand(x, *range(1, 1 + widest - k))
        operands.append(x)
    out = bind(linalg.MATMUL, *operands)
    if squeeze:
        out = bind(SQUEEZE, out, axis=tuple(squeeze) if len(squeeze) > 1 else squeeze[0])
    return out, 0


def _einsum(terms, out, args, dims):
    """einsum of ``args`` with ``terms`` (example labels per operand) and ``out``: the batch
    label ``Z`` goes in front of batched operands and of the result."""
    ops, subs = [], []
    for a, d, t in zip(args, dims, terms):
        ops.append(bu.to_front(a, d))
        subs.append(("Z" if d is not None else "") + t)
    return bind(linalg.EINSUM, *ops, subscripts=",".join(subs) + "->Z" + out), 0


def _labels(n, start=0):
    return string.ascii_lowercase[start:start + n]


def _ranks(args, dims):
    ranks = [bu.example_rank(a, d) for a, d in zip(args, dims)]
    return None if None in ranks else ranks


def _multiply(args, dims):
    return MULTIPLY.batch(args, dims)


def _contraction(labels):
    """A rule for an op of two operands whose 0-d examples multiply; ``labels(p, q)``
    gives the example labels of both operands and of the result."""
    def rule(args, dims):
        r = _ranks(args, dims)
        if r is None:
            return NotImplemented
        if 0 in r:
            return _multiply(args, dims)
        a, b, out = labels(*r)
        return _einsum([a, b], out, args, dims)
    return rule


def _dot_labels(p, q):
    a = _labels(p)
    if q == 1:  # a's last axis against the vector
        return a, a[-1], a[:-1]
    b = _labels(q - 2, p) + a[-1] + _labels(1, p + q)
    return a, b, a[:-1] + b[:-2] + b[-1]


def _inner_labels(p, q):
    a = _labels(p)
    b = _labels(q - 1, p) + a[-1]
    return a, b, a[:-1] + b[:-1]


dot, inner = _contraction(_dot_labels), _contraction(_inner_labels)


def outer(args, dims):
    flat = []
    for a, d in zip(args, dims):
        if d is None:
            flat.append(bind(RESHAPE, a, shape=(-1,), order="C"))
        else:
            x = bu.flatten_examples(bu.to_front(a, d))
            if x is NotImplemented:
                return NotImplemented
            flat.append(x)
    return _einsum(["i", "j"], "ij", flat, [None if d is None else 0 for d in dims])


def tensordot(args, dims, axes=2):
    r = _ranks(args, dims)
    if r is None:
        return NotImplemented
    p, q = r
    if isinstance(axes, int):
        if axes > min(p, q):
            return NotImplemented
        xa, xb = list(range(p - axes, p)), list(range(axes))
    else:
        xa, xb = ([x] if isinstance(x, int) else list(x) for x in axes)
        if len(xa) != len(xb) or any(not -p <= i < p for i in xa) or any(
                not -q <= i < q for i in xb):
            return NotImplemented
        xa, xb = [i % p for i in xa], [i % q for i in xb]
    a = list(_labels(p))
    b = list(_labels(q, p))
    for i, j in zip(xa, xb):
        b[j] = a[i]
    out = [c for k, c in enumerate(a) if k not in xa] + [
        c for k, c in enumerate(b) if k not in xb]
    return _einsum(["".join(a), "".join(b)], "".join(out), args, dims)


def einsum(args, dims, subscripts):
    spec = subscripts.replace(" ", "")
    if "Z" in spec:
        return NotImplemented
    ins, arrow, out = spec.partition("->")
    if not arrow:  # NumPy's implicit output: labels used once, sorted, after any '...'
        counts = ins.replace("...", "").replace(",", "")
        out = ("..." if "..." in ins else "") + "".join(
            sorted(c for c in set(counts) if counts.count(c) == 1))
    return _einsum(ins.split(","), out, args, dims)


linalg.MATMUL.batch = matmul
linalg.DOT.batch, linalg.INNER.batch, linalg.OUTER.batch = dot, inner, outer
linalg.TENSORDOT.batch, linalg.EINSUM.batch = tensordot, einsum
