"""``gnp.diff`` and ``gnp.roll`` against NumPy: eagerly, traced (static, traced and
run-time shifts, unknown lengths), compiled, with gradients and batching."""

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.runtime.cpu import numba_cpu, runners

X = np.arange(12.0).reshape(3, 4) ** 2
Y = np.arange(24).reshape(2, 3, 4)


def same(got, want):
    got = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
    want = np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
    np.testing.assert_array_equal(got, want)


DIFF_CASES = [
    (X, {}), (X, {"axis": 0}), (X, {"n": 2}), (X, {"n": 0}), (X, {"n": 5}),
    (np.array([1, 5, 2], np.uint8), {}), (np.array([True, False, False]), {}),
    (np.array([1, 5, 2], np.int8), {"prepend": 1}),
    (np.array([1, 5, 2], np.int8), {"prepend": [1000], "append": 3}),
    (X, {"prepend": 0.0, "append": X[:, :1], "axis": 1}), (X, {"axis": -2, "append": 7}),
    (np.float32([1.5, 2.0, -1.0]), {"n": 2, "append": np.float32(0.5)}),
    (np.array([], np.float64), {}),
]


@pytest.mark.parametrize("x, kwargs", DIFF_CASES)
def test_diff_matches_numpy(x, kwargs):
    want = np.diff(x, **kwargs)
    same(gnp.diff(x, **kwargs), want)
    same(gc.function(lambda v: gnp.diff(v, **kwargs))(x), want)


def test_diff_unknown_length():
    f = gc.function(lambda v: gnp.diff(v, prepend=0, axis=0),
                    input_signature=[gc.TensorSpec([None, 4], np.int64)])
    for n in (1, 3):
        same(f(Y[0][:n]), np.diff(Y[0][:n], prepend=0, axis=0))


def test_diff_errors():
    with pytest.raises(ValueError, match="order must be non-negative but got -1"):
        gnp.diff([1, 2], n=-1)
    with pytest.raises(ValueError, match="at least one dimensional"):
        gnp.diff(3.0)
    with pytest.raises(np.exceptions.AxisError):
        gnp.diff([1, 2], axis=1)
    same(gnp.diff(3.0, n=0), np.asarray(np.diff(3.0, n=0)))  # NumPy: the input, for n=0


ROLL_CASES = [(1, None), (-2, None), (5, 0), (-7, 2), ((1, 2), (0, 0)), ((1, -1), (1, 2)),
              (2, (0, 1, 2)), (0, 1), (3, -1), (1.5, None), (np.int8(2), 1), ((2, 3), 1),
              (-25, None)]


@pytest.mark.parametrize("shift, axis", ROLL_CASES, ids=str)
def test_roll_matches_numpy(shift, axis):
    want = np.roll(Y, shift, axis)
    same(gnp.roll(Y, shift, axis), want)
    same(gc.function(lambda v: gnp.roll(v, shift, axis))(Y), want)
    if not isinstance(shift, float):  # the shift as a run-time tensor
        same(gc.function(lambda v, s: gnp.roll(v, s, axis))(Y, gnp.asarray(shift)), want)


def test_roll_edge_cases():
    same(gnp.roll(np.zeros((0, 3)), 1, 0), np.roll(np.zeros((0, 3)), 1, 0))
    same(gnp.roll(np.float64(3), 1), np.roll(np.float64(3), 1))
    f = gc.function(lambda v: gnp.roll(v, -2, 0),
                    input_signature=[gc.TensorSpec([None, 4], np.int64)])
    for n in (1, 3):
        same(f(Y[0][:n]), np.roll(Y[0][:n], -2, 0))


def test_roll_errors():
    with pytest.raises(np.exceptions.AxisError):
        gnp.roll(Y, 1, axis=3)
    with pytest.raises(ValueError, match="scalars or 1D sequences"):
        gnp.roll(Y, [[1]], axis=0)
    with pytest.raises(ValueError, match="shape mismatch"):
        gnp.roll(Y, (1, 2), axis=(0, 1, 1))
    with pytest.raises(TypeError, match="integers"):
        gc.function(lambda v, s: gnp.roll(v, s, 0))(Y, gnp.asarray(1.5))


def _numeric_grad(f, x, eps=1e-6):
    return np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps)
                     for e in np.eye(x.size).reshape((x.size,) + x.shape)]).reshape(x.shape)


def test_gradients():
    w = np.arange(12.0).reshape(3, 4) - 5

    def loss(x, lib):
        return lib.sum(lib.diff(x, n=2, axis=1, prepend=1.0) ** 2) + \
            lib.sum(lib.roll(x, (1, -2), (0, 1)) * w)

    x0 = np.cos(np.arange(12.0)).reshape(3, 4)

    def grad(x):
        with gc.GradientTape() as tape:
            tape.watch(x)
            y = loss(x, gnp)
        return tape.gradient(y, x)

    want = _numeric_grad(lambda x: loss(x, np), x0)
    np.testing.assert_allclose(grad(gnp.asarray(x0)).numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(gc.function(grad)(x0).numpy(), want, rtol=1e-6)


def test_vectorized():
    a = np.arange(15.0).reshape(3, 5) ** 2
    same(gc.vectorized_map(lambda v: gnp.diff(v), a), np.diff(a, axis=1))
    same(gc.vectorized_map(lambda v: gnp.roll(v, 3), a), np.roll(a, 3, axis=1))


def test_compiled(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHC_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(numba_cpu.settings, "mode", "eager")
    monkeypatch.setattr(numba_cpu.settings, "worker", False)

    @gc.function(jit_compile=True)
    def f(x, s):
        return gnp.diff(x, axis=0, append=0.0), gnp.roll(x, (1, -1), (0, 1)), gnp.roll(x, s)

    x, s = np.cos(np.arange(12.0)).reshape(3, 4), gnp.asarray(5)
    with monkeypatch.context() as mp:  # no interpreter fallback
        mp.setattr(runners, "run_graph", lambda *a: pytest.fail("ran on the interpreter"))
        got = f(x, s)
    assert f.get_concrete_function(x, s).runtime.backend == "numba"
    for g, w in zip(got, (np.diff(x, axis=0, append=0.0), np.roll(x, (1, -1), (0, 1)),
                          np.roll(x, 5))):
        same(g, w)
