"""``gc.math``'s segment reductions (``segment_sum``... and ``unsorted_segment_*``),
``bincount`` and ``confusion_matrix``, TensorFlow's, over ``unsorted_segment_sum``
(``graphc/ops/segment.py``) and masked reductions.

``max``/``min``/``prod`` compare every row with every segment (a ``num_segments x rows``
mask): simple, differentiable and compiled, but quadratic in memory, so meant for the
modest sizes of tests and small models. A negative id drops its row (the unsorted
forms). Empty segments: ``unsorted_segment_max``/``min`` give the dtype's lowest/highest
value, ``segment_max``/``min``/``mean``/``sum`` give 0, the products 1. The sorted forms'
number of segments is ``max(segment_ids) + 1``, a value of the data: their ids must be
known while tracing (eager tensors or constants), as must ``bincount``'s input without
``minlength == maxlength`` and ``confusion_matrix``'s without ``num_classes``.
"""

from __future__ import annotations

import numpy as np

from graphc import source_info
from graphc.core.registry import bind
from graphc.errors import InvalidArgumentError
from graphc.ops import elementwise as _ew
from graphc.ops import reduce as _red
from graphc.ops import shape as _shape
from graphc.ops.convert import convert_to_tensor
from graphc.ops.creation import arange, ones
from graphc.ops.segment import unsorted_segment_sum as _uss
from graphc.ops.shape_args import static_value


def _where(c, x, y):
    return bind(_ew.WHERE, c, x, y)


def _args(data, segment_ids):
    data, ids = convert_to_tensor(data), convert_to_tensor(segment_ids)
    if ids.dtype.kind not in "iu":
        raise TypeError(f"segment_ids must be int32 or int64, got {ids.dtype}")
    return data, ids


def _count(n):
    known = static_value(n) if not isinstance(n, int | np.integer) else n
    if known is None:
        raise ValueError("num_segments must be known while tracing (graphc's segment ops "
                         "have a static number of segments)")
    return int(np.asarray(known))


def _sorted_count(ids, name):
    known = static_value(ids)
    if known is None:
        raise ValueError(f"tf.math.{name}: segment_ids must be known while tracing (the "
                         "number of segments is max(segment_ids) + 1); use "
                         f"unsorted_{name} with num_segments{source_info.where()}")
    flat = np.asarray(known).reshape(-1)
    if flat.size and (flat.min() < 0 or np.any(np.diff(flat) < 0)):
        raise InvalidArgumentError(f"tf.math.{name}: segment_ids must be sorted and "
                                   f"non-negative, got {flat.tolist()}{source_info.where()}")
    return int(flat.max()) + 1 if flat.size else 0


def _counts(data, ids, n):
    """The number of rows of each segment, shaped to broadcast against the result."""
    c = _uss(ones(ids.shape, data.dtype), ids, n)
    inner = len(data.shape) - len(ids.shape)
    return _shape.reshape(c, (n,) + (1,) * inner)


def _masked(data, ids, n, reduce, fill):
    """``reduce`` over the rows of each segment, the others replaced by ``fill``."""
    k = len(ids.shape)
    rows = _shape.reshape(data, (-1,) + tuple(data.shape[k:]))
    flat = _shape.reshape(ids, (-1,))
    mask = bind(_ew.EQUAL, _shape.expand_dims(flat, 0),
                _shape.expand_dims(arange(n, dtype=flat.dtype), 1))
    inner = len(data.shape) - k
    mask = _shape.reshape(mask, (n, -1) + (1,) * inner)
    vals = _where(mask, _shape.expand_dims(rows, 0), np.asarray(fill, data.dtype))
    return reduce(vals, axis=1)


def _limits(dtype):
    info = np.finfo(dtype) if dtype.kind == "f" else np.iinfo(dtype)
    return info.min, info.max


# --------------------------------------------------------------------------- unsorted
def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    """``tf.math.unsorted_segment_sum``: row sums per segment id."""
    data, ids = _args(data, segment_ids)
    return _uss(data, ids, _count(num_segments))


