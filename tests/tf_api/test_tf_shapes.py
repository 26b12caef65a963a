"""gc.expand_dims, squeeze, reverse, roll, slice, strided_slice, split, unstack,
parallel_stack, meshgrid, repeat, zeros_like/ones_like, shape_n, identity_n,
ensure_shape against NumPy, eagerly and inside gc.function."""

from __future__ import annotations

import numpy as np
import pytest
from tf_api_helpers import both, check_both, compiled, same, tape_grad

import graphc as gc

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
XI = np.arange(24, dtype=np.int32).reshape(2, 3, 4)


def test_expand_dims_squeeze():
    check_both(lambda x: gc.expand_dims(x, -1), [X], X[..., None])
    check_both(lambda x: gc.expand_dims(x, 1), [XI], XI[:, None])
    check_both(lambda x: gc.expand_dims(x, [0]), [XI], XI[None])
    ones = np.ones((1, 3, 1), np.float32)
    check_both(gc.squeeze, [ones], np.ones(3, np.float32))
    check_both(lambda x: gc.squeeze(x, [0]), [ones], np.ones((3, 1), np.float32))
    check_both(lambda x: gc.squeeze(x, -1), [ones], np.ones((1, 3), np.float32))
    with pytest.raises(gc.errors.InvalidArgumentError, match="Can not squeeze dim"):
        gc.squeeze(ones, 1)
    with pytest.raises(gc.errors.InvalidArgumentError):
        gc.expand_dims(X, 5)


def test_reverse_roll():
    check_both(lambda x: gc.reverse(x, [1, -1]), [X], X[:, ::-1, ::-1])
    check_both(lambda x: gc.reverse(x, []), [XI], XI)
    with pytest.raises(gc.errors.InvalidArgumentError):
        gc.reverse(X, [1, 1])
    check_both(lambda x: gc.roll(x, 2, 2), [XI], np.roll(XI, 2, 2))
    check_both(lambda x: gc.roll(x, [1, -1], [0, 2]), [XI], np.roll(XI, (1, -1), (0, 2)))
    check_both(lambda x: gc.roll(x, [1, 1], [2, 2]), [XI], np.roll(XI, 2, 2))
    # a traced shift
    f = gc.function(lambda x, s: gc.roll(x, s, 1))
    same(f(XI, gc.constant(4)), np.roll(XI, 4, 1))


def test_slice():
    check_both(lambda x: gc.slice(x, [0, 1, 1], [1, -1, 2]), [X], X[0:1, 1:, 1:3])
    check_both(lambda x: gc.slice(x, gc.constant([1, 0, 0]), [1, 2, 4]), [XI], XI[1:2, 0:2])
    f = gc.function(lambda x, b: gc.slice(x, [b, 0, 0], [1, 3, 4]))
    same(f(XI, gc.constant(1)), XI[1:2])
    with pytest.raises(gc.errors.InvalidArgumentError):
        gc.slice(X, [0, 2, 0], [1, 2, 4])
    with pytest.raises(gc.errors.InvalidArgumentError):
        f(XI, gc.constant(2))  # past the end when the graph runs
    with pytest.raises(gc.errors.InvalidArgumentError, match="Expected begin and size"):
        gc.slice(X, [0, 0], [1, 1])


def test_strided_slice():
    check_both(lambda x: gc.strided_slice(x, [0, 0, 0], [2, 3, 4], [1, 2, -1],
                                          begin_mask=4, end_mask=4), [X], X[0:2, 0:3:2, ::-1])
    check_both(lambda x: gc.strided_slice(x, [1, 0], [2, 0], shrink_axis_mask=1,
                                          ellipsis_mask=2), [XI], XI[1, ...])
    check_both(lambda x: gc.strided_slice(x, [0, 0, 1], [0, 0, 3], new_axis_mask=1,
                                          ellipsis_mask=2), [XI], XI[None, ..., 1:3])
    check_both(lambda x: gc.strided_slice(x, [-1], [0], [-1], end_mask=1), [XI],
               XI[-1::-1])
    with pytest.raises(ValueError, match="Multiple ellipses"):
        gc.strided_slice(X, [0, 0], [1, 1], ellipsis_mask=3)


