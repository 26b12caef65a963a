"""NumPy 2's Array API keywords on ``graphc.numpy`` (``graphc/ops/array_api_keywords.py``):
``device=``, ``copy=``, ``correction=``, ``stable=``/``descending=``, ``min=``/``max=``,
``retstep=``, against NumPy (and the standard's stable descending order), eagerly, traced,
compiled, with gradients and batching through ``sort(descending=True)``."""

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.errors import DeviceError

X = np.array([3.0, 1.0, 2.0, 1.0, -0.5, 2.0])
M = np.array([[2.0, 2.0, 1.0], [0.0, 5.0, 5.0]])


def same(got, want):
    got = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
    want = np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
    np.testing.assert_array_equal(got, want)


def stable_descending(a, axis=-1):
    """The standard's descending argsort: values high to low, ties in index order."""
    return np.argsort(-a, axis=axis, stable=True)


@pytest.mark.parametrize("axis", [-1, 0, None])
def test_sort_descending(axis):
    a = M if axis is not None else M.ravel()
    ax = -1 if axis is None else axis
    same(gnp.argsort(M, axis=axis, descending=True), stable_descending(a, ax))
    same(gnp.sort(M, axis=axis, descending=True), np.flip(np.sort(M, axis=axis), ax))
    same(gnp.sort(M, axis=axis, stable=True), np.sort(M, axis=axis, stable=True))
    same(gnp.argsort(M, axis=axis, stable=True), np.argsort(M, axis=axis, stable=True))
    fn = gc.function(lambda v: (gnp.argsort(v, axis=axis, descending=True),
                                gnp.sort(v, axis=axis, descending=True)))
    got = fn(M)
    same(got[0], stable_descending(a, ax))
    same(got[1], np.flip(np.sort(M, axis=axis), ax))


def test_sort_errors_and_method():
    with pytest.raises(ValueError, match="kind"):
        gnp.sort(X, kind="stable", stable=True)
    with pytest.raises(ValueError, match="order"):
        gnp.argsort(X, order="f")
    t = gnp.asarray(X)
    t.sort()
    same(t, np.sort(X))


def test_sort_descending_grad_and_batch():
    x = gnp.asarray(X[:4] + np.array([0.0, 0.1, 0.2, 0.3]))  # no ties
    w = gnp.asarray([1.0, 2.0, 3.0, 4.0])
    with gc.GradientTape() as tape:
        tape.watch(x)
        y = gnp.sum(gnp.sort(x, descending=True) * w)
    g = tape.gradient(y, x).numpy()
    eps, base = 1e-6, x.numpy()
    fd = [(np.sum(np.sort(base + eps * e)[::-1] * w.numpy())
           - np.sum(np.sort(base - eps * e)[::-1] * w.numpy())) / (2 * eps)
          for e in np.eye(4)]
    np.testing.assert_allclose(g, fd, rtol=1e-6)
    batch = np.array([[3.0, 1.0, 3.0], [0.0, 2.0, 1.0]])
    got = gc.vectorized_map(lambda r: gnp.argsort(r, descending=True), batch)
    same(got, np.stack([stable_descending(r) for r in batch]))


def test_std_var_correction():
    for fn in ("std", "var"):
        want = getattr(np, fn)(M, axis=1, correction=1)
        np.testing.assert_allclose(getattr(gnp, fn)(M, axis=1, correction=1).numpy(), want)
        np.testing.assert_allclose(getattr(gnp, fn)(M, ddof=1).numpy(),
                                   getattr(np, fn)(M, ddof=1))
        traced = gc.function(lambda v, f=fn: getattr(gnp, f)(v, correction=1.5))(M)
        np.testing.assert_allclose(traced.numpy(), getattr(np, fn)(M, correction=1.5))
        with pytest.raises(ValueError, match="ddof and correction"):
            getattr(gnp, fn)(M, ddof=1, correction=1)


