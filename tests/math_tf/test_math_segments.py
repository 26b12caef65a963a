"""``gc.math``'s segment reductions, ``bincount`` and ``confusion_matrix``
(graphc/math_segments.py) against loops written here; eager, traced, compiled,
gradients, batching, errors."""

from __future__ import annotations

import numpy as np
import pytest

import graphc as gc

m = gc.math
DATA = np.array([[1.0, -2.0], [3.0, 4.0], [-5.0, 6.0], [7.0, 0.5], [2.0, 2.0]])
IDS = np.array([0, 0, 2, 2, 3])
UIDS = np.array([2, -1, 0, 2, 0])


def _loop(data, ids, n, reduce, empty):
    out = np.full((n,) + data.shape[1:], empty, data.dtype)
    for s in range(n):
        rows = data[ids == s]
        if len(rows):
            out[s] = reduce(rows, axis=0)
    return out


LOWEST, HIGHEST = np.finfo(np.float64).min, np.finfo(np.float64).max


@pytest.mark.parametrize("name,reduce,empty", [
    ("sum", np.sum, 0.0), ("max", np.max, LOWEST), ("min", np.min, HIGHEST),
    ("prod", np.prod, 1.0), ("mean", np.mean, 0.0),
    ("sqrt_n", lambda r, axis: r.sum(axis) / np.sqrt(len(r)), 0.0)])
def test_unsorted(name, reduce, empty):
    fn = getattr(m, f"unsorted_segment_{name}")
    want = _loop(DATA, UIDS, 4, reduce, empty)
    for got in (fn(DATA, UIDS, 4), gc.function(fn, backend="numpy")(DATA, UIDS, 4)):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-15)


@pytest.mark.parametrize("name,reduce", [("sum", np.sum), ("max", np.max), ("min", np.min),
                                         ("prod", np.prod), ("mean", np.mean)])
def test_sorted(name, reduce):
    fn = getattr(m, f"segment_{name}")
    empty = 1.0 if name == "prod" else 0.0
    want = _loop(DATA, IDS, 4, reduce, empty)
    np.testing.assert_allclose(fn(DATA, IDS).numpy(), want, rtol=1e-15)
    # ids captured from outside the trace are known: the count is static
    traced = gc.function(lambda d: fn(d, gc.constant(IDS)), backend="numpy")(DATA)
    np.testing.assert_allclose(traced.numpy(), want, rtol=1e-15)


def test_integer_data_and_multi_dim_ids():
    data = np.arange(12, dtype=np.int32).reshape(2, 3, 2)
    ids = np.array([[0, 1, 1], [2, 0, -1]])
    got = m.unsorted_segment_max(data, ids, 3).numpy()
    flat, fid = data.reshape(6, 2), ids.reshape(6)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, _loop(flat, fid, 3, np.max, np.iinfo(np.int32).min))
    np.testing.assert_array_equal(m.unsorted_segment_mean(data, ids, 3).numpy(),
                                  _loop(flat, fid, 3, lambda r, axis: r.sum(axis) // len(r), 0))


def test_segments_compile_differentiate_and_batch():
    @gc.function(jit_compile=True)
    def f(d):
        return m.unsorted_segment_max(d, UIDS, 4), m.unsorted_segment_mean(d, UIDS, 4)

    a, b = f(DATA)
    np.testing.assert_allclose(a.numpy(), _loop(DATA, UIDS, 4, np.max, LOWEST))
    np.testing.assert_allclose(b.numpy(), _loop(DATA, UIDS, 4, np.mean, 0.0))
    x = gc.constant(DATA)
    with gc.GradientTape() as tape:
        tape.watch(x)
        y = gc.reduce_sum(m.unsorted_segment_max(x, UIDS, 4) * np.arange(1.0, 9).reshape(4, 2))
    g = tape.gradient(y, x).numpy()
    want = np.zeros_like(DATA)  # each segment's maximum receives its weight
    want[4, 0], want[2, 1], want[3, 0], want[3, 1] = 1, 2, 5, 6
    np.testing.assert_allclose(g, want)
    batched = gc.vectorized_map(lambda d: m.unsorted_segment_sum(d, UIDS, 4),
                                gc.constant(np.stack([DATA, 2 * DATA])))
    np.testing.assert_allclose(batched.numpy()[1], 2 * _loop(DATA, UIDS, 4, np.sum, 0.0))


def test_segment_errors():
    with pytest.raises(gc.errors.InvalidArgumentError, match="sorted"):
        m.segment_sum(DATA, np.array([1, 0, 0, 2, 2]))
    with pytest.raises(ValueError, match="known while tracing"):
        gc.function(m.segment_sum, backend="numpy")(DATA, IDS)
    with pytest.raises(TypeError, match="int32 or int64"):
        m.unsorted_segment_sum(DATA, UIDS.astype(float), 4)


def test_bincount():
    x = np.array([1, 1, 3, 0, 7])
    assert m.bincount(x).numpy().tolist() == np.bincount(x).tolist()
    assert m.bincount(x).dtype == np.int32
    assert m.bincount(x, minlength=10).numpy().tolist() == np.bincount(x, minlength=10).tolist()
    assert m.bincount(x, maxlength=3).numpy().tolist() == [1, 2, 0]
    w = np.array([0.5, 1.0, 2.0, 3.0, 4.0])
    got = m.bincount(x, weights=w)
    assert got.dtype == np.float64 and got.numpy().tolist() == np.bincount(x, w).tolist()
    assert m.bincount(x, binary_output=True).numpy().tolist() == [1, 1, 0, 1, 0, 0, 0, 1]
    rows = np.array([[1, 1, 0], [2, 2, 2]])
    assert m.bincount(rows, axis=-1).numpy().tolist() == [[1, 2, 0], [0, 0, 3]]
    traced = gc.function(lambda v: m.bincount(v, minlength=8, maxlength=8),
                         backend="numpy")(x)
    assert traced.numpy().tolist() == np.bincount(x).tolist()
    with pytest.raises(gc.errors.InvalidArgumentError, match="non-negative"):
        m.bincount(np.array([-1, 2]))
    with pytest.raises(ValueError, match="mutually exclusive"):
        m.bincount(x, weights=w, binary_output=True)


def test_confusion_matrix():
    labels, preds = np.array([1, 2, 4, 2]), np.array([2, 2, 4, 0])
    want = np.zeros((5, 5), np.int32)
    for a, b in zip(labels, preds):
        want[a, b] += 1
    got = m.confusion_matrix(labels, preds)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got.numpy(), want)
    w = np.array([0.5, 1.0, 2.0, 3.0])
    got = m.confusion_matrix(labels, preds, num_classes=6, weights=w, dtype=np.float32)
    assert got.shape == (6, 6) and got.numpy()[2, 0] == 3.0 and got.dtype == np.float32
    traced = gc.function(lambda a, b: m.confusion_matrix(a, b, num_classes=5),
                         backend="numpy")(labels, preds)
    np.testing.assert_array_equal(traced.numpy(), want)
    with pytest.raises(gc.errors.InvalidArgumentError, match="out of bound"):
        m.confusion_matrix(labels, preds, num_classes=3)
    with pytest.raises(gc.errors.InvalidArgumentError, match="non-negative"):
        m.confusion_matrix(np.array([-1]), np.array([0]))
