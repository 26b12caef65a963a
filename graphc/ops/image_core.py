"""``gc.image`` basics: argument checks, ``convert_image_dtype``, flips, transposes,
rotations, crops and pads (TensorFlow's ``tf.image`` semantics, docs/image.md).

Images are channels-last: ``[height, width, channels]`` or a batch ``[batch, height,
width, channels]`` (some names take any ``[..., height, width, channels]``). Everything
is a composition of existing ops, so gradients, ``gc.vectorized_map`` and compiled code
come from the ops used.
"""

from __future__ import annotations

import numpy as np

from graphc import source_info
from graphc.ops import array_api_keywords as _k
from graphc.ops import ufuncs as _u
from graphc.ops.convert import convert_to_tensor
from graphc.ops.manipulation import rot90 as _rot90
from graphc.ops.pad_tile import pad as _pad
from graphc.ops.reduce import mean as _mean
from graphc.ops.shape import flip as _flip
from graphc.ops.shape import transpose as _transpose
from graphc.ops.shape_args import static_value

F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)


def np_dtype(dtype) -> np.dtype:
    """A dtype argument (``gc.float32``, ``np.uint8``, "int32") as a NumPy dtype."""
    return np.dtype(getattr(dtype, "as_numpy_dtype", dtype))


def image_tensor(image, name, ranks=(3, 4), at_least=None):
    """``image`` as a tensor whose rank is one of ``ranks`` (or ``>= at_least``)."""
    x = convert_to_tensor(image)
    r = len(x.shape)
    ok = r >= at_least if at_least is not None else r in ranks
    if not ok:
        want = (f"at least {at_least}" if at_least is not None
                else " or ".join(str(v) for v in ranks))
        raise ValueError(f"{name}: 'image' (shape {tuple(x.shape)}) must have {want} "
                         f"dimensions{source_info.where()}")
    return x


def static_int(v, what, name) -> int:
    """A size/offset argument that must be known while tracing, as an int."""
    if isinstance(v, int | np.integer):
        return int(v)
    s = static_value(v) if not isinstance(v, float | np.ndarray | list | tuple) else v
    if s is None:
        raise ValueError(f"{name}: {what} must be known while tracing (graphc keeps image "
                         f"sizes static){source_info.where()}")
    return int(np.asarray(s).reshape(()))


def hw(x, name):
    """The static ``(height, width)`` of a ``[..., H, W, C]`` image."""
    h, w = x.shape[-3], x.shape[-2]
    if h is None or w is None:
        raise ValueError(f"{name}: height and width must be known while tracing, got shape "
                         f"{tuple(x.shape)}{source_info.where()}")
    return int(h), int(w)


def _is_int(d: np.dtype) -> bool:
    return d.kind in "iu"


def _top(d: np.dtype) -> int:
    return int(np.iinfo(d).max)


def _float_bound(value, fd: np.dtype, up: bool):
    """``value`` as the nearest ``fd`` number that does not overshoot it."""
    b = np.asarray(value, dtype=fd)
    if up and float(b) > value:
        b = np.nextafter(b, fd.type(-np.inf))
    if not up and float(b) < value:
        b = np.nextafter(b, fd.type(np.inf))
    return b


def saturate_cast(x, dtype):
    """``x`` clamped to ``dtype``'s range, then cast (TensorFlow's ``saturate_cast``)."""
    d = np_dtype(dtype)
    src = np.dtype(x.dtype)
    if _is_int(d) and src.kind in "iuf":
        info = np.iinfo(d)
        if src.kind == "f":
            lo, hi = _float_bound(info.min, src, False), _float_bound(info.max, src, True)
            x = _k.clip(x, lo, hi)
        else:
            si = np.iinfo(src)
            lo, hi = max(info.min, si.min), min(info.max, si.max)
            if (lo, hi) != (si.min, si.max):
                x = _k.clip(x, np.asarray(lo, src), np.asarray(hi, src))
    elif d.kind == "f" and src.kind == "f" and d.itemsize < src.itemsize:
        fi = np.finfo(d)
        x = _k.clip(x, np.asarray(fi.min, src), np.asarray(fi.max, src))
    return _k.astype(x, d)


def convert_image_dtype(image, dtype, saturate=False, name=None):
    """Convert ``image`` to ``dtype``, scaling its values (TensorFlow's rules).

    Floats hold values in ``[0, 1)``; integers the range ``[0, MAX]``. Integer to
    integer shifts by the ratio of the maxima (``//`` going down, ``*`` going up); integer
    to float multiplies by ``1 / MAX``; float to integer multiplies by ``MAX + 0.5`` and
    truncates (``saturate=True`` clamps first); float to float is a cast.

    >>> gc.image.convert_image_dtype(gc.constant([[[255]]], gc.uint8), gc.float32).numpy()
    array([[[1.]]], dtype=float32)
    """
    x = convert_to_tensor(image)
    d, src = np_dtype(dtype), np.dtype(x.dtype)
    for t, what in ((src, "image"), (d, "dtype")):
        if not (_is_int(t) or t.kind == "f"):
            raise AttributeError(f"convert_image_dtype: {what} dtype {t.name} must be an "
                                 f"integer or floating point type{source_info.where()}")
    if d == src:
        return x
    if _is_int(src) and _is_int(d):
        if _top(src) > _top(d):
            scale = (_top(src) + 1) // (_top(d) + 1)
            y = x // np.asarray(scale, src)
            return saturate_cast(y, d) if saturate else _k.astype(y, d)
        scale = (_top(d) + 1) // (_top(src) + 1)
        y = saturate_cast(x, d) if saturate else _k.astype(x, d)
        return y * np.asarray(scale, d)
    if src.kind == "f" and d.kind == "f":
        return saturate_cast(x, d) if saturate else _k.astype(x, d)
    if _is_int(src):
        return _k.astype(x, d) * np.asarray(1.0 / _top(src), d)
    y = x * np.asarray(_top(d) + 0.5, src)
    return saturate_cast(y, d) if saturate else _k.astype(y, d)