def test_clip_spellings():
    for kw in ({"min": 0.5}, {"max": 2.0}, {"min": 0.5, "max": 2.0},
               {"a_min": 0.5, "a_max": 2.0}, {"a_min": None, "a_max": 1.0}):
        same(gnp.clip(X, **kw), np.clip(X, **kw))
    same(gnp.clip(X, 0, 2), np.clip(X, 0, 2))
    same(gnp.clip(X), np.clip(X))
    with pytest.raises(ValueError, match="forbidden"):
        gnp.clip(X, min=0, a_max=1)
    out = gnp.zeros(6)
    assert gnp.clip(X, 0.0, 1.0, out=out) is out
    same(out, np.clip(X, 0.0, 1.0))
    same(gc.function(lambda v: gnp.clip(v, min=0.0, max=2.5))(X), np.clip(X, 0.0, 2.5))


def test_asarray_copy_and_device():
    t = gnp.asarray(X)
    assert gnp.asarray(t, copy=False) is t
    assert gnp.asarray(t) is t
    c = gnp.asarray(t, copy=True)
    c[0] = 100.0
    assert float(t[0]) == X[0]
    for bad in (X, [1, 2], (t, np.float32)):
        a, dt = (bad if isinstance(bad, tuple) else (bad, None))
        with pytest.raises(ValueError, match="avoid copy"):
            gnp.asarray(a, dtype=dt, copy=False)
    for device in ("cpu", "cpu:0", "/device:CPU:0"):
        got = gnp.asarray([1, 2], device=device)
        assert got.device == "cpu:0"
        same(got, np.asarray([1, 2]))
    with pytest.raises(DeviceError):
        gnp.asarray([1], device="cuda:99")
    same(gc.function(lambda v: gnp.asarray(v, copy=True) + 1)(X), X + 1)


def test_astype_copy_device():
    t = gnp.asarray(X)
    assert gnp.astype(t, np.float64, copy=False) is t
    assert gnp.astype(t, np.float64) is not t
    same(gnp.astype(t, np.int32, copy=False), X.astype(np.int32))
    assert gnp.astype(t, "float32", device="cpu:0").device == "cpu:0"
    with pytest.raises(TypeError):
        gnp.astype([1.0], np.int32)


def test_creation_device_and_linspace():
    for device in (None, "cpu", "cpu:0"):
        same(gnp.arange(1, 7, 2, device=device), np.arange(1, 7, 2))
        same(gnp.eye(2, 3, 1, device=device), np.eye(2, 3, 1))
        same(gnp.linspace(0, 1, 5, device=device), np.linspace(0, 1, 5))
    got, step = gnp.linspace(0.0, 2.0, 5, retstep=True)
    want, want_step = np.linspace(0.0, 2.0, 5, retstep=True)
    same(got, want)
    assert step == want_step
    assert gnp.linspace(0.0, 1.0, 4, endpoint=False, retstep=True)[1] == 0.25
    with pytest.raises(ValueError, match="order"):
        gnp.eye(2, order="X")
    same(gc.function(lambda: gnp.arange(4, dtype=np.int32, device="cpu:0"))(),
         np.arange(4, dtype=np.int32))


def test_reshape_copy():
    t = gnp.asarray(M)
    same(gnp.reshape(t, (3, 2)), M.reshape(3, 2))
    same(gnp.reshape(t, shape=(6,)), M.reshape(6))
    same(gnp.reshape(t, newshape=(6,)), M.reshape(6))
    c = gnp.reshape(t, (6,), copy=True)
    c[0] = -9.0
    assert float(t[0, 0]) == M[0, 0]
    v = gnp.reshape(t, (6,), copy=False)
    same(v, M.reshape(6))
    with pytest.raises(TypeError):
        gnp.reshape(t, (6,), newshape=(6,))
    fn = gc.function(lambda a: gnp.reshape(a, (3, 2), copy=True) * 2, jit_compile=True)
    same(fn(M), M.reshape(3, 2) * 2)
