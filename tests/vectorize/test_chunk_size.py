"""gc.vectorized_map(..., chunk_size=k): the same results as the unchunked batch (eager
and inside gc.function, the last chunk smaller), and a peak memory bounded by the chunk
(tracemalloc, eagerly) for a function with a big per-example intermediate."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp

RNG = np.random.default_rng(5)
W = gc.constant(RNG.standard_normal((8, 2048)))
X = RNG.standard_normal((37, 8))


def big(x):
    """Per example: a (2048, 64) intermediate (1 MiB), reduced to (64,)."""
    h = gnp.tanh(x @ W)
    outer = h[:, None] * h[None, :64]
    return gnp.sum(outer, axis=0), gnp.max(h)


@pytest.mark.parametrize("chunk", [1, 8, 36, 37, 100])
def test_chunks_equal_the_whole_batch_eager_and_traced(chunk):
    want = gc.vectorized_map(big, gc.constant(X))
    eager = gc.vectorized_map(big, gc.constant(X), chunk_size=chunk)
    traced = gc.function(lambda e: gc.vectorized_map(big, e, chunk_size=chunk))(X)
    for got in (eager, traced):
        for g, w in zip(got, want):
            assert g.shape == w.shape and g.dtype == w.dtype
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-12)


def test_chunks_with_nests_closures_and_a_tape_inside():
    v = gc.constant(RNG.standard_normal(8))

    def per_example_grad(p):
        a, b = p
        with gc.GradientTape() as tape:
            tape.watch(v)
            loss = gnp.sum(gnp.sin(a * v) * b)
        return {"g": tape.gradient(loss, v), "loss": loss}

    elems = (gc.constant(X), gc.constant(RNG.standard_normal((37, 1))))
    want = gc.vectorized_map(per_example_grad, elems)
    for got in (gc.vectorized_map(per_example_grad, elems, chunk_size=5),
                gc.function(lambda e: gc.vectorized_map(per_example_grad, e, chunk_size=5))(elems)):
        for k in ("g", "loss"):
            np.testing.assert_allclose(got[k].numpy(), want[k].numpy(), rtol=1e-12)


def _peak(**kwargs) -> int:
    x = gc.constant(X)
    tracemalloc.start()
    try:
        gc.vectorized_map(big, x, **kwargs)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_chunk_size_bounds_peak_memory_eagerly():
    whole, chunked = _peak(), _peak(chunk_size=8)
    # the whole batch holds 37 intermediates of 1 MiB at once, a chunk 8 of them
    assert whole > 30 * 2**20
    assert chunked < whole / 2.5, (chunked, whole)


def test_bad_chunk_sizes():
    with pytest.raises(ValueError, match="positive"):
        gc.vectorized_map(big, gc.constant(X), chunk_size=0)
    with pytest.raises(TypeError, match="chunk_size"):
        gc.vectorized_map(big, gc.constant(X), chunk_size=2.5)
    dynamic = gc.function(lambda e: gc.vectorized_map(big, e, chunk_size=4),
                          input_signature=[gc.TensorSpec([None, 8], gc.float64)])
    with pytest.raises(ValueError, match="batch size"):
        dynamic(X)
