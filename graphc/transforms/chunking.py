"""``gc.vectorized_map(..., chunk_size=k)``: the batched computation run ``k`` examples
at a time, so that per-example intermediates take the memory of ``k`` examples, not of
the whole batch.

Eagerly the chunks are a Python loop (each chunk's intermediates are freed before the
next one starts). While tracing, the full chunks are one ``gc.map_fn`` (a ``while_loop``
over the batch reshaped to ``(n // k, k, ...)``, each iteration the batched graph of one
chunk) and the remainder, ``n % k`` examples, runs once after it; the results are
concatenated. The batch size must then be known when tracing.
"""

from __future__ import annotations

import operator

from graphc import source_info
from graphc.core import trace
from graphc.core.spec import TensorSpec
from graphc.ops.join import concatenate
from graphc.ops.shape import reshape
from graphc.transforms.map_fn import map_fn


def chunked(run, leaves, size, chunk_size, outputs) -> list:
    """``run(chunk_leaves, n)`` (the batched walk, outputs with the batch axis at 0)
    over chunks of ``chunk_size`` examples of ``leaves``, the results concatenated."""
    try:
        k = operator.index(chunk_size)
    except TypeError:
        raise TypeError(f"gc.vectorized_map{source_info.where()}: chunk_size must be a "
                        f"positive int, got {chunk_size!r:.40}") from None
    if k < 1:
        raise ValueError(f"gc.vectorized_map{source_info.where()}: chunk_size must be "
                         f"positive, got {k}")
    if not isinstance(size, int):
        raise ValueError(
            f"gc.vectorized_map{source_info.where()}: chunk_size needs the batch size "
            "when tracing (dimension 0 of elems is unknown); give the gc.function an "
            "input_signature with a static batch dimension, or drop chunk_size")
    if size <= k:
        return run(leaves, size)
    if not trace.active():
        return _eager(run, leaves, size, k)
    return _traced(run, leaves, size, k, outputs)


def _concat(parts):
    return [concatenate([p[i] for p in parts], axis=0) for i in range(len(parts[0]))]


def _eager(run, leaves, n, k):
    parts = [run([x[start:start + k] for x in leaves], min(k, n - start))
             for start in range(0, n, k)]
    return _concat(parts)


def _traced(run, leaves, n, k, outputs):
    full = n // k
    head = [reshape(x[:full * k], (full, k) + tuple(x.shape[1:])) for x in leaves]
    signature = [TensorSpec(None if o.aval.shape is None else [k, *o.aval.shape],
                            o.aval.dtype) for o in outputs]
    stacked = map_fn(lambda chunk: run(list(chunk), k), head, fn_output_signature=signature)
    parts = [[reshape(r, (full * k,) + tuple(r.shape[2:])) for r in stacked]]
    if n % k:
        parts.append(run([x[full * k:] for x in leaves], n % k))
    return _concat(parts) if len(parts) > 1 else parts[0]
