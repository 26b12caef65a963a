"""``gc.math``'s compositions of other ops with TensorFlow's signatures and dtype rules:
the ``*_no_nan`` arithmetic, the reductions TensorFlow adds (``reduce_std``,
``reduce_variance``, ``reduce_euclidean_norm``, ``reduce_logsumexp``,
``cumulative_logsumexp``, ``count_nonzero``), ``top_k``, ``in_top_k``,
``invert_permutation``, ``polyval``, ``add_n``... (docs/special.md, "gc.math"). The
segment reductions, ``bincount`` and ``confusion_matrix`` are in ``math_segments.py``.
No op of their own: gradients, batching and compiled kernels come from the ops used.
"""

from __future__ import annotations

import numpy as np

from graphc import source_info
from graphc.core.registry import bind
from graphc.errors import InvalidArgumentError
from graphc.ops import elementwise as _ew
from graphc.ops import reduce as _red
from graphc.ops import shape as _shape
from graphc.ops.complex_parts import angle as _angle
from graphc.ops.convert import convert_to_tensor
from graphc.ops.creation import zeros_like
from graphc.ops.indexing import take_along_axis
from graphc.ops.nn_select import TopKV2
from graphc.ops.nn_softmax import logsumexp as _logsumexp
from graphc.ops.pad_tile import pad as _pad
from graphc.ops.shape_args import static_value
from graphc.ops.tf_api_index import argsort as _tf_argsort
from graphc.ops.tf_elementwise import _tf_args

_F16, _F32, _F64 = (np.dtype(t) for t in (np.float16, np.float32, np.float64))


def _t(x):
    (x,) = _tf_args(x)
    return convert_to_tensor(x)


def _where(c, x, y):
    return bind(_ew.WHERE, c, x, y)


def _zero(like):
    return np.zeros((), like.dtype)


def _axis(axis):
    return tuple(axis) if isinstance(axis, list | tuple) else axis


# --------------------------------------------------------------------------- arithmetic
def divide_no_nan(x, y, name=None):
    """``tf.math.divide_no_nan``: ``x / y``, 0 where ``y == 0`` (even for a NaN ``x``)."""
    x, y = _tf_args(x, y)
    y = convert_to_tensor(y)
    zero = bind(_ew.EQUAL, y, 0)
    safe = _where(zero, np.ones((), y.dtype), y)
    q = bind(_ew.TRUE_DIVIDE, x, safe)
    return _where(zero, _zero(q), q)


def multiply_no_nan(x, y, name=None):
    """``tf.math.multiply_no_nan``: ``x * y``, 0 where ``y == 0`` (even for NaN or inf
    ``x``)."""
    x, y = _tf_args(x, y)
    zero = bind(_ew.EQUAL, y, 0)
    p = bind(_ew.MULTIPLY, _where(zero, _zero(convert_to_tensor(x)), x), y)
    return _where(zero, _zero(p), p)


def reciprocal_no_nan(x, name=None):
    """``tf.math.reciprocal_no_nan``: ``1 / x``, 0 where ``x == 0``."""
    x = _t(x)
    if x.dtype.kind not in "fc":
        raise TypeError(f"tf.math.reciprocal_no_nan: expected a float or complex tensor, "
                        f"got {x.dtype}")
    return divide_no_nan(np.ones((), x.dtype), x)


def squared_difference(x, y, name=None):
    """``tf.math.squared_difference``: ``(x - y) * conj(x - y)``."""
    x, y = _tf_args(x, y)
    d = bind(_ew.SUBTRACT, x, y)
    return d * bind(_ew.CONJUGATE, d) if d.dtype.kind == "c" else d * d


def scalar_mul(scalar, x, name=None):
    """``tf.math.scalar_mul``: ``scalar * x`` for a 0-d ``scalar``."""
    s, x = _tf_args(scalar, x)
    if np.ndim(s) != 0 and getattr(s, "shape", ()) != ():
        raise ValueError(f"tf.math.scalar_mul: scalar must be 0-d, got shape {np.shape(s)}")
    return bind(_ew.MULTIPLY, s, x)


def add_n(inputs, name=None):
    """``tf.math.add_n``: the elementwise sum of a non-empty list of tensors of one shape
    and dtype."""
    if not isinstance(inputs, list | tuple) or not inputs:
        raise ValueError("tf.math.add_n: inputs must be a non-empty list of tensors")
    ts = [convert_to_tensor(t) for t in _tf_args(*inputs)]
    if len({t.dtype for t in ts}) > 1:
        raise TypeError("tf.math.add_n: all inputs must have the same dtype, got "
                        + ", ".join(str(t.dtype) for t in ts))
    shapes = {tuple(t.shape) for t in ts if t.shape is not None and None not in t.shape}
    if len(shapes) > 1:
        raise ValueError(f"tf.math.add_n: all inputs must have the same shape, got "
                         f"{sorted(shapes)}")
    total = ts[0]
    for t in ts[1:]:
        total = bind(_ew.ADD, total, t)
    return total


