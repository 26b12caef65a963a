"""Moments, normalization and loss-scaling names of ``gc.nn`` (TensorFlow's ``tf.nn``),
as compositions of reductions and elementwise ops (no op of their own).

float16 inputs of ``moments``/``weighted_moments`` are computed in float32 and cast back,
as TensorFlow does. ``moments`` holds the mean out of the variance's gradient
(``stop_gradient``), as TensorFlow does: the gradient is the same, the graph smaller.
"""

from __future__ import annotations

import numpy as np

from graphc import source_info
from graphc.core.registry import bind
from graphc.ops import elementwise as _ew
from graphc.ops.convert import convert_to_tensor
from graphc.ops.linalg import matmul
from graphc.ops.reduce import mean as _mean
from graphc.ops.reduce import sum as _sum
from graphc.ops.shape import broadcast_to, shape, squeeze
from graphc.ops.ufuncs import where

_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)


def _t(x, dtype=None):
    return convert_to_tensor(x, dtype=dtype)


def _cast(x, dtype):
    return x if x.dtype == np.dtype(dtype) else bind(_ew.CAST, x, dtype=np.dtype(dtype))


def _axes(x, axes):
    rank = len(x.shape)
    if axes is None:
        return tuple(range(rank))
    axes = (axes,) if isinstance(axes, int | np.integer) else tuple(axes)
    for a in axes:
        if not -rank <= int(a) < max(rank, 1):
            raise ValueError(f"axis {int(a)} is out of bounds for a tensor of rank {rank}"
                             f"{source_info.where()}")
    return tuple(sorted({int(a) % max(rank, 1) for a in axes}))


def _rsqrt(x):
    return 1 / bind(_ew.SQRT, x)


# --------------------------------------------------------------------------- moments
def moments(x, axes, shift=None, keepdims=False, name=None):
    """``tf.nn.moments``: ``(mean, variance)`` of ``x`` over ``axes`` (``shift`` is
    unused, as in TensorFlow 2)."""
    x = _t(x)
    dtype = x.dtype
    y = _cast(x, _F32) if dtype == _F16 else x
    ax = _axes(y, axes)
    mean = _mean(y, axis=ax, keepdims=True)
    d = y - bind(_ew.STOP_GRADIENT, mean)
    variance = _mean(d * d, axis=ax, keepdims=True)
    if not keepdims:
        mean, variance = squeeze(mean, axis=ax), squeeze(variance, axis=ax)
    return _cast(mean, dtype), _cast(variance, dtype)


def weighted_moments(x, axes, frequency_weights, keepdims=False, name=None):
    """``tf.nn.weighted_moments``: the mean and variance of ``x`` over ``axes`` with each
    element counted ``frequency_weights`` times (broadcast against ``x``)."""
    x = _t(x)
    dtype = x.dtype
    y = _cast(x, _F32) if dtype == _F16 else x
    w = _t(frequency_weights, dtype=y.dtype)
    ax = _axes(y, axes)
    weighted_sum = _sum(w * y, axis=ax, keepdims=True)
    full_w = w * _ones_like(y)  # the weights broadcast to x's shape
    divisor = 1 / _sum(full_w, axis=ax, keepdims=True)
    mean = weighted_sum * divisor
    d = y - mean
    variance = _sum(w * d * d, axis=ax, keepdims=True) * divisor
    if not keepdims:
        mean, variance = squeeze(mean, axis=ax), squeeze(variance, axis=ax)
    return _cast(mean, dtype), _cast(variance, dtype)


def _ones_like(x):
    one = np.ones((), x.dtype)
    return broadcast_to(one, shape(x)) if None in x.shape else broadcast_to(one, x.shape)


def sufficient_statistics(x, axes, shift=None, keepdims=False, name=None):
    """``tf.nn.sufficient_statistics``: ``(count, sum(x - shift), sum((x - shift)**2),
    shift)`` over ``axes`` (no shift: ``sum(x)``, ``sum(x**2)`` and ``None``)."""
    x = _t(x)
    ax = _axes(x, axes)
    dims = [x.shape[a] for a in ax]
    if None not in dims:
        counts = _t(np.asarray(np.prod(dims, dtype=np.int64), x.dtype))
    else:
        counts = _cast(_sum(_ones_like(x), axis=ax), x.dtype)
        counts = counts if not counts.shape else counts.reshape(-1)[0]
    if shift is not None:
        shift = _t(shift, dtype=x.dtype)
        m_ss, v_ss = x - shift, (x - shift) * (x - shift)
    else:
        m_ss, v_ss = x, x * x
    return (counts, _sum(m_ss, axis=ax, keepdims=keepdims),
            _sum(v_ss, axis=ax, keepdims=keepdims), shift)


