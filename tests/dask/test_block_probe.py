"""Dask calls a user porting NumPy code writes first: reductions with a ``dtype=``,
``zeros_like``-style loop initializers. Each computed result (values and dtype) equals
the same gc.function on the NumPy array."""

import dask
import dask.array as da
import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp

X = np.random.default_rng(3).standard_normal((7, 5))


def _computed_equals_numpy(fn, x, chunks):
    out = fn(da.from_array(x, chunks=chunks))
    want = fn(x).numpy()
    with dask.config.set(scheduler="threads"):
        got = out.compute()
    assert out.dtype == want.dtype, (out.dtype, want.dtype)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-6)


def _all_match(out, want):
    """Dask arrays ``out`` computed equal the arrays ``want`` (dtype, shape, values)."""
    with dask.config.set(scheduler="threads"):
        got = dask.compute(*out)
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=1e-12)


@gc.function
def small_int_sums(x):
    pos = x > 0
    return gnp.sum(pos, dtype=gnp.int8), gnp.sum(pos, axis=0, dtype=gnp.int16)


def test_reduction_dtype_survives_the_tree_combine():
    for chunks in ((2, 5), (3, 2)):
        a, b = small_int_sums(da.from_array(X, chunks=chunks))
        want_a, want_b = (t.numpy() for t in small_int_sums(X))
        with dask.config.set(scheduler="threads"):
            got_a, got_b = dask.compute(a, b)
        assert got_a.dtype == np.int8 and got_b.dtype == np.int16
        np.testing.assert_array_equal(got_a, want_a)
        np.testing.assert_array_equal(got_b, want_b)


@gc.function
def like_initializers(x):
    acc = gnp.zeros_like(x)
    for i in gc.range(3):
        acc = acc + x * gc.cast(i, x.dtype)
    return acc + gnp.ones_like(x, dtype=gnp.int32) + gnp.full_like(x, 0.5)


def test_zeros_ones_full_like_run_blockwise():
    _computed_equals_numpy(like_initializers, X, (3, 2))


V = gc.Variable(2.0, dtype=gc.float64)


@pytest.mark.parametrize("fn", [
    lambda x: (gc.print(x), x)[1],
    lambda x: x * V,
    lambda x: x + gc.random.uniform((5,), dtype=gc.float64),
])
def test_side_effects_are_refused_with_advice_that_helps(fn):
    with pytest.raises(gc.dask.BlockSplitError, match="side effects") as info:
        gc.function(fn)(da.from_array(X, chunks=(3, 5)))
    text = str(info.value)
    assert "keep the op out" in text and "rechunk" not in text, text
    assert "test_block_probe.py" in text


@gc.function
def searches_and_new_axes(x):
    best = gnp.argmax(x, axis=1)
    worst = gnp.argmin(x, axis=-1, keepdims=True)
    centred = x - gnp.expand_dims(gnp.mean(x, axis=1), -1)
    return best, worst, centred, gnp.squeeze(worst, axis=1) + best


def test_argmax_argmin_expand_dims_squeeze_along_whole_axes():
    x = X.copy()
    x[2, 1] = x[2, 3] = 9.0  # a tie: the first index wins, as in NumPy
    out = searches_and_new_axes(da.from_array(x, chunks=(3, 5)))
    want = [t.numpy() for t in searches_and_new_axes(x)]
    _all_match(out, want)


@pytest.mark.parametrize("fn, why", [
    (lambda x: gnp.argmax(x, axis=0), "searches along axis 0, which is split"),
    (lambda x: gnp.argmax(x), "axis=None"),
    (lambda x: x * gc.cast(gc.shape(x)[0], x.dtype), "reads the shape of an array"),
])
def test_searches_across_chunks_and_shapes_of_chunked_dims_are_refused(fn, why):
    with pytest.raises(gc.dask.BlockSplitError, match=why):
        gc.function(fn)(da.from_array(X, chunks=(3, 5)))


