"""Sampled losses of ``gc.nn``: ``compute_accidental_hits``, ``nce_loss``,
``sampled_softmax_loss``, as compositions of ``embedding_lookup``, the candidate
samplers of ``gc.random`` and the cross entropies of ``gc.nn``."""

from __future__ import annotations

import numpy as np

from graphc.ops import nn_namespaces as _ns
from graphc.ops.nn_select import embedding_lookup
from graphc.ops.random_candidates import log_uniform_candidate_sampler

_F32_MAX = float(np.finfo(np.float32).max)


def _g():
    return _ns.GC, _ns.GNP


def _hits(true_classes, sampled):
    """``(batch, num_true, num_sampled)`` bool: true class == sampled candidate, counting
    only the last position of a candidate drawn more than once (TensorFlow's kernel)."""
    gc, gnp = _g()
    n = sampled.shape[0]
    later = np.arange(n)[None, :] > np.arange(n)[:, None]               # (s, s'): s' > s
    dup_later = gnp.any((sampled[:, None] == sampled[None, :]) & later, axis=1)
    return (true_classes[:, :, None] == sampled[None, None, :]) & ~dup_later


def compute_accidental_hits(true_classes, sampled_candidates, num_true, seed=None,
                            name=None):
    """``tf.nn.compute_accidental_hits``: where a sampled candidate equals one of a
    row's true classes.

    Returns ``(indices, ids, weights)``, one entry per hit in row-major order of
    ``(row, true class)``: the row (int32), the candidate's position in
    ``sampled_candidates`` (int64; the last position of a repeated candidate) and
    ``-FLOAT_MAX`` (float32). The number of hits is known only when the graph runs (the
    results' length is ``None`` while tracing).
    """
    gc, gnp = _g()
    tc = gc.convert_to_tensor(true_classes)
    sc = gc.convert_to_tensor(sampled_candidates)
    if tc.dtype != np.int64 or sc.dtype != np.int64:
        raise TypeError("compute_accidental_hits: true_classes and sampled_candidates "
                        "must be int64")
    if len(tc.shape) != 2 or (tc.shape[1] is not None and tc.shape[1] != int(num_true)):
        raise ValueError(f"compute_accidental_hits: true_classes must be [batch, "
                         f"num_true={num_true}], got {list(tc.shape)}")
    if len(sc.shape) != 1:
        raise ValueError("compute_accidental_hits: sampled_candidates must be a vector")
    hit = _hits(tc, sc)
    row_ids = gnp.cumsum(gc.cast(tc[:, 0] * 0 + 1, np.int32)) - 1
    rows = gnp.where(hit, row_ids[:, None, None], 0)
    pos = gnp.where(hit, np.arange(sc.shape[0], dtype=np.int64), 0)
    indices = gc.cast(gc.boolean_mask(rows, hit), np.int32)
    ids = gc.boolean_mask(pos, hit)
    weights = gc.cast(ids * 0, np.float32) - np.float32(_F32_MAX)
    return indices, ids, weights


def _sampled_logits(what, weights, biases, labels, inputs, num_sampled, num_classes,
                    num_true, sampled_values, subtract_log_q, remove_accidental_hits,
                    seed):
    gc, gnp = _g()

    num_true = int(num_true)
    labels = gc.cast(gc.convert_to_tensor(labels), np.int64)
    if len(labels.shape) != 2:
        raise ValueError(f"{what}: labels must be [batch, num_true], got "
                         f"{list(labels.shape)}")
    inputs = gc.convert_to_tensor(inputs)
    if sampled_values is None:
        sampled_values = log_uniform_candidate_sampler(
            labels, num_true, num_sampled, True, num_classes, seed=seed)
    sampled, true_count, sampled_count = (gc.stop_gradient(gc.convert_to_tensor(v))
                                          for v in sampled_values)
    sampled = gc.cast(sampled, np.int64)
    flat = gnp.reshape(labels, (-1,))
    true_w = embedding_lookup(weights, flat)                             # (b*nt, d)
    samp_w = embedding_lookup(weights, sampled)                          # (s, d)
    true_b = embedding_lookup(biases, flat)
    samp_b = embedding_lookup(biases, sampled)
    dim = true_w.shape[-1]
    true_w = gnp.reshape(true_w, (-1, num_true, dim))
    true_logits = gnp.sum(inputs[:, None, :] * true_w, axis=-1) + \
        gnp.reshape(true_b, (-1, num_true))
    samp_logits = gnp.matmul(inputs, gnp.transpose(samp_w)) + samp_b
    if remove_accidental_hits:
        hit = gnp.any(_hits(labels, sampled), axis=1)                   # (b, s)
        samp_logits = samp_logits + gnp.where(
            hit, np.asarray(-_F32_MAX, samp_logits.dtype), np.asarray(0, samp_logits.dtype))
    if subtract_log_q:
        true_logits = true_logits - gnp.log(gc.cast(true_count, true_logits.dtype))
        samp_logits = samp_logits - gnp.log(gc.cast(sampled_count, samp_logits.dtype))
    logits = gnp.concatenate([true_logits, samp_logits], axis=1)
    targets = gnp.concatenate([gnp.ones_like(true_logits) / num_true,
                               gnp.zeros_like(samp_logits)], axis=1)
    return logits, targets


def nce_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1,
             sampled_values=None, remove_accidental_hits=False, name="nce_loss"):
    """``tf.nn.nce_loss``: noise-contrastive estimation loss, shape ``[batch]``.

    ``weights`` ``[num_classes, dim]`` (or a list of shards split along the first axis),
    ``biases`` ``[num_classes]``, ``labels`` int ``[batch, num_true]``, ``inputs``
    ``[batch, dim]``. Without ``sampled_values``, candidates come from
    ``gc.random.log_uniform_candidate_sampler(unique=True)`` (graphc's draws, not
    TensorFlow's). True logits and sampled logits have ``log`` of their expected counts
    subtracted; each is scored by a sigmoid cross entropy (true classes with target
    ``1 / num_true``) and the row's sum is returned.
    """
    gc, _ = _g()
    logits, targets = _sampled_logits("nce_loss", weights, biases, labels, inputs,
                                      num_sampled, num_classes, num_true, sampled_values,
                                      True, remove_accidental_hits, None)
    losses = gc.nn.sigmoid_cross_entropy_with_logits(labels=targets, logits=logits)
    return gc.reduce_sum(losses, axis=1)


def sampled_softmax_loss(weights, biases, labels, inputs, num_sampled, num_classes,
                         num_true=1, sampled_values=None, remove_accidental_hits=True,
                         seed=None, name="sampled_softmax_loss"):
    """``tf.nn.sampled_softmax_loss``: softmax cross entropy over the true classes and
    ``num_sampled`` sampled ones, shape ``[batch]``.

    Arguments as ``nce_loss``; by default sampled candidates equal to a row's true class
    are removed (their logit lowered by ``FLOAT_MAX``), and ``log`` of the expected
    counts is subtracted from the logits. ``seed`` seeds the default sampler.
    """
    gc, _ = _g()
    logits, targets = _sampled_logits("sampled_softmax_loss", weights, biases, labels,
                                      inputs, num_sampled, num_classes, num_true,
                                      sampled_values, True, remove_accidental_hits, seed)
    return gc.nn.softmax_cross_entropy_with_logits(labels=gc.stop_gradient(targets),
                                                   logits=logits)