def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None):
    """``tf.math.accumulate_n``: ``add_n`` (TensorFlow 2 computes it the same way)."""
    return add_n(inputs)


def polyval(coeffs, x, name=None):
    """``tf.math.polyval(coeffs, x)``: ``coeffs[0] * x**(n-1) + ... + coeffs[n-1]`` by
    Horner's rule (an empty list gives zeros like ``x``)."""
    if not isinstance(coeffs, list | tuple):
        raise ValueError("tf.math.polyval: coeffs must be a list of tensors")
    x = _t(x)
    if not coeffs:
        return zeros_like(x)
    p = convert_to_tensor(_tf_args(x, coeffs[0])[1])
    for c in coeffs[1:]:
        p = bind(_ew.ADD, _tf_args(x, c)[1], bind(_ew.MULTIPLY, p, x))
    return p


def angle(input, name=None):  # noqa: A002 - TensorFlow's argument name
    """``tf.math.angle``: the argument of a complex number; for real inputs pi where
    ``input < 0`` and 0 elsewhere (TensorFlow's rule)."""
    x = _t(input)
    if x.dtype.kind == "c":
        return _angle(x)
    return _where(x < 0, np.asarray(np.pi, x.dtype), _zero(x))


# --------------------------------------------------------------------------- reductions
def _reduce_float(name, x):
    x = _t(x)
    if x.dtype.kind not in "fc":
        raise TypeError(f"tf.math.{name}: input must be a float or complex tensor, got "
                        f"{x.dtype}")
    return x


def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    """``tf.math.reduce_variance``: the population variance (``mean(|x - mean|^2)``);
    complex inputs give real results."""
    x = _reduce_float("reduce_variance", input_tensor)
    m = _red.mean(x, axis=_axis(axis), keepdims=True)
    d = x - m
    sq = (bind(_ew.ABSOLUTE, d) ** 2) if d.dtype.kind == "c" else d * d
    return _red.mean(sq, axis=_axis(axis), keepdims=keepdims)


def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    """``tf.math.reduce_std``: ``sqrt(reduce_variance)``."""
    return bind(_ew.SQRT, reduce_variance(input_tensor, axis, keepdims))


def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None):
    """``tf.math.reduce_euclidean_norm``: ``sqrt(sum(|x|^2))`` in the input's dtype
    (integers: the square root truncated, as TensorFlow's integer kernel)."""
    x = _t(input_tensor)
    if x.dtype.kind == "c":
        return bind(_ew.SQRT, _red.sum(x * bind(_ew.CONJUGATE, x), axis=_axis(axis),
                                       keepdims=keepdims))
    s = _red.sum(x * x, axis=_axis(axis), keepdims=keepdims, dtype=x.dtype)
    if x.dtype.kind == "f":
        return bind(_ew.SQRT, s)
    r = bind(_ew.SQRT, bind(_ew.CAST, s, dtype=_F64))
    return bind(_ew.CAST, r, dtype=x.dtype)


def reduce_logsumexp(input_tensor, axis=None, keepdims=False, name=None):
    """``tf.math.reduce_logsumexp``: ``log(sum(exp(x)))`` over ``axis``, computed after
    subtracting the maximum (``-inf`` for all ``-inf`` inputs)."""
    x = _t(input_tensor)
    if x.dtype.kind != "f":
        raise TypeError(f"tf.math.reduce_logsumexp: expected a float tensor, got {x.dtype}")
    axis = _axis(axis)
    return _logsumexp(x, axis=axis, keepdims=keepdims)


def count_nonzero(input, axis=None, keepdims=None, dtype=np.int64, name=None):  # noqa: A002
    """``tf.math.count_nonzero``: the number of nonzero elements over ``axis``, as
    ``dtype`` (int64 by default)."""
    x = _t(input)
    nz = bind(_ew.NOT_EQUAL, x, _zero(x))
    return _red.sum(bind(_ew.CAST, nz, dtype=np.dtype(dtype)), axis=_axis(axis),
                    keepdims=bool(keepdims), dtype=np.dtype(dtype))


def cumulative_logsumexp(x, axis=0, exclusive=False, reverse=False, name=None):
    """``tf.math.cumulative_logsumexp``: ``log(cumsum(exp(x)))`` along ``axis``.

    Computed in float64 after subtracting the maximum along the axis, so a prefix whose
    values all lie more than ~700 below that maximum underflows to ``-inf`` (TensorFlow
    keeps it)."""
    x = _t(x)
    if x.dtype.kind != "f":
        raise TypeError(f"tf.math.cumulative_logsumexp: expected a float tensor, got "
                        f"{x.dtype}")
    rank = len(x.shape)
    if not -rank <= axis < rank:
        raise InvalidArgumentError(f"tf.math.cumulative_logsumexp: axis {axis} is out of "
                                   f"range for rank {rank}{source_info.where()}")
    axis %= rank
    w = x if x.dtype == _F64 else bind(_ew.CAST, x, dtype=_F64)
    if reverse:
        w = _shape.flip(w, axis)
    m = bind(_ew.STOP_GRADIENT, _red.max(w, axis=axis, keepdims=True))
    m = _where(bind(_ew.ISFINITE, m), m, _zero(m))
    c = _red.cumsum(bind(_ew.EXP, w - m), axis=axis)
    if exclusive:
        pad = [(0, 0)] * rank
        pad[axis] = (1, 0)
        size = w.shape[axis]
        key = (slice(None),) * axis + (slice(0, None if size is None else size),)
        c = _pad(c, pad)[key]
    out = bind(_ew.LOG, c) + m
    if reverse:
        out = _shape.flip(out, axis)
    return out if out.dtype == x.dtype else bind(_ew.CAST, out, dtype=x.dtype)


