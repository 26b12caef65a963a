"""``gc.image`` colour conversions and adjustments (TensorFlow's formulas, as
compositions of elementwise ops; docs/image.md)."""

from __future__ import annotations

import numpy as np

from graphc import source_info
from graphc.ops import array_api_keywords as _k
from graphc.ops import ufuncs as _u
from graphc.ops.convert import convert_to_tensor
from graphc.ops.image_core import (
    F32,
    clamp01,
    convert_image_dtype,
    image_tensor,
    mean_hw,
    to_float,
)
from graphc.ops.join import stack
from graphc.ops.linalg import tensordot
from graphc.ops.pad_tile import tile
from graphc.ops.reduce import max as _max
from graphc.ops.reduce import mean as _mean
from graphc.ops.reduce import min as _min
from graphc.ops.shape import expand_dims
from graphc.ops.shape_args import static_value

_GRAY = np.array([0.2989, 0.5870, 0.1140])
_RGB_TO_YUV = np.array([[0.299, -0.14714119, 0.61497538],
                        [0.587, -0.28886916, -0.51496512],
                        [0.114, 0.43601035, -0.10001026]])
_YUV_TO_RGB = np.array([[1, 1, 1], [0, -0.394642334, 2.03206185],
                        [1.13988303, -0.58062185, 0]])


def _channels(x, n, name):
    c = x.shape[-1] if len(x.shape) else None
    if c is not None and c != n:
        raise ValueError(f"{name}: the last dimension must be {n}, got shape "
                         f"{tuple(x.shape)}{source_info.where()}")


def _float_images(images, name):
    x = convert_to_tensor(images)
    if np.dtype(x.dtype).kind != "f":
        raise TypeError(f"{name}: images must be a floating point tensor (half, float32, "
                        f"float64), got {np.dtype(x.dtype).name}{source_info.where()}")
    return x


def rgb_to_grayscale(images, name=None):
    """Luma ``0.2989 R + 0.5870 G + 0.1140 B`` as ``[..., 1]``, in ``images``' dtype."""
    x = convert_to_tensor(images)
    _channels(x, 3, "rgb_to_grayscale")
    f = convert_image_dtype(x, F32)
    gray = expand_dims(tensordot(f, _GRAY.astype(np.float32), axes=[[-1], [-1]]), -1)
    return convert_image_dtype(gray, x.dtype)


def grayscale_to_rgb(images, name=None):
    """Repeat the single channel three times: ``[..., 1]`` to ``[..., 3]``."""
    x = convert_to_tensor(images)
    if len(x.shape) < 2:
        raise ValueError(f"grayscale_to_rgb: images must be at least two-dimensional"
                         f"{source_info.where()}")
    _channels(x, 1, "grayscale_to_rgb")
    return tile(x, (1,) * (len(x.shape) - 1) + (3,))


def _matrix(images, kernel, name):
    x = _float_images(images, name)
    _channels(x, 3, name)
    return tensordot(x, kernel.astype(np.dtype(x.dtype)), axes=[[-1], [0]])


def rgb_to_yuv(images):
    """RGB to YUV (float images; TensorFlow's matrix)."""
    return _matrix(images, _RGB_TO_YUV, "rgb_to_yuv")


def yuv_to_rgb(images):
    """YUV to RGB (float images; TensorFlow's matrix)."""
    return _matrix(images, _YUV_TO_RGB, "yuv_to_rgb")


def _hsv(x):
    dt = x.dtype
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    v = _max(x, axis=-1)
    rng = v - _min(x, axis=-1)
    zero, one = np.asarray(0, dt), np.asarray(1, dt)
    safe_v = _u.where(v > zero, v, one)
    s = _u.where(v > zero, rng / safe_v, zero)
    pos = rng > zero
    norm = one / (_u.where(pos, rng, one) * np.asarray(6, dt))
    h = _u.where(r == v, norm * (g - b),
                 _u.where(g == v, norm * (b - r) + np.asarray(2 / 6, dt),
                          norm * (r - g) + np.asarray(4 / 6, dt)))
    h = _u.where(pos, h, zero)
    h = _u.where(h < zero, h + one, h)
    return h, s, v


def rgb_to_hsv(images, name=None):
    """RGB to HSV, every component in ``[0, 1]`` (float images)."""
    x = _float_images(images, "rgb_to_hsv")
    _channels(x, 3, "rgb_to_hsv")
    return stack(list(_hsv(x)), axis=-1)