@gc.function
def smallest(x):
    return gnp.min(x)  # the line an error names


def test_an_error_in_a_blocks_reduction_names_the_users_line():
    empty = da.from_array(np.zeros((0, 4)), chunks=(2, 2))
    with pytest.raises(gc.errors.InvalidArgumentError, match="zero-size") as info:
        with dask.config.set(scheduler="sync"):
            smallest(empty).compute()
    line = smallest.python_function.__code__.co_firstlineno + 2  # the gnp.min line
    assert f"test_block_probe.py:{line}" in str(info.value), str(info.value)


@gc.function(input_signature=[gc.TensorSpec([7, 5], gc.float64)])
def fixed_rows(x):
    return x * 2.0


def test_a_fixed_spec_for_a_chunked_dim_says_why_it_does_not_match():
    with pytest.raises(TypeError, match="give None for it in the input_signature"):
        fixed_rows(da.from_array(X, chunks=(3, 5)))
    out = fixed_rows(da.from_array(X, chunks=(7, 5)))  # one chunk: the spec matches
    np.testing.assert_array_equal(out.compute(scheduler="sync"), X * 2.0)


def test_a_loaded_saved_function_takes_dask_arrays(tmp_path):
    @gc.function(input_signature=[gc.TensorSpec([None, 5], gc.float64)])
    def row_sums(x):
        return gnp.sum(x * 2.0, axis=1)

    gc.saved_model.save(row_sums, tmp_path / "f")
    loaded = gc.saved_model.load(tmp_path / "f")
    for _ in range(2):  # the second call reuses the first one's trace
        out = loaded.row_sums(da.from_array(X, chunks=(3, 5)))
        assert isinstance(out, da.Array)
        np.testing.assert_allclose(out.compute(scheduler="sync"), (X * 2.0).sum(axis=1))
    assert loaded.row_sums._over_blocks.experimental_get_tracing_count() == 1


@gc.function
def transposes(x):
    return x.T * 2.0, x.T @ np.ones((7, 2))


@gc.function
def rotate(y):
    return gnp.transpose(y, (1, 2, 0)) + 1.0


def test_transpose_keeps_each_dims_chunks():
    y = np.random.default_rng(5).standard_normal((4, 3, 6))
    out = [*transposes(da.from_array(X, chunks=(7, 2))), rotate(da.from_array(y, chunks=(2, 3, 4)))]
    want = [*(t.numpy() for t in transposes(X)), rotate(y).numpy()]
    _all_match(out, want)


@gc.function
def basic_indexing(x):
    centred = x - gnp.mean(x, axis=1)[:, None]
    return centred[:, 1:4], x[..., 0], x[:, ::-2] * 2.0, x[None, :, -1]


def test_basic_indexing_of_whole_dims_runs_blockwise():
    out = basic_indexing(da.from_array(X, chunks=(3, 5)))
    want = [t.numpy() for t in basic_indexing(X)]
    _all_match(out, want)


@pytest.mark.parametrize("fn, why", [
    (lambda x: x[1:], "takes part of axis 0"),
    (lambda x: x[0], "takes part of axis 0"),
    (lambda x: x[:, np.array([0, 2])], "array or a mask"),
])
def test_indexing_a_chunked_axis_is_refused(fn, why):
    with pytest.raises(gc.dask.BlockSplitError, match=why):
        gc.function(fn)(da.from_array(X, chunks=(3, 5)))


@gc.function
def extremes(x):
    return gnp.max(x, axis=0), gnp.min(x), gnp.std(x, axis=0), gnp.argmax(x, axis=1)


def test_empty_chunks_do_not_break_max_and_min():
    x = np.arange(10.0).reshape(5, 2)
    chunked = da.from_array(x, chunks=((0, 2, 3), (2,)))  # a block of no rows
    _all_match(extremes(chunked), [t.numpy() for t in extremes(x)])
