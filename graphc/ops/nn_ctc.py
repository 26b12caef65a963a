"""CTC names of ``gc.nn``: ``ctc_loss``, ``ctc_greedy_decoder``, ``collapse_repeated``,
``ctc_unique_labels``, as compositions of existing ops.

``ctc_loss`` runs the CTC forward (alpha) recursion in log space over the time steps
(known while tracing), one masked ``logsumexp`` of three shifted copies per step; the
gradient (the alpha-beta result) comes from the ops used. Unreachable states hold a
large negative finite number instead of ``-inf`` so that no ``nan`` reaches the
gradient. The decoders return dense tensors where TensorFlow returns ``SparseTensor``s
(docs/nn.md).
"""

from __future__ import annotations

import numpy as np

from graphc.errors import InvalidArgumentError
from graphc.ops import nn_namespaces as _ns


def _g():
    return _ns.GC, _ns.GNP


def _compact(keep, values, width, fill):
    """Row-wise compaction along axis 1: ``out[b, j]`` is the ``j``-th kept value of row
    ``b`` (``fill`` past the kept ones), ``width`` columns."""
    gc, gnp = _g()
    ki = gc.cast(keep, np.int64)
    pos = gnp.cumsum(ki, axis=1) - 1
    slots = np.arange(width, dtype=np.int64)
    hit = keep[:, :, None] & (pos[:, :, None] == slots)              # (b, i, j)
    v = gc.cast(values, np.int64)
    got = gnp.sum(gnp.where(hit, v[:, :, None] - fill, 0), axis=1) + fill
    return got


def collapse_repeated(labels, seq_length, name=None):
    """``tf.nn.collapse_repeated``: merge runs of equal labels into one.

    ``labels`` is ``[batch, max_len]``, ``seq_length`` ``[batch]``. Returns
    ``(collapsed_labels, new_seq_len)``: the collapsed rows padded with 0 to the longest
    new length (a width known only when the graph runs), and the new lengths in
    ``seq_length``'s dtype.
    """
    gc, gnp = _g()
    labels = gc.convert_to_tensor(labels)
    seq_length = gc.convert_to_tensor(seq_length)
    if len(labels.shape) != 2:
        raise ValueError(f"collapse_repeated: labels must be [batch, max_len], got shape "
                         f"{list(labels.shape)}")
    n = labels.shape[1]
    new = gnp.pad(labels[:, 1:] != labels[:, :-1], [(0, 0), (1, 0)],
                  constant_values=True)
    keep = new & gc.sequence_mask(seq_length, maxlen=n)
    new_len = gnp.sum(gc.cast(keep, np.int32), axis=1)
    out = gc.cast(_compact(keep, labels, n, 0), labels.dtype)
    return out[:, :gnp.max(new_len)], gc.cast(new_len, seq_length.dtype)


def ctc_unique_labels(labels, name=None):
    """``tf.nn.ctc_unique_labels``: per row of ``labels`` (``[batch, max_len]``), the
    distinct labels in order of first appearance (int64, padded with 0 to ``max_len``)
    and, for each label, the index of its value in that list (int32) — ``tf.unique``
    per row."""
    gc, gnp = _g()
    x = gc.convert_to_tensor(labels)
    if len(x.shape) != 2:
        raise ValueError(f"ctc_unique_labels: labels must be [batch, max_len], got shape "
                         f"{list(x.shape)}")
    n = x.shape[1]
    eq = x[:, :, None] == x[:, None, :]                                   # (b, i, j)
    before = np.arange(n)[None, :] < np.arange(n)[:, None]               # j < i
    first = ~gnp.any(eq & before, axis=2)
    rank = gnp.cumsum(gc.cast(first, np.int64), axis=1) - 1
    idx = gnp.sum(gnp.where(eq & first[:, None, :], rank[:, None, :], 0), axis=2)
    uniq = _compact(first, x, n, 0)
    return gc.cast(uniq, np.int64), gc.cast(idx, np.int32)


def _lse3(a, b, c):
    gc, gnp = _g()
    m = gnp.maximum(gnp.maximum(a, b), c)
    return m + gnp.log(gnp.exp(a - m) + gnp.exp(b - m) + gnp.exp(c - m))


