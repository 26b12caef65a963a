"""gc.nn CTC names: ctc_loss against a brute-force sum over all alignments (values,
blank_index, batch-major logits, variable lengths, impossible labels) and its gradient
by finite differences; ctc_greedy_decoder, collapse_repeated and ctc_unique_labels
against plain loops, eagerly and traced; a compiled run of ctc_loss and its gradient."""

import itertools
import warnings

import numpy as np
import pytest
from nn_helpers import check_grad, same, traced

import graphc as gc
from graphc.runtime.cpu import numba_cpu

RNG = np.random.default_rng(11)
T, B, C = 5, 3, 3
X = RNG.standard_normal((T, B, C))
LABELS = np.array([[1, 1, 0], [2, 1, 2], [1, 0, 0]])
LABEL_LEN = np.array([2, 3, 0])
LOGIT_LEN = np.array([5, 4, 3])


def collapse(path, blank):
    out, prev = [], None
    for p in path:
        if p != prev and p != blank:
            out.append(p)
        prev = p
    return out


def brute_ctc(logits, labels, blank):
    """-log of the summed probability of every alignment that collapses to labels."""
    lp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    total = -np.inf
    for path in itertools.product(range(logits.shape[-1]), repeat=logits.shape[0]):
        if collapse(path, blank) == list(labels):
            total = np.logaddexp(total, sum(lp[t, p] for t, p in enumerate(path)))
    return -total


def want_loss(x, labels, blank):
    return np.array([brute_ctc(x[:LOGIT_LEN[b], b], labels[b, :LABEL_LEN[b]], blank)
                     for b in range(B)])


@pytest.mark.parametrize("blank", [None, 0, 2, -1])
def test_ctc_loss_matches_brute_force(blank):
    b = 0 if blank is None else blank % C
    labels = LABELS if b == 0 else np.where(LABELS == b, 0, LABELS)
    want = want_loss(X, labels, b)
    same(gc.nn.ctc_loss(labels, X, LABEL_LEN, LOGIT_LEN, blank_index=blank), want)
    got = traced(lambda x: gc.nn.ctc_loss(labels, x, LABEL_LEN, LOGIT_LEN,
                                          blank_index=blank), X)
    same(got, want)


def test_ctc_loss_batch_major_float32_and_impossible():
    x = X.astype(np.float32)
    got = gc.nn.ctc_loss(LABELS, np.transpose(x, (1, 0, 2)), LABEL_LEN, LOGIT_LEN,
                         logits_time_major=False)
    assert got.dtype == np.float32
    same(got, want_loss(X, LABELS, 0).astype(np.float32), rtol=1e-5)
    # "1 1" needs three frames (1 blank 1); two cannot produce it
    same(gc.nn.ctc_loss(np.array([[1, 1]]), X[:2, :1], [2], [2]), np.array([np.inf]))
    uniq = gc.nn.ctc_unique_labels(LABELS)
    same(gc.nn.ctc_loss(LABELS, X, LABEL_LEN, LOGIT_LEN, unique=uniq),
         want_loss(X, LABELS, 0))


def test_ctc_loss_gradient():
    check_grad(lambda x: gc.nn.ctc_loss(LABELS, x, LABEL_LEN, LOGIT_LEN), X.copy(),
               rtol=1e-6, atol=1e-8)
    check_grad(lambda x: gc.nn.ctc_loss(LABELS, x, LABEL_LEN, LOGIT_LEN, blank_index=1,
                                        logits_time_major=False),
               np.transpose(X, (1, 0, 2)).copy(), rtol=1e-6, atol=1e-8)


def test_ctc_loss_errors():
    with pytest.raises(ValueError, match="rank 3"):
        gc.nn.ctc_loss(LABELS, X[0], LABEL_LEN, LOGIT_LEN)
    with pytest.raises(ValueError, match="blank_index"):
        gc.nn.ctc_loss(LABELS, X, LABEL_LEN, LOGIT_LEN, blank_index=3)
    with pytest.raises(TypeError, match="integers"):
        gc.nn.ctc_loss(LABELS.astype(np.float32), X, LABEL_LEN, LOGIT_LEN)


def greedy_loops(x, seq, merge, blank):
    rows, neg = [], []
    for b in range(x.shape[1]):
        best = [int(np.argmax(x[t, b])) for t in range(seq[b])]
        rows.append(collapse(best, blank) if merge else [p for p in best if p != blank])
        neg.append(-sum(x[t, b].max() for t in range(seq[b])))
    width = max(len(r) for r in rows)
    dense = np.full((len(rows), width), -1, np.int64)
    for b, r in enumerate(rows):
        dense[b, :len(r)] = r
    return dense, np.array(neg)[:, None]


@pytest.mark.parametrize("merge,blank", [(True, None), (False, None), (True, 0)])
def test_ctc_greedy_decoder(merge, blank):
    x = np.round(X * 2) / 2   # ties: the first maximum wins
    seq = np.array([5, 4, 0])
    want_d, want_n = greedy_loops(x, seq, merge, C - 1 if blank is None else blank)
    for fn in (lambda a: gc.nn.ctc_greedy_decoder(a, seq, merge, blank),
               gc.function(lambda a: gc.nn.ctc_greedy_decoder(a, seq, merge, blank))):
        decoded, neg = fn(x)
        assert isinstance(decoded, list) and len(decoded) == 1
        same(decoded[0], want_d)
        same(neg, want_n)


