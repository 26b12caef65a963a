"""Convolutions of ``gc.nn`` (TensorFlow's ``tf.nn.conv*``), built from the windows of
``nn_patches.py``: pad, one strided slice per kernel offset, and one ``matmul`` (or
``einsum`` for grouped and depthwise filters). No op of their own: gradients, batching
and compiled code are those of ``pad``/``getitem``/``stack``/``matmul``.

A transposed convolution (the gradient of a convolution with respect to its input)
spreads its input with ``stride - 1`` zeros between neighbours, pads (or crops) it by
``(k - 1) * dilation - pad_before`` and so on, and runs a stride-1 convolution with the
filter flipped in space and its two channel axes swapped.

Filters are ``[spatial..., in_channels, out_channels]`` (transposes: ``[spatial...,
out_channels, in_channels]``), data formats channels-last by default (``"NWC"``,
``"NHWC"``, ``"NDHWC"``) or channels-first (``"NCW"``, ``"NCHW"``, ``"NCDHW"``). The
spatial sizes must be known while tracing; the batch size may be unknown. An input whose
depth is a multiple ``g`` of the filter's in_channels is a grouped convolution (``g``
groups), as TensorFlow computes it on GPUs.
"""

from __future__ import annotations

import numpy as np

from graphc import source_info
from graphc.core.tensor import Tensor
from graphc.ops.convert import convert_to_tensor
from graphc.ops.linalg import einsum, matmul
from graphc.ops.nn_patches import (
    channels_first,
    dilate,
    flatten_batch,
    from_channels_last,
    patches,
    restore_batch,
    spatial_ints,
    static_spatial,
    to_channels_last,
    windows,
)
from graphc.ops.shape import flip, reshape, transpose
from graphc.ops.shape_args import static_value

_LETTERS = "xyz"


def _operands(x, w, name):
    """``x`` and the filter as tensors of one dtype (a literal filter takes ``x``'s)."""
    x = convert_to_tensor(x)
    if isinstance(w, Tensor | np.ndarray) and np.dtype(w.dtype) != x.dtype:
        raise TypeError(f"{name}: the filter's dtype {np.dtype(w.dtype)} differs from the "
                        f"input's {x.dtype}{source_info.where()}")
    return x, convert_to_tensor(w, dtype=x.dtype)


def _kernel(w, n, name):
    if len(w.shape) != n + 2 or None in w.shape:
        raise ValueError(f"{name}: the filter must have rank {n + 2} and a known shape, got "
                         f"{w.shape}{source_info.where()}")
    return list(w.shape[:n])


def _prepare(x, n, data_format, name):
    if len(x.shape) < n + 2:
        raise ValueError(f"{name}: the input must have rank {n + 2}, got shape {x.shape}"
                         f"{source_info.where()}")
    cf = channels_first(data_format, n, name)
    x, lead = flatten_batch(x, n)
    return to_channels_last(x, cf), cf, lead


def _finish(y, cf, lead):
    return restore_batch(from_channels_last(y, cf), lead)


