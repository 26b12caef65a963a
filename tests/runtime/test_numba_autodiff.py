"""Gradients compiled by Numba: a ``gc.function`` that computes a loss and its gradients
with a ``GradientTape`` runs as one compiled program (no node falls back to the
interpreter) and gives the interpreter's numbers.

Float64 throughout. Agreement is exact except where the compiled kernels sum in another
order than NumPy (matmul, reductions, einsum): those results are within a few ULP of the
interpreter's, checked as a relative 1e-12 (about 4500 ULP of float64 is far looser, but
a wrong gradient is off by O(1)).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.runtime.cpu import numba_cpu

pytestmark = pytest.mark.usefixtures("eager_compile")

RNG = np.random.default_rng(3)


def compiled_and_interpreted(fn, *args):
    """``fn`` as a gc.function compiled by Numba (asserted: one program, no fallback)
    and on the interpreter; both results."""
    compiled = gc.function(fn)
    with warnings.catch_warnings():
        warnings.simplefilter("error", numba_cpu.FallbackWarning)
        got = compiled(*args)
    runtime = compiled.get_concrete_function(*args).runtime
    assert runtime is not None and runtime.backend == "numba", runtime
    want = gc.function(fn, backend="numpy")(*args)
    return got, want


def assert_close(got, want):
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        g, w = np.asarray(g.numpy()), np.asarray(w.numpy())
        assert g.dtype == w.dtype and g.shape == w.shape, i
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14, err_msg=f"output {i}")


def mlp(x, w1, b1, w2, labels):
    with gc.GradientTape() as tape:
        tape.watch([w1, b1, w2])
        h = gnp.tanh(x @ w1 + b1)
        logits = gnp.maximum(h @ w2, 0.1 * (h @ w2))
        loss = gnp.mean((logits - labels) ** 2) + 1e-3 * gnp.sum(w1 * w1)
    return [loss, *tape.gradient(loss, [w1, b1, w2])]


def test_mlp_gradients_compiled_match_interpreter():
    args = (RNG.normal(size=(16, 5)), RNG.normal(size=(5, 8)), RNG.normal(size=(8,)),
            RNG.normal(size=(8, 3)), RNG.normal(size=(16, 3)))
    got, want = compiled_and_interpreted(mlp, *args)
    assert_close(got, want)
    assert got[1].shape == (5, 8) and got[2].shape == (8,) and got[3].shape == (8, 3)


def indexing_heavy(x, y):
    idx = np.array([2, 0, 2, 3])  # a duplicate: its cotangents add
    with gc.GradientTape() as tape:
        tape.watch([x, y])
        parts = [x[idx], x[1:, ::-1], gnp.take(y, [1, 1, 0], axis=1).T]
        joined = gnp.concatenate([p.reshape(-1) for p in parts])
        picked = gnp.sort(joined)[-5:] * gnp.tile(y[0, :2], 3)[:5]
        padded = gnp.pad(gnp.stack([x[0], x[3]]), ((1, 0), (0, 2)), mode="reflect")
        a, b = gnp.split(padded, [1], axis=0)
        mask = x > 0
        loss = (gnp.sum(picked) + gnp.max(b, axis=1).sum() * a.sum()
                + gnp.sum(gnp.where(mask, x, 0.0) ** 2) + gc.gather(y, [1, 0, 1]).sum()
                + gnp.einsum("ij,kj->", x, y) + gnp.cumsum(gnp.repeat(x[:, 0], 2)).sum())
    return [loss, *tape.gradient(loss, [x, y])]


def test_indexing_concat_reduction_gradients_compiled_match_interpreter():
    x, y = RNG.normal(size=(4, 3)), RNG.normal(size=(2, 3))
    got, want = compiled_and_interpreted(indexing_heavy, x, y)
    assert_close(got, want)
    # and the interpreter's gradient is right: central differences of the loss
    for i, a in enumerate((x, y)):
        fd = np.zeros_like(a)
        for at in np.ndindex(a.shape):
            up, down = [x.copy(), y.copy()], [x.copy(), y.copy()]
            up[i][at] += 1e-6
            down[i][at] -= 1e-6
            fd[at] = (float(indexing_heavy(*map(gc.constant, up))[0])
                      - float(indexing_heavy(*map(gc.constant, down))[0])) / 2e-6
        np.testing.assert_allclose(want[1 + i].numpy(), fd, rtol=1e-6, atol=1e-6)
