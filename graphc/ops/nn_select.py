"""Selection and lookup names of ``gc.nn``: ``dropout``, ``bias_add``,
``embedding_lookup``, ``one_hot``, ``top_k``, ``in_top_k``, ``approx_max_k`` /
``approx_min_k``, as compositions of existing ops (random draws, comparisons,
``where``, ``argsort``, gathers).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from graphc import source_info
from graphc.core.registry import bind
from graphc.errors import InvalidArgumentError
from graphc.ops import elementwise as _ew
from graphc.ops import random as _random
from graphc.ops.convert import convert_to_tensor
from graphc.ops.gather import gather
from graphc.ops.indexing import take_along_axis
from graphc.ops.join import concatenate
from graphc.ops.reduce import all as _all
from graphc.ops.reduce import sum as _sum
from graphc.ops.shape import argsort, expand_dims, flip, moveaxis, reshape, shape
from graphc.ops.shape_args import static_value
from graphc.ops.ufuncs import where

_F32 = np.dtype(np.float32)
TopKV2 = namedtuple("TopKV2", ["values", "indices"])


def _t(x, dtype=None):
    return convert_to_tensor(x, dtype=dtype)


def _cast(x, dtype):
    return x if x.dtype == np.dtype(dtype) else bind(_ew.CAST, x, dtype=np.dtype(dtype))


# --------------------------------------------------------------------------- dropout
def dropout(x, rate, noise_shape=None, seed=None, name=None):
    """``tf.nn.dropout``: each element (or each slice along the dimensions where
    ``noise_shape`` is 1) is zeroed with probability ``rate``; kept ones are scaled by
    ``1 / (1 - rate)``. A uniform draw ``u`` keeps an element where ``u >= rate``, as
    TensorFlow does; ``seed`` is the op seed (``gc.random.set_seed`` the global one),
    so seeded draws repeat, though not TensorFlow's own random bits."""
    if isinstance(rate, int | float | np.integer | np.floating) and not 0 <= rate < 1:
        raise ValueError(f"`rate` must be a scalar tensor or a float in the range [0, 1). "
                         f"Received: rate={rate}")
    x = _t(x)
    if x.dtype.kind != "f":
        raise ValueError(f"`x.dtype` must be a floating point tensor as `x` will be scaled. "
                         f"Received: x={x.dtype}")
    if isinstance(rate, int | float | np.integer | np.floating) and rate == 0:
        return x
    if noise_shape is None:
        noise = x.shape if None not in x.shape else shape(x)
    else:
        known = static_value(noise_shape) if hasattr(noise_shape, "dtype") else None
        if known is not None:
            noise_shape = [int(v) for v in np.asarray(known).reshape(-1)]
        if isinstance(noise_shape, list | tuple) and len(noise_shape) == len(x.shape):
            noise = [x.shape[i] if d is None else d for i, d in enumerate(noise_shape)]
            if None in noise:
                noise = [shape(x)[i] if d is None else d for i, d in enumerate(noise)]
        else:
            noise = noise_shape
    draw_dtype = x.dtype if x.dtype.itemsize >= 4 else _F32
    u = _random.uniform(noise, dtype=draw_dtype, seed=seed)
    r = rate if isinstance(rate, int | float | np.integer | np.floating) else _t(
        rate, dtype=draw_dtype)
    keep = u >= r
    if isinstance(r, int | float | np.integer | np.floating):
        scale = np.asarray(1 / (1 - float(r)), x.dtype)
    else:
        scale = _cast(1 / (1 - r), x.dtype)
    return where(keep, x * scale, np.zeros((), x.dtype))


