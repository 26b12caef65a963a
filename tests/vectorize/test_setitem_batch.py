"""``vectorized_map`` of functions that write into arrays: ``setitem``'s batching rule
against a per-example loop (the oracle), batched and unbatched targets and values."""

import warnings

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp

X = np.arange(12.0).reshape(3, 4) - 5


def shift_right(row):
    y = row * 1
    y[1:] = row[:-1]  # batched target, batched value
    y[0] = 100.0      # batched target, unbatched value
    return y


def into_fresh(row):
    z = gnp.zeros((2, 4))  # unbatched target, batched value
    z[1] = row
    z[0, ::2] = row[:2]
    z[..., -1] += row.sum()
    return z


def through_view(row):
    y = row * 2
    v = y[::2]
    v[0] = -1.0
    return y


@pytest.mark.parametrize("fn", [shift_right, into_fresh, through_view])
def test_batched_writes_match_a_loop(fn):
    want = np.stack([fn(gnp.asarray(r)).numpy() for r in X])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the rule applies: no per-example loop
        got = gc.vectorized_map(fn, X)
    np.testing.assert_array_equal(got.numpy(), want)


def test_index_tensor_keys_loop_over_the_batch():
    def pick(row):
        y = row * 1
        y[gnp.asarray([0, 2])] = 0.0
        return y

    want = np.stack([pick(gnp.asarray(r)).numpy() for r in X])
    with pytest.warns(gc.errors.VectorizationWarning):
        got = gc.vectorized_map(pick, X)
    np.testing.assert_array_equal(got.numpy(), want)