def unsorted_segment_max(data, segment_ids, num_segments, name=None):
    """``tf.math.unsorted_segment_max``: the lowest value of the dtype for empty
    segments."""
    data, ids = _args(data, segment_ids)
    return _masked(data, ids, _count(num_segments), _red.max, _limits(data.dtype)[0])


def unsorted_segment_min(data, segment_ids, num_segments, name=None):
    """``tf.math.unsorted_segment_min``: the highest value of the dtype for empty
    segments."""
    data, ids = _args(data, segment_ids)
    return _masked(data, ids, _count(num_segments), _red.min, _limits(data.dtype)[1])


def unsorted_segment_prod(data, segment_ids, num_segments, name=None):
    """``tf.math.unsorted_segment_prod``: 1 for empty segments."""
    data, ids = _args(data, segment_ids)
    return _masked(data, ids, _count(num_segments), _red.prod, 1)


def _scaled_sum(data, ids, n, root):
    s = _uss(data, ids, n)
    c = bind(_ew.MAXIMUM, _counts(data, ids, n), np.ones((), data.dtype))
    if root:
        c = bind(_ew.SQRT, c)
    q = bind(_ew.TRUE_DIVIDE, s, c)
    return q if q.dtype == data.dtype else bind(_ew.CAST, q, dtype=data.dtype)


def unsorted_segment_mean(data, segment_ids, num_segments, name=None):
    """``tf.math.unsorted_segment_mean``: sum / count (0 for empty segments)."""
    data, ids = _args(data, segment_ids)
    return _scaled_sum(data, ids, _count(num_segments), False)


def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None):
    """``tf.math.unsorted_segment_sqrt_n``: sum / sqrt(count) (0 for empty segments)."""
    data, ids = _args(data, segment_ids)
    if data.dtype.kind != "f":
        raise TypeError(f"unsorted_segment_sqrt_n takes float data, got {data.dtype}")
    return _scaled_sum(data, ids, _count(num_segments), True)


# --------------------------------------------------------------------------- sorted
def segment_sum(data, segment_ids, name=None):
    """``tf.math.segment_sum``: sums over runs of sorted ids (0 for absent ids)."""
    data, ids = _args(data, segment_ids)
    return _uss(data, ids, _sorted_count(ids, "segment_sum"))


def segment_mean(data, segment_ids, name=None):
    """``tf.math.segment_mean``: means over runs of sorted ids (0 for absent ids)."""
    data, ids = _args(data, segment_ids)
    return _scaled_sum(data, ids, _sorted_count(ids, "segment_mean"), False)


def segment_prod(data, segment_ids, name=None):
    """``tf.math.segment_prod``: products over runs of sorted ids (1 for absent ids)."""
    data, ids = _args(data, segment_ids)
    return _masked(data, ids, _sorted_count(ids, "segment_prod"), _red.prod, 1)


def _sorted_extreme(data, segment_ids, name, reduce, which):
    data, ids = _args(data, segment_ids)
    n = _sorted_count(ids, name)
    out = _masked(data, ids, n, reduce, _limits(data.dtype)[which])
    empty = bind(_ew.EQUAL, _counts(data, ids, n), np.zeros((), data.dtype))
    return _where(empty, np.zeros((), data.dtype), out)


def segment_max(data, segment_ids, name=None):
    """``tf.math.segment_max``: maxima over runs of sorted ids (0 for absent ids)."""
    return _sorted_extreme(data, segment_ids, "segment_max", _red.max, 0)


def segment_min(data, segment_ids, name=None):
    """``tf.math.segment_min``: minima over runs of sorted ids (0 for absent ids)."""
    return _sorted_extreme(data, segment_ids, "segment_min", _red.min, 1)


# --------------------------------------------------------------------------- counting
def _nonnegative(known, what):
    if known is not None and known.size and known.min() < 0:
        raise InvalidArgumentError(f"{what} must be non-negative, got {known.min()}"
                                   f"{source_info.where()}")


