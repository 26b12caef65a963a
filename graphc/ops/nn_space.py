"""Block rearrangements of ``gc.nn``: ``depth_to_space``, ``space_to_depth``,
``space_to_batch`` (``tf.space_to_batch_nd``), ``batch_to_space`` (its inverse, used by
``with_space_to_batch``), each a ``pad``/``reshape``/``transpose`` composition with
TensorFlow's element orders, and ``with_space_to_batch``, which runs a user's op on
the space-to-batch form of a dilated input (TensorFlow's atrous route)."""

from __future__ import annotations

import numpy as np

from graphc import source_info
from graphc.ops.convert import convert_to_tensor
from graphc.ops.pad_tile import pad
from graphc.ops.shape import reshape, transpose
from graphc.ops.shape_args import static_value


def _block(block_size, name):
    b = int(block_size)
    if b < 2:
        raise ValueError(f"{name}: block_size must be at least 2, got {b}"
                         f"{source_info.where()}")
    return b


def _dims(x, name, rank=4):
    if len(x.shape) != rank:
        raise ValueError(f"{name}: the input must have rank {rank}, got {x.shape}")
    return [-1 if d is None else d for d in x.shape]


def depth_to_space(input, block_size, data_format="NHWC", name=None):  # noqa: A002
    """``tf.nn.depth_to_space``: blocks of ``block_size**2`` channels become
    ``block_size x block_size`` spatial blocks (``out[b, h*s + i, w*s + j, c] =
    in[b, h, w, (i*s + j) * C + c]``)."""
    name = "depth_to_space"
    s = _block(block_size, name)
    x = convert_to_tensor(input)
    b, d1, d2, d3 = _dims(x, name)
    if data_format == "NHWC":
        h, w, c = d1, d2, d3
        if c % (s * s):
            raise ValueError(f"{name}: the depth ({c}) must be divisible by "
                             f"block_size**2 ({s * s})")
        y = reshape(x, (b, h, w, s, s, c // (s * s)))
        y = transpose(y, (0, 1, 3, 2, 4, 5))
        return reshape(y, (b, h * s, w * s, c // (s * s)))
    if data_format == "NCHW":
        c, h, w = d1, d2, d3
        if c % (s * s):
            raise ValueError(f"{name}: the depth ({c}) must be divisible by "
                             f"block_size**2 ({s * s})")
        y = reshape(x, (b, s, s, c // (s * s), h, w))
        y = transpose(y, (0, 3, 4, 1, 5, 2))
        return reshape(y, (b, c // (s * s), h * s, w * s))
    raise ValueError(f"{name}: data_format must be 'NHWC' or 'NCHW', got {data_format!r}")


def space_to_depth(input, block_size, data_format="NHWC", name=None):  # noqa: A002
    """``tf.nn.space_to_depth``: the inverse of :func:`depth_to_space`."""
    name = "space_to_depth"
    s = _block(block_size, name)
    x = convert_to_tensor(input)
    b, d1, d2, d3 = _dims(x, name)
    h, w = (d1, d2) if data_format == "NHWC" else (d2, d3)
    if h % s or w % s:
        raise ValueError(f"{name}: height and width ({h}, {w}) must be divisible by "
                         f"block_size ({s})")
    if data_format == "NHWC":
        c = d3
        y = reshape(x, (b, h // s, s, w // s, s, c))
        y = transpose(y, (0, 1, 3, 2, 4, 5))
        return reshape(y, (b, h // s, w // s, s * s * c))
    if data_format == "NCHW":
        c = d1
        y = reshape(x, (b, c, h // s, s, w // s, s))
        y = transpose(y, (0, 3, 5, 1, 2, 4))
        return reshape(y, (b, s * s * c, h // s, w // s))
    raise ValueError(f"{name}: data_format must be 'NHWC' or 'NCHW', got {data_format!r}")


def _ints(v, name, what):
    known = static_value(v) if hasattr(v, "dtype") else v
    if known is None:
        raise ValueError(f"{name}: {what} must be known while tracing")
    return np.asarray(known, dtype=np.int64)


def space_to_batch(input, block_shape, paddings, name=None):  # noqa: A002
    """``tf.space_to_batch`` (``tf.space_to_batch_nd``): pads the M spatial dims (1..M)
    by ``paddings`` and moves each ``block_shape`` block into the batch dimension:
    shape ``[batch * prod(block_shape), padded / block_shape..., rest...]``."""
    name = "space_to_batch"
    x = convert_to_tensor(input)
    bs = [int(b) for b in _ints(block_shape, name, "block_shape").reshape(-1)]
    pads = _ints(paddings, name, "paddings").reshape(-1, 2)
    m = len(bs)
    if pads.shape[0] != m or len(x.shape) < m + 1 or any(b < 1 for b in bs):
        raise ValueError(f"{name}: block_shape {bs} and paddings {pads.tolist()} do not fit "
                         f"an input of shape {x.shape}")
    widths = [(0, 0)] + [tuple(int(v) for v in p) for p in pads] + \
        [(0, 0)] * (len(x.shape) - m - 1)
    if any(w != (0, 0) for w in widths):
        x = pad(x, widths)
    dims = [-1 if d is None else d for d in x.shape]
    spatial = dims[1:m + 1]
    for sz, b in zip(spatial, bs):
        if sz % b:
            raise ValueError(f"{name}: padded spatial size {sz} is not divisible by block "
                             f"size {b}{source_info.where()}")
    rest = dims[m + 1:]
    split = [dims[0]]
    for sz, b in zip(spatial, bs):
        split += [sz // b, b]
    y = reshape(x, tuple(split + rest))
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)] + \
        list(range(2 * m + 1, 2 * m + 1 + len(rest)))
    y = transpose(y, tuple(perm))
    batch = -1 if dims[0] == -1 else dims[0] * int(np.prod(bs))
    return reshape(y, tuple([batch] + [sz // b for sz, b in zip(spatial, bs)] + rest))


def batch_to_space(input, block_shape, crops, name=None):  # noqa: A002
    """``tf.batch_to_space``: the inverse of :func:`space_to_batch`, then ``crops``."""
    name = "batch_to_space"
    x = convert_to_tensor(input)
    bs = [int(b) for b in _ints(block_shape, name, "block_shape").reshape(-1)]
    cr = _ints(crops, name, "crops").reshape(-1, 2)
    m = len(bs)
    dims = list(x.shape)
    if None in dims[:m + 1]:
        raise ValueError(f"{name}: batch and spatial sizes must be known while tracing")
    prod = int(np.prod(bs))
    if dims[0] % prod:
        raise ValueError(f"{name}: the batch ({dims[0]}) must be divisible by "
                         f"prod(block_shape) ({prod})")
    batch = dims[0] // prod
    rest = [-1 if d is None else d for d in dims[m + 1:]]
    y = reshape(x, tuple(bs + [batch] + dims[1:m + 1] + rest))
    perm = [m]
    for i in range(m):
        perm += [m + 1 + i, i]
    perm += list(range(2 * m + 1, 2 * m + 1 + len(rest)))
    y = transpose(y, tuple(perm))
    full = [sz * b for sz, b in zip(dims[1:m + 1], bs)]
    y = reshape(y, tuple([batch] + full + rest))
    key = (slice(None),) + tuple(slice(int(a), f - int(b)) for (a, b), f in zip(cr, full))
    return y[key]


def with_space_to_batch(input, dilation_rate, padding, op, filter_shape=None,  # noqa: A002
                        spatial_dims=None, data_format=None):
    """``tf.nn.with_space_to_batch``: ``op(converted, num_spatial_dims, padding)`` on the
    space-to-batch form of ``input`` for ``dilation_rate``, converted back (with "SAME",
    ``filter_shape`` gives the padding; ``op`` then sees "VALID")."""
    name = "with_space_to_batch"
    x = convert_to_tensor(input)
    rate = [int(r) for r in np.asarray(dilation_rate).reshape(-1)]
    m = len(rate)
    if any(r < 1 for r in rate):
        raise ValueError(f"{name}: dilation_rate must be positive, got {rate}")
    if spatial_dims is None:
        first = 2 if data_format is not None and str(data_format).startswith("NC") else 1
        spatial_dims = list(range(first, first + m))
    spatial_dims = [int(d) for d in spatial_dims]
    if len(spatial_dims) != m or sorted(set(spatial_dims)) != spatial_dims or \
            spatial_dims[0] < 1:
        raise ValueError(f"{name}: spatial_dims must be {m} increasing dims >= 1, got "
                         f"{spatial_dims}")
    padding = str(padding).upper()
    if all(r == 1 for r in rate):
        return op(x, m, padding)
    if padding == "SAME":
        if filter_shape is None:
            raise ValueError("filter_shape must be specified for SAME padding")
        fs = [int(f) for f in np.asarray(_ints(filter_shape, name, "filter_shape"))[:m]]
        extra = [(f - 1) * r for f, r in zip(fs, rate)]
        base = [(e // 2, e - e // 2) for e in extra]
    elif padding == "VALID":
        base = [(0, 0)] * m
    else:
        raise ValueError(f"{name}: padding must be 'SAME' or 'VALID', got {padding!r}")
    top = spatial_dims[-1]
    block = [1] * top
    pads = [(0, 0)] * top
    crops = [(0, 0)] * top
    for d, r, (a, b) in zip(spatial_dims, rate, base):
        size = x.shape[d]
        if size is None:
            raise ValueError(f"{name}: spatial sizes must be known while tracing")
        end_extra = (r - (size + a + b) % r) % r
        block[d - 1], pads[d - 1], crops[d - 1] = r, (a, b + end_extra), (0, end_extra)
    converted = space_to_batch(x, block, pads)
    result = convert_to_tensor(op(converted, m, "VALID"))
    return batch_to_space(result, block, crops)
