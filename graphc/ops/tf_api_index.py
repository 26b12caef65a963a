"""TensorFlow's top-level index, scatter, search and set names (``gc.gather_nd``,
``gc.scatter_nd``, ``gc.tensor_scatter_nd_add``..., ``gc.boolean_mask``, ``gc.unique``,
``gc.searchsorted``, ``gc.sort``, ``gc.argsort``, ``gc.one_hot``, ``gc.sequence_mask``,
``gc.dynamic_partition``, ``gc.dynamic_stitch``, ``gc.histogram_fixed_width``...), built
from graphc's existing ops (advanced indexing, ``take``, ``argwhere``,
``unsorted_segment_sum``, ``tensor_scatter_nd_update``, stable ``argsort``...): no op of
their own, so gradients, batching and compiled kernels are those of the ops used.

Index checks follow TensorFlow's CPU kernels: an index outside ``[0, dim)`` (negative
ones too) raises ``InvalidArgumentError``, eagerly at once and inside ``gc.function``
when the graph runs.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from graphc import source_info
from graphc.core.registry import bind
from graphc.errors import InvalidArgumentError
from graphc.ops import creation, reduce
from graphc.ops import elementwise as ew
from graphc.ops import shape as shape_ops
from graphc.ops.array_helpers import dims
from graphc.ops.gather import _tf_literals, argwhere, tensor_scatter_nd_update
from graphc.ops.indexing import take, take_along_axis
from graphc.ops.searching import searchsorted as _np_searchsorted
from graphc.ops.segment import unsorted_segment_sum
from graphc.ops.set_ops import unique as _np_unique
from graphc.ops.tf_api_shapes import _rank, check, ints, tensor, value_of

Unique = namedtuple("Unique", ["y", "idx"])
UniqueWithCounts = namedtuple("UniqueWithCounts", ["y", "idx", "count"])


def _int_tensor(x, what):
    t = tensor(x)
    if t.dtype.kind not in "iu":
        raise TypeError(f"{what} must be an integer tensor, got {t.dtype}")
    return t


def _cast(x, dtype):
    dtype = np.dtype(dtype)
    return x if x.dtype == dtype else bind(ew.CAST, x, dtype=dtype)


def _grid(n, at, nd):
    """``arange(n)`` shaped to lie along dim ``at`` of a rank-``nd`` tensor."""
    return shape_ops.reshape(creation.arange(n), [1] * at + [-1] + [1] * (nd - at - 1))


def _check_index(column, limit, what):
    check((column >= 0) & (column < limit),
          f"{what}: an index is outside [0, {limit}) (indices must lie inside the tensor)")


# --------------------------------------------------------------------------- gather / scatter
def gather_nd(params, indices, batch_dims=0, name=None):
    """``tf.gather_nd``: slices of ``params`` at the index vectors in ``indices``'s last
    dim (after ``batch_dims`` leading batch dims shared by both)."""
    # a list holding traced tensors ([i]) is packed, as TensorFlow packs it
    p, idx = tensor(params), _int_tensor(_tf_literals(indices), "gather_nd: indices")
    nd, ni = _rank(p, "gather_nd"), _rank(idx, "gather_nd")
    if ni < 1:
        raise ValueError("gather_nd: indices must have rank >= 1")
    k = idx.shape[-1]
    if k is None:
        raise ValueError("gather_nd: indices.shape[-1] must be known while tracing")
    bd = int(batch_dims)
    if not 0 <= bd < ni:
        raise ValueError(f"gather_nd: batch_dims={bd} must be in [0, rank(indices))")
    if k > nd - bd:
        raise InvalidArgumentError(f"index innermost dimension length must be <= params "
                                   f"rank; saw: {k} vs. {nd - bd}")
    lead = idx.shape[:-1]
    pd, lead_dims = dims(p), dims(idx)[:-1]
    columns = []
    for j in range(bd):
        if p.shape[j] is not None and idx.shape[j] is not None and p.shape[j] != idx.shape[j]:
            raise ValueError(f"gather_nd: batch dim {j} differs: params {p.shape[j]}, "
                             f"indices {idx.shape[j]}")
        columns.append(shape_ops.broadcast_to(_grid(pd[j], j, len(lead)), lead_dims))
    for j in range(k):
        col = idx[..., j]
        _check_index(col, pd[bd + j], "gather_nd")
        columns.append(col)
    if not columns:
        return shape_ops.broadcast_to(p, lead_dims + pd)
    return p[tuple(columns)]


def _linear(idx, outer, what):
    """Row-major positions of ``idx``'s index vectors in a block of shape ``outer``."""
    lin = None
    for j, d in enumerate(outer):
        col = _cast(idx[..., j], np.int64)
        _check_index(col, d, what)
        lin = col if lin is None else lin * d + col
    if lin is None:
        return creation.zeros(dims(idx)[:-1], np.int64)
    return lin


