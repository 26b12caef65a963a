"""gc.nn compiled by the Numba backend (``jit_compile=True``: every op compiled or an
error) agrees with the interpreter: a conv2d + bias + max_pool + avg_pool + gelu +
softmax network, its gradient, a transposed convolution, and gc.vectorized_map over a
batch against a per-example loop."""

import numpy as np
import pytest
from nn_helpers import same

import graphc as gc
from graphc.runtime.cpu import numba_cpu, runners

RNG = np.random.default_rng(6)
X = RNG.standard_normal((2, 6, 6, 3)).astype(np.float32)
W = RNG.standard_normal((2, 2, 3, 4)).astype(np.float32)
B = RNG.standard_normal(4).astype(np.float32)


def net(x, w, b):
    h = gc.nn.bias_add(gc.nn.conv2d(x, w, 1, "SAME"), b)
    h = gc.nn.gelu(gc.nn.relu(h) + gc.nn.elu(-h))
    m = gc.nn.max_pool2d(h, 2, 2, "VALID")
    a = gc.nn.avg_pool2d(h, 2, 2, "SAME")
    logits = gc.reduce_mean(m + a, axis=[1, 2])
    return gc.nn.softmax(logits), gc.nn.sparse_softmax_cross_entropy_with_logits(
        np.array([1, 3]), logits)


def loss_grad(x, w, b):
    with gc.GradientTape() as tape:
        tape.watch(w)
        loss = gc.reduce_sum(net(x, w, b)[1])
    return tape.gradient(loss, w)


def deconv(x, w):
    return gc.nn.conv2d_transpose(x, w, [2, 12, 12, 3], 2, "SAME")


@pytest.fixture
def compiled(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHC_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(numba_cpu.settings, "mode", "eager")
    monkeypatch.setattr(numba_cpu.settings, "worker", False)
    return monkeypatch


def test_network_and_gradient_compile(compiled):
    want_p, want_l = net(X, W, B)
    want_g = loss_grad(gc.constant(X), gc.constant(W), B)
    want_d = deconv(want_p.numpy()[:, None, None, :1].repeat(6, 1).repeat(6, 2)
                    * np.ones((1, 1, 1, 4), np.float32), W)
    f = gc.function(net, jit_compile=True)
    g = gc.function(loss_grad, jit_compile=True)
    d = gc.function(deconv, jit_compile=True)
    xd = (want_p.numpy()[:, None, None, :1].repeat(6, 1).repeat(6, 2)
          * np.ones((1, 1, 1, 4), np.float32))
    with compiled.context() as mp:
        mp.setattr(runners, "run_graph", lambda *a: pytest.fail("ran on the interpreter"))
        got_p, got_l = f(X, W, B)
        got_g = g(X, W, B)
        got_d = d(xd, W)
    assert f.get_concrete_function(X, W, B).runtime.backend == "numba"
    same(got_p, want_p.numpy(), rtol=2e-5, atol=1e-6)
    same(got_l, want_l.numpy(), rtol=2e-5, atol=1e-6)
    same(got_g, want_g.numpy(), rtol=1e-4, atol=1e-5)
    same(got_d, want_d.numpy(), rtol=1e-5, atol=1e-5)


def test_vectorized_map_matches_a_loop():
    def one(img):
        h = gc.nn.conv2d(img[None], W, 1, "VALID")
        return gc.nn.log_softmax(gc.nn.max_pool2d(h, 2, 2, "SAME")[0], axis=-1)

    got = gc.vectorized_map(one, X)
    same(got, np.stack([one(x).numpy() for x in X]), rtol=1e-5, atol=1e-6)


def test_erf_compiles(compiled):
    from graphc.ops.special_erf import erf

    x = np.concatenate([RNG.standard_normal(20) * 2, [0.0, -0.0, np.inf, -np.inf, np.nan]])
    f = gc.function(lambda a, b: (erf(a), erf(b), gc.nn.gelu(b)), jit_compile=True)
    want = (erf(x).numpy(), erf(x.astype(np.float32)).numpy(),
            gc.nn.gelu(x.astype(np.float32)).numpy())
    with compiled.context() as mp:
        mp.setattr(runners, "run_graph", lambda *a: pytest.fail("ran on the interpreter"))
        got = f(x, x.astype(np.float32))
    same(got[0], want[0], rtol=4e-16)
    same(got[1], want[1], rtol=0)
    same(got[2], want[2], rtol=1e-6)