# --------------------------------------------------------------------------- bias_add
def bias_add(value, bias, data_format=None, name=None):
    """``tf.nn.bias_add``: adds the 1-D ``bias`` along the channel dimension (the last
    one, or dimension 1 for a ``data_format`` starting with ``"NC"``)."""
    value = _t(value)
    bias = _t(bias, dtype=value.dtype)
    if len(bias.shape) != 1:
        raise ValueError(f"bias_add: bias must be 1-D, got shape {bias.shape}"
                         f"{source_info.where()}")
    if data_format is not None and data_format.startswith("NC"):
        if len(value.shape) < 3:
            raise ValueError("bias_add: a channels-first value needs rank >= 3")
        axis = 1
    else:
        if len(value.shape) < 2:
            raise ValueError(f"bias_add: value must have rank >= 2, got shape {value.shape}")
        axis = len(value.shape) - 1
    c, n = value.shape[axis], bias.shape[0]
    if c is not None and n is not None and c != n:
        raise ValueError(f"bias_add: bias has {n} elements, the channel dimension of value "
                         f"has {c}{source_info.where()}")
    return value + reshape(bias, (-1,) + (1,) * (len(value.shape) - 1 - axis))


# --------------------------------------------------------------------------- embedding
def _clip_by_norm(t, max_norm, axes):
    l2sum = _sum(t * t, axis=axes, keepdims=True) if axes else t * t
    pred = l2sum > 0
    safe = where(pred, l2sum, np.ones((), l2sum.dtype))
    norm = where(pred, bind(_ew.SQRT, safe), l2sum)
    return t * max_norm / bind(_ew.MAXIMUM, norm, np.asarray(max_norm, norm.dtype))


def embedding_lookup(params, ids, max_norm=None, name=None):
    """``tf.nn.embedding_lookup``: the rows of ``params`` at ``ids`` (shape ``ids.shape +
    params.shape[1:]``). A list of tensors is one table split along its first dimension
    (TensorFlow's "div" partition strategy: the shards in order); ``max_norm`` clips
    each looked-up embedding to that L2 norm."""
    if isinstance(params, list | tuple):
        if not params:
            raise ValueError("Need at least one param")
        shards = [_t(p) for p in params]
        table = shards[0] if len(shards) == 1 else concatenate(shards, axis=0)
    else:
        table = _t(params)
    ids = _t(ids)
    out = gather(table, ids)
    if max_norm is not None:
        rank = len(out.shape)
        out = _clip_by_norm(out, max_norm, tuple(range(len(ids.shape), rank)))
    return out


# --------------------------------------------------------------------------- one_hot
def one_hot(indices, depth=None, on_value=None, off_value=None, axis=None, dtype=None,
            name=None, *, num_classes=None):
    """``jax.nn.one_hot(x, num_classes, *, dtype, axis=-1)`` and ``tf.one_hot(indices,
    depth, on_value=1, off_value=0, axis=-1, dtype)``: a new dimension at ``axis`` that
    is ``on_value`` where it equals the index and ``off_value`` elsewhere (an index out
    of ``[0, depth)`` gives a row of ``off_value``). The dtype is ``dtype``, else the
    on/off values', else float32. Float indices compare as JAX compares them."""
    depth = num_classes if depth is None else depth
    if depth is None:
        raise TypeError("one_hot() missing the number of classes (depth / num_classes)")
    depth = int(static_value(depth)) if hasattr(depth, "dtype") else int(depth)
    x = _t(indices)
    rank = len(x.shape)
    axis = -1 if axis is None else int(axis)
    if not -(rank + 1) <= axis <= rank:
        raise ValueError(f"one_hot: axis {axis} is out of bounds for a result of rank "
                         f"{rank + 1}{source_info.where()}")
    axis %= rank + 1
    if dtype is None:
        given = [v for v in (on_value, off_value) if v is not None]
        dtype = _t(given[0]).dtype if given else _F32
    dtype = np.dtype(dtype)
    on = _t(1 if on_value is None else on_value, dtype=dtype)
    off = _t(0 if off_value is None else off_value, dtype=dtype)
    if on.shape or off.shape:
        raise ValueError("one_hot: on_value and off_value must be scalars")
    classes = np.arange(depth).reshape((depth,) + (1,) * (rank - axis))
    if x.dtype.kind == "f":
        classes = classes.astype(x.dtype)
    elif x.dtype.kind in "iu":
        classes = classes.astype(np.result_type(x.dtype, np.int64) if x.dtype.kind == "i"
                                 else np.int64)
    hit = expand_dims(x, axis) == classes
    return where(hit, on, off)