def test_split_unstack_stack():
    pieces = gc.split(X, 2, axis=2)
    same(pieces, list(np.split(X, 2, axis=2)))
    for got in both(lambda x: gc.split(x, [1, -1, 1], axis=2), X):
        same(got, [X[..., :1], X[..., 1:3], X[..., 3:]])
    with pytest.raises(gc.errors.InvalidArgumentError, match="evenly divide"):
        gc.split(X, 3, axis=2)
    with pytest.raises(gc.errors.InvalidArgumentError):
        gc.split(X, [1, 1], axis=2)
    for got in both(lambda x: gc.unstack(x, axis=1), XI):
        same(got, [XI[:, i] for i in range(3)])
    with pytest.raises(ValueError):
        gc.unstack(X, axis=3)
    same(gc.parallel_stack([X[0], X[1]]), X)


def test_meshgrid_repeat_likes():
    a, b = np.array([1, 2], np.int32), np.array([3.0, 4.0, 5.0], np.float32)
    for got in both(lambda x, y: gc.meshgrid(x, y), a, b):
        same(got, list(np.meshgrid(a, b)))
    same(gc.meshgrid(a, b, indexing="ij"), list(np.meshgrid(a, b, indexing="ij")))
    with pytest.raises(TypeError):
        gc.meshgrid(a, b, sparse=True)
    same(gc.meshgrid([1, 2])[0], np.array([1, 2], np.int32))
    check_both(lambda x: gc.repeat(x, [2, 0, 1], axis=1), [XI],
               np.repeat(XI, [2, 0, 1], axis=1))
    check_both(lambda x: gc.repeat(x, 2), [XI], np.repeat(XI, 2))
    with pytest.raises(gc.errors.InvalidArgumentError):
        gc.repeat(XI, -1)
    check_both(lambda x: gc.zeros_like(x), [XI], np.zeros_like(XI))
    check_both(lambda x: gc.ones_like(x, gc.float64), [XI], np.ones(XI.shape))
    same(gc.ones_like([[1, 2]]), np.ones((1, 2), np.int32))
    same(gc.zeros_like([1.5]), np.zeros(1, np.float32))


def test_shape_n_identity_n_ensure_shape():
    for got in both(lambda x, y: gc.shape_n([x, y]), X, XI[0]):
        same(got, [np.array([2, 3, 4], np.int32), np.array([3, 4], np.int32)])
    same(gc.shape_n([X], out_type=gc.int64)[0], np.array([2, 3, 4]))
    for got in both(lambda x, y: gc.identity_n([x, y]), X, XI):
        same(got, [X, XI])
    check_both(lambda x: gc.ensure_shape(x, [2, None, 4]), [X], X)
    with pytest.raises(ValueError, match="not compatible"):
        gc.ensure_shape(X, [2, 3])
    seen = []

    def refine(x):
        out = gc.ensure_shape(x, [None, 4])
        seen.append(out.shape)
        return out

    f = gc.function(refine, input_signature=[gc.TensorSpec([None, None], gc.float32)])
    same(f(X[0]), X[0])
    assert seen == [(None, 4)]
    with pytest.raises(gc.errors.InvalidArgumentError):
        f(X[0, :, :3])
    same(gc.ensure_shape(X, gc.TensorShape([2, 3, None])), X)


def test_gradients_and_batching():
    x = np.arange(6.0).reshape(2, 3)
    g = tape_grad(lambda t: gc.slice(t, [0, 1], [2, 2]) * 2.0, x)
    np.testing.assert_array_equal(g, np.array([[0, 2, 2], [0, 2, 2.0]]))
    g = tape_grad(lambda t: gc.strided_slice(t, [0, 2], [2, 0], [1, -1]) ** 2, x)
    np.testing.assert_allclose(g, np.where(np.arange(3) > 0, 2 * x, 0))
    got = gc.vectorized_map(lambda r: gc.reverse(gc.roll(r, 1, 0), [0]), X[0])
    same(got, np.stack([np.roll(r, 1)[::-1] for r in X[0]]))


def test_compiled(monkeypatch, tmp_path):
    def fn(x):
        return (gc.slice(x, [0, 1, 0], [2, 2, -1]), gc.reverse(x, [2]), gc.roll(x, 1, 1),
                gc.squeeze(gc.expand_dims(x, 0), [0]), gc.split(x, 2, 2)[1])

    got = compiled(monkeypatch, tmp_path, fn, X)
    same(list(got), [X[:, 1:3], X[..., ::-1], np.roll(X, 1, 1), X, X[..., 2:]])