def ctc_loss(labels, logits, label_length, logit_length, logits_time_major=True,
             unique=None, blank_index=None, name=None):
    """``tf.nn.ctc_loss`` (TensorFlow 2): the negative log-likelihood of each label
    sequence under CTC, shape ``[batch]``.

    ``labels``: dense int ``[batch, max_label_len]`` with ``label_length`` ``[batch]``
    (``SparseTensor`` labels are not supported); ``logits``: unnormalised
    ``[max_time, batch, classes]`` (``[batch, max_time, classes]`` with
    ``logits_time_major=False``) with ``logit_length`` ``[batch]``; ``blank_index``
    defaults to 0, a negative one counts from ``classes``. ``unique`` (from
    ``ctc_unique_labels``) is only a speed hint in TensorFlow and is ignored. A label
    sequence no alignment can produce gives ``inf``. ``max_time`` must be known while
    tracing (the recursion is unrolled over it).
    """
    gc, gnp = _g()
    if isinstance(labels, gc.SparseTensor if hasattr(gc, "SparseTensor") else ()):
        raise TypeError("ctc_loss: SparseTensor labels are not supported")
    logits = gc.convert_to_tensor(logits)
    labels = gc.convert_to_tensor(labels)
    if len(logits.shape) != 3:
        raise ValueError(f"ctc_loss: logits must have rank 3, got {list(logits.shape)}")
    if len(labels.shape) != 2:
        raise ValueError(f"ctc_loss: labels must be [batch, max_label_len], got "
                         f"{list(labels.shape)}")
    if labels.dtype.kind not in "iu":
        raise TypeError(f"ctc_loss: labels must be integers, got {labels.dtype}")
    if not logits_time_major:
        logits = gnp.transpose(logits, (1, 0, 2))
    t_max, _, classes = logits.shape
    if t_max is None or classes is None or labels.shape[1] is None:
        raise ValueError("ctc_loss: max_time, classes and max_label_len must be known "
                         "while tracing")
    blank = 0 if blank_index is None else int(blank_index)
    if blank < 0:
        blank += classes
    if not 0 <= blank < classes:
        raise ValueError(f"ctc_loss: blank_index {blank_index} out of range for "
                         f"{classes} classes")
    dtype = logits.dtype
    work = np.dtype(np.float32) if dtype == np.float16 else dtype
    lp = gc.nn.log_softmax(gc.cast(logits, work), axis=-1)               # (t, b, c)
    lab = gc.cast(labels, np.int64)
    lab_len = gc.cast(gc.convert_to_tensor(label_length), np.int64)
    t_len = gc.cast(gc.convert_to_tensor(logit_length), np.int64)
    n_lab = labels.shape[1]
    s = 2 * n_lab + 1
    if n_lab:
        ext = gnp.reshape(gnp.stack([lab * 0 + blank, lab], axis=2), (-1, 2 * n_lab))
    else:
        ext = lab
    ext = gnp.pad(ext, [(0, 0), (0, 1)], constant_values=blank)
    b = gc.shape(ext)[0]
    emit = gnp.take_along_axis(
        lp, gnp.broadcast_to(ext[None], gc.stack([t_max, b, s])), axis=2)  # (t, b, s)
    neg = np.asarray(-1e30, work)
    if s > 2:
        skip = gnp.pad((ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2]),
                       [(0, 0), (2, 0)], constant_values=False)
    else:
        skip = ext != ext
    start = np.arange(s) < 2
    alpha = gnp.where(start, emit[0], neg)
    for t in range(1, t_max):
        a1 = gnp.pad(alpha[:, :-1], [(0, 0), (1, 0)], constant_values=neg)
        a2 = gnp.pad(alpha[:, :-2], [(0, 0), (2, 0)], constant_values=neg)[:, :s]
        a2 = gnp.where(skip, a2, neg)
        step = _lse3(alpha, a1, a2) + emit[t]
        alpha = gnp.where((t < t_len)[:, None], step, alpha)
    end = gnp.take_along_axis(alpha, (2 * lab_len)[:, None], axis=1)[:, 0]
    prev = gnp.take_along_axis(alpha, gnp.maximum(2 * lab_len - 1, 0)[:, None],
                               axis=1)[:, 0]
    prev = gnp.where(lab_len > 0, prev, neg)
    m = gnp.maximum(end, prev)
    ll = m + gnp.log(gnp.exp(end - m) + gnp.exp(prev - m))
    loss = gnp.where(ll > neg / 2, -ll, np.asarray(np.inf, work))
    return gc.cast(loss, dtype)


