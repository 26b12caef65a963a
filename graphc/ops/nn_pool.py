"""Pooling of ``gc.nn`` (``tf.nn.max_pool*``, ``avg_pool*``, ``pool``,
``max_pool_with_argmax``) and the morphological ``dilation2d`` / ``erosion2d``, built on
the windows of ``nn_patches.py`` (no op of their own).

A max pool picks each window's first largest element with ``argmax`` and
``take_along_axis``, so its gradient goes to that one element, as TensorFlow's
``MaxPoolGrad`` sends it (a plain ``max`` would share it among ties). Max pools pad with
``-inf`` (the dtype's minimum for integers); average pools divide by the number of
elements inside the input ("SAME" padding does not count), a constant computed while
tracing. Dilated pools (``pool(..., dilations=)``) pad "SAME" with zeros that do count,
as TensorFlow's ``with_space_to_batch`` route does.
"""

from __future__ import annotations

import numpy as np

from graphc import source_info
from graphc.core.registry import bind
from graphc.ops import elementwise as _ew
from graphc.ops.convert import convert_to_tensor
from graphc.ops.indexing import take_along_axis
from graphc.ops.nn_patches import (
    channels_first,
    from_channels_last,
    patches,
    spatial_ints,
    static_spatial,
    to_channels_last,
    windows,
)
from graphc.ops.reduce import argmax
from graphc.ops.reduce import sum as _sum
from graphc.ops.shape import broadcast_to, flip, reshape, shape, squeeze


