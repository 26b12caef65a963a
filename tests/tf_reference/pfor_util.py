"""The check of the ``parallel_for`` ports (test_tf_pfor*.py): TensorFlow's
``pfor(loop_fn, iters)`` becomes ``gc.vectorized_map(loop_fn, gc.range(iters))``, and the
oracle is the per-example Python loop, ``loop_fn(i)`` for each ``i`` stacked by NumPy.
"""

from __future__ import annotations

import warnings

import numpy as np
from tfref import value

import graphc as gc

RNG = np.random.default_rng(29)


def rand(*shape, dtype=np.float32):
    """A constant of uniform [0, 1) values (fixed seed: the same on every run)."""
    return gc.constant(RNG.uniform(size=shape).astype(dtype))


def _leaves(x) -> list:
    if isinstance(x, list | tuple):
        return [leaf for item in x for leaf in _leaves(item)]
    return [x]


def vectorized(loop_fn, iters, mode="eager", **kwargs):
    """``loop_fn`` over ``0 .. iters - 1`` by ``gc.vectorized_map``, eagerly or inside a
    ``gc.function``; ``iters`` may be a tensor."""
    def run():
        return gc.vectorized_map(loop_fn, gc.range(iters), **kwargs)

    return run() if mode == "eager" else gc.function(run)()


def check_loop_fn(loop_fn, iters, mode="eager", rtol=1e-5, atol=1e-6, looped=False,
                  **kwargs):
    """``vectorized`` equals the loop, leaf by leaf, in value, dtype and shape; ``looped``:
    whether a ``VectorizationWarning`` (an op run in a loop over the batch) is expected."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", gc.errors.VectorizationWarning)
        got = _leaves(vectorized(loop_fn, iters, mode, **kwargs))
    warned = [w for w in caught if issubclass(w.category, gc.errors.VectorizationWarning)]
    assert bool(warned) == looped, [str(w.message) for w in warned]
    per_example = [_leaves(loop_fn(gc.constant(i, gc.int32))) for i in range(iters)]
    assert len(got) == len(per_example[0])
    for k, leaf in enumerate(got):
        want = np.stack([np.asarray(value(ex[k])) for ex in per_example])
        have = np.asarray(value(leaf))
        assert have.dtype == want.dtype and have.shape == want.shape, (k, have, want)
        np.testing.assert_allclose(have, want, rtol=rtol, atol=atol, err_msg=f"leaf {k}")
    return got
