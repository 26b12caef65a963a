"""TensorFlow's top-level partition, sequence and histogram names
(``gc.dynamic_partition``, ``gc.dynamic_stitch``, ``gc.reverse_sequence``,
``gc.histogram_fixed_width``, ``gc.histogram_fixed_width_bins``, ``gc.unravel_index``),
built from existing ops (boolean masks, ``take_along_axis``, ``tensor_scatter_nd_update``,
``unsorted_segment_sum``): gradients, batching and kernels are those ops'."""

from __future__ import annotations

import numpy as np

from graphc.core.registry import bind
from graphc.errors import InvalidArgumentError
from graphc.ops import creation, join, reduce
from graphc.ops import elementwise as ew
from graphc.ops import shape as shape_ops
from graphc.ops.array_helpers import dims
from graphc.ops.gather import tensor_scatter_nd_update
from graphc.ops.index_helpers import unravel_index as _np_unravel
from graphc.ops.indexing import take_along_axis
from graphc.ops.segment import unsorted_segment_sum
from graphc.ops.tf_api_index import _cast, _grid, _int_tensor, boolean_mask
from graphc.ops.tf_api_shapes import _rank, check, tensor, value_of


# --------------------------------------------------------------------------- partitions
def dynamic_partition(data, partitions, num_partitions, name=None):
    """``tf.dynamic_partition``: ``num_partitions`` tensors, the ``i``-th holding the
    slices of ``data`` whose ``partitions`` entry is ``i`` (in order)."""
    d, p = tensor(data), _int_tensor(partitions, "dynamic_partition: partitions")
    n = int(num_partitions)
    check((p >= 0) & (p < n), f"dynamic_partition: partitions must be in [0, {n})")
    if p.shape == ():
        return [d[None][shape_ops.reshape(p == i, (1,))] for i in range(n)]
    return [boolean_mask(d, p == i) for i in range(n)]


def dynamic_stitch(indices, data, name=None):
    """``tf.dynamic_stitch``: ``merged[indices[m][i]] = data[m][i]`` (a later write to
    the same index wins), ``merged`` as long as the largest index + 1."""
    if len(indices) != len(data) or not indices:
        raise ValueError("dynamic_stitch: give as many index tensors as data tensors")
    idx = [_int_tensor(i, "dynamic_stitch: indices") for i in indices]
    vals = [tensor(v) for v in data]
    rest = list(vals[0].shape[len(idx[0].shape):])
    flat_idx = join.concatenate([_cast(shape_ops.reshape(i, (-1,)), np.int64) for i in idx])
    flat_vals = join.concatenate([shape_ops.reshape(v, [-1] + rest) for v in vals])
    check(flat_idx >= 0, "dynamic_stitch: indices must be non-negative")
    known = value_of(flat_idx)
    if known is not None:
        n = int(known.max()) + 1 if known.size else 0
    else:
        n = reduce.max(join.concatenate([flat_idx, creation.constant([-1], np.int64)])) + 1
    out = creation.zeros([n] + rest, flat_vals.dtype)
    return tensor_scatter_nd_update(out, flat_idx[:, None], flat_vals)


def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None,  # noqa: A002
                     name=None):
    """``tf.reverse_sequence``: in each slice ``b`` along ``batch_axis``, the first
    ``seq_lengths[b]`` entries along ``seq_axis`` reversed."""
    x = tensor(input)
    lens = _int_tensor(seq_lengths, "reverse_sequence: seq_lengths")
    if seq_axis is None:
        raise ValueError("reverse_sequence: seq_axis is required")
    nd = _rank(x, "reverse_sequence")
    sa, ba = int(seq_axis) % nd, (0 if batch_axis is None else int(batch_axis)) % nd
    if sa == ba:
        raise InvalidArgumentError("reverse_sequence: seq_axis and batch_axis must differ")
    xd = dims(x)
    lens64 = shape_ops.reshape(_cast(lens, np.int64), [1] * ba + [-1] + [1] * (nd - ba - 1))
    check((lens >= 0) & (lens <= xd[sa]), f"reverse_sequence: seq_lengths must be in "
          f"[0, {xd[sa]}]")
    j = _grid(xd[sa], sa, nd)
    idx = bind(ew.WHERE, j < lens64, lens64 - 1 - j, j)
    return take_along_axis(x, shape_ops.broadcast_to(idx, xd), sa)


# --------------------------------------------------------------------------- histograms
def histogram_fixed_width_bins(values, value_range, nbins=100, dtype=np.int32, name=None):
    """``tf.histogram_fixed_width_bins``: for each value, its bin among ``nbins`` equal
    bins over ``value_range`` (values outside go to the first or last bin)."""
    v = tensor(values)
    if v.dtype.kind not in "iuf":
        raise TypeError(f"histogram_fixed_width_bins: values must be numbers, got {v.dtype}")
    calc = v.dtype if v.dtype.kind == "f" else np.dtype(np.float64)
    v = _cast(v, calc)
    r = _cast(tensor(value_range), calc)
    nb = int(value_of(nbins))
    if nb <= 0:
        raise InvalidArgumentError(f"nbins should be a positive number, but got '{nb}'")
    scaled = (v - r[0]) / (r[1] - r[0])
    bins = bind(ew.FLOOR, scaled * np.asarray(nb, calc))
    bins = bind(ew.MINIMUM, bind(ew.MAXIMUM, bins, np.zeros((), calc)),
                np.asarray(nb - 1, calc))
    return _cast(bins, dtype)


def histogram_fixed_width(values, value_range, nbins=100, dtype=np.int32, name=None):
    """``tf.histogram_fixed_width``: how many values fall in each of ``nbins`` equal
    bins over ``value_range`` (values outside count in the first or last bin)."""
    bins = histogram_fixed_width_bins(values, value_range, nbins, np.int64)
    flat = shape_ops.reshape(bins, (-1,))
    ones = creation.ones_like(flat, np.dtype(dtype))
    return unsorted_segment_sum(ones, flat, int(value_of(nbins)))


def unravel_index(indices, dims, name=None):  # noqa: F811 - TensorFlow's argument name
    """``tf.unravel_index``: the coordinates (stacked along a new first dim, in
    ``indices``' dtype) of flat ``indices`` in a tensor of shape ``dims``."""
    idx = _int_tensor(indices, "unravel_index: indices")
    shape = [int(d) for d in np.atleast_1d(value_of(dims))] if value_of(dims) is not None \
        else None
    if shape is None:
        raise ValueError("unravel_index: dims must be known while tracing")
    check((idx >= 0) & (idx < int(np.prod(shape))),
          f"unravel_index: an index is out of bounds for dims {shape}")
    coords = _np_unravel(idx, tuple(shape))
    return _cast(join.stack(list(coords), 0), idx.dtype)
