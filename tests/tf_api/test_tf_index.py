"""gc.gather_nd, scatter_nd, tensor_scatter_nd_add/sub/max/min, boolean_mask,
sequence_mask, one_hot, dynamic_partition/stitch, reverse_sequence, unravel_index against
NumPy written by hand, eagerly and inside gc.function; gradients, batching, compiled."""

from __future__ import annotations

import numpy as np
import pytest
from tf_api_helpers import both, check_both, compiled, numeric_grad, same, tape_grad

import graphc as gc

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
XI = np.arange(24, dtype=np.int32).reshape(2, 3, 4)


def test_gather_nd():
    idx = np.array([[0, 1], [1, 2]], np.int32)
    check_both(gc.gather_nd, [X, idx], np.stack([X[0, 1], X[1, 2]]))
    idx3 = np.array([[[1, 0, 3]], [[0, 2, 1]]], np.int64)
    check_both(gc.gather_nd, [XI, idx3], np.array([[XI[1, 0, 3]], [XI[0, 2, 1]]]))
    # batch_dims=1: per batch row, index into params[b]
    ib = np.array([[[2], [0]], [[1], [1]]], np.int32)
    want = np.stack([XI[0][[2, 0]], XI[1][[1, 1]]])
    check_both(lambda p, i: gc.gather_nd(p, i, batch_dims=1), [XI, ib], want)
    # indices.shape[-1] == 0 picks the whole tensor
    same(gc.gather_nd(XI[0], np.zeros((2, 0), np.int32)), np.stack([XI[0], XI[0]]))
    with pytest.raises(gc.errors.InvalidArgumentError):
        gc.gather_nd(X, [[2, 0]])
    with pytest.raises(gc.errors.InvalidArgumentError):
        gc.gather_nd(X, [[-1, 0]])  # TensorFlow refuses negative indices
    f = gc.function(gc.gather_nd)
    with pytest.raises(gc.errors.InvalidArgumentError):
        f(X, gc.constant([[0, 3]]))  # when the graph runs


def _scatter_oracle(indices, updates, shape, combine=np.add.at, base=None):
    out = np.zeros(shape, updates.dtype) if base is None else base.copy()
    k = indices.shape[-1]
    flat_idx = indices.reshape(-1, k)
    flat_upd = updates.reshape((-1,) + tuple(shape[k:]))
    combine(out, tuple(flat_idx.T), flat_upd)
    return out


def test_scatter_nd():
    idx = np.array([[1], [3], [1]], np.int32)
    upd = np.array([1.5, 2.0, 3.0], np.float32)
    check_both(lambda i, u: gc.scatter_nd(i, u, [5]), [idx, upd],
               _scatter_oracle(idx, upd, (5,)))
    idx2 = np.array([[0, 1], [1, 0], [0, 1]], np.int64)
    upd2 = np.arange(12, dtype=np.int32).reshape(3, 4)
    check_both(lambda i, u: gc.scatter_nd(i, u, [2, 2, 4]), [idx2, upd2],
               _scatter_oracle(idx2, upd2, (2, 2, 4)))
    with pytest.raises(gc.errors.InvalidArgumentError):
        gc.scatter_nd([[5]], [1.0], [5])
    with pytest.raises(gc.errors.InvalidArgumentError, match="updates must have shape"):
        gc.scatter_nd([[1]], [1.0, 2.0], [5])


@pytest.mark.parametrize("name,combine", [
    ("tensor_scatter_nd_add", np.add.at), ("tensor_scatter_nd_sub", np.subtract.at),
    ("tensor_scatter_nd_max", np.maximum.at), ("tensor_scatter_nd_min", np.minimum.at)])
def test_tensor_scatter(name, combine):
    fn = getattr(gc, name)
    base = np.array([[1, 5, 1, 1], [2, 2, 9, -3]], np.int32)
    idx = np.array([[0, 0], [0, 0], [1, 2], [0, 1]], np.int32)
    upd = np.array([3, 7, -2, 4], np.int32)
    check_both(fn, [base, idx, upd], _scatter_oracle(idx, upd, base.shape, combine, base))
    rows = np.array([[1], [1]], np.int32)
    upd_rows = np.array([[4.0, -1, 0, 8], [5, 5, 5, -9]], np.float32)
    basef = base.astype(np.float32)
    check_both(fn, [basef, rows, upd_rows],
               _scatter_oracle(rows, upd_rows, base.shape, combine, basef))
    with pytest.raises(TypeError):
        fn(basef, rows, upd_rows.astype(np.float64))


def test_boolean_mask():
    m = np.array([[True, False, True], [False, False, True]])
    check_both(gc.boolean_mask, [X, m], X[m])
    m1 = np.array([False, True, True, False])
    check_both(lambda x, mm: gc.boolean_mask(x, mm, axis=2), [XI, m1], XI[:, :, m1])
    check_both(lambda x, mm: gc.boolean_mask(x, mm, axis=-1), [XI, m1], XI[:, :, m1])
    with pytest.raises(ValueError, match="scalar"):
        gc.boolean_mask(X, True)
    with pytest.raises(ValueError, match="incompatible"):
        gc.boolean_mask(X, np.array([True, False, True]))


