"""gc.nn's dropout, bias_add, embedding_lookup, one_hot, top_k, in_top_k, approx_*_k and
dot_product_attention / scaled_matmul against NumPy written here."""

import numpy as np
import pytest
from nn_helpers import check_grad, same, traced

import graphc as gc

RNG = np.random.default_rng(3)


def test_dropout_scaling_seed_and_noise_shape():
    x = np.ones((200, 50), np.float32)
    gc.random.set_seed(7)
    a = gc.nn.dropout(x, 0.25, seed=3).numpy()
    assert set(np.unique(a)) <= {0.0, np.float32(1 / 0.75)}
    assert 0.2 < (a == 0).mean() < 0.3
    gc.random.set_seed(7)
    same(gc.nn.dropout(x, 0.25, seed=3), a)  # seeded draws repeat
    b = gc.nn.dropout(x, 0.5, noise_shape=[200, 1]).numpy()
    assert np.all((b == 0).all(1) | (b != 0).all(1))
    c = gc.nn.dropout(x, 0.5, noise_shape=[None, 1]).numpy()
    assert np.all((c == 0).all(1) | (c != 0).all(1))
    same(gc.nn.dropout(x, 0.0), x)
    t = traced(gc.nn.dropout, x, 0.5).numpy()
    assert set(np.unique(t)) <= {0.0, 2.0}
    with pytest.raises(ValueError, match="range"):
        gc.nn.dropout(x, 1.0)
    with pytest.raises(ValueError, match="floating point"):
        gc.nn.dropout(np.ones(3, np.int32), 0.5)


def test_bias_add():
    v = RNG.standard_normal((2, 3, 4))
    b = np.array([1.0, 2.0, 3.0, 4.0])
    same(gc.nn.bias_add(v, b), v + b)
    same(gc.nn.bias_add(v, b[:3], data_format="NCHW"), v + b[:3, None])
    same(traced(gc.nn.bias_add, v, b), v + b)
    with pytest.raises(ValueError, match="1-D"):
        gc.nn.bias_add(v, b[None])
    with pytest.raises(ValueError, match="channel"):
        gc.nn.bias_add(v, b[:3])


def test_embedding_lookup():
    table = RNG.standard_normal((5, 3))
    ids = np.array([[4, 0], [2, 2]])
    same(gc.nn.embedding_lookup(table, ids), table[ids])
    same(gc.nn.embedding_lookup([table[:3], table[3:]], ids), table[ids])
    rows = table[ids]
    norms = np.sqrt((rows ** 2).sum(-1, keepdims=True))
    same(gc.nn.embedding_lookup(table, ids, max_norm=0.5),
         rows * 0.5 / np.maximum(norms, 0.5), rtol=1e-14)
    check_grad(lambda t: gc.nn.embedding_lookup(t, ids), table)
    with pytest.raises(gc.errors.InvalidArgumentError):
        gc.nn.embedding_lookup(table, [5])


def test_one_hot_tf_and_jax():
    idx = np.array([0, 2, -1, 3, 1])
    want = (idx[:, None] == np.arange(3)).astype(np.float32)
    got = gc.nn.one_hot(idx, 3)
    assert got.dtype == np.float32
    same(got, want)
    same(gc.nn.one_hot(idx, num_classes=3), want)
    same(gc.nn.one_hot(idx, 3, axis=0), want.T)
    got = gc.nn.one_hot(idx, 3, on_value=5, off_value=-1)
    same(got, np.where(want > 0, 5, -1).astype(np.int32))
    same(gc.nn.one_hot(idx, 3, dtype=np.int64), want.astype(np.int64))
    same(gc.nn.one_hot(np.array([1.0, 1.5]), 3), np.array([[0, 1, 0], [0, 0, 0]], np.float32))
    m = np.array([[0, 1], [2, 0]])
    same(traced(gc.nn.one_hot, m, 3, axis=1),
         np.moveaxis((m[..., None] == np.arange(3)), -1, 1).astype(np.float32))
    with pytest.raises(ValueError, match="axis"):
        gc.nn.one_hot(idx, 3, axis=3)


