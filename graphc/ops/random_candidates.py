"""``gc.random``'s candidate samplers (TensorFlow's ``*_candidate_sampler``).

Each returns ``(sampled_candidates, true_expected_count, sampled_expected_count)``:
``num_sampled`` int64 classes in ``[0, range_max)`` drawn from the sampler's
distribution ``p`` (without repeats when ``unique``), and the expected number of times
each true class and each sampled class would be drawn: ``p * num_sampled``, or with
``unique`` ``-expm1(num_tries * log1p(-p))`` where ``num_tries`` counts the draws made
(TensorFlow's formulas). The draws are graphc's (global state, ``seed`` as for the other
stateful ops), not TensorFlow's numbers.
"""

from __future__ import annotations

import numpy as np

from graphc.ops import ufuncs
from graphc.ops.convert import asarray, convert_to_tensor
from graphc.ops.creation import arange, ones, ones_like
from graphc.ops.indexing import take
from graphc.ops.random_draw import draw
from graphc.ops.random_tf import GlobalRng


def _true_classes(true_classes, num_true, what):
    t = convert_to_tensor(true_classes)
    if t.dtype != np.int64:
        raise TypeError(f"{what}: true_classes must be int64, got {t.dtype}")
    if t.ndim != 2 or (t.shape[1] is not None and t.shape[1] != num_true):
        raise ValueError(f"{what}: true_classes must be a matrix [batch, num_true="
                         f"{num_true}], got shape {list(t.shape)}")
    return t


def _sample(what, true_classes, num_true, num_sampled, unique, range_max, seed, probs,
            dist, weights=None):
    num_sampled, range_max = int(num_sampled), int(range_max)
    tc = _true_classes(true_classes, int(num_true), what)
    if range_max <= 0 or num_sampled <= 0:
        raise ValueError(f"{what}: num_sampled and range_max must be positive")
    if unique and num_sampled > range_max:
        raise ValueError(f"{what}: with unique=True, num_sampled ({num_sampled}) must be "
                         f"<= range_max ({range_max})")
    kw = {"dist": dist, "num_sampled": num_sampled, "unique": bool(unique),
          "range_max": range_max}
    if weights is not None:
        kw["weights"] = tuple(float(w) for w in weights)
    got = draw(GlobalRng(seed), "tf_candidates", (), None, what, **kw)
    sampled, tries = got[:num_sampled], got[num_sampled].astype(np.float64)
    p = asarray(probs)

    def expected(q):
        if not unique:
            return (q * num_sampled).astype(np.float32)
        many = -ufuncs.expm1(tries * ufuncs.log1p(-q))
        return ufuncs.where(tries == num_sampled, q * num_sampled, many).astype(np.float32)

    return sampled, expected(take(p, tc)), expected(take(p, sampled))


def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                              seed=None, name=None):
    """``tf.random.uniform_candidate_sampler``: classes drawn uniformly."""
    p = np.full(int(range_max), 1.0 / int(range_max))
    return _sample("uniform_candidate_sampler", true_classes, num_true, num_sampled,
                   unique, range_max, seed, p, "uniform")


def log_uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                  seed=None, name=None):
    """``tf.random.log_uniform_candidate_sampler``: Zipfian classes,
    ``P(c) = (log(c + 2) - log(c + 1)) / log(range_max + 1)``."""
    c = np.arange(int(range_max), dtype=np.float64)
    p = (np.log(c + 2) - np.log(c + 1)) / np.log(int(range_max) + 1)
    return _sample("log_uniform_candidate_sampler", true_classes, num_true, num_sampled,
                   unique, range_max, seed, p, "log_uniform")


def fixed_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                    vocab_file="", distortion=1.0, num_reserved_ids=0,
                                    num_shards=1, shard=0, unigrams=(), seed=None,
                                    name=None):
    """``tf.random.fixed_unigram_candidate_sampler``: classes drawn in proportion to
    ``unigrams ** distortion`` (ids below ``num_reserved_ids`` never; with shards, only
    the ids ``i`` with ``i % num_shards == shard``). ``vocab_file`` is not supported:
    read the counts and pass them as ``unigrams``."""
    if vocab_file:
        raise NotImplementedError("fixed_unigram_candidate_sampler: vocab_file is not "
                                  "supported; pass the counts as unigrams=")
    counts = np.asarray(unigrams, np.float64)
    if counts.ndim != 1 or counts.size == 0:
        raise ValueError("fixed_unigram_candidate_sampler: unigrams must be a non-empty "
                         "list of counts")
    if np.any(counts < 0):
        raise ValueError("fixed_unigram_candidate_sampler: unigrams must be >= 0")
    w = np.concatenate([np.zeros(int(num_reserved_ids)), counts ** float(distortion)])
    if w.size != int(range_max):
        raise ValueError(f"fixed_unigram_candidate_sampler: range_max ({range_max}) must "
                         f"be num_reserved_ids + len(unigrams) ({w.size})")
    if not 0 <= int(shard) < int(num_shards):
        raise ValueError(f"shard ({shard}) must be in [0, num_shards={num_shards})")
    w = np.where(np.arange(w.size) % int(num_shards) == int(shard), w, 0.0)
    if w.sum() <= 0:
        raise ValueError("fixed_unigram_candidate_sampler: no id has a positive weight")
    return _sample("fixed_unigram_candidate_sampler", true_classes, num_true, num_sampled,
                   unique, range_max, seed, w / w.sum(), "weights", w)


def all_candidate_sampler(true_classes, num_true, num_sampled, unique, seed=None,
                          name=None):
    """``tf.random.all_candidate_sampler``: the classes ``0 .. num_sampled - 1`` (no
    randomness), each expected once."""
    tc = _true_classes(true_classes, int(num_true), "all_candidate_sampler")
    n = int(num_sampled)
    return (arange(n, dtype=np.int64), ones_like(tc, dtype=np.float32),
            ones(n, dtype=np.float32))
