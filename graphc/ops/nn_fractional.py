"""``gc.nn.fractional_max_pool`` / ``fractional_avg_pool``: pooling over pseudo-random
regions (Graham, "Fractional Max-Pooling"), as compositions.

The row and column pooling sequences are generated in the graph from graphc's random
draws with TensorFlow's documented rule; each output cell pools the rectangle between
consecutive sequence entries. The pooling is separable: a masked reduction over the
rows of each row region, then over the columns, so the gradient comes from the ops used.
"""

from __future__ import annotations

import numpy as np

from graphc.ops import nn_namespaces as _ns


def _g():
    return _ns.GC, _ns.GNP


def _ratios(pooling_ratio, what):
    r = pooling_ratio
    r = [float(v) for v in (r if isinstance(r, list | tuple) else [r])]
    if len(r) == 1:
        r = [1.0, r[0], r[0], 1.0]
    elif len(r) == 2:
        r = [1.0, r[0], r[1], 1.0]
    elif len(r) != 4:
        raise ValueError(f"{what}: pooling_ratio should be a float or a list of 1, 2 or 4 "
                         f"floats, got {pooling_ratio}")
    if r[0] != 1.0 or r[3] != 1.0:
        raise ValueError(f"{what}: pooling on the batch or channel dimension is not "
                         f"supported (pooling_ratio[0] and [3] must be 1.0)")
    if r[1] < 1.0 or r[2] < 1.0:
        raise ValueError(f"{what}: pooling_ratio must be >= 1.0, got {pooling_ratio}")
    return r[1], r[2]


def _sequence(n_in, n_out, pseudo_random, seed):
    """int64 ``[n_out + 1]``: 0, the region starts, ``n_in``."""
    gc, gnp = _g()
    k = n_in // n_out
    if n_in % n_out == 0:
        diff = gnp.full((n_out,), k, dtype=np.int64)
    elif pseudo_random:
        alpha = n_in / n_out
        max_u = min((k + 2) / alpha - 1, (n_in + 1 - k) / alpha - (n_out - 1))
        u = gc.random.uniform([], 0.0, max_u, dtype=np.float64, seed=seed)
        inner = gc.cast(gnp.ceil(alpha * (np.arange(1, n_out, dtype=np.float64) + u)),
                        np.int64)
        cum = gnp.concatenate([np.ones(1, np.int64), inner,
                               np.full(1, n_in + 1, np.int64)])
        diff = cum[1:] - cum[:-1]
    else:
        perm = gnp.argsort(gc.random.uniform([n_out], dtype=np.float64, seed=seed))
        diff = k + gc.cast(perm < n_in % n_out, np.int64)
    return gnp.concatenate([np.zeros(1, np.int64), gnp.cumsum(diff)])


def _members(seq, n_in, overlapping):
    """bool ``[n_out, n_in]``: input index ``r`` lies in output region ``i``."""
    gc, gnp = _g()
    r = np.arange(n_in, dtype=np.int64)
    end = seq[1:] if overlapping else seq[1:] - 1
    end = gnp.minimum(end, n_in - 1)
    return (r >= seq[:-1, None]) & (r <= end[:, None])


def _fractional(what, value, pooling_ratio, pseudo_random, overlapping, seed, reduce):
    gc, gnp = _g()
    x = gc.convert_to_tensor(value)
    if len(x.shape) != 4:
        raise ValueError(f"{what}: value must be 4-D [batch, height, width, channels], "
                         f"got {list(x.shape)}")
    if x.dtype not in (np.float32, np.float64, np.int32, np.int64):
        raise TypeError(f"{what}: value must be float32, float64, int32 or int64, got "
                        f"{x.dtype}")
    rh, rw = _ratios(pooling_ratio, what)
    h, w = x.shape[1], x.shape[2]
    if h is None or w is None:
        raise ValueError(f"{what}: height and width must be known while tracing")
    oh, ow = int(np.floor(h / rh)), int(np.floor(w / rw))
    if oh <= 0 or ow <= 0:
        raise ValueError(f"{what}: output size must be greater than 0 (input {h}x{w}, "
                         f"pooling_ratio {pooling_ratio})")
    seed = None if not seed else int(seed)
    row_seq = _sequence(h, oh, pseudo_random, seed)
    col_seq = _sequence(w, ow, pseudo_random, None if seed is None else seed + 1)
    mr = _members(row_seq, h, overlapping)                               # (oh, h)
    mc = _members(col_seq, w, overlapping)                               # (ow, w)
    y = reduce(x[:, None], mr[None, :, :, None, None], 2)               # (b, oh, w, c)
    y = reduce(y[:, :, None], mc[None, None, :, :, None], 3)            # (b, oh, ow, c)
    return y, row_seq, col_seq


def fractional_max_pool(value, pooling_ratio, pseudo_random=False, overlapping=False,
                        seed=0, name=None):
    """``tf.nn.fractional_max_pool``: max over pseudo-random rectangles of ``value``
    (NHWC).

    ``pooling_ratio`` (a float, or a list of 1, 2 or 4 floats whose first and last are
    1.0) sets ``out = floor(in / ratio)`` per spatial dimension. Returns ``(output,
    row_pooling_sequence, col_pooling_sequence)``; the sequences (int64, ``out + 1``
    entries from 0 to ``in``) are TensorFlow's rule — region sizes ``k`` or ``k + 1``
    in random order, or with ``pseudo_random`` ``ceil(alpha * (i + u))`` — drawn from
    graphc's generator, so the same ``seed`` gives other sequences than TensorFlow.
    ``overlapping`` lets each region include the next region's first row/column.
    ``seed=0`` draws fresh values each call.
    """
    gc, gnp = _g()

    def reduce(v, mask, axis):
        low = (np.asarray(-np.inf, v.dtype) if v.dtype.kind == "f"
               else np.asarray(np.iinfo(v.dtype).min, v.dtype))
        return gnp.max(gnp.where(mask, v, low), axis=axis)

    return _fractional("fractional_max_pool", value, pooling_ratio, pseudo_random,
                       overlapping, seed, reduce)


def fractional_avg_pool(value, pooling_ratio, pseudo_random=False, overlapping=False,
                        seed=0, name=None):
    """``tf.nn.fractional_avg_pool``: the mean over the pseudo-random rectangles of
    ``fractional_max_pool`` (same arguments and sequence rule). Integer inputs give
    the mean truncated toward zero, as TensorFlow's integer kernel."""
    gc, gnp = _g()

    def reduce(v, mask, axis):
        total = gnp.sum(gnp.where(mask, v, np.asarray(0, v.dtype)), axis=axis)
        return total / gnp.sum(gc.cast(mask, v.dtype), axis=axis)

    x = gc.convert_to_tensor(value)
    if x.dtype not in (np.int32, np.int64):
        return _fractional("fractional_avg_pool", x, pooling_ratio, pseudo_random,
                           overlapping, seed, reduce)
    out, rows, cols = _fractional("fractional_avg_pool", gc.cast(x, np.float64),
                                  pooling_ratio, pseudo_random, overlapping, seed, reduce)
    return gc.cast(gnp.trunc(out), x.dtype), rows, cols
