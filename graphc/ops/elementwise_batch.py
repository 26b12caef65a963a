"""The batching rule (``OpDef.batch``, for gc.vectorized_map) shared by every elementwise
op: those of graphc/ops/elementwise.py and ``identity`` (creation.py); the end of this
module attaches it to them.

Batched operands get their batch axis at 0 and ones inserted after it up to the widest
example rank, so NumPy's right-aligned broadcasting lines the example dims up; unbatched
operands broadcast as they are. An example of unknown rank is handled only beside
scalars (``x * 2.0``).
"""

from __future__ import annotations

from graphc.core.registry import OpDef, bind
from graphc.ops import batch_util as bu
from graphc.ops import elementwise
from graphc.ops.creation import IDENTITY


def elementwise_rule(op):
    """``batch(args, dims, **attrs)`` of the elementwise ``op``."""
    def rule(args, dims, **attrs):
        ranks = [bu.example_rank(a, d) for a, d in zip(args, dims)]
        if None in ranks:
            return _unknown_rank(op, args, dims, ranks, attrs)
        widest = max(ranks)
        operands = []
        for a, d, k in zip(args, dims, ranks):
            if d is not None:
                a = bu.to_front(a, d)
                if k < widest:
                    a = bu.bind_expand(a, *range(1, 1 + widest - k))
            operands.append(a)
        return bind(op, *operands, **attrs), 0
    return rule


def _unknown_rank(op, args, dims, ranks, attrs):
    """An example of unknown rank lines up with the others only when it is the one
    batched operand, at axis 0, and the rest are scalars; otherwise a loop."""
    batched = [d for d in dims if d is not None]
    if batched != [0] or any(k != 0 for k, d in zip(ranks, dims) if d is None):
        return NotImplemented
    return bind(op, *args, **attrs), 0


for _op in [v for v in vars(elementwise).values() if isinstance(v, OpDef) and v.elementwise]:
    _op.batch = elementwise_rule(_op)
IDENTITY.batch = elementwise_rule(IDENTITY)
