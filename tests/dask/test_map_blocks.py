"""``gc.dask.map_blocks`` means ``dask.array.map_blocks``: each block is a whole array.

The oracle is Dask's own ``map_blocks`` with the same function written in NumPy."""

import dask.array as da
import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp

X = np.arange(16.0).reshape(4, 4)


def test_a_reduction_sees_each_block_not_the_whole_array():
    x = da.from_array(X, chunks=(2, 2))
    got = gc.dask.map_blocks(gc.function(lambda t: t - gnp.max(t)), x).compute()
    want = da.map_blocks(lambda t: t - np.max(t), x).compute()
    np.testing.assert_array_equal(got, want)
    assert got[0].tolist() == [-5.0, -4.0, -5.0, -4.0]
    # calling the function directly keeps the whole-array meaning
    whole = gc.function(lambda t: t - gnp.max(t))(x).compute()
    np.testing.assert_array_equal(whole, X - X.max())


@gc.function
def halve_until_small(x):
    while gnp.max(x) > 1.0:  # a data-dependent trip count, per block
        x = x * 0.5
    return x


def _halve_np(t):
    while t.max() > 1.0:
        t = t * 0.5
    return t


def test_a_loop_on_a_block_reduction_runs_per_block():
    data = np.linspace(0.0, 40.0, 30)
    x = da.from_array(data, chunks=(7, 7, 7, 9))
    got = gc.dask.map_blocks(halve_until_small, x).compute()
    np.testing.assert_allclose(got, da.map_blocks(_halve_np, x).compute())


def test_numpy_operands_reach_each_block_whole_and_keywords_go_to_fn():
    x = da.from_array(X, chunks=(1, 4))
    w = np.array([1.0, 2.0, 3.0, 4.0])

    def scale(t, w, shift=0.0):
        return t * w / gnp.sum(w) + shift

    got = gc.dask.map_blocks(scale, x, w, shift=2.0).compute()
    np.testing.assert_allclose(got, X * w / w.sum() + 2.0)


def test_structured_outputs_and_python_values():
    x = da.from_array(np.arange(30.0), chunks=10)
    y = gc.dask.map_blocks(lambda t: {"a": t - gnp.min(t), "n": 3, "b": t * 2}, x)
    assert y["n"] == 3
    np.testing.assert_array_equal(y["a"].compute(), np.tile(np.arange(10.0), 3))
    np.testing.assert_array_equal(y["b"].compute(), np.arange(30.0) * 2)


def test_dask_keywords_change_the_output_blocks():
    x = da.from_array(X, chunks=(2, 2))
    got = gc.dask.map_blocks(lambda t: gnp.sum(t, axis=0), x, drop_axis=0)
    want = da.map_blocks(lambda t: np.sum(t, axis=0), x, drop_axis=0)
    np.testing.assert_array_equal(got.compute(), want.compute())
    assert got.dtype == np.float64


def test_bad_calls_are_explained():
    x = da.from_array(X, chunks=(2, 2))
    with pytest.raises(ValueError, match="give chunks="):
        gc.dask.map_blocks(lambda t: gnp.sum(t, axis=0), x)
    with pytest.raises(TypeError, match="at least one dask.array"):
        gc.dask.map_blocks(lambda t: t + 1.0, X)
    with pytest.raises(ValueError, match="returning one array"):
        gc.dask.map_blocks(lambda t: (t, t), x, dtype=np.float64)