# --------------------------------------------------------------------------- top_k
def _descending(x):
    """Indices that sort the last axis in descending order, ties in index order."""
    n = x.shape[-1]
    return (n - 1) - flip(argsort(flip(x, -1), axis=-1), -1)


def top_k(input, k=1, sorted=True, index_type=np.int32, name=None):  # noqa: A002
    """``tf.math.top_k`` / ``tf.nn.top_k``: the ``k`` largest entries along the last
    axis and their indices (``TopKV2(values, indices)``), largest first, equal values
    in index order (``sorted=False`` gives the same order)."""
    x = _t(input)
    if len(x.shape) == 0:
        raise ValueError("top_k: input must have rank >= 1")
    k = int(static_value(k)) if hasattr(k, "dtype") else int(k)
    if k < 0:
        raise InvalidArgumentError(f"Need k >= 0, got {k}")
    n = x.shape[-1]
    if n is None:
        raise ValueError("top_k: the last dimension must be known while tracing")
    if n < k:
        raise InvalidArgumentError(f"input must have at least k columns. Had {n}, "
                                   f"needed {k}")
    idx = _descending(x)[..., :k]
    return TopKV2(take_along_axis(x, idx, axis=-1), _cast(idx, index_type))


def in_top_k(targets, predictions, k, name=None):
    """``tf.math.in_top_k``: for each row, whether ``predictions[i, targets[i]]`` is
    among the ``k`` largest of that row (ties at the boundary count as in). A target out
    of range or a row holding a non-finite prediction gives False."""
    p = _t(predictions)
    t = _t(targets)
    if len(p.shape) != 2 or len(t.shape) != 1:
        raise ValueError(f"in_top_k: predictions must be 2-D and targets 1-D, got "
                         f"{p.shape} and {t.shape}")
    n = p.shape[1]
    valid = (t >= 0) & (t < n)
    safe = where(valid, t, np.zeros((), t.dtype))
    target = take_along_axis(p, expand_dims(safe, -1), axis=-1)
    above = _sum(_cast(p > target, np.int64), axis=-1)
    finite = _all(bind(_ew.ISFINITE, p), axis=-1)
    return valid & finite & (above < k)


def _approx(operand, k, reduction_dimension, largest):
    x = _t(operand)
    rank = len(x.shape)
    dim = int(reduction_dimension) % max(rank, 1)
    xm = moveaxis(x, dim, -1) if dim != rank - 1 else x
    k = int(k)
    if xm.shape[-1] is not None and k > xm.shape[-1]:
        raise ValueError(f"k ({k}) must not exceed the reduction dimension's size "
                         f"({xm.shape[-1]})")
    idx = (_descending(xm) if largest else argsort(xm, axis=-1))[..., :k]
    vals = take_along_axis(xm, idx, axis=-1)
    idx = _cast(idx, np.int32)
    if dim != rank - 1:
        vals, idx = moveaxis(vals, -1, dim), moveaxis(idx, -1, dim)
    return vals, idx


def approx_max_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True, name=None):
    """``tf.math.approx_max_k``: ``(values, int32 indices)`` of the ``k`` largest along
    ``reduction_dimension``. On the CPU TensorFlow computes them exactly, and so does
    graphc (``recall_target`` and the other tuning knobs change nothing)."""
    return _approx(operand, k, reduction_dimension, True)


def approx_min_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True, name=None):
    """``tf.math.approx_min_k``: ``(values, int32 indices)`` of the ``k`` smallest along
    ``reduction_dimension``, exactly (see :func:`approx_max_k`)."""
    return _approx(operand, k, reduction_dimension, False)