def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=np.int32, name=None,
             axis=None, binary_output=False):
    """``tf.math.bincount``: how often each value ``0..`` occurs in ``arr`` (the sum of
    ``weights`` there, in their dtype, when given): ``max(max(arr) + 1, minlength)``
    bins, at most ``maxlength`` (larger values dropped). ``axis=-1`` counts each row of a
    2-D ``arr``; ``binary_output`` gives 1 where a value occurs."""
    x = convert_to_tensor(arr)
    if x.dtype.kind not in "iu":
        raise TypeError(f"tf.math.bincount: arr must be an integer tensor, got {x.dtype}")
    if weights is not None and binary_output:
        raise ValueError("Arguments `binary_output` and `weights` are mutually exclusive")
    if axis not in (None, 0, -1):
        raise ValueError(f"tf.math.bincount: axis must be None, 0 or -1, got {axis}")
    per_row = axis == -1 and len(x.shape) == 2
    known = static_value(x)
    _nonnegative(known, "tf.math.bincount: arr")
    if known is not None:
        size = int(known.max()) + 1 if known.size else 0
        size = max(size, minlength or 0)
        if maxlength is not None:
            size = min(size, int(maxlength))
    elif minlength is not None and minlength == maxlength:
        size = int(minlength)
    else:
        raise ValueError("tf.math.bincount inside gc.function needs arr known while "
                         "tracing, or minlength == maxlength (the number of bins)")
    out_dtype = np.dtype(dtype) if weights is None else convert_to_tensor(weights).dtype
    vals = (ones(x.shape, out_dtype) if weights is None
            else _shape.broadcast_to(convert_to_tensor(weights), x.shape))
    ids = _where(x < size, x, np.asarray(-1, x.dtype))
    if per_row:
        rows = x.shape[0]
        offset = _shape.expand_dims(arange(rows, dtype=x.dtype) * size, 1)
        ids = _where(ids >= 0, ids + offset, ids)
        out = _shape.reshape(_uss(vals, ids, rows * size), (rows, size))
    else:
        out = _uss(_shape.reshape(vals, (-1,)), _shape.reshape(ids, (-1,)), size)
    if binary_output:
        out = bind(_ew.CAST, out > 0, dtype=out_dtype)
    return out


def confusion_matrix(labels, predictions, num_classes=None, weights=None, dtype=np.int32,
                     name=None):
    """``tf.math.confusion_matrix``: ``m[i, j]`` counts (or sums ``weights`` over) the
    examples with label ``i`` and prediction ``j``; ``num_classes`` defaults to
    ``max(labels, predictions) + 1``."""
    lab = _shape.reshape(convert_to_tensor(labels), (-1,))
    pred = _shape.reshape(convert_to_tensor(predictions), (-1,))
    kl, kp = static_value(lab), static_value(pred)
    _nonnegative(kl, "`labels`")
    _nonnegative(kp, "`predictions`")
    if num_classes is None:
        if kl is None or kp is None:
            raise ValueError("tf.math.confusion_matrix inside gc.function needs "
                             "num_classes, or labels and predictions known while tracing")
        n = int(max(kl.max(initial=-1), kp.max(initial=-1))) + 1
    else:
        n = _count(num_classes)
        for k, what in ((kl, "`labels`"), (kp, "`predictions`")):
            if k is not None and k.size and k.max() >= n:
                raise InvalidArgumentError(f"{what} out of bound: {k.max()} >= num_classes "
                                           f"{n}{source_info.where()}")
    dt = np.dtype(dtype)
    vals = ones(lab.shape, dt) if weights is None else bind(
        _ew.CAST, _shape.reshape(convert_to_tensor(weights), (-1,)), dtype=dt)
    ids = bind(_ew.CAST, lab, dtype=np.dtype(np.int64)) * n + bind(
        _ew.CAST, pred, dtype=np.dtype(np.int64))
    return _shape.reshape(_uss(vals, ids, n * n), (n, n))
