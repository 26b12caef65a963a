"""gc.nn.isotonic_regression against a plain pool-adjacent-violators loop: both
directions, axis, ties between blocks, dtypes of integer inputs, eager / traced /
compiled, the gradient (block means) by finite differences, and errors."""

import warnings

import numpy as np
import pytest
from nn_helpers import check_grad, same, traced

import graphc as gc
from graphc.runtime.cpu import numba_cpu

RNG = np.random.default_rng(3)


def pav(y, decreasing):
    """Pool adjacent violators on one row: merge while the previous block's mean is not
    below the next one's (for a non-decreasing fit)."""
    blocks = []
    for v in (-y if decreasing else y):
        blocks.append([float(v), 1])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] >= blocks[-1][0] / blocks[-1][1]:
            s, c = blocks.pop()
            blocks[-1][0] += s
            blocks[-1][1] += c
    out, seg = [], []
    for i, (s, c) in enumerate(blocks):
        out += [s / c] * c
        seg += [i] * c
    out = np.array(out)
    return (-out if decreasing else out), np.array(seg, np.int32)


def want(x, decreasing, axis=-1):
    x = np.moveaxis(np.asarray(x, np.float64), axis, -1)
    outs, segs = np.zeros(x.shape), np.zeros(x.shape, np.int32)
    for idx in np.ndindex(x.shape[:-1]):
        outs[idx], segs[idx] = pav(x[idx], decreasing)
    return np.moveaxis(outs, -1, axis), np.moveaxis(segs, -1, axis)


@pytest.mark.parametrize("decreasing", [True, False])
def test_matches_pav(decreasing):
    x = RNG.standard_normal((3, 7))
    w_out, w_seg = want(x, decreasing)
    for out, seg in (gc.nn.isotonic_regression(x, decreasing=decreasing),
                     traced(gc.nn.isotonic_regression, x, decreasing=decreasing)):
        same(out, w_out, rtol=1e-12, atol=1e-15)
        same(seg, w_seg)


def test_default_is_decreasing_and_axis():
    x = RNG.standard_normal((5, 2, 3)).astype(np.float32)
    out, seg = gc.nn.isotonic_regression(x, axis=0)
    w_out, w_seg = want(x, True, axis=0)
    assert out.dtype == np.float32 and seg.dtype == np.int32
    same(out, w_out.astype(np.float32), rtol=1e-6, atol=1e-6)
    same(seg, w_seg)


def test_ties_merge_and_int_dtypes():
    # equal adjacent block means become one block
    x = np.array([[3.0, 1.0, 2.0, 2.0], [1.0, 3.0, 1.0, 5.0]])
    out, seg = gc.nn.isotonic_regression(x, decreasing=False)
    same(out, [[2.0, 2.0, 2.0, 2.0], [1.0, 2.0, 2.0, 5.0]], rtol=1e-15)
    same(seg, np.array([[0, 0, 0, 0], [0, 1, 1, 2]], np.int32))
    out, _ = gc.nn.isotonic_regression(np.array([1, 3, 2, 4], np.int32), decreasing=False)
    same(out, np.array([1.0, 2.5, 2.5, 4.0]))
    assert out.dtype == np.float64
    out, _ = gc.nn.isotonic_regression(np.array([1, 3, 2, 4], np.int16))
    assert out.dtype == np.float32
    same(out, np.full(4, 2.5, np.float32))


def test_gradient():
    x = RNG.standard_normal((2, 6))
    check_grad(lambda v: gc.nn.isotonic_regression(v)[0], x)
    check_grad(lambda v: gc.nn.isotonic_regression(v, decreasing=False)[0], x)


def test_compiled(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHC_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(numba_cpu.settings, "mode", "eager")
    monkeypatch.setattr(numba_cpu.settings, "worker", False)
    x = RNG.standard_normal((2, 5)).astype(np.float32)
    f = gc.function(lambda v: gc.nn.isotonic_regression(v, decreasing=False),
                    jit_compile=True)
    out, seg = f(x)
    assert f.get_concrete_function(x).runtime.backend == "numba"
    w_out, w_seg = want(x, False)
    same(out, w_out.astype(np.float32), rtol=1e-6, atol=1e-6)
    same(seg, w_seg)


def test_errors():
    with pytest.raises(ValueError, match="rank"):
        gc.nn.isotonic_regression(np.float32(1.0))
    with pytest.raises(ValueError, match="axis"):
        gc.nn.isotonic_regression(np.zeros((2, 3)), axis=2)
    with pytest.raises(TypeError, match="real"):
        gc.nn.isotonic_regression(np.zeros(3, np.complex64))


def test_vectorized_map_matches_a_loop():
    x = RNG.standard_normal((3, 2, 5))

    def f(v):
        return gc.nn.isotonic_regression(v, decreasing=False)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out, seg = gc.vectorized_map(f, x)
    for i in range(3):
        w_out, w_seg = f(x[i])
        same(out.numpy()[i], w_out.numpy())
        same(seg.numpy()[i], w_seg.numpy())