def is_non_decreasing(x, name=None):
    """``tf.math.is_non_decreasing``: whether ``x`` flattened is non-decreasing (True for
    fewer than 2 elements)."""
    return _monotone(x, _ew.GREATER_EQUAL)


def is_strictly_increasing(x, name=None):
    """``tf.math.is_strictly_increasing``: whether ``x`` flattened is strictly
    increasing (True for fewer than 2 elements)."""
    return _monotone(x, _ew.GREATER)


def _monotone(x, op):
    x = _shape.reshape(_t(x), (-1,))
    return _red.all(bind(op, x[1:], x[:-1]))


# --------------------------------------------------------------------------- selection
def top_k(input, k=1, sorted=True, index_type=np.int32, name=None):  # noqa: A002
    """``tf.math.top_k``: the ``k`` largest entries along the last axis and their
    indices (``index_type``, int32 by default) as ``TopKV2(values, indices)``, largest
    first; equal values keep index order. ``sorted=False`` returns the same (sorted)
    answer, which TensorFlow allows."""
    x = _t(input)
    if not x.shape:
        raise InvalidArgumentError(f"tf.math.top_k: input must have rank >= 1"
                                   f"{source_info.where()}")
    k_val = static_value(k) if not isinstance(k, int | np.integer) else k
    if k_val is None:
        raise ValueError("tf.math.top_k: k must be known while tracing")
    k_val = int(np.asarray(k_val))
    n = x.shape[-1]
    if k_val < 0 or (n is not None and k_val > n):
        raise InvalidArgumentError(f"tf.math.top_k: k={k_val} must be in [0, {n}]"
                                   f"{source_info.where()}")
    order = _tf_argsort(x, -1, "DESCENDING")[..., :k_val]
    values = take_along_axis(x, order, -1)
    idx = order if np.dtype(index_type) == order.dtype else bind(
        _ew.CAST, order, dtype=np.dtype(index_type))
    return TopKV2(values, idx)


def in_top_k(targets, predictions, k, name=None):
    """``tf.math.in_top_k(targets, predictions, k)``: for each row ``i``, whether
    ``predictions[i, targets[i]]`` is among the ``k`` largest of the row (fewer than
    ``k`` entries strictly larger). A non-finite target value or a target outside
    ``[0, classes)`` gives False."""
    p = convert_to_tensor(predictions)
    t = convert_to_tensor(targets)
    if len(p.shape) != 2 or len(t.shape) != 1:
        raise ValueError("tf.math.in_top_k: predictions must be 2-D and targets 1-D")
    n = p.shape[1]
    valid = (t >= 0) & (t < n)
    safe = _where(valid, t, np.zeros((), t.dtype))
    v = take_along_axis(p, _shape.expand_dims(safe, 1), 1)
    larger = _red.sum(bind(_ew.CAST, p > v, dtype=np.dtype(np.int32)), axis=1,
                      dtype=np.dtype(np.int32))
    finite = bind(_ew.ISFINITE, _shape.reshape(v, (-1,)))
    return valid & finite & (larger < k)


def invert_permutation(x, name=None):
    """``tf.math.invert_permutation``: ``y[x[i]] = i`` for a 1-D int32/int64 permutation
    of ``0..n-1`` (checked when ``x`` is known)."""
    x = convert_to_tensor(x)
    if x.dtype not in (np.dtype(np.int32), np.dtype(np.int64)) or len(x.shape) != 1:
        raise TypeError("tf.math.invert_permutation: x must be a 1-D int32 or int64 tensor")
    known = static_value(x)
    if known is not None and not np.array_equal(np.sort(known), np.arange(known.size)):
        raise InvalidArgumentError(f"tf.math.invert_permutation: {known.tolist()} is not a "
                                   f"permutation of 0..{known.size - 1}{source_info.where()}")
    return bind(_ew.CAST, _shape.argsort(x), dtype=x.dtype)


def tf_argmin(input, axis=None, output_type=np.int64, name=None):  # noqa: A002
    """``tf.math.argmin``: ``axis=None`` means axis 0, as in TensorFlow."""
    out = bind(_red.ARGMIN, _t(input), axis=0 if axis is None else axis, keepdims=False)
    if np.dtype(output_type) != out.dtype:
        out = bind(_ew.CAST, out, dtype=np.dtype(output_type))
    return out
