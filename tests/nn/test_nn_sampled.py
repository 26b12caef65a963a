"""gc.nn sampled losses: compute_accidental_hits against a loop (eager and traced),
nce_loss / sampled_softmax_loss against NumPy written from TensorFlow's documented
formulas with fixed sampled_values, the default sampler path, gradients by finite
differences, the candidate samplers re-exported from gc.random, and errors."""

import numpy as np
import pytest
from nn_helpers import check_grad, same, traced

import graphc as gc

RNG = np.random.default_rng(5)
TC = np.array([[1, 3], [2, 2], [0, 4]], np.int64)
SC = np.array([3, 2, 5, 3], np.int64)
W = RNG.standard_normal((6, 4))
BIAS = RNG.standard_normal(6)
X = RNG.standard_normal((3, 4))
TRUE_COUNT = np.array([[0.5, 0.2], [0.3, 0.3], [0.9, 0.1]])
SAMP_COUNT = np.array([0.25, 0.5, 0.125, 0.25])
SV = (SC, TRUE_COUNT, SAMP_COUNT)


def hits_loop(tc, sc):
    last = {int(c): i for i, c in enumerate(sc)}
    out = [(i, last[int(c)]) for i in range(tc.shape[0]) for c in tc[i] if int(c) in last]
    return (np.array([i for i, _ in out], np.int32), np.array([j for _, j in out], np.int64),
            np.full(len(out), -np.finfo(np.float32).max, np.float32))


def test_compute_accidental_hits():
    want = hits_loop(TC, SC)
    for got in (gc.nn.compute_accidental_hits(TC, SC, 2),
                traced(gc.nn.compute_accidental_hits, TC, SC, 2)):
        for g, w in zip(got, want, strict=True):
            same(g, w)
    none = gc.nn.compute_accidental_hits(TC, np.array([9], np.int64), 2)
    assert [t.shape for t in none] == [(0,), (0,), (0,)]


def sampled_logits(w, b, labels, x, remove):
    true_l = np.einsum("bd,btd->bt", x, w[labels]) + b[labels] - np.log(TRUE_COUNT)
    samp_l = x @ w[SC].T + b[SC]
    if remove:
        tc_i, ids, wts = hits_loop(labels, SC)
        samp_l[tc_i, ids] += wts
    samp_l = samp_l - np.log(SAMP_COUNT)
    logits = np.concatenate([true_l, samp_l], 1)
    targets = np.concatenate([np.full(true_l.shape, 1 / labels.shape[1]),
                              np.zeros(samp_l.shape)], 1)
    return logits, targets


def nce_want(w, b, labels, x, remove=False):
    z, y = sampled_logits(w, b, labels, x, remove)
    return (np.maximum(z, 0) - z * y + np.log1p(np.exp(-np.abs(z)))).sum(1)


def softmax_want(w, b, labels, x, remove=True):
    z, y = sampled_logits(w, b, labels, x, remove)
    m = z.max(1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(z - m).sum(1))
    return -(y * z).sum(1) + lse * y.sum(1)


@pytest.mark.parametrize("remove", [False, True])
def test_nce_loss(remove):
    want = nce_want(W, BIAS, TC, X, remove)
    same(gc.nn.nce_loss(W, BIAS, TC, X, 4, 6, num_true=2, sampled_values=SV,
                        remove_accidental_hits=remove), want, rtol=1e-10)
    got = traced(lambda x: gc.nn.nce_loss([W[:3], W[3:]], BIAS, TC, x, 4, 6, 2, SV,
                                          remove), X)
    same(got, want, rtol=1e-10)


@pytest.mark.parametrize("remove", [True, False])
def test_sampled_softmax_loss(remove):
    want = softmax_want(W, BIAS, TC, X, remove)
    same(gc.nn.sampled_softmax_loss(W, BIAS, TC, X, 4, 6, num_true=2, sampled_values=SV,
                                    remove_accidental_hits=remove), want, rtol=1e-10)
    got = traced(lambda x: gc.nn.sampled_softmax_loss(W, BIAS, TC, x, 4, 6, 2, SV,
                                                      remove), X)
    same(got, want, rtol=1e-10)


def test_gradients():
    check_grad(lambda x: gc.nn.nce_loss(W, BIAS, TC, x, 4, 6, 2, SV), X.copy())
    check_grad(lambda w: gc.nn.sampled_softmax_loss(w, BIAS, TC, X, 4, 6, 2, SV), W.copy())


def test_default_sampler_path():
    labels = np.array([[1], [4], [0]], np.int64)
    x = X.astype(np.float32)
    loss = gc.nn.sampled_softmax_loss(W.astype(np.float32), BIAS.astype(np.float32),
                                      labels, x, 3, 6, seed=3)
    assert loss.shape == (3,) and loss.dtype == np.float32
    assert np.all(np.isfinite(loss.numpy())) and np.all(loss.numpy() >= 0)
    nce = gc.nn.nce_loss(W.astype(np.float32), BIAS.astype(np.float32), labels, x, 3, 6)
    assert nce.shape == (3,) and np.all(nce.numpy() > 0)


def test_samplers_are_gc_random_samplers():
    assert gc.nn.all_candidate_sampler is gc.random.all_candidate_sampler
    assert gc.nn.fixed_unigram_candidate_sampler is gc.random.fixed_unigram_candidate_sampler
    sampled, t, s = gc.nn.all_candidate_sampler(TC, 2, 4, True)
    same(sampled, np.arange(4, dtype=np.int64))
    assert not hasattr(gc.nn, "learned_unigram_candidate_sampler")


def test_errors():
    with pytest.raises(TypeError, match="int64"):
        gc.nn.compute_accidental_hits(TC.astype(np.int32), SC, 2)
    with pytest.raises(ValueError, match="num_true"):
        gc.nn.compute_accidental_hits(TC, SC, 3)
    with pytest.raises(ValueError, match="labels"):
        gc.nn.nce_loss(W, BIAS, TC[:, 0], X, 4, 6, sampled_values=SV)
