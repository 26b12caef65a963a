"""``gnp.append``/``delete``/``insert``/``resize`` against NumPy: eagerly, traced (static
and traced positions), compiled, gradients, errors (``graphc/ops/manipulation_edit.py``)."""

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.runtime.cpu import numba_cpu, runners

X = np.arange(12.0).reshape(3, 4)


def same(got, want):
    got = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
    want = np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("arr, values, axis", [
    (np.array([1], np.int8), 5, None), (X, X, 0), (X, [[1]], None), (X, np.ones((3, 1)), 1),
    (np.float32([1.5]), [2.5], None),
])
def test_append(arr, values, axis):
    want = np.append(arr, values, axis)
    same(gnp.append(arr, values, axis), want)
    same(gc.function(lambda a: gnp.append(a, values, axis))(arr), want)


DELETES = [1, -1, [0, 2], slice(None, None, 2), np.array([True, False, True]), [], [0, 0, 2],
           np.array([2, 0])]


@pytest.mark.parametrize("obj", DELETES, ids=str)
def test_delete(obj):
    want = np.delete(X, obj, axis=0)
    same(gnp.delete(X, obj, axis=0), want)
    same(gc.function(lambda v: gnp.delete(v, obj, axis=0))(X), want)
    if not isinstance(obj, slice) and np.size(obj):  # obj as a run-time tensor
        same(gc.function(lambda v, o: gnp.delete(v, o, axis=0))(X, np.asarray(obj)), want)
    if not isinstance(obj, np.ndarray) or obj.dtype != bool:
        same(gnp.delete(X, obj), np.delete(X, obj))
        same(gnp.delete(X, obj, axis=1), np.delete(X, obj, axis=1))


def test_delete_unknown_length_and_errors():
    f = gc.function(lambda v: gnp.delete(v, [0, -1]),
                    input_signature=[gc.TensorSpec([None], np.float64)])
    same(f(np.arange(5.0)), np.delete(np.arange(5.0), [0, -1]))
    with pytest.raises(IndexError, match="out of bounds"):
        gnp.delete(X, 3, axis=0)
    with pytest.raises(ValueError, match="match the axis length"):
        gnp.delete(X, np.array([True, False]), axis=0)
    with pytest.raises(np.exceptions.AxisError):
        gnp.delete(X, 0, axis=2)


INSERTS = [(1, 5, None), (1, [5, 6, 7, 8], 0), ([1], [[5, 6, 7, 8]], 0), (1, [[5], [6], [7]], 1),
           ([0, 2, 2], [7.0, 8.0, 9.0], 1), (slice(0, 4, 2), 9, 1), (-1, 5.5, 1), ([], 1, 1),
           (np.array([True, False, True]), 0, 0), (1, [1, 2, 3], 1), (4, 0, 1),
           ([3, -1], [1, 2], None)]


@pytest.mark.parametrize("obj, values, axis", INSERTS, ids=str)
def test_insert(obj, values, axis):
    want = np.insert(X, obj, values, axis)
    same(gnp.insert(X, obj, values, axis), want)
    same(gc.function(lambda v: gnp.insert(v, obj, values, axis))(X), want)
    if isinstance(obj, int):  # a traced scalar index
        same(gc.function(lambda v, o: gnp.insert(v, o, values, axis))(X, np.asarray(obj)), want)


def test_insert_dtype_and_errors():
    same(gnp.insert(np.arange(3), 1, 2.7), np.insert(np.arange(3), 1, 2.7))
    with pytest.raises(IndexError, match="out of bounds"):
        gnp.insert(X, 5, 0, axis=1)
    with pytest.raises(ValueError, match="one dimensional or scalar"):
        gnp.insert(X, [[1]], 0)
    with pytest.raises(ValueError):  # NumPy: could not broadcast
        gnp.insert(X, 1, [5, 6], 0)
    with pytest.raises(ValueError, match="one integer index"):
        gc.function(lambda v, o: gnp.insert(v, o, 0))(X, np.array([1, 2]))


@pytest.mark.parametrize("shape", [(2, 7), 5, (0,), (3, 0), 13, ()], ids=str)
def test_resize(shape):
    want = np.resize(X, shape)
    same(gnp.resize(X, shape), want)
    same(gc.function(lambda v: gnp.resize(v, shape))(X), want)


def test_resize_edges():
    same(gnp.resize(np.zeros(0), (2, 2)), np.resize(np.zeros(0), (2, 2)))
    f = gc.function(lambda v: gnp.resize(v, (2, 5)),
                    input_signature=[gc.TensorSpec([None], np.float64)])
    same(f(np.arange(3.0)), np.resize(np.arange(3.0), (2, 5)))
    with pytest.raises(ValueError, match="non-negative"):
        gnp.resize(X, (-1, 2))


def _numeric_grad(f, x, eps=1e-6):
    return np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps)
                     for e in np.eye(x.size).reshape((x.size,) + x.shape)]).reshape(x.shape)


def test_gradients():
    def loss(x, lib):
        a = lib.insert(x, [0, 2], x[:, :1] * 2, axis=1)
        b = lib.delete(x, 1, axis=0)
        c = lib.resize(x, (5, 3))
        return lib.sum(a ** 2) + lib.sum(b * 3) + lib.sum(lib.append(c, x) ** 3)

    x0 = np.cos(np.arange(12.0)).reshape(3, 4)

    def grad(x):
        with gc.GradientTape() as tape:
            tape.watch(x)
            y = loss(x, gnp)
        return tape.gradient(y, x)

    want = _numeric_grad(lambda x: loss(x, np), x0)
    np.testing.assert_allclose(grad(gnp.asarray(x0)).numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(gc.function(grad)(x0).numpy(), want, rtol=1e-6)


def test_compiled(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHC_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(numba_cpu.settings, "mode", "eager")
    monkeypatch.setattr(numba_cpu.settings, "worker", False)

    @gc.function(jit_compile=True)
    def f(x, i):
        return (gnp.append(x, 1.0), gnp.delete(x, [0, 2], axis=1), gnp.insert(x, 1, -1.0, 0),
                gnp.resize(x, (2, 7)), gnp.insert(x, i, 7.0, axis=1), gnp.delete(x, i, 0))

    i = gnp.asarray(1)
    with monkeypatch.context() as mp:
        mp.setattr(runners, "run_graph", lambda *a: pytest.fail("ran on the interpreter"))
        got = f(X, i)
    assert f.get_concrete_function(X, i).runtime.backend == "numba"
    for g, w in zip(got, (np.append(X, 1.0), np.delete(X, [0, 2], axis=1),
                          np.insert(X, 1, -1.0, 0), np.resize(X, (2, 7)),
                          np.insert(X, 1, 7.0, axis=1), np.delete(X, 1, 0))):
        same(g, w)