def _scatter_shapes(idx, upd, shape, what):
    if _rank(idx, what) < 1:
        raise ValueError(f"{what}: indices must have rank >= 1")
    k = idx.shape[-1]
    if k is None:
        raise ValueError(f"{what}: indices.shape[-1] must be known while tracing")
    if k > len(shape):
        raise InvalidArgumentError(f"{what}: indices.shape[-1] = {k} exceeds the output "
                                   f"rank {len(shape)}")
    want = tuple(idx.shape[:-1]) + tuple(shape[k:])
    have = upd.shape
    if have is None or len(have) != len(want) or any(
            a is not None and b is not None and a != b for a, b in zip(have, want)):
        raise InvalidArgumentError(f"{what}: updates must have shape indices.shape[:-1] + "
                                   f"shape[{k}:] = {list(want)}, got {have}")
    return k


def scatter_nd(indices, updates, shape, name=None):
    """``tf.scatter_nd``: a zero tensor of ``shape`` with ``updates`` added at
    ``indices`` (repeated indices add up)."""
    idx, upd = _int_tensor(indices, "scatter_nd: indices"), tensor(updates)
    shp = ints(shape, "scatter_nd: shape")
    if any(not isinstance(d, int) for d in shp):
        raise ValueError(f"scatter_nd: shape must be known while tracing"
                         f"{source_info.where()}")
    k = _scatter_shapes(idx, upd, shp, "scatter_nd")
    outer, inner = shp[:k], shp[k:]
    lin = shape_ops.reshape(_linear(idx, outer, "scatter_nd"), (-1,))
    rows = shape_ops.reshape(upd, [-1] + inner)
    if upd.dtype == np.bool_:  # TensorFlow ORs booleans
        summed = unsorted_segment_sum(_cast(rows, np.int32), lin, int(np.prod(outer)))
        return shape_ops.reshape(summed > 0, shp)
    return shape_ops.reshape(unsorted_segment_sum(rows, lin, int(np.prod(outer))), shp)


def _known_shape(t, what):
    if t.shape is None or None in t.shape:
        raise ValueError(f"{what}: the tensor's shape must be known while tracing"
                         f"{source_info.where()}")
    return list(t.shape)


def _same_dtype(t, upd, what):
    if upd.dtype != t.dtype:
        raise TypeError(f"{what}: updates ({upd.dtype}) must have the tensor's dtype "
                        f"({t.dtype})")


def tensor_scatter_nd_add(tensor_, indices, updates, name=None):
    """``tf.tensor_scatter_nd_add``: ``tensor_`` with ``updates`` added at ``indices``."""
    t, upd = tensor(tensor_), tensor(updates)
    _same_dtype(t, upd, "tensor_scatter_nd_add")
    return t + scatter_nd(indices, upd, _known_shape(t, "tensor_scatter_nd_add"))


def tensor_scatter_nd_sub(tensor_, indices, updates, name=None):
    """``tf.tensor_scatter_nd_sub``: ``tensor_`` with ``updates`` subtracted at
    ``indices``."""
    t, upd = tensor(tensor_), tensor(updates)
    _same_dtype(t, upd, "tensor_scatter_nd_sub")
    return t - scatter_nd(indices, upd, _known_shape(t, "tensor_scatter_nd_sub"))


def _scatter_extreme(tensor_, indices, updates, op, what):
    t, idx, upd = tensor(tensor_), _int_tensor(indices, f"{what}: indices"), tensor(updates)
    _same_dtype(t, upd, what)
    shp = _known_shape(t, what)
    k = _scatter_shapes(idx, upd, shp, what)
    inner = int(np.prod(shp[k:]))
    rows = shape_ops.reshape(_linear(idx, shp[:k], what), (-1, 1))
    at = shape_ops.reshape(rows * inner + creation.arange(inner)[None, :], (-1,))
    flat = shape_ops.reshape(t, (-1,))
    best = bind(op, take(flat, at), shape_ops.reshape(upd, (-1,)))
    # written in the order that puts each position's winner last: repeated indices
    # keep their most extreme value (an update writes the last of equal positions)
    order = shape_ops.argsort(best)
    if op is ew.MINIMUM:
        order = shape_ops.flip(order, 0)
    out = tensor_scatter_nd_update(flat, shape_ops.reshape(take(at, order), (-1, 1)),
                                   take(best, order))
    return shape_ops.reshape(out, shp)