def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True, blank_index=None):
    """``tf.nn.ctc_greedy_decoder``: best-path decoding of ``inputs``
    (``[max_time, batch, classes]`` logits) within ``sequence_length``.

    Returns ``(decoded, neg_sum_logits)`` as TensorFlow, except that ``decoded[0]`` is a
    dense int64 ``[batch, max_decoded_len]`` tensor padded with ``-1`` (TensorFlow: a
    ``SparseTensor`` of that shape; ``tf.sparse.to_dense(d, default_value=-1)`` is this
    tensor). ``neg_sum_logits`` (``[batch, 1]``) is minus the sum over time of each
    step's largest logit. ``blank_index`` defaults to ``classes - 1``; with
    ``merge_repeated`` a run of the same class emits it once.
    """
    gc, gnp = _g()
    x = gc.convert_to_tensor(inputs)
    if len(x.shape) != 3:
        raise ValueError(f"ctc_greedy_decoder: inputs must be [max_time, batch, classes], "
                         f"got {list(x.shape)}")
    if x.dtype not in (np.float32, np.float64):
        raise TypeError(f"ctc_greedy_decoder: inputs must be float32 or float64, got "
                        f"{x.dtype}")
    t_max, _, classes = x.shape
    if t_max is None or classes is None:
        raise ValueError("ctc_greedy_decoder: max_time and classes must be known while "
                         "tracing")
    blank = classes - 1 if blank_index is None else int(blank_index)
    if blank < 0:
        blank += classes
    seq = gc.cast(gc.convert_to_tensor(sequence_length), np.int64)
    best = gc.cast(gnp.argmax(x, axis=2), np.int64)                      # (t, b)
    valid = np.arange(t_max)[:, None] < seq[None, :]
    keep = valid & (best != blank)
    if merge_repeated and t_max > 1:
        fresh = gnp.pad(best[1:] != best[:-1], [(1, 0), (0, 0)], constant_values=True)
        keep = keep & fresh
    neg_sum = -gnp.sum(gnp.where(valid, gnp.max(x, axis=2), 0), axis=0)[:, None]
    keep_b = gnp.transpose(keep)
    dense = _compact(keep_b, gnp.transpose(best), t_max, -1)
    width = gnp.max(gnp.sum(gc.cast(keep_b, np.int64), axis=1)) if t_max else 0
    return [dense[:, :width]], gc.cast(neg_sum, x.dtype)


# ------------------------------------------------------------------ beam search (host)
_NEG_INF = -np.inf


def _logaddexp(a, b):
    return b if a == _NEG_INF else a if b == _NEG_INF else float(np.logaddexp(a, b))


class _Beam:
    """One prefix in the search trie: probabilities ``[blank, label, total]`` (log) at
    the previous step (``old``) and this one (``new``)."""

    __slots__ = ("parent", "label", "children", "old", "new")

    def __init__(self, parent, label):
        self.parent, self.label, self.children = parent, label, {}
        self.old = [_NEG_INF] * 3
        self.new = [_NEG_INF] * 3

    def child(self, label):
        if label not in self.children:
            self.children[label] = _Beam(self, label)
        return self.children[label]

    def active(self):
        return self.new[2] != _NEG_INF

    def labels(self):
        out, e = [], self
        while e.parent is not None:
            out.append(e.label)
            e = e.parent
        return out[::-1]