def _lowest(dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return -np.inf
    if dtype.kind in "iu":
        return np.iinfo(dtype).min
    raise TypeError(f"max_pool is not defined for dtype {dtype}")


def _rank_n(x, name):
    n = len(x.shape) - 2
    if n not in (1, 2, 3):
        raise ValueError(f"{name}: the input must have rank 3, 4 or 5, got shape {x.shape}"
                         f"{source_info.where()}")
    return n


def _first_max(p):
    """The first largest element along the window axis (-2) of ``p``."""
    i = argmax(p, axis=-2, keepdims=True)
    return squeeze(take_along_axis(p, i, axis=-2), axis=-2), i


def _pool(input, ksize, strides, padding, data_format, n, kind, name,  # noqa: A002
          dilations=None):
    x = convert_to_tensor(input)
    if n is None:
        n = _rank_n(x, name)
    if len(x.shape) != n + 2:
        raise ValueError(f"{name}: the input must have rank {n + 2}, got shape {x.shape}"
                         f"{source_info.where()}")
    if kind == "AVG" and x.dtype.kind != "f":
        raise TypeError(f"{name}: average pooling needs a float input, got {x.dtype}")
    if kind == "AVG" and not isinstance(padding, str):
        raise ValueError(f"{name}: explicit padding is not supported by average pooling"
                         f"{source_info.where()}")
    cf = channels_first(data_format, n, name)
    x = to_channels_last(x, cf)
    ks = spatial_ints(ksize, n, cf, "ksize", name)
    st = spatial_ints(strides, n, cf, "strides", name)
    dl = spatial_ints(dilations, n, cf, "dilations", name)
    sizes = static_spatial(x, n, name)
    zero_padded = max(dl) > 1 and isinstance(padding, str) and padding.upper() == "SAME"
    if zero_padded:  # TensorFlow's space-to-batch route: zeros that count
        pads = [(((k - 1) * d) // 2, (k - 1) * d - ((k - 1) * d) // 2) for k, d in zip(ks, dl)]
        outs, pads = windows(sizes, ks, st, dl, [(0, 0)] + pads + [(0, 0)], n, False, name)
    else:
        outs, pads = windows(sizes, ks, st, dl, padding, n, cf, name)
    if kind == "MAX":
        fill = 0 if zero_padded else _lowest(x.dtype)
        y = _first_max(patches(x, ks, st, dl, pads, outs, pad_value=fill))[0]
    else:
        total = _sum(patches(x, ks, st, dl, pads, outs), axis=-2)
        if zero_padded:
            counts = np.asarray(float(np.prod(ks)), x.dtype)
        else:
            ones = np.ones((1,) + tuple(sizes) + (1,), x.dtype)
            counts = patches(ones, ks, st, dl, pads, outs).sum(axis=-2)[0]
        y = total / counts
    return from_channels_last(y, cf)


def max_pool(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """``tf.nn.max_pool``: the largest element of each window, N-D from the input's rank
    (3, 4 or 5); ``padding`` "SAME", "VALID" or explicit pairs."""
    return _pool(input, ksize, strides, padding, data_format, None, "MAX", "max_pool")


def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
    """``tf.nn.max_pool1d``: max pooling of ``[batch, width, channels]``."""
    return _pool(input, ksize, strides, padding, data_format, 1, "MAX", "max_pool1d")


def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """``tf.nn.max_pool2d``: max pooling of ``[batch, height, width, channels]``."""
    return _pool(input, ksize, strides, padding, data_format, 2, "MAX", "max_pool2d")


def max_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002
    """``tf.nn.max_pool3d``: max pooling of ``[batch, depth, height, width, channels]``."""
    return _pool(input, ksize, strides, padding, data_format, 3, "MAX", "max_pool3d")


def avg_pool(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """``tf.nn.avg_pool``: the mean of each window (padding excluded), N-D from the
    input's rank."""
    return _pool(input, ksize, strides, padding, data_format, None, "AVG", "avg_pool")


def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
    """``tf.nn.avg_pool1d``: average pooling of ``[batch, width, channels]``."""
    return _pool(input, ksize, strides, padding, data_format, 1, "AVG", "avg_pool1d")


def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """``tf.nn.avg_pool2d``: average pooling of ``[batch, height, width, channels]``."""
    return _pool(input, ksize, strides, padding, data_format, 2, "AVG", "avg_pool2d")


def avg_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002
    """``tf.nn.avg_pool3d``: average pooling of 5-D inputs."""
    return _pool(input, ksize, strides, padding, data_format, 3, "AVG", "avg_pool3d")


def pool(input, window_shape, pooling_type, strides=None, padding="VALID",  # noqa: A002
         data_format=None, dilations=None, name=None):
    """``tf.nn.pool``: N-D "MAX" or "AVG" pooling with ``window_shape``, ``strides`` and
    ``dilations`` (a dilation > 1 needs strides of 1)."""
    x = convert_to_tensor(input)
    n = len(np.atleast_1d(window_shape))
    if pooling_type not in ("MAX", "AVG"):
        raise ValueError(f"pool: pooling_type must be 'MAX' or 'AVG', got {pooling_type!r}")
    if len(x.shape) != n + 2:
        raise ValueError(f"pool: the input must have rank {n + 2}, got shape {x.shape}")
    cf = channels_first(data_format, n, "pool")
    ks = spatial_ints(window_shape, n, cf, "window_shape", "pool")
    st = spatial_ints(strides, n, cf, "strides", "pool")
    dl = spatial_ints(dilations, n, cf, "dilations", "pool")
    if max(dl) > 1 and max(st) > 1:
        raise ValueError("strides > 1 not supported in conjunction with dilation_rate > 1")
    if any(s > k for s, k in zip(st, ks)):
        raise ValueError("strides > window_shape not supported due to inconsistency "
                         "between CPU and GPU implementations")
    return _pool(x, ks, st, padding, data_format, n, pooling_type, "pool", dl)


def max_pool_with_argmax(input, ksize, strides, padding, data_format="NHWC",  # noqa: A002
                         output_dtype=np.int64, include_batch_in_index=False, name=None):
    """``tf.nn.max_pool_with_argmax``: ``(output, argmax)`` of a 2-D NHWC max pool;
    ``argmax`` holds each maximum's flat position ``(y * width + x) * channels + c``
    (plus ``b * height * width * channels`` with ``include_batch_in_index``)."""
    name = "max_pool_with_argmax"
    if data_format != "NHWC":
        raise ValueError(f"{name}: data_format must be 'NHWC', got {data_format!r}")
    x = convert_to_tensor(input)
    if len(x.shape) != 4:
        raise ValueError(f"{name}: the input must be 4-D, got shape {x.shape}")
    ks = spatial_ints(ksize, 2, False, "ksize", name)
    st = spatial_ints(strides, 2, False, "strides", name)
    sizes = static_spatial(x, 2, name)
    c = x.shape[3]
    outs, pads = windows(sizes, ks, st, [1, 1], padding, 2, False, name)
    p = patches(x, ks, st, [1, 1], pads, outs, pad_value=_lowest(x.dtype))
    y, i = _first_max(p)
    pos = np.arange(sizes[0] * sizes[1] * c, dtype=np.int64).reshape((1, *sizes, c))
    pos = patches(pos, ks, st, [1, 1], pads, outs, pad_value=-1)[0]
    flat = squeeze(take_along_axis(_broadcast_batch(pos, x), i, axis=-2), axis=-2)
    if include_batch_in_index:
        b = x.shape[0]
        per = int(np.prod(sizes) * c)
        batch = (np.arange(b, dtype=np.int64) * per).reshape(-1, 1, 1, 1) if b is not None \
            else None
        if batch is None:
            raise ValueError(f"{name}: include_batch_in_index needs a known batch size")
        flat = flat + batch
    return y, bind(_ew.CAST, flat, dtype=np.dtype(output_dtype))


def _broadcast_batch(const, x):
    target = (shape(x)[0],) + tuple(const.shape) if x.shape[0] is None else \
        (x.shape[0],) + tuple(const.shape)
    return broadcast_to(const, target)


# --------------------------------------------------------------------------- morphology
def dilation2d(input, filters, strides, padding, data_format="NHWC", dilations=None,  # noqa: A002
               name=None):
    """``tf.nn.dilation2d``: grayscale dilation, ``max over (dy, dx) of input[y*s + dy*r,
    x*s + dx*r, c] + filters[dy, dx, c]`` (windows outside the input take no part)."""
    name = "dilation2d"
    if data_format != "NHWC":
        raise ValueError(f"{name}: data_format must be 'NHWC', got {data_format!r}")
    x = convert_to_tensor(input)
    w = convert_to_tensor(filters, dtype=x.dtype)
    if len(x.shape) != 4 or len(w.shape) != 3 or None in w.shape:
        raise ValueError(f"{name}: input must be 4-D and filters [h, w, depth], got "
                         f"{x.shape} and {w.shape}")
    ks = list(w.shape[:2])
    st = spatial_ints(strides, 2, False, "strides", name)
    dl = spatial_ints(dilations, 2, False, "dilations", name)
    outs, pads = windows(static_spatial(x, 2, name), ks, st, dl, padding, 2, False, name)
    lowest = _lowest(x.dtype)
    p = patches(x, ks, st, dl, pads, outs, pad_value=lowest)
    y = _first_max(p + reshape(w, (ks[0] * ks[1], w.shape[2])))[0]
    if x.dtype.kind == "f":  # TensorFlow starts each window at the dtype's lowest value
        y = bind(_ew.MAXIMUM, y, np.asarray(np.finfo(x.dtype).min, x.dtype))
    return y


def erosion2d(value, filters, strides, padding, data_format="NHWC", dilations=None,
              name=None):
    """``tf.nn.erosion2d``: grayscale erosion, ``-dilation2d(-value, reversed filters)``
    (``min over (dy, dx) of value[...] - filters[dy, dx, c]``)."""
    w = convert_to_tensor(filters)
    return -dilation2d(-convert_to_tensor(value), flip(w, (0, 1)), strides, padding,
                       data_format, dilations)

