"""Softmax, log-sum-exp and the cross-entropy losses of ``gc.nn`` (``tf.nn`` and
``jax.nn``), as compositions of reductions and elementwise ops (no op of their own).

Every exponential is taken after subtracting the maximum along the axis (held out of the
gradient with ``stop_gradient``, which changes nothing mathematically), so large logits
neither overflow nor lose precision. float16 inputs are computed in float32 and cast
back, as TensorFlow does.
"""

from __future__ import annotations

import numpy as np

from graphc import source_info
from graphc.core.registry import bind
from graphc.errors import InvalidArgumentError
from graphc.ops import elementwise as _ew
from graphc.ops.convert import convert_to_tensor
from graphc.ops.indexing import take_along_axis
from graphc.ops.reduce import max as _max
from graphc.ops.reduce import mean as _mean
from graphc.ops.reduce import sum as _sum
from graphc.ops.shape import broadcast_to, expand_dims, shape, squeeze
from graphc.ops.shape_args import static_value
from graphc.ops.ufuncs import where as _where

_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)


def _t(x, dtype=None):
    return convert_to_tensor(x, dtype=dtype)


def _exp(x):
    return bind(_ew.EXP, x)


def _log(x):
    return bind(_ew.LOG, x)


def _stop(x):
    return bind(_ew.STOP_GRADIENT, x)


def _axis_of(x, axis, name):
    rank = len(x.shape)
    if rank == 0:
        raise InvalidArgumentError(f"{name}: logits must have >= 1 dimension, got shape "
                                   f"(){source_info.where()}")
    axis = -1 if axis is None else int(axis)
    if not -rank <= axis < rank:
        raise InvalidArgumentError(f"{name}: axis {axis} is out of bounds for a tensor of "
                                   f"rank {rank}{source_info.where()}")
    return axis % rank


def _up(x):
    """float16 computed in float32 (TensorFlow's rule); ``(x, dtype to return)``."""
    return (bind(_ew.CAST, x, dtype=_F32), _F16) if x.dtype == _F16 else (x, None)


def _down(y, dtype):
    return y if dtype is None else bind(_ew.CAST, y, dtype=dtype)


def _shifted(x, axis, mask=None):
    """``x - max(x)`` along ``axis`` (kept), the max out of the gradient and 0 where it
    is not finite; ``mask`` False elements count as ``-inf``."""
    xm = x if mask is None else _where(mask, x, -np.inf)
    m = _stop(_max(xm, axis=axis, keepdims=True))
    m = _where(bind(_ew.ISFINITE, m), m, np.zeros((), m.dtype))
    return xm - m, m


# --------------------------------------------------------------------------- softmax
def softmax(logits, axis=None, name=None, *, where=None):
    """``tf.nn.softmax(logits, axis=-1)`` / ``jax.nn.softmax(x, axis=-1, where=None)``:
    ``exp(x) / sum(exp(x))`` along ``axis``. With ``where`` (JAX), masked-out elements
    take no part and get 0."""
    x, back = _up(_t(logits))
    ax = _axis_of(x, axis, "softmax")
    mask = where
    z, _ = _shifted(x, ax, mask)
    e = _exp(z)
    out = e / _sum(e, axis=ax, keepdims=True)
    if mask is not None:
        out = _where(mask, out, np.zeros((), out.dtype))
    return _down(out, back)


def log_softmax(logits, axis=None, name=None, *, where=None):
    """``tf.nn.log_softmax(logits, axis=-1)`` / ``jax.nn.log_softmax``:
    ``x - log(sum(exp(x)))`` along ``axis``; masked-out elements (``where``) give
    ``-inf``."""
    x, back = _up(_t(logits))
    ax = _axis_of(x, axis, "log_softmax")
    mask = where
    z, _ = _shifted(x, ax, mask)
    out = z - _log(_sum(_exp(z), axis=ax, keepdims=True))
    if mask is not None:
        out = _where(mask, out, np.full((), -np.inf, out.dtype))
    return _down(out, back)


