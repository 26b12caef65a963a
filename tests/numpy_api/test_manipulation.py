"""``gnp``'s joining, splitting, rotating and diagonal names against NumPy: eagerly,
traced, compiled, with gradients and errors (``graphc/ops/manipulation.py``)."""

import warnings

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.runtime.cpu import numba_cpu, runners

X = np.arange(12.0).reshape(3, 4)
Y = np.arange(24).reshape(2, 3, 4)


def same(got, want):
    if isinstance(want, list | tuple):
        assert isinstance(got, list | tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w)
        return
    got = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
    want = np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
    np.testing.assert_array_equal(got, want)


def both(fn, *args, **kwargs):
    """NumPy's answer vs gnp's, eagerly and inside gc.function (args as arguments)."""
    want = getattr(np, fn)(*args, **kwargs)
    same(getattr(gnp, fn)(*args, **kwargs), want)
    arrays = [i for i, a in enumerate(args) if isinstance(a, np.ndarray)]

    def traced(*vals):
        full = list(args)
        for i, v in zip(arrays, vals):
            full[i] = v
        return getattr(gnp, fn)(*full, **kwargs)

    same(gc.function(traced)(*[args[i] for i in arrays]), want)


@pytest.mark.parametrize("args", [(np.arange(3),), (5.0,), (X,), (Y,), (1, X, Y)], ids=str)
def test_atleast_3d(args):
    same(gnp.atleast_3d(*args), np.atleast_3d(*args))
    same(gc.function(lambda *a: gnp.atleast_3d(*a))(*args), np.atleast_3d(*args))


def test_stacking():
    cols = [np.arange(3), X[:, :2], 1.0 * np.arange(3)]
    same(gnp.column_stack(cols), np.column_stack(cols))
    same(gc.function(lambda a, b: gnp.column_stack([a, b]))(np.arange(3), X[:, :2]),
         np.column_stack([np.arange(3), X[:, :2]]))
    same(gnp.dstack([X, X]), np.dstack([X, X]))
    same(gnp.dstack([np.arange(3), np.arange(3)]), np.dstack([np.arange(3), np.arange(3)]))
    with pytest.warns(DeprecationWarning, match="row_stack"):
        same(gnp.row_stack([X, np.ones(4)]), np.vstack([X, np.ones(4)]))
    with pytest.raises(TypeError, match="sequence"):
        gnp.column_stack(x for x in [X])


BLOCKS = [
    [[np.eye(2), np.zeros((2, 3))], [np.ones((1, 2)), np.full((1, 3), 7)]],
    [1, 2, np.arange(3)], 5, [[[Y]], [[Y]]], [np.int8(1), np.arange(2, dtype=np.int8)],
]


@pytest.mark.parametrize("arrays", BLOCKS, ids=range(len(BLOCKS)))
def test_block(arrays):
    same(gnp.block(arrays), np.block(arrays))


@pytest.mark.parametrize("bad, err, match", [
    ([[1], [[2]]], ValueError, "depths are mismatched"), ([], ValueError, "cannot be empty"),
    ((1, 2), TypeError, "is a tuple"), ([[], [1]], ValueError, r"arrays\[0\] cannot be empty"),
])
def test_block_errors(bad, err, match):
    with pytest.raises(err, match=match):
        np.block(bad)
    with pytest.raises(err, match=match):
        gnp.block(bad)


@pytest.mark.parametrize("sections", [3, [1, 2], [5], 5, 7, [0, 0, 9]], ids=str)
def test_array_split(sections):
    both("array_split", np.arange(7.0), sections)
    both("array_split", X, sections if np.ndim(sections) else 2, axis=1)


def test_split_family():
    both("hsplit", X, 2)
    both("hsplit", np.arange(6), [2])
    both("vsplit", X, [1])
    both("dsplit", Y, 2)
    for fn, arr, match in [("hsplit", np.float64(1), "1 or more"),
                           ("vsplit", np.arange(3), "2 or more"),
                           ("dsplit", X, "3 or more")]:
        with pytest.raises(ValueError, match=match):
            getattr(gnp, fn)(arr, 1)
    with pytest.raises(ValueError, match="equal division"):
        gnp.hsplit(X, 3)
    with pytest.raises(ValueError, match="larger than 0"):
        gnp.array_split(X, 0)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_unstack(axis):
    both("unstack", Y, axis=axis)
    with pytest.raises(ValueError, match="at least 1-d"):
        gnp.unstack(3.0)
    with pytest.raises(np.exceptions.AxisError):
        gnp.unstack(X, axis=2)


@pytest.mark.parametrize("axis, start", [(0, 0), (2, 0), (1, 3), (-1, 1), (0, 2), (1, -1)])
def test_rollaxis(axis, start):
    both("rollaxis", Y, axis, start)