def to_float(x):
    """``x`` and its dtype; float16/float32 stay, anything else becomes float32 (the
    working type of TensorFlow's ``adjust_*``)."""
    d = np.dtype(x.dtype)
    if d in (F16, F32):
        return x, d
    return convert_image_dtype(x, F32), d


def flip_left_right(image):
    """Reverse the width axis of a 3-D image or 4-D batch."""
    x = image_tensor(image, "flip_left_right")
    return _flip(x, axis=-2)


def flip_up_down(image):
    """Reverse the height axis of a 3-D image or 4-D batch."""
    x = image_tensor(image, "flip_up_down")
    return _flip(x, axis=-3)


def transpose(image, name=None):
    """Swap height and width of a 3-D image or 4-D batch."""
    x = image_tensor(image, "transpose")
    r = len(x.shape)
    perm = list(range(r))
    perm[-3], perm[-2] = perm[-2], perm[-3]
    return _transpose(x, tuple(perm))


def rot90(image, k=1, name=None):
    """Rotate by ``k`` quarter turns counter-clockwise (``k`` known while tracing)."""
    x = image_tensor(image, "rot90")
    kk = static_int(k, "k", "rot90") % 4
    if kk == 0:
        return x
    return _rot90(x, kk, axes=(-3, -2))


def _check(cond, msg, name):
    if not cond:
        raise ValueError(f"{name}: {msg}{source_info.where()}")


def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """The ``target_height x target_width`` window at ``(offset_height, offset_width)``."""
    n = "crop_to_bounding_box"
    x = image_tensor(image, n)
    h, w = hw(x, n)
    oh, ow = static_int(offset_height, "offset_height", n), static_int(offset_width,
                                                                         "offset_width", n)
    th, tw = static_int(target_height, "target_height", n), static_int(target_width,
                                                                         "target_width", n)
    _check(ow >= 0, "offset_width must be >= 0.", n)
    _check(oh >= 0, "offset_height must be >= 0.", n)
    _check(tw > 0, "target_width must be > 0.", n)
    _check(th > 0, "target_height must be > 0.", n)
    _check(w >= tw + ow, "width must be >= target + offset.", n)
    _check(h >= th + oh, "height must be >= target + offset.", n)
    return x[..., oh:oh + th, ow:ow + tw, :]


def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """Zero-pad to ``target_height x target_width`` with the image at the offsets."""
    n = "pad_to_bounding_box"
    x = image_tensor(image, n)
    h, w = hw(x, n)
    oh, ow = static_int(offset_height, "offset_height", n), static_int(offset_width,
                                                                         "offset_width", n)
    th, tw = static_int(target_height, "target_height", n), static_int(target_width,
                                                                         "target_width", n)
    after_w, after_h = tw - ow - w, th - oh - h
    _check(oh >= 0, "offset_height must be >= 0", n)
    _check(ow >= 0, "offset_width must be >= 0", n)
    _check(after_h >= 0, "height must be <= target - offset", n)
    _check(after_w >= 0, "width must be <= target - offset", n)
    widths = [(0, 0)] * (len(x.shape) - 3) + [(oh, after_h), (ow, after_w), (0, 0)]
    return _pad(x, widths)


def resize_with_crop_or_pad(image, target_height, target_width):
    """Centre-crop and/or zero-pad to ``target_height x target_width``."""
    n = "resize_with_crop_or_pad"
    x = image_tensor(image, n)
    h, w = hw(x, n)
    th, tw = static_int(target_height, "target_height", n), static_int(target_width,
                                                                         "target_width", n)
    _check(tw > 0, "target_width must be > 0.", n)
    _check(th > 0, "target_height must be > 0.", n)
    dw, dh = tw - w, th - h
    y = crop_to_bounding_box(x, max(-dh // 2, 0), max(-dw // 2, 0), min(th, h), min(tw, w))
    return pad_to_bounding_box(y, max(dh // 2, 0), max(dw // 2, 0), th, tw)


def central_crop(image, central_fraction):
    """The central ``central_fraction`` (in ``(0, 1]``) of each spatial dimension."""
    n = "central_crop"
    x = image_tensor(image, n)
    f = float(central_fraction)
    if f <= 0.0 or f > 1.0:
        raise ValueError(f"central_fraction must be within (0, 1]{source_info.where()}")
    if f == 1.0:
        return x
    h, w = hw(x, n)
    sh, sw = int((h - h * f) / 2), int((w - w * f) / 2)
    return x[..., sh:h - sh, sw:w - sw, :]


def mean_hw(x, keepdims=True):
    """The mean over height and width."""
    return _mean(x, axis=(-3, -2), keepdims=keepdims)


def clamp01(x):
    """``x`` clamped to ``[0, 1]``."""
    return _u.minimum(_u.maximum(x, np.asarray(0, x.dtype)), np.asarray(1, x.dtype))