def _axes(x, axis):
    if axis is None:
        return tuple(range(len(x.shape)))
    axes = (axis,) if isinstance(axis, int | np.integer) else tuple(axis)
    return tuple(int(a) % max(len(x.shape), 1) for a in axes)


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False, where=None):
    """``jax.nn.logsumexp`` (``jax.scipy.special.logsumexp``): ``log(sum(b * exp(a)))``
    over ``axis`` (all axes by default), stable for large ``a``. With ``return_sign``,
    ``(log|s|, sign(s))``; without it a negative sum gives NaN."""
    a = _t(a)
    if b is not None:
        b = _t(b)
    axes = _axes(a, axis)
    xm = a if where is None else _where(where, a, -np.inf)
    if b is not None:  # elements with b == 0 take no part (as -inf)
        xm = _where(b != 0, xm, -np.inf)
    m = _stop(_max(xm, axis=axes, keepdims=True)) if axes else _stop(xm)
    m = _where(bind(_ew.ISFINITE, m), m, np.zeros((), m.dtype))
    e = _exp(xm - m)
    if b is not None:
        e = e * b
    s = _sum(e, axis=axes, keepdims=True)
    sign = None
    if return_sign:
        sign = bind(_ew.SIGN, s)
        s = bind(_ew.ABSOLUTE, s)
    out = _log(s) + m
    if not keepdims:
        out = squeeze(out, axis=axes) if axes else out
        sign = None if sign is None else (squeeze(sign, axis=axes) if axes else sign)
    return (out, sign) if return_sign else out


def logmeanexp(x, axis=None, where=None, keepdims=False):
    """``jax.nn.logmeanexp``: ``log(mean(exp(x)))`` over ``axis``, computed as
    ``logsumexp(x) - log(n)`` (``n`` counts the elements ``where`` keeps)."""
    x = _t(x)
    axes = _axes(x, axis)
    lse = logsumexp(x, axis=axes, keepdims=keepdims, where=where)
    if where is None:
        n = int(np.prod([x.shape[i] for i in axes], dtype=np.int64)) if all(
            x.shape[i] is not None for i in axes) else None
        if n is not None:
            return lse - float(np.log(n)) if n else lse - _log(np.zeros((), lse.dtype))
        where = np.ones((), bool)  # unknown sizes: count every element
    count = _sum(_count_mask(where, x, lse.dtype), axis=axes, keepdims=keepdims)
    return lse - _log(count)


def _count_mask(mask, x, dtype=None):
    """``mask`` broadcast to ``x``'s shape, as 0/1 of ``dtype`` (``x``'s)."""
    m = bind(_ew.CAST, _t(mask), dtype=np.dtype(dtype or x.dtype))
    return broadcast_to(m, shape(x)) if None in x.shape else broadcast_to(m, x.shape)


def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-5, where=None):
    """``jax.nn.standardize``: ``(x - mean) / sqrt(variance + epsilon)`` with the mean
    and variance (``E[x**2] - E[x]**2``) over ``axis`` unless given."""
    x = _t(x)
    axes = _axes(x, axis)
    if mean is None:
        mean = _masked_mean(x, axes, where)
    if variance is None:
        variance = _masked_mean(x * x, axes, where) - mean * mean
    return (x - mean) / bind(_ew.SQRT, variance + epsilon)


def _masked_mean(x, axes, mask):
    if mask is None:
        return _mean(x, axis=axes, keepdims=True)
    w = _count_mask(mask, x)
    return _sum(_where(mask, x, np.zeros((), x.dtype)), axis=axes, keepdims=True) / _sum(
        w, axis=axes, keepdims=True)


# --------------------------------------------------------------------------- losses
def softmax_cross_entropy_with_logits(labels, logits, axis=-1, name=None):
    """``tf.nn.softmax_cross_entropy_with_logits``: ``-sum(labels * log_softmax(logits))``
    along ``axis`` (labels are a distribution per row, cast to the logits' dtype; both
    get gradients). The result has ``axis`` removed."""
    x, back = _up(_t(logits))
    y = _t(labels, dtype=x.dtype)
    ax = _axis_of(x, axis, "softmax_cross_entropy_with_logits")
    z, _ = _shifted(x, ax)
    lse = _log(_sum(_exp(z), axis=ax, keepdims=True))
    return _down(_sum(y * (lse - z), axis=ax), back)


