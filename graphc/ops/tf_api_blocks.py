"""TensorFlow's block-rearranging names: ``gc.space_to_batch_nd`` (and
``gc.space_to_batch``, the same in TensorFlow 2), ``gc.batch_to_space``,
``gc.required_space_to_batch_paddings`` and ``gc.extract_volume_patches``; built from
``pad``, ``reshape``, ``transpose``, slices and ``stack`` (gradients, batching and
compiled kernels are those ops'). Block sizes, paddings and crops must be known while
tracing."""

from __future__ import annotations

import itertools

import numpy as np

from graphc import source_info
from graphc.errors import InvalidArgumentError
from graphc.ops import join
from graphc.ops import shape as shape_ops
from graphc.ops.array_helpers import dims
from graphc.ops.convert import asarray
from graphc.ops.pad_tile import pad
from graphc.ops.tf_api_shapes import _rank, tensor, value_of


def _static(x, what, shape=None):
    v = value_of(x)
    if v is None:
        raise ValueError(f"{what} must be known while tracing{source_info.where()}")
    v = np.asarray(v)
    if v.dtype.kind not in "iu":
        raise TypeError(f"{what} must hold integers, got {v.dtype}")
    if shape is not None and v.shape != shape:
        raise InvalidArgumentError(f"{what} must have shape {list(shape)}, got "
                                   f"{list(v.shape)}")
    return v.astype(np.int64)