def test_collapse_repeated():
    labels = np.array([[1, 1, 2, 2, 1], [1, 2, 3, 4, 5], [7, 7, 7, 7, 7]], np.int32)
    seq = np.array([5, 3, 4], np.int64)
    want = np.array([[1, 2, 1], [1, 2, 3], [7, 0, 0]], np.int32)
    for fn in (gc.nn.collapse_repeated, gc.function(gc.nn.collapse_repeated)):
        got, new_len = fn(labels, seq)
        same(got, want)
        same(new_len, np.array([3, 3, 1], np.int64))


def test_ctc_unique_labels():
    labels = np.array([[1, 2, 1, 0, 0], [3, 3, 3, 4, 0], [5, 6, 7, 8, 9]], np.int32)
    want_y = np.array([[1, 2, 0, 0, 0], [3, 4, 0, 0, 0], [5, 6, 7, 8, 9]], np.int64)
    want_i = np.array([[0, 1, 0, 2, 2], [0, 0, 0, 1, 2], [0, 1, 2, 3, 4]], np.int32)
    for fn in (gc.nn.ctc_unique_labels, gc.function(gc.nn.ctc_unique_labels)):
        y, idx = fn(labels)
        same(y, want_y)
        same(idx, want_i)


def test_ctc_loss_and_gradient_compile(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHC_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(numba_cpu.settings, "mode", "eager")
    monkeypatch.setattr(numba_cpu.settings, "worker", False)
    x = X[:3].astype(np.float32)   # three steps keep the compiled graph small

    def loss_grad(v):
        with gc.GradientTape() as tape:
            tape.watch(v)
            loss = gc.nn.ctc_loss(LABELS, v, [2, 1, 0], [3, 3, 2])
            total = gc.reduce_sum(loss)
        return loss, tape.gradient(total, v)

    want_l, want_g = loss_grad(gc.constant(x))
    f = gc.function(loss_grad, jit_compile=True)
    got_l, got_g = f(x)
    assert f.get_concrete_function(x).runtime.backend == "numba"
    same(got_l, want_l.numpy(), rtol=1e-5)
    same(got_g, want_g.numpy(), rtol=1e-4, atol=1e-6)


def exact_scores(x, seq_len):
    """Every labelling of one example with its beam score: log of the sum over its
    alignments of prod exp(x - max(x_t)) (blank last)."""
    blank = x.shape[1] - 1
    z = x[:seq_len] - x[:seq_len].max(1, keepdims=True)
    out = {}
    for path in itertools.product(range(x.shape[1]), repeat=seq_len):
        key = tuple(collapse(path, blank))
        out[key] = np.logaddexp(out.get(key, -np.inf), sum(z[t, p] for t, p in
                                                           enumerate(path)))
    return out


@pytest.mark.parametrize("top_paths", [1, 3])
def test_ctc_beam_search_decoder_with_a_wide_beam_is_exact(top_paths):
    x = RNG.standard_normal((4, 3, 3))
    seq = np.array([4, 3, 0])
    want_paths, want_scores = [], []
    for b in range(3):
        ranked = sorted(exact_scores(x[:, b], seq[b]).items(), key=lambda kv: -kv[1])
        want_paths.append([list(k) for k, _ in ranked[:top_paths]])
        want_scores.append([v for _, v in ranked[:top_paths]])
    xs = x[:, :2] if top_paths > 1 else x   # a zero-length row has one path only
    for fn in (gc.nn.ctc_beam_search_decoder, gc.function(gc.nn.ctc_beam_search_decoder)):
        decoded, logp = fn(xs, seq[:xs.shape[1]], 100, top_paths)
        assert len(decoded) == top_paths
        same(logp, np.array(want_scores[:xs.shape[1]]), rtol=1e-12)
        for i, d in enumerate(decoded):
            rows = [want_paths[b][i] for b in range(xs.shape[1])]
            dense = np.full((len(rows), max(len(r) for r in rows)), -1, np.int64)
            for b, r in enumerate(rows):
                dense[b, :len(r)] = r
            same(d, dense)


def test_ctc_beam_search_decoder_narrow_beam_and_errors():
    x = np.log(RNG.dirichlet(np.ones(4), size=(6, 2))).astype(np.float32)
    decoded, logp = gc.nn.ctc_beam_search_decoder(x, [6, 5], beam_width=2, top_paths=2)
    assert logp.dtype == np.float32 and logp.shape == (2, 2)
    assert np.all(np.diff(logp.numpy(), axis=1) <= 0)
    for b, n in enumerate([6, 5]):
        exact = exact_scores(x[:, b].astype(np.float64), n)
        for i in range(2):
            row = decoded[i].numpy()[b]
            # a beam score never exceeds the labelling's full sum over alignments
            assert logp.numpy()[b, i] <= exact[tuple(row[row >= 0])] + 1e-5
    with pytest.raises(gc.errors.InvalidArgumentError, match="more paths"):
        gc.nn.ctc_beam_search_decoder(x, [6, 5], beam_width=1, top_paths=2)
    with pytest.raises(gc.errors.InvalidArgumentError, match="Less leaves"):
        gc.nn.ctc_beam_search_decoder(x, [0, 5], beam_width=2, top_paths=2)


def test_ctc_loss_vectorized_map_matches_a_loop():
    x = RNG.standard_normal((3, T, 2, C)).astype(np.float32)

    def f(v):
        return gc.nn.ctc_loss(LABELS[:2], v, LABEL_LEN[:2], LOGIT_LEN[:2])

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = gc.vectorized_map(f, x)
    same(got, np.stack([f(x[i]).numpy() for i in range(3)]), rtol=1e-6)