def tensor_scatter_nd_max(tensor_, indices, updates, name=None):
    """``tf.tensor_scatter_nd_max``: each addressed element becomes the maximum of
    itself and the updates sent to it."""
    return _scatter_extreme(tensor_, indices, updates, ew.MAXIMUM, "tensor_scatter_nd_max")


def tensor_scatter_nd_min(tensor_, indices, updates, name=None):
    """``tf.tensor_scatter_nd_min``: each addressed element becomes the minimum of
    itself and the updates sent to it."""
    return _scatter_extreme(tensor_, indices, updates, ew.MINIMUM, "tensor_scatter_nd_min")


# --------------------------------------------------------------------------- masks
def boolean_mask(tensor_, mask, axis=None, name="boolean_mask"):
    """``tf.boolean_mask``: the entries of ``tensor_`` where ``mask`` (a bool tensor
    matching ``tensor_``'s dims from ``axis``, default 0) is true, those dims
    flattened into one."""
    t, m = tensor(tensor_), tensor(mask)
    if m.dtype != np.bool_:
        raise TypeError(f"boolean_mask: mask must be bool, got {m.dtype}")
    km, nd = _rank(m, "boolean_mask"), _rank(t, "boolean_mask")
    if km == 0:
        raise ValueError("mask cannot be scalar.")
    axis = 0 if axis is None else int(value_of(axis))
    axis = axis + nd if axis < 0 else axis
    if axis + km > nd:
        raise ValueError(f"boolean_mask: mask of rank {km} at axis {axis} does not fit a "
                         f"tensor of rank {nd}")
    for a, b in zip(t.shape[axis:axis + km], m.shape):
        if a is not None and b is not None and a != b:
            raise ValueError(f"Shapes {list(t.shape[axis:axis + km])} and {list(m.shape)} "
                             "are incompatible")
    td = dims(t)
    flat = shape_ops.reshape(t, td[:axis] + [-1] + td[axis + km:])
    picks = argwhere(shape_ops.reshape(m, (-1,)))[:, 0]
    return take(flat, picks, axis=axis)


def sequence_mask(lengths, maxlen=None, dtype=np.bool_, name=None):
    """``tf.sequence_mask``: ``mask[..., j] = j < lengths[...]`` for ``j`` below
    ``maxlen`` (default ``max(lengths)``), in ``dtype``."""
    lens = _int_tensor(lengths, "sequence_mask: lengths")
    if maxlen is None:
        maxlen = reduce.max(lens) if lens.shape != (0,) else 0
    m = tensor(maxlen)
    if m.shape not in ((), None) and m.shape != (1,):
        raise ValueError("sequence_mask: maxlen must be a scalar")
    m = shape_ops.reshape(m, ())
    known = value_of(m)
    row = creation.arange(int(known) if known is not None else _cast(m, np.int64))
    out = row < _cast(lens, np.int64)[..., None]
    return out if np.dtype(dtype) == np.bool_ else _cast(out, dtype)


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None,
            name=None):
    """``tf.one_hot``: ``on_value`` where ``indices`` names the position along a new
    dim of length ``depth`` at ``axis`` (default last), ``off_value`` elsewhere (an
    index outside ``[0, depth)`` gives all ``off_value``)."""
    idx = _int_tensor(indices, "one_hot: indices")
    given = [np.dtype(tensor(v).dtype) for v in (on_value, off_value) if v is not None]
    if dtype is None:
        dtype = given[0] if given else np.dtype(np.float32)
    dtype = np.dtype(dtype)
    for g in given:
        if g != dtype:
            raise TypeError(f"one_hot: on_value/off_value dtype {g} differs from dtype "
                            f"{dtype}")
    on = np.ones((), dtype) if on_value is None else _cast(tensor(on_value), dtype)
    off = np.zeros((), dtype) if off_value is None else _cast(tensor(off_value), dtype)
    depth = int(value_of(depth))
    nd = _rank(idx, "one_hot")
    axis = -1 if axis is None else int(axis)
    if not -1 <= axis <= nd:
        raise ValueError(f"one_hot: axis must be -1 or in [0, {nd}], got {axis}")
    at = nd if axis == -1 else axis
    hit = shape_ops.expand_dims(_cast(idx, np.int64), at) == _grid(depth, at, nd + 1)
    return bind(ew.WHERE, hit, on, off)