def space_to_batch_nd(input, block_shape, paddings, name=None):  # noqa: A002
    """``tf.space_to_batch_nd``: the ``M`` spatial dims after the batch dim, padded
    by ``paddings`` (``[M, 2]``), cut into ``block_shape`` blocks whose positions move
    into the batch dim: ``[B, P1, ..., PM, ...] -> [B * prod(block), P1/b1, ..., ...]``."""
    x = tensor(input)
    block = _static(block_shape, "space_to_batch: block_shape")
    m = block.size
    block = block.reshape(m)
    pads = _static(paddings, "space_to_batch: paddings", (m, 2))
    nd = _rank(x, "space_to_batch")
    if m < 1 or nd < m + 1:
        raise InvalidArgumentError(f"space_to_batch: input rank {nd} must be at least "
                                   f"1 + len(block_shape) = {m + 1}")
    if (block < 1).any() or (pads < 0).any():
        raise InvalidArgumentError("space_to_batch: block sizes must be >= 1 and "
                                   "paddings >= 0")
    widths = [[0, 0]] + pads.tolist() + [[0, 0]] * (nd - m - 1)
    y = pad(x, widths)
    d = dims(y)
    batch, spatial, rest = d[0], d[1:m + 1], d[m + 1:]
    for i, (s, b) in enumerate(zip(spatial, block)):
        if isinstance(s, int) and s % int(b):
            raise InvalidArgumentError(f"padded_shape[{i}]={s} is not divisible by "
                                       f"block_shape[{i}]={int(b)}")
    split = [batch]
    for s, b in zip(spatial, block):
        split += [s // int(b), int(b)]
    y = shape_ops.reshape(y, split + rest)
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)]
    perm += list(range(2 * m + 1, 2 * m + 1 + len(rest)))
    y = shape_ops.transpose(y, perm)
    out = [batch * int(np.prod(block))] + [s // int(b) for s, b in zip(spatial, block)]
    return shape_ops.reshape(y, out + rest)


def space_to_batch(input, block_shape, paddings, name=None):  # noqa: A002
    """``tf.space_to_batch`` (TensorFlow 2): :func:`space_to_batch_nd`."""
    return space_to_batch_nd(input, block_shape, paddings)


def batch_to_space(input, block_shape, crops, name=None):  # noqa: A002
    """``tf.batch_to_space``: the inverse of :func:`space_to_batch_nd`; the batch dim's
    blocks move back into the ``M`` spatial dims, which ``crops`` (``[M, 2]``) then
    trims."""
    x = tensor(input)
    block = _static(block_shape, "batch_to_space: block_shape")
    m = block.size
    block = block.reshape(m)
    crop = _static(crops, "batch_to_space: crops", (m, 2))
    nd = _rank(x, "batch_to_space")
    if m < 1 or nd < m + 1:
        raise InvalidArgumentError(f"batch_to_space: input rank {nd} must be at least "
                                   f"1 + len(block_shape) = {m + 1}")
    if (block < 1).any() or (crop < 0).any():
        raise InvalidArgumentError("batch_to_space: block sizes must be >= 1 and crops "
                                   ">= 0")
    d = dims(x)
    total = int(np.prod(block))
    if isinstance(d[0], int) and d[0] % total:
        raise InvalidArgumentError(f"Input batch dimension ({d[0]}) is not divisible by "
                                   f"the product of block sizes ({total})")
    spatial, rest = d[1:m + 1], d[m + 1:]
    y = shape_ops.reshape(x, [int(b) for b in block] + [d[0] // total] + spatial + rest)
    perm = [m]
    for i in range(m):
        perm += [m + 1 + i, i]
    perm += list(range(2 * m + 1, 2 * m + 1 + len(rest)))
    y = shape_ops.transpose(y, perm)
    grown = [s * int(b) for s, b in zip(spatial, block)]
    y = shape_ops.reshape(y, [d[0] // total] + grown + rest)
    key = [slice(None)]
    for g, (lo, hi) in zip(grown, crop.tolist()):
        if isinstance(g, int) and lo + hi > g:
            raise InvalidArgumentError(f"crops {lo}, {hi} exceed the dim {g}")
        key.append(slice(lo, g - hi))
    return y[tuple(key)]


def required_space_to_batch_paddings(input_shape, block_shape, base_paddings=None,
                                     name=None):
    """``tf.required_space_to_batch_paddings``: ``(paddings, crops)``, int32 ``[M, 2]``:
    ``base_paddings`` with the ends grown so each padded dim divides by its block, and
    the crops that undo the growth."""
    shape = _static(input_shape, "required_space_to_batch_paddings: input_shape")
    block = _static(block_shape, "required_space_to_batch_paddings: block_shape")
    m = block.size
    base = np.zeros((m, 2), np.int64) if base_paddings is None else _static(
        base_paddings, "required_space_to_batch_paddings: base_paddings", (m, 2))
    full = shape.reshape(m) + base[:, 0] + base[:, 1]
    extra = (block.reshape(m) - full % block.reshape(m)) % block.reshape(m)
    paddings = np.stack([base[:, 0], base[:, 1] + extra], 1).astype(np.int32)
    crops = np.stack([np.zeros(m, np.int64), extra], 1).astype(np.int32)
    return asarray(paddings), asarray(crops)


def extract_volume_patches(input, ksizes, strides, padding, name=None):  # noqa: A002
    """``tf.extract_volume_patches``: the ``[kd, kh, kw]`` patches of a 5-D
    ``[batch, depth, rows, cols, channels]`` tensor, each flattened (in patch-depth,
    row, column, channel order) into the last dim of ``[batch, od, oh, ow, k*c]``;
    ``padding`` 'VALID' or 'SAME' (zeros)."""
    x = tensor(input)
    if _rank(x, "extract_volume_patches") != 5:
        raise ValueError("extract_volume_patches: input must be 5-D")
    k = [int(v) for v in ksizes]
    s = [int(v) for v in strides]
    if len(k) != 5 or len(s) != 5 or k[0] != 1 or k[4] != 1 or s[0] != 1 or s[4] != 1:
        raise InvalidArgumentError("extract_volume_patches: ksizes and strides must be "
                                   "[1, d, h, w, 1]")
    if padding not in ("VALID", "SAME"):
        raise ValueError(f"padding must be 'VALID' or 'SAME', got {padding!r}")
    size = list(x.shape[1:4])
    if None in size:
        raise ValueError("extract_volume_patches: the spatial dims must be known while "
                         "tracing")
    outs, widths = [], [[0, 0]]
    for n, kk, ss in zip(size, k[1:4], s[1:4]):
        if padding == "VALID":
            o = max(-(-(n - kk + 1) // ss), 0)
            widths.append([0, 0])
        else:
            o = -(-n // ss)
            total = max((o - 1) * ss + kk - n, 0)
            widths.append([total // 2, total - total // 2])
        outs.append(o)
    widths.append([0, 0])
    y = pad(x, widths) if padding == "SAME" else x
    patches = []
    for off in itertools.product(*[range(kk) for kk in k[1:4]]):
        key = (slice(None),) + tuple(slice(a, a + (o - 1) * ss + 1, ss) for a, o, ss in
                                     zip(off, outs, s[1:4])) + (slice(None),)
        patches.append(y[key])
    if 0 in outs:
        return shape_ops.reshape(x[:, :0, :0, :0, :], dims(x)[:1] + outs +
                                 [int(np.prod(k)) * dims(x)[4]])
    stacked = join.stack(patches, axis=4)
    return shape_ops.reshape(stacked, dims(x)[:1] + outs + [len(patches) * dims(x)[4]])