def _rgb(h, s, v):
    dt = h.dtype
    c = lambda val: np.asarray(val, dt)  # noqa: E731
    dh = h * c(6)
    dr = clamp01(_u.abs(dh - c(3)) - c(1))
    dg = clamp01(c(2) - _u.abs(dh - c(2)))
    db = clamp01(c(2) - _u.abs(dh - c(4)))
    one_s = c(1) - s
    return [(one_s + s * d) * v for d in (dr, dg, db)]


def hsv_to_rgb(images, name=None):
    """HSV to RGB (float images; hue in ``[0, 1]``)."""
    x = _float_images(images, "hsv_to_rgb")
    _channels(x, 3, "hsv_to_rgb")
    return stack(_rgb(x[..., 0], x[..., 1], x[..., 2]), axis=-1)


def adjust_brightness(image, delta):
    """Add ``delta`` to every value (in float; integer images saturate back)."""
    x = convert_to_tensor(image)
    f, orig = to_float(x)
    d = _k.astype(convert_to_tensor(delta), f.dtype)
    return convert_image_dtype(f + d, orig, saturate=True)


def adjust_contrast(images, contrast_factor):
    """``(x - mean) * contrast_factor + mean`` per image and channel (mean over H, W)."""
    x = image_tensor(images, "adjust_contrast", at_least=3)
    f, orig = to_float(x)
    m = mean_hw(f)
    cf = _k.astype(convert_to_tensor(contrast_factor), f.dtype)
    return convert_image_dtype((f - m) * cf + m, orig, saturate=True)


def adjust_gamma(image, gamma=1, gain=1):
    """``gain * image ** gamma`` (gamma must be non-negative)."""
    x = convert_to_tensor(image)
    f, orig = to_float(x)
    g = convert_to_tensor(gamma)
    gv = static_value(g)
    if gv is not None and np.any(np.asarray(gv) < 0):
        raise ValueError(f"Gamma should be a non-negative real number.{source_info.where()}")
    g = _k.astype(g, f.dtype)
    out = _k.astype(convert_to_tensor(gain), f.dtype) * f ** g
    return convert_image_dtype(out, orig, saturate=True)


def adjust_hue(image, delta, name=None):
    """Rotate the hue by ``delta`` (in ``[-1, 1]``, turns of the colour wheel)."""
    x = convert_to_tensor(image)
    _channels(x, 3, "adjust_hue")
    dv = np.asarray(delta, dtype=np.float64) if not hasattr(delta, "shape") else None
    if dv is not None and (dv < -1 or dv > 1):
        raise ValueError(f"adjust_hue: delta must be in the interval [-1, 1], got "
                         f"{float(dv)}{source_info.where()}")
    f, orig = to_float(x)
    h, s, v = _hsv(f)
    h = h + _k.astype(convert_to_tensor(delta), f.dtype)
    h = h - _u.floor(h)
    return convert_image_dtype(stack(_rgb(h, s, v), axis=-1), orig, saturate=True)


def adjust_saturation(image, saturation_factor, name=None):
    """Scale the saturation by ``saturation_factor`` (clamped to ``[0, 1]``)."""
    x = convert_to_tensor(image)
    _channels(x, 3, "adjust_saturation")
    f, orig = to_float(x)
    h, s, v = _hsv(f)
    s = clamp01(s * _k.astype(convert_to_tensor(saturation_factor), f.dtype))
    return convert_image_dtype(stack(_rgb(h, s, v), axis=-1), orig, saturate=True)


def per_image_standardization(image):
    """``(x - mean) / max(stddev, 1/sqrt(N))`` per image (over H, W, C), as float32."""
    x = image_tensor(image, "per_image_standardization", at_least=3)
    f = _k.astype(x, F32)
    n = 1
    for d in x.shape[-3:]:
        if d is None:
            raise ValueError("per_image_standardization: the image size must be known "
                             "while tracing")
        n *= int(d)
    m = _mean(f, axis=(-3, -2, -1), keepdims=True)
    sd = _k.std(f, axis=(-3, -2, -1), keepdims=True)
    sd = _u.maximum(sd, np.float32(1.0 / np.sqrt(np.float32(n))))
    return (f - m) / sd