# --------------------------------------------------------------------------- order
def _direction(direction):
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f"{direction} should be one of ASCENDING, DESCENDING")
    return direction == "DESCENDING"


def sort(values, axis=-1, direction="ASCENDING", name=None):
    """``tf.sort``: ``values`` sorted along ``axis`` (``direction`` 'ASCENDING' or
    'DESCENDING')."""
    x = tensor(values)
    down = _direction(direction)
    out = shape_ops.sort(x, axis)
    return shape_ops.flip(out, axis) if down else out


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """``tf.argsort``: int32 indices sorting ``values`` along ``axis``; equal values
    keep their order (both directions), which is what ``stable=True`` asks."""
    x = tensor(values)
    nd = _rank(x, "argsort")
    if _direction(direction):
        # descending and stable: sort the reversed tensor, read it backwards
        n = dims(x)[axis % nd]
        order = shape_ops.flip(shape_ops.argsort(shape_ops.flip(x, axis), axis), axis)
        order = (n - 1) - order
    else:
        order = shape_ops.argsort(x, axis)
    return _cast(order, np.int32)


def searchsorted(sorted_sequence, values, side="left", out_type=np.int32, name=None):
    """``tf.searchsorted``: for each of ``values``' innermost rows, the insertion points
    into the matching innermost row of ``sorted_sequence`` (leading dims shared)."""
    if side not in ("left", "right"):
        raise ValueError(f"side must be either 'right' or 'left', got {side!r}")
    seq, v = tensor(sorted_sequence), tensor(values)
    ns, nv = _rank(seq, "searchsorted"), _rank(v, "searchsorted")
    if ns == 0 or ns != nv:
        raise ValueError("searchsorted: sorted_sequence and values must have the same "
                         "rank >= 1 (leading dims shared)")
    if ns == 1:
        return _cast(_np_searchsorted(seq, v, side), out_type)
    before = (seq[..., None, :] < v[..., :, None]) if side == "left" else (
        seq[..., None, :] <= v[..., :, None])
    return _cast(reduce.sum(_cast(before, np.int64), axis=-1), out_type)


def unique(x, out_idx=np.int32, name=None):
    """``tf.unique``: the distinct values of the 1-D ``x`` in order of first appearance,
    and for each element its value's position (``out_idx``)."""
    return Unique(*_unique(x, out_idx, False))


def unique_with_counts(x, out_idx=np.int32, name=None):
    """``tf.unique_with_counts``: :func:`unique` and how often each value occurs."""
    return UniqueWithCounts(*_unique(x, out_idx, True))


def _unique(x, out_idx, counts):
    x = tensor(x)
    if _rank(x, "unique") != 1:
        raise InvalidArgumentError(f"unique expects a 1D vector, got shape {x.shape}")
    values, first, inverse, count = _np_unique(x, True, True, True, equal_nan=False)
    order = shape_ops.argsort(first)
    out = [take(values, order), _cast(take(shape_ops.argsort(order), inverse), out_idx)]
    if counts:
        out.append(_cast(take(count, order), out_idx))
    return out


def approx_top_k(operand, k, reduction_dimension=-1, recall_target=0.95, is_max_k=True,
                 reduction_input_size_override=-1, aggregate_to_topk=True, name=None):
    """``tf.approx_top_k``: the ``k`` largest (``is_max_k``) or smallest values along
    ``reduction_dimension`` and their int32 indices; graphc's answer is exact (recall
    1), ties in index order."""
    x = tensor(operand)
    order = argsort(x, reduction_dimension,
                    "DESCENDING" if is_max_k else "ASCENDING")
    nd = _rank(x, "approx_top_k")
    ax = reduction_dimension % nd
    key = (slice(None),) * ax + (slice(0, int(k)),)
    idx = order[key]
    return take_along_axis(x, idx, ax), idx