def test_top_k_and_in_top_k():
    x = np.array([[1, 5, 3, 5, 2], [9, 9, 9, 0, 1]], np.int32)
    v, i = gc.nn.top_k(x, 3)
    same(v, np.array([[5, 5, 3], [9, 9, 9]], np.int32))
    same(i, np.array([[1, 3, 2], [0, 1, 2]], np.int32))
    f = RNG.standard_normal((3, 6))
    v, i = traced(gc.nn.top_k, f, k=4)
    order = np.argsort(-f, axis=-1, kind="stable")[:, :4]
    same(i, order.astype(np.int32))
    same(v, np.take_along_axis(f, order, -1))
    assert gc.nn.top_k(f, 2, index_type=np.int64).indices.dtype == np.int64
    with pytest.raises(gc.errors.InvalidArgumentError, match="at least k"):
        gc.nn.top_k(f, 7)
    p = np.array([[0.1, 0.5, 0.5, 0.2], [0.3, 0.2, 0.1, 0.0], [1.0, np.nan, 0, 0]])
    same(gc.nn.in_top_k([2, 3, 0], p, 1), np.array([True, False, False]))
    same(gc.nn.in_top_k(np.array([1, 5, 0]), p, 4), np.array([True, False, False]))
    same(gc.nn.in_top_k([2, 0, 0], p, 2), np.array([True, True, False]))


def test_approx_k():
    x = RNG.standard_normal((4, 6))
    v, i = gc.nn.approx_max_k(x, 2)
    same(i, np.argsort(-x, -1)[:, :2].astype(np.int32))
    v, i = gc.nn.approx_min_k(x, 3, reduction_dimension=0)
    same(i, np.argsort(x, 0)[:3].astype(np.int32))
    same(v, np.sort(x, 0)[:3])


def _attention(q, k, v, mask=None, scale=None):
    h = q.shape[-1]
    g = q.shape[2] // k.shape[2]
    k, v = np.repeat(k, g, axis=2), np.repeat(v, g, axis=2)
    s = np.einsum("btnh,bsnh->bnts", q, k) * (scale or 1 / np.sqrt(h))
    if mask is not None:
        s = np.where(mask, s, -0.7 * np.finfo(s.dtype).max)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return np.einsum("bnts,bsnh->btnh", p, v)


def test_dot_product_attention():
    q = RNG.standard_normal((2, 3, 4, 5))
    k = RNG.standard_normal((2, 6, 2, 5))
    v = RNG.standard_normal((2, 6, 2, 5))
    same(gc.nn.dot_product_attention(q, k, v), _attention(q, k, v), rtol=1e-5, atol=1e-6)
    causal = np.tril(np.ones((3, 6), bool))
    same(gc.nn.dot_product_attention(q, k, v, is_causal=True), _attention(q, k, v, causal),
         rtol=1e-5, atol=1e-6)
    lengths = np.array([2, 6])
    kvmask = (np.arange(6)[None, None, None, :] < lengths[:, None, None, None])
    same(gc.nn.dot_product_attention(q, k, v, key_value_seq_lengths=lengths, scale=0.3),
         _attention(q, k, v, kvmask, scale=0.3), rtol=1e-5, atol=1e-6)
    same(gc.nn.dot_product_attention(q[0], k[0], v[0]), _attention(q, k, v)[0], rtol=1e-5,
         atol=1e-6)


def test_scaled_matmul():
    a, b = RNG.standard_normal((2, 3, 8)), RNG.standard_normal((2, 4, 8))
    sa, sb = RNG.uniform(1, 2, (2, 3, 2)), RNG.uniform(1, 2, (2, 4, 2))
    want = np.einsum("bmk,bnk->bmn", a * np.repeat(sa, 4, -1), b * np.repeat(sb, 4, -1))
    got = gc.nn.scaled_matmul(a, b, sa, sb)
    assert got.dtype == np.float32
    same(got, want, rtol=1e-5)