def sparse_softmax_cross_entropy_with_logits(labels, logits, name=None):
    """``tf.nn.sparse_softmax_cross_entropy_with_logits``: ``logsumexp(logits) -
    logits[label]`` per row; ``labels`` are integer class ids of shape
    ``logits.shape[:-1]``. A label outside ``[0, classes)`` raises
    ``InvalidArgumentError`` when its value is known while tracing (as TensorFlow's CPU
    kernel); a run-time one gives NaN for its row (as TensorFlow's GPU kernel)."""
    x, back = _up(_t(logits))
    y = _t(labels)
    if y.dtype.kind not in "iu":
        raise TypeError(f"sparse_softmax_cross_entropy_with_logits: labels must be "
                        f"integers, got {y.dtype}{source_info.where()}")
    if len(x.shape) == 0:
        raise ValueError("Logits cannot be scalars - received shape ().")
    if len(y.shape) != len(x.shape) - 1:
        raise ValueError(f"Rank mismatch: Rank of labels (received {len(y.shape)}) should "
                         f"equal rank of logits minus 1 (received {len(x.shape)}).")
    for a, b in zip(y.shape, x.shape[:-1]):
        if a is not None and b is not None and a != b:
            raise ValueError(f"Shape mismatch: The shape of labels (received {y.shape}) "
                             f"should equal the shape of logits except for the last "
                             f"dimension (received {x.shape}).")
    n = x.shape[-1]
    known = static_value(y)
    if known is not None and n is not None and np.size(known):
        bad = np.asarray(known)[(np.asarray(known) < 0) | (np.asarray(known) >= n)]
        if bad.size:
            raise InvalidArgumentError(
                f"Received a label value of {int(bad.flat[0])} which is outside the valid "
                f"range of [0, {n}).{source_info.where()}")
    z, _ = _shifted(x, -1)
    lse = _log(_sum(_exp(z), axis=-1))
    valid = (y >= 0) & (y < n) if n is not None else None
    safe = y if valid is None else _where(valid, y, np.zeros((), y.dtype))
    picked = squeeze(take_along_axis(z, expand_dims(safe, -1), axis=-1), axis=-1)
    loss = lse - picked
    if valid is not None and known is None:
        loss = _where(valid, loss, np.full((), np.nan, loss.dtype))
    return _down(loss, back)


def _same_shape(labels, logits):
    for a, b in zip(labels.shape, logits.shape):
        if a is not None and b is not None and a != b:
            raise ValueError(f"logits and labels must have the same shape "
                             f"({logits.shape} vs {labels.shape})")
    if len(labels.shape) != len(logits.shape):
        raise ValueError(f"logits and labels must have the same shape "
                         f"({logits.shape} vs {labels.shape})")


def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """``tf.nn.sigmoid_cross_entropy_with_logits``: the elementwise logistic loss
    ``max(x, 0) - x * z + log(1 + exp(-|x|))`` (``x`` logits, ``z`` labels)."""
    if labels is None or logits is None:
        raise ValueError("Both labels and logits must be provided.")
    x = _t(logits)
    z = _t(labels, dtype=x.dtype)
    _same_shape(z, x)
    cond = x >= 0  # TensorFlow's branches: the gradient at 0 is sigmoid(0) - z
    relu = _where(cond, x, np.zeros((), x.dtype))
    neg_abs = _where(cond, -x, x)
    return relu - x * z + bind(_ew.LOG1P, _exp(neg_abs))


def weighted_cross_entropy_with_logits(labels, logits, pos_weight, name=None):
    """``tf.nn.weighted_cross_entropy_with_logits``: the logistic loss with the positive
    term weighted by ``pos_weight``: ``(1 - z) x + (1 + (q - 1) z) (log(1 + exp(-|x|)) +
    max(-x, 0))``."""
    x = _t(logits)
    z = _t(labels, dtype=x.dtype)
    _same_shape(z, x)
    q = _t(pos_weight, dtype=x.dtype)
    log_weight = 1 + (q - 1) * z
    relu_neg = _where(x < 0, -x, np.zeros((), x.dtype))
    return (1 - z) * x + log_weight * (bind(_ew.LOG1P, _exp(-bind(_ew.ABSOLUTE, x)))
                                       + relu_neg)


def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None):
    """``tf.nn.log_poisson_loss``: ``exp(c) - z * c`` (``c`` the log input, ``z`` the
    targets), plus Stirling's approximation of ``log(z!)`` where ``z > 1`` when
    ``compute_full_loss``."""
    c = _t(log_input)
    z = _t(targets, dtype=c.dtype)
    _same_shape(z, c)
    result = _exp(c) - c * z
    if compute_full_loss:
        stirling = z * _log(z) - z + 0.5 * _log(2 * np.pi * z)
        small = (z >= 0) & (z <= 1)
        result = result + _where(small, np.zeros((), c.dtype), stirling)
    return result