def test_rollaxis_errors():
    with pytest.raises(np.exceptions.AxisError, match="'start' arg requires"):
        gnp.rollaxis(Y, 0, 4)
    with pytest.raises(np.exceptions.AxisError):
        gnp.rollaxis(Y, 3)


@pytest.mark.parametrize("k", [-1, 0, 1, 2, 3, 6])
@pytest.mark.parametrize("axes", [(0, 1), (1, 0), (2, 0), (-1, 1)])
def test_rot90(k, axes):
    both("rot90", Y, k, axes)


def test_flips_and_errors():
    both("fliplr", X)
    both("flipud", X)
    both("flipud", np.arange(3))
    with pytest.raises(ValueError, match=">= 2-d"):
        gnp.fliplr(np.arange(3))
    with pytest.raises(ValueError, match=">= 1-d"):
        gnp.flipud(2.0)
    with pytest.raises(ValueError, match="len\\(axes\\) must be 2"):
        gnp.rot90(X, 1, (0,))
    with pytest.raises(ValueError, match="Axes must be different"):
        gnp.rot90(X, 1, (1, -1))
    with pytest.raises(ValueError, match="out of range"):
        gnp.rot90(X, 1, (0, 3))


@pytest.mark.parametrize("offset", [-3, -1, 0, 1, 2, 5])
@pytest.mark.parametrize("axes", [(0, 1), (1, 0), (0, 2), (2, 1)])
def test_diagonal(offset, axes):
    both("diagonal", Y, offset, *axes)


@pytest.mark.parametrize("k", [-2, 0, 1, 4])
def test_diag_diagflat(k):
    both("diag", np.arange(3), k)
    both("diag", np.float32([1.5, -2.0]), k)
    both("diag", X, k)
    both("diagflat", np.array([[1, 2], [3, 4]]), k)
    same(gnp.diagflat(7.0, k), np.diagflat(7.0, k))
    same(gnp.diag(np.zeros(0), k), np.diag(np.zeros(0), k))


def test_diag_errors():
    with pytest.raises(ValueError, match="1- or 2-d"):
        gnp.diag(Y)
    with pytest.raises(ValueError, match="at least two dimensions"):
        gnp.diagonal(np.arange(3))
    with pytest.raises(ValueError, match="cannot be the same"):
        gnp.diagonal(X, 0, 1, -1)


def _numeric_grad(f, x, eps=1e-6):
    return np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps)
                     for e in np.eye(x.size).reshape((x.size,) + x.shape)]).reshape(x.shape)


def test_gradients():
    w = np.cos(np.arange(40.0))

    def loss(x, lib):
        parts = [lib.diag(x[0], 1).ravel(), lib.diagonal(x, 1).ravel(),
                 lib.rot90(x, 1).ravel(), lib.block([[x, x]]).ravel(),
                 lib.array_split(x, 2, axis=1)[1].ravel()]
        return sum(lib.sum(p * w[:p.size]) for p in parts)

    x0 = np.sin(np.arange(12.0)).reshape(3, 4)

    def grad(x):
        with gc.GradientTape() as tape:
            tape.watch(x)
            y = loss(x, gnp)
        return tape.gradient(y, x)

    want = _numeric_grad(lambda x: loss(x, np), x0)
    np.testing.assert_allclose(grad(gnp.asarray(x0)).numpy(), want, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(gc.function(grad)(x0).numpy(), want, rtol=1e-6, atol=1e-9)


def test_vectorized():
    same(gc.vectorized_map(lambda v: gnp.diag(v), X), np.stack([np.diag(r) for r in X]))


def test_compiled(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHC_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(numba_cpu.settings, "mode", "eager")
    monkeypatch.setattr(numba_cpu.settings, "worker", False)

    @gc.function(jit_compile=True)
    def f(x, v):
        return (gnp.rot90(x, 3), gnp.diagonal(x, 1), gnp.diag(v, -1),
                gnp.column_stack([v, v]), gnp.array_split(x, 3, axis=1)[2], gnp.atleast_3d(v))

    v = np.float64([1.0, 2.0, 3.0])
    with warnings.catch_warnings(), monkeypatch.context() as mp:
        mp.setattr(runners, "run_graph", lambda *a: pytest.fail("ran on the interpreter"))
        got = f(X, v)
    assert f.get_concrete_function(X, v).runtime.backend == "numba"
    for g, w in zip(got, (np.rot90(X, 3), np.diagonal(X, 1), np.diag(v, -1),
                          np.column_stack([v, v]), np.array_split(X, 3, axis=1)[2],
                          np.atleast_3d(v))):
        same(g, w)