def test_sequence_mask_one_hot():
    lens = np.array([1, 3, 0], np.int32)
    want = np.arange(4)[None, :] < lens[:, None]
    check_both(lambda x: gc.sequence_mask(x, 4), [lens], want)
    same(gc.sequence_mask(lens), want[:, :3])
    same(gc.sequence_mask([[2], [1]], 3, dtype=gc.float32),
         (np.arange(3) < np.array([[2], [1]])[..., None]).astype(np.float32))
    idx = np.array([[0, 2], [-1, 3]], np.int32)
    want = (idx[..., None] == np.arange(3)).astype(np.float32)
    check_both(lambda i: gc.one_hot(i, 3), [idx], want)
    check_both(lambda i: gc.one_hot(i, 3, axis=0), [idx], np.moveaxis(want, -1, 0))
    got = gc.one_hot([1, 0], 2, on_value=5, off_value=-1)
    same(got, np.array([[-1, 5], [5, -1]], np.int32))
    same(gc.one_hot([1], 2, dtype=gc.bool), np.array([[False, True]]))
    with pytest.raises(TypeError):
        gc.one_hot([1], 2, on_value=1.0, dtype=gc.int32)


def test_dynamic_partition_stitch():
    data = np.array([10, 20, 30, 40, 50], np.int32)
    parts = np.array([0, 1, 0, 2, 1], np.int32)
    for got in both(lambda d, p: gc.dynamic_partition(d, p, 3), data, parts):
        same(got, [data[parts == i] for i in range(3)])
    rows = np.arange(6.0, dtype=np.float32).reshape(3, 2)
    same(gc.dynamic_partition(rows, [1, 0, 1], 2), [rows[[1]], rows[[0, 2]]])
    with pytest.raises(gc.errors.InvalidArgumentError):
        gc.dynamic_partition(data, [0, 1, 0, 3, 1], 3)
    idx = [np.array([0, 2], np.int32), np.array([[1], [2]], np.int32)]
    vals = [np.array([1.0, 2.0], np.float32), np.array([[3.0], [4.0]], np.float32)]
    for got in both(lambda a, b, c, d: gc.dynamic_stitch([a, b], [c, d]), *idx, *vals):
        same(got, np.array([1.0, 3.0, 4.0], np.float32))


def test_reverse_sequence_unravel():
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    lens = np.array([2, 4, 0], np.int64)
    want = np.stack([np.concatenate([r[:n][::-1], r[n:]]) for r, n in zip(x, lens)])
    check_both(lambda a, b: gc.reverse_sequence(a, b, seq_axis=1), [x, lens], want)
    check_both(lambda a, b: gc.reverse_sequence(a, b, seq_axis=0, batch_axis=1),
               [x.T, lens[[0, 1, 2]][:1].repeat(3)[:3]],
               np.stack([np.concatenate([c[:2][::-1], c[2:]]) for c in x]).T)
    with pytest.raises(gc.errors.InvalidArgumentError):
        gc.reverse_sequence(x, [5, 1, 1], seq_axis=1)
    check_both(lambda i: gc.unravel_index(i, [3, 2]), [np.array([1, 5, 4], np.int32)],
               np.array(np.unravel_index([1, 5, 4], (3, 2)), np.int32))
    same(gc.unravel_index(np.int64(3), [2, 2]), np.array([1, 1]))
    with pytest.raises(ValueError):
        gc.unravel_index([6], [3, 2])


def test_gradients_and_batching():
    x = np.arange(6.0).reshape(2, 3)
    idx = np.array([[0, 1], [1, 2], [0, 1]])
    g = tape_grad(lambda t: gc.gather_nd(t, idx) ** 2, x)
    np.testing.assert_allclose(g, numeric_grad(lambda v: (v[[0, 1, 0], [1, 2, 1]] ** 2).sum(), x),
                               rtol=1e-6)
    g = tape_grad(lambda t: gc.tensor_scatter_nd_max(t, [[0, 0], [1, 1]],
                                                     gc.constant([9.0, -9.0], gc.float64)), x)
    np.testing.assert_array_equal(g, np.array([[0, 1, 1], [1, 1, 1.0]]))
    g = tape_grad(lambda t: gc.boolean_mask(t, t > 2.5) * 3.0, x)
    np.testing.assert_array_equal(g, np.where(x > 2.5, 3.0, 0.0))
    got = gc.vectorized_map(lambda r: gc.one_hot(gc.argsort(r), 4), XI[0])
    same(got, np.stack([(np.argsort(r)[:, None] == np.arange(4)).astype(np.float32)
                        for r in XI[0]]))


def test_compiled(monkeypatch, tmp_path):
    idx = np.array([[0, 1], [1, 2]], np.int32)

    def fn(x, lens):  # indices known while tracing: checked then, no assert node
        return (gc.gather_nd(x, idx), gc.scatter_nd(idx, x[0, :2], [2, 3, 4]),
                gc.one_hot(lens, 4), gc.sequence_mask(lens, 5))

    lens = np.array([1, 3], np.int32)
    got = compiled(monkeypatch, tmp_path, fn, X, lens)
    same(list(got), [np.stack([X[0, 1], X[1, 2]]),
                     _scatter_oracle(idx, X[0, :2], (2, 3, 4)),
                     (lens[:, None] == np.arange(4)).astype(np.float32),
                     np.arange(5)[None] < lens[:, None]])
