"""Depthwise and separable convolutions of ``gc.nn`` (``tf.nn.depthwise_conv2d``,
``separable_conv2d`` and the two depthwise backprops), from the windows of
``nn_patches.py`` and one ``einsum`` each (no op of their own).

A depthwise filter is ``[kh, kw, in_channels, multiplier]``; output channel
``c * multiplier + m`` is input channel ``c`` convolved with ``filter[:, :, c, m]``.
``strides`` is a list of 4 ints (batch and channel entries 1), ``dilations`` a list of 2
(the rates along height and width), as TensorFlow takes them.
"""

from __future__ import annotations

import numpy as np

from graphc import source_info
from graphc.ops.linalg import einsum
from graphc.ops.nn_conv import _operands, _output_spatial, transposed_windows
from graphc.ops.nn_patches import (
    channels_first,
    from_channels_last,
    patches,
    spatial_ints,
    static_spatial,
    to_channels_last,
    windows,
)
from graphc.ops.shape import flip, reshape
from graphc.ops.shape_args import static_value


def _filter(w, name):
    if len(w.shape) != 4 or None in w.shape:
        raise ValueError(f"{name}: the filter must be [height, width, in_channels, "
                         f"multiplier], got {w.shape}{source_info.where()}")
    return list(w.shape[:2])


def _setup(x, data_format, strides, dilations, name):
    if len(x.shape) != 4:
        raise ValueError(f"{name}: the input must be 4-D, got {x.shape}{source_info.where()}")
    cf = channels_first(data_format, 2, name)
    st = spatial_ints(strides, 2, cf, "strides", name)
    dl = spatial_ints(dilations, 2, cf, "dilations", name)
    if max(st) > 1 and max(dl) > 1:
        raise ValueError(f"{name}: strides > 1 not supported in conjunction with "
                         f"dilation_rate > 1{source_info.where()}")
    return to_channels_last(x, cf), cf, st, dl


def _windows(x, ks, st, dl, padding, cf, name):
    outs, pads = windows(static_spatial(x, 2, name), ks, st, dl, padding, 2, cf, name)
    return patches(x, ks, st, dl, pads, outs)  # (b, oh, ow, k, c)


def depthwise_conv2d(input, filter, strides, padding, data_format=None,  # noqa: A002
                     dilations=None, name=None):
    """``tf.nn.depthwise_conv2d``: each input channel convolved with its own
    ``multiplier`` filters; the result has ``in_channels * multiplier`` channels."""
    name = "depthwise_conv2d"
    x, w = _operands(input, filter, name)
    ks = _filter(w, name)
    x, cf, st, dl = _setup(x, data_format, strides, dilations, name)
    c, m = w.shape[2], w.shape[3]
    if x.shape[-1] != c:
        raise ValueError(f"{name}: the input depth ({x.shape[-1]}) must equal the filter's "
                         f"in_channels ({c}){source_info.where()}")
    p = _windows(x, ks, st, dl, padding, cf, name)
    y = einsum("bhwkc,kcm->bhwcm", p, reshape(w, (ks[0] * ks[1], c, m)))
    y = reshape(y, (-1, y.shape[1], y.shape[2], c * m))
    return from_channels_last(y, cf)


def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding,  # noqa: A002
                     data_format=None, dilations=None, name=None):
    """``tf.nn.separable_conv2d``: a depthwise convolution, then a 1x1 convolution with
    ``pointwise_filter`` (``[1, 1, in_channels * multiplier, out_channels]``)."""
    x, pw = _operands(input, pointwise_filter, "separable_conv2d")
    if len(pw.shape) != 4 or tuple(pw.shape[:2]) != (1, 1):
        raise ValueError(f"separable_conv2d: pointwise_filter must be [1, 1, in, out], got "
                         f"{pw.shape}{source_info.where()}")
    d = depthwise_conv2d(x, depthwise_filter, strides, padding, data_format, dilations)
    cf = channels_first(data_format, 2, "separable_conv2d")
    y = to_channels_last(d, cf)
    if y.shape[-1] != pw.shape[2]:
        raise ValueError(f"separable_conv2d: pointwise_filter's in_channels ({pw.shape[2]}) "
                         f"must be in_channels * multiplier ({y.shape[-1]})")
    y = einsum("bhwc,co->bhwo", y, reshape(pw, tuple(pw.shape[2:])))
    return from_channels_last(y, cf)


def _sizes(sizes, name):
    v = static_value(sizes) if hasattr(sizes, "dtype") else sizes
    if v is None:
        raise ValueError(f"{name}: the sizes must be known while tracing")
    v = [int(s) for s in np.asarray(v).reshape(-1)]
    if len(v) != 4:
        raise ValueError(f"{name}: the sizes must hold 4 ints, got {v}")
    return v


def depthwise_conv2d_backprop_input(input_sizes, filter, out_backprop, strides,  # noqa: A002
                                    padding, data_format="NHWC", dilations=(1, 1, 1, 1),
                                    name=None):
    """``tf.nn.depthwise_conv2d_backprop_input``: the gradient of ``depthwise_conv2d``
    with respect to its input of shape ``input_sizes``, given ``out_backprop``."""
    name = "depthwise_conv2d_backprop_input"
    g, w = _operands(out_backprop, filter, name)
    ks = _filter(w, name)
    g, cf, st, dl = _setup(g, data_format, strides, dilations, name)
    sizes = _sizes(input_sizes, name)
    y_sizes, channels = _output_spatial(sizes, g, 2, cf, name)
    c, m = w.shape[2], w.shape[3]
    if channels != c or g.shape[-1] != c * m:
        raise ValueError(f"{name}: input_sizes' depth ({channels}) and out_backprop's "
                         f"({g.shape[-1]}) do not fit a filter of shape {w.shape}")
    p = transposed_windows(g, ks, y_sizes, st, dl, padding, 2, cf, name)
    p = reshape(p, (-1, y_sizes[0], y_sizes[1], ks[0] * ks[1], c, m))
    wf = reshape(flip(w, (0, 1)), (ks[0] * ks[1], c, m))
    return from_channels_last(einsum("bhwkcm,kcm->bhwc", p, wf), cf)


def depthwise_conv2d_backprop_filter(input, filter_sizes, out_backprop, strides,  # noqa: A002
                                     padding, data_format="NHWC", dilations=(1, 1, 1, 1),
                                     name=None):
    """``tf.nn.depthwise_conv2d_backprop_filter``: the gradient of ``depthwise_conv2d``
    with respect to its filter of shape ``filter_sizes``, given ``out_backprop``."""
    name = "depthwise_conv2d_backprop_filter"
    x, g = _operands(input, out_backprop, name)
    kh, kw, c, m = _sizes(filter_sizes, name)
    x, cf, st, dl = _setup(x, data_format, strides, dilations, name)
    g = to_channels_last(g, cf)
    if x.shape[-1] != c or g.shape[-1] != c * m:
        raise ValueError(f"{name}: filter_sizes {[kh, kw, c, m]} do not fit the input "
                         f"depth {x.shape[-1]} and out_backprop depth {g.shape[-1]}")
    p = _windows(x, [kh, kw], st, dl, padding, cf, name)
    if tuple(p.shape[1:3]) != tuple(g.shape[1:3]):
        raise ValueError(f"{name}: out_backprop's spatial shape {g.shape[1:3]} does not "
                         f"match the convolution's output {p.shape[1:3]}")
    g = reshape(g, (-1, g.shape[1], g.shape[2], c, m))
    return reshape(einsum("bhwkc,bhwcm->kcm", p, g), (kh, kw, c, m))
