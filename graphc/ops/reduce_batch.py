"""Batching rules (``OpDef.batch``, for gc.vectorized_map) of the reductions and scans of
graphc/ops/reduce.py; the end of this module attaches them to the ops.

The batch axis goes to 0 and the example's axes shift by one; ``axis=None`` reduces every
axis but the batch axis (and for argmax/argmin and the scans, which flatten then, the
example is flattened first). NumPy's axis rules for 0-d inputs and unknown ranks are left
to the loop.
"""

from __future__ import annotations

from graphc.core.registry import bind
from graphc.ops import batch_util as bu
from graphc.ops.reduce import (
    ALL,
    ANY,
    ARGMAX,
    ARGMIN,
    CUMPROD,
    CUMSUM,
    MAX,
    MEAN,
    MIN,
    PROD,
    STD,
    SUM,
    VAR,
)


def _batch_rule(op, flattens: bool, keeps: bool):
    def rule(args, dims, axis=None, **attrs):
        x = bu.to_front(args[0], dims[0])
        n = bu.example_rank(x, 0)
        if n is None or (n == 0 and axis is not None):
            return NotImplemented
        if axis is not None:
            shifted = tuple(bu.shift_axis(a, n) for a in axis) if isinstance(
                axis, tuple) else bu.shift_axis(axis, n)
            return bind(op, x, axis=shifted, **attrs), 0
        if not flattens:
            return bind(op, x, axis=tuple(range(1, n + 1)), **attrs), 0
        flat = bu.flatten_examples(x)
        if flat is NotImplemented:
            return flat
        keepdims = attrs.pop("keepdims", False) if keeps else False
        out = bind(op, flat, axis=1, **attrs)
        if keepdims and n:  # argmax(axis=None, keepdims=True): ones for every example axis
            out = bu.bind_expand(out, *range(1, n + 1))
        return out, 0
    return rule


for _op in (SUM, PROD, MEAN, STD, VAR, MAX, MIN, ANY, ALL):
    _op.batch = _batch_rule(_op, flattens=False, keeps=True)
ARGMAX.batch, ARGMIN.batch = (_batch_rule(o, True, True) for o in (ARGMAX, ARGMIN))
CUMSUM.batch, CUMPROD.batch = (_batch_rule(o, True, False) for o in (CUMSUM, CUMPROD))