def _beam_rows(x, seq_len, width, top):
    """``x`` (time, classes) scores of one example; blank is the last class. Returns
    the ``top`` label sequences and their scores, best first."""
    classes = x.shape[1]
    blank = classes - 1
    root = _Beam(None, -1)
    root.new = [0.0, _NEG_INF, 0.0]
    leaves = [root]

    def bottom():
        return min(leaves, key=lambda e: e.new[2])

    def push(e):
        if len(leaves) < width:
            leaves.append(e)
        else:
            low = bottom()
            if e.new[2] > low.new[2]:
                leaves[leaves.index(low)] = e

    def candidate(p):
        return p[2] > _NEG_INF and (len(leaves) < width or p[2] > bottom().new[2])

    for t in range(seq_len):
        row = x[t]
        top_score = float(row.max())
        branches = sorted(leaves, key=lambda e: -e.new[2])
        leaves = []
        for b in branches:
            b.old = list(b.new)
        for b in branches:
            if b.parent is not None:
                if b.parent.active():
                    prev = b.parent.old[0] if b.label == b.parent.label else b.parent.old[2]
                    b.new[1] = _logaddexp(b.new[1], prev)
                b.new[1] += float(row[b.label]) - top_score
            b.new[0] = b.old[2] + float(row[blank]) - top_score
            b.new[2] = _logaddexp(b.new[0], b.new[1])
            push(b)
        for b in branches:
            if not candidate(b.old):
                continue
            for label in range(classes - 1):
                c = b.child(label)
                if c.active():
                    continue
                prev = b.old[0] if label == b.label else b.old[2]
                c.new = [_NEG_INF, float(row[label]) - top_score + prev, _NEG_INF]
                c.new[2] = c.new[1]
                if candidate(c.new):
                    if len(leaves) == width:
                        bottom().new = [_NEG_INF] * 3
                    push(c)
                else:
                    c.old = [_NEG_INF] * 3
                    c.new = [_NEG_INF] * 3
    if top > len(leaves):
        raise InvalidArgumentError("ctc_beam_search_decoder: Less leaves in the beam "
                                   "search than requested.")
    best = sorted(leaves, key=lambda e: -e.new[2])[:top]
    return [e.labels() for e in best], [e.new[2] for e in best]


def _beam_search_host(x, seq, width, top):
    t_max, batch, _ = x.shape
    dense = np.full((top, batch, t_max), -1, np.int64)
    scores = np.zeros((batch, top), x.dtype)
    for b in range(batch):
        paths, probs = _beam_rows(x[:, b].astype(np.float64), int(seq[b]), width, top)
        for i, (p, s) in enumerate(zip(paths, probs, strict=True)):
            dense[i, b, :len(p)] = p
            scores[b, i] = s
    return dense, scores


def ctc_beam_search_decoder(inputs, sequence_length, beam_width=100, top_paths=1):
    """``tf.nn.ctc_beam_search_decoder``: CTC prefix beam search over ``inputs``
    (``[max_time, batch, classes]`` logits; blank is the last class; repeats are not
    merged beyond CTC's own rule, as TensorFlow 2).

    Returns ``(decoded, log_probability)``: ``decoded`` a list of ``top_paths`` dense
    int64 ``[batch, max_decoded_len]`` tensors padded with ``-1`` (TensorFlow:
    ``SparseTensor``s), best first, and ``log_probability`` ``[batch, top_paths]`` —
    TensorFlow's beam scores, which subtract each step's largest logit rather than
    normalising (pass log-probabilities to get log-probabilities back). The search runs
    on the host when the graph runs (a ``gc.numpy_function``): not under
    ``jit_compile=True``, no gradient.
    """
    gc, gnp = _g()

    x = gc.convert_to_tensor(inputs)
    if len(x.shape) != 3:
        raise ValueError(f"ctc_beam_search_decoder: inputs must be [max_time, batch, "
                         f"classes], got {list(x.shape)}")
    if x.dtype not in (np.float32, np.float64):
        raise TypeError(f"ctc_beam_search_decoder: inputs must be float32 or float64, "
                        f"got {x.dtype}")
    width, top = int(beam_width), int(top_paths)
    if width <= 0 or top <= 0:
        raise InvalidArgumentError("ctc_beam_search_decoder: beam_width and top_paths "
                                   "must be positive")
    if top > width:
        raise InvalidArgumentError("ctc_beam_search_decoder: requested more paths than "
                                   "the beam width.")
    seq = gc.cast(gc.convert_to_tensor(sequence_length), np.int32)
    dense, scores = gc.numpy_function(
        lambda a, s: _beam_search_host(np.asarray(a), np.asarray(s), width, top),
        [x, seq], [np.int64, x.dtype], stateful=False)
    batch, t_max = x.shape[1], x.shape[0]
    dense = gnp.reshape(dense, gc.stack([top, gc.shape(x)[1], t_max])
                        if batch is None else (top, batch, t_max))
    scores = gnp.reshape(scores, gc.stack([gc.shape(x)[1], top])
                         if batch is None else (batch, top))
    decoded = []
    for i in range(top):
        d = dense[i]
        width_i = gnp.max(gnp.sum(gc.cast(d >= 0, np.int64), axis=1)) if t_max else 0
        decoded.append(d[:, :width_i])
    return decoded, scores