def _contract(p, w, n, name):
    """``(b, out..., K, C)`` windows times a ``[k..., C/g, O]`` filter."""
    k = int(np.prod(w.shape[:n]))
    c, cin, cout = p.shape[-1], w.shape[n], w.shape[n + 1]
    outs = tuple(p.shape[1:1 + n])
    if c is None or c % cin:
        raise ValueError(f"{name}: the input depth ({c}) must be evenly divisible by the "
                         f"filter's in_channels ({cin}){source_info.where()}")
    g = c // cin
    if g == 1:
        flat = reshape(p, (-1,) + outs + (k * c,))
        return matmul(flat, reshape(w, (k * c, cout)))
    if cout % g:
        raise ValueError(f"{name}: out_channels ({cout}) must be divisible by the number of "
                         f"groups ({g}){source_info.where()}")
    s = _LETTERS[:n]
    pg = reshape(p, (-1,) + outs + (k, g, cin))
    wg = reshape(w, (k, cin, g, cout // g))
    y = einsum(f"b{s}kgc,kcgo->b{s}go", pg, wg)
    return reshape(y, (-1,) + outs + (cout,))


def _conv(input, filters, strides, padding, data_format, dilations, n, name):  # noqa: A002
    x, w = _operands(input, filters, name)
    ks = _kernel(w, n, name)
    x, cf, lead = _prepare(x, n, data_format, name)
    st = spatial_ints(strides, n, cf, "strides", name)
    dl = spatial_ints(dilations, n, cf, "dilations", name)
    outs, pads = windows(static_spatial(x, n, name), ks, st, dl, padding, n, cf, name)
    return _finish(_contract(patches(x, ks, st, dl, pads, outs), w, n, name), cf, lead)


def conv1d(input, filters, stride, padding, data_format="NWC", dilations=None,  # noqa: A002
           name=None):
    """``tf.nn.conv1d``: a 1-D convolution of ``[batch, width, in]`` (``"NWC"``) with a
    ``[k, in, out]`` filter."""
    return _conv(input, filters, stride, padding, data_format, dilations, 1, "conv1d")


def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None,  # noqa: A002
           name=None):
    """``tf.nn.conv2d``: a 2-D convolution (cross-correlation, as TensorFlow's) of
    ``[batch..., h, w, in]`` with a ``[kh, kw, in, out]`` filter; ``padding`` "SAME",
    "VALID" or explicit pairs."""
    return _conv(input, filters, strides, padding, data_format, dilations, 2, "conv2d")


def conv3d(input, filters, strides, padding, data_format="NDHWC", dilations=None,  # noqa: A002
           name=None):
    """``tf.nn.conv3d``: a 3-D convolution with a ``[kd, kh, kw, in, out]`` filter."""
    return _conv(input, filters, strides, padding, data_format, dilations, 3, "conv3d")


def convolution(input, filters, strides=None, padding="VALID", data_format=None,  # noqa: A002
                dilations=None, name=None):
    """``tf.nn.convolution``: an N-D convolution, N the filter's rank minus 2."""
    w = filters if hasattr(filters, "shape") else np.asarray(filters)
    n = len(w.shape) - 2
    if n < 1:
        raise ValueError(f"convolution: the filter must have rank >= 3, got {w.shape}")
    return _conv(input, filters, strides, padding, data_format, dilations, n, "convolution")


def atrous_conv2d(value, filters, rate, padding, name=None):
    """``tf.nn.atrous_conv2d``: a 2-D NHWC convolution with dilation ``rate``."""
    if int(rate) < 1:
        raise ValueError(f"rate {rate} cannot be less than one")
    return _conv(value, filters, 1, padding, "NHWC", int(rate), 2, "atrous_conv2d")


# --------------------------------------------------------------------------- transposes
def _output_spatial(output_shape, x, n, cf, name):
    shape = static_value(output_shape) if hasattr(output_shape, "dtype") else output_shape
    if shape is None:
        raise ValueError(f"{name}: output_shape must be known while tracing"
                         f"{source_info.where()}")
    shape = [int(v) for v in np.asarray(shape).reshape(-1)]
    if len(shape) == n:
        return shape, None
    if len(shape) != n + 2:
        raise ValueError(f"{name}: output_shape must have {n + 2} entries, got {shape}")
    return (shape[2:] if cf else shape[1:-1]), (shape[1] if cf else shape[-1])


def transposed_windows(x, ks, y_sizes, strides, dilations, padding, n, cf, name):
    """Windows of the zero-spread channels-last ``x`` whose stride-1 convolution with a
    flipped filter is the transposed convolution; checks that a forward convolution of
    ``y_sizes`` gives ``x``'s sizes."""
    o_sizes = static_spatial(x, n, name)
    outs, pads = windows(y_sizes, ks, strides, dilations, padding, n, cf, name)
    if list(outs) != list(o_sizes):
        raise ValueError(f"{name}: output_shape {y_sizes} does not match the input: a "
                         f"forward convolution of it gives {outs}, the input has {o_sizes}"
                         f"{source_info.where()}")
    xd = dilate(x, strides)
    new_pads = []
    for (before, _), k, d, o, s, y in zip(pads, ks, dilations, o_sizes, strides, y_sizes):
        left = (k - 1) * d - before
        right = y + (k - 1) * d - left - ((o - 1) * s + 1)
        new_pads.append((left, right))
    return patches(xd, ks, [1] * n, dilations, new_pads, y_sizes)


def _conv_transpose(input, filters, output_shape, strides, padding, data_format,  # noqa: A002
                    dilations, n, name):
    x, w = _operands(input, filters, name)
    ks = _kernel(w, n, name)
    x, cf, lead = _prepare(x, n, data_format, name)
    y_sizes, y_channels = _output_spatial(output_shape, x, n, cf, name)
    cout, cin = w.shape[n], w.shape[n + 1]
    if y_channels is not None and y_channels != cout:
        raise ValueError(f"{name}: output_shape's depth ({y_channels}) must equal the "
                         f"filter's out_channels ({cout}){source_info.where()}")
    if x.shape[-1] != cin:
        raise ValueError(f"{name}: the input depth ({x.shape[-1]}) must equal the filter's "
                         f"in_channels ({cin}){source_info.where()}")
    st = spatial_ints(strides, n, cf, "strides", name)
    dl = spatial_ints(dilations, n, cf, "dilations", name)
    p = transposed_windows(x, ks, y_sizes, st, dl, padding, n, cf, name)
    wf = transpose(flip(w, tuple(range(n))), tuple(range(n)) + (n + 1, n))
    return _finish(_contract(p, wf, n, name), cf, lead)


def conv1d_transpose(input, filters, output_shape, strides, padding="SAME",  # noqa: A002
                     data_format="NWC", dilations=None, name=None):
    """``tf.nn.conv1d_transpose``: the gradient of ``conv1d`` with respect to its input;
    the filter is ``[k, out, in]``."""
    return _conv_transpose(input, filters, output_shape, strides, padding, data_format,
                           dilations, 1, "conv1d_transpose")


def conv2d_transpose(input, filters, output_shape, strides, padding="SAME",  # noqa: A002
                     data_format="NHWC", dilations=None, name=None):
    """``tf.nn.conv2d_transpose``: the gradient of ``conv2d`` with respect to its input
    ("deconvolution"); the filter is ``[kh, kw, out, in]``, ``output_shape`` the full
    shape of the result (or its spatial part)."""
    return _conv_transpose(input, filters, output_shape, strides, padding, data_format,
                           dilations, 2, "conv2d_transpose")


def conv3d_transpose(input, filters, output_shape, strides, padding="SAME",  # noqa: A002
                     data_format="NDHWC", dilations=None, name=None):
    """``tf.nn.conv3d_transpose``: the gradient of ``conv3d`` with respect to its input."""
    return _conv_transpose(input, filters, output_shape, strides, padding, data_format,
                           dilations, 3, "conv3d_transpose")


def conv_transpose(input, filters, output_shape, strides, padding="SAME",  # noqa: A002
                   data_format=None, dilations=None, name=None):
    """``tf.nn.conv_transpose``: the N-D transposed convolution, N from ``input``'s rank."""
    x = input if hasattr(input, "shape") else np.asarray(input)
    n = len(x.shape) - 2
    if n not in (1, 2, 3):
        raise ValueError(f"conv_transpose: input must have rank 3, 4 or 5, got {x.shape}")
    return _conv_transpose(input, filters, output_shape, strides, padding, data_format,
                           dilations, n, "conv_transpose")


def atrous_conv2d_transpose(value, filters, output_shape, rate, padding, name=None):
    """``tf.nn.atrous_conv2d_transpose``: ``conv2d_transpose`` with dilation ``rate``."""
    if int(rate) < 1:
        raise ValueError(f"rate {rate} cannot be less than one")
    return _conv_transpose(value, filters, output_shape, 1, padding, "NHWC", int(rate), 2,
                           "atrous_conv2d_transpose")