def normalize_moments(counts, mean_ss, variance_ss, shift, name=None):
    """``tf.nn.normalize_moments``: ``(mean, variance)`` from sufficient statistics."""
    mean_ss = _t(mean_ss)
    divisor = 1 / _t(counts, dtype=mean_ss.dtype)
    shifted_mean = mean_ss * divisor
    mean = shifted_mean if shift is None else shifted_mean + _t(shift, dtype=mean_ss.dtype)
    variance = _t(variance_ss, dtype=mean_ss.dtype) * divisor - shifted_mean * shifted_mean
    return mean, variance


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """``tf.nn.batch_normalization``: ``scale * (x - mean) / sqrt(variance + eps) +
    offset``; ``offset`` and ``scale`` may be ``None``."""
    x = _t(x)
    inv = _rsqrt(_t(variance, dtype=x.dtype) + variance_epsilon)
    if scale is not None:
        inv = inv * _t(scale, dtype=x.dtype)
    mean = _t(mean, dtype=x.dtype)
    shift = (_t(offset, dtype=x.dtype) - mean * inv) if offset is not None else -mean * inv
    return x * _cast(inv, x.dtype) + _cast(shift, x.dtype)


def batch_norm_with_global_normalization(input, mean, variance, beta, gamma,  # noqa: A002
                                         variance_epsilon, scale_after_normalization,
                                         name=None):
    """``tf.nn.batch_norm_with_global_normalization``: :func:`batch_normalization` with
    offset ``beta`` and, when ``scale_after_normalization``, scale ``gamma``."""
    return batch_normalization(input, mean, variance, beta,
                               gamma if scale_after_normalization else None,
                               variance_epsilon)


def l2_loss(t, name=None):
    """``tf.nn.l2_loss``: ``sum(t ** 2) / 2``, a scalar of ``t``'s dtype."""
    t = _t(t)
    return _sum(t * t) / np.asarray(2, t.dtype)


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """``tf.math.l2_normalize``: ``x / sqrt(max(sum(x**2, axis), epsilon))`` (``axis``
    None: all axes; ``dim`` is the deprecated spelling of ``axis``)."""
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'dim'")
        axis = dim
    x = _t(x)
    ax = _axes(x, axis)
    sq = _sum(x * x, axis=ax, keepdims=True)
    return x * _rsqrt(bind(_ew.MAXIMUM, sq, np.asarray(epsilon, sq.dtype)))


def local_response_normalization(input, depth_radius=5, bias=1, alpha=1, beta=0.5,  # noqa: A002
                                 name=None):
    """``tf.nn.local_response_normalization`` (``lrn``): each element of a 4-D input
    divided by ``(bias + alpha * sum of squares over the channels within depth_radius)
    ** beta`` (the sum is one matmul with a band matrix)."""
    x = _t(input)
    if len(x.shape) != 4:
        raise ValueError(f"local_response_normalization: input must be 4-D, got shape "
                         f"{x.shape}{source_info.where()}")
    c = x.shape[-1]
    if c is None:
        raise ValueError("local_response_normalization: the channel dimension must be "
                         "known while tracing")
    i = np.arange(c)
    band = (np.abs(i[:, None] - i[None, :]) <= int(depth_radius)).astype(x.dtype)
    sqr_sum = matmul(x * x, band)
    return x / (bias + alpha * sqr_sum) ** beta


lrn = local_response_normalization


# --------------------------------------------------------------------------- loss scaling
def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """``tf.nn.compute_average_loss``: ``sum(per_example_loss * sample_weight) /
    global_batch_size`` (by default the loss's first dimension: one replica)."""
    loss = _t(per_example_loss)
    if len(loss.shape) == 0:
        raise ValueError("Invalid value passed for `per_example_loss`. Expected a tensor "
                         "with at least rank 1.")
    dtype = loss.dtype
    if sample_weight is not None:
        w = _t(sample_weight, dtype=dtype)
        while len(w.shape) > len(loss.shape) and w.shape[-1] == 1:
            w = squeeze(w, axis=-1)
        loss = loss * w
    if global_batch_size is None:
        n = loss.shape[0]
        global_batch_size = n if n is not None else shape(loss)[0]
    elif isinstance(global_batch_size, int | np.integer):
        if global_batch_size <= 0:
            raise ValueError(f"global_batch_size must be positive. Received: "
                             f"{global_batch_size}")
    elif isinstance(global_batch_size, float):
        raise TypeError("global_batch_size must be an integer.")
    return _sum(loss) / _t(global_batch_size, dtype=dtype)


def scale_regularization_loss(regularization_loss):
    """``tf.nn.scale_regularization_loss``: ``sum(regularization_loss)`` divided by the
    number of replicas (1: graphc runs one)."""
    return _sum(_t(regularization_loss))


def zero_fraction(value, name=None):
    """``tf.math.zero_fraction``: the fraction of elements equal to 0, float32 (NaN for
    an empty tensor)."""
    v = _t(value)
    zeros = where(v == 0, np.ones((), _F32), np.zeros((), _F32))
    return _mean(zeros)
