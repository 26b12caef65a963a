"""``gc.image`` resizing: ``resize``, ``resize_with_pad``, ``crop_and_resize``,
``extract_patches`` (TensorFlow 2's conventions; docs/image.md).

``resize`` is separable: each method is a static ``[out, in]`` weight matrix per spatial
axis, built here in NumPy with TensorFlow's float32 arithmetic (half-pixel centres, its
edge rules, its quantised Keys-cubic table, ``scale_and_translate``'s kernels), applied
with ``einsum``; ``nearest`` is a ``take`` with static indices (exact, any dtype). So the
result is a composition of existing ops: gradients, batching and compiled code for free.
``crop_and_resize`` builds its (data-dependent) weights from the boxes with tent
functions, so gradients reach both the image and the boxes.
"""

from __future__ import annotations

import math

import numpy as np

from graphc import source_info
from graphc.ops import array_api_keywords as _k
from graphc.ops import ufuncs as _u
from graphc.ops.convert import convert_to_tensor
from graphc.ops.image_core import F32, hw, image_tensor, pad_to_bounding_box, static_int
from graphc.ops.indexing import take
from graphc.ops.linalg import einsum
from graphc.ops.nn_patches import patches, spatial_ints, windows
from graphc.ops.shape import reshape
from graphc.ops.shape_args import static_value

f32 = np.float32
METHODS = ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5", "gaussian",
           "mitchellcubic")
_TABLE = 1024


def _bilinear(n_in, n_out):
    m = np.zeros((n_out, n_in), np.float64)
    scale = f32(n_in) / f32(n_out)
    for i in range(n_out):
        p = (f32(i) + f32(0.5)) * scale - f32(0.5)
        lo_f = np.floor(p)
        lo, hi = max(int(lo_f), 0), min(int(np.ceil(p)), n_in - 1)
        lerp = float(p - lo_f)
        m[i, lo] += 1.0 - lerp
        m[i, hi] += lerp
    return m


def _nearest_index(n_in, n_out):
    scale = f32(n_in) / f32(n_out)
    idx = [min(int(np.floor((f32(i) + f32(0.5)) * scale)), n_in - 1) for i in range(n_out)]
    return np.maximum(np.array(idx, np.int64), 0)


def _keys_table():
    a = -0.5
    x = np.arange(_TABLE + 1, dtype=np.float64) / _TABLE
    near = (((a + 2) * x - (a + 3)) * x * x + 1).astype(f32)
    x1 = x + 1.0
    far = (((a * x1 - 5 * a) * x1 + 8 * a) * x1 - 4 * a).astype(f32)
    return near, far


def _bicubic(n_in, n_out):
    near, far = _keys_table()
    m = np.zeros((n_out, n_in), np.float64)
    scale = f32(n_in) / f32(n_out)
    for i in range(n_out):
        p = (f32(i) + f32(0.5)) * scale - f32(0.5)
        loc = int(np.floor(p))
        off = int(np.rint((p - f32(loc)) * f32(_TABLE)))
        ws = [far[off], near[off], near[_TABLE - off], far[_TABLE - off]]
        idx = [loc - 1, loc, loc + 1, loc + 2]
        ws = [f32(w) if 0 <= j < n_in else f32(0) for w, j in zip(ws, idx)]
        total = f32(sum(ws))
        if abs(total) >= 1000.0 * np.finfo(f32).tiny:
            ws = [w / total for w in ws]
        for w, j in zip(ws, idx):
            m[i, min(max(j, 0), n_in - 1)] += float(w)
    return m


def _area(n_in, n_out):
    m = np.zeros((n_out, n_in), np.float64)
    scale = f32(n_in) / f32(n_out)
    for i in range(n_out):
        a, b = f32(i) * scale, f32(i + 1) * scale
        for v in range(int(np.floor(a)), int(np.ceil(b))):
            w = float(min(f32(v + 1), b) - max(f32(v), a))
            m[i, min(v, n_in - 1)] += w / float(scale)
    return m


def _lanczos(r):
    def k(x):
        if x > r:
            return 0.0
        if x <= 1e-3:
            return 1.0
        return r * math.sin(math.pi * x) * math.sin(math.pi * x / r) / (math.pi * x) ** 2
    return r, k


def _mitchell(x):
    if x >= 2.0:
        return 0.0
    if x >= 1.0:
        return (((-7.0 / 18.0) * x + 2.0) * x - 10.0 / 3.0) * x + 16.0 / 9.0
    return (((7.0 / 6.0) * x - 2.0) * x) * x + 8.0 / 9.0


def _keys(x):
    if x >= 2.0:
        return 0.0
    if x >= 1.0:
        return ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0
    return ((1.5 * x - 2.5) * x) * x + 1.0


KERNELS = {
    "lanczos3": _lanczos(3.0), "lanczos5": _lanczos(5.0),
    "gaussian": (1.5, lambda x: 0.0 if x >= 1.5 else math.exp(-x * x / 0.5)),
    "mitchellcubic": (2.0, _mitchell), "triangle": (1.0, lambda x: max(0.0, 1.0 - x)),
    "keyscubic": (2.0, _keys),
}


def _scale_translate(n_in, n_out, kernel, antialias):
    """TensorFlow's ``scale_and_translate`` weights (translation 0)."""
    radius, fn = KERNELS[kernel]
    inv = f32(1.0) / (f32(n_out) / f32(n_in))
    ks = max(float(inv), 1.0) if antialias else 1.0
    m = np.zeros((n_out, n_in), np.float64)
    for i in range(n_out):
        s = float((f32(i) + f32(0.5)) * inv)
        if s < 0 or s > n_in:
            continue
        lo = min(max(math.ceil(s - radius * ks - 0.5), 0), n_in - 1)
        hi = min(max(math.floor(s + radius * ks - 0.5), 0), n_in - 1) + 1
        ws = [f32(fn(abs((j + 0.5 - s) / ks))) for j in range(lo, hi)]
        total = f32(sum(ws))
        if abs(total) >= 1000.0 * np.finfo(f32).tiny:
            ws = [w / total for w in ws]
        m[i, lo:hi] = ws
    return m


def resize_matrix(n_in, n_out, method, antialias=False):
    """The ``[n_out, n_in]`` weights of one spatial axis (float64 holding float32s)."""
    if method == "bilinear":
        return _scale_translate(n_in, n_out, "triangle", True) if antialias else \
            _bilinear(n_in, n_out)
    if method == "bicubic":
        return _scale_translate(n_in, n_out, "keyscubic", True) if antialias else \
            _bicubic(n_in, n_out)
    if method == "area":
        return _area(n_in, n_out)
    return _scale_translate(n_in, n_out, method, antialias)


def _size(size, name):
    s = static_value(size) if hasattr(size, "shape") and not isinstance(size, np.ndarray) \
        else np.asarray(size)
    if s is None:
        raise ValueError(f"{name}: 'size' must be known while tracing (graphc keeps image "
                         f"sizes static){source_info.where()}")
    s = np.asarray(s)
    if s.ndim != 1 or s.shape[0] != 2:
        raise ValueError(f"'size' must be a 1-D Tensor of 2 elements: new_height, new_width"
                         f"{source_info.where()}")
    if s.dtype.kind not in "iu":
        raise ValueError(f"'size' must be a 1-D int32 Tensor{source_info.where()}")
    if np.any(s <= 0):
        raise ValueError(f"{name}: size must be positive, got {s.tolist()}"
                         f"{source_info.where()}")
    return int(s[0]), int(s[1])


def _method(method):
    m = str(getattr(method, "value", method)).lower()
    if m not in METHODS:
        raise ValueError(f"Resize method is not implemented: [{method}]{source_info.where()}")
    return m


def apply_hw(x, mh, mw):
    """``mh @ x @ mw.T`` over the height/width axes of ``[..., H, W, C]`` float ``x``."""
    dt = np.dtype(x.dtype)
    y = einsum("oh,...hwc->...owc", mh.astype(dt), x)
    return einsum("pw,...owc->...opc", mw.astype(dt), y)


def resize(images, size, method="bilinear", preserve_aspect_ratio=False, antialias=False,
           name=None):
    """Resize a 3-D image or 4-D batch to ``size = [new_height, new_width]``.

    TensorFlow 2's ``tf.image.resize``: half-pixel centres; ``method`` one of
    'bilinear', 'nearest', 'bicubic', 'area', 'lanczos3', 'lanczos5', 'gaussian',
    'mitchellcubic'; ``antialias`` widens the kernel when downsampling. The result is
    float32, except 'nearest', which keeps the input's dtype. ``size`` must be known
    while tracing.
    """
    n = "resize"
    x = image_tensor(images, n)
    m = _method(method)
    nh, nw = _size(size, n)
    h, w = hw(x, n)
    if preserve_aspect_ratio:
        f = min(f32(nh) / f32(h), f32(nw) / f32(w))
        nh, nw = int(np.round(f * f32(h))), int(np.round(f * f32(w)))
    if m == "nearest":
        return take(take(x, _nearest_index(h, nh), axis=-3), _nearest_index(w, nw), axis=-2)
    xf = _k.astype(x, F32)
    return apply_hw(xf, resize_matrix(h, nh, m, antialias), resize_matrix(w, nw, m, antialias))


def resize_with_pad(image, target_height, target_width, method="bilinear", antialias=False):
    """Resize keeping the aspect ratio, then zero-pad to the target size (centred)."""
    n = "resize_with_pad"
    x = image_tensor(image, n)
    th, tw = static_int(target_height, "target_height", n), static_int(target_width,
                                                                         "target_width", n)
    if th <= 0 or tw <= 0:
        raise ValueError(f"{n}: target_height and target_width must be > 0"
                         f"{source_info.where()}")
    h, w = hw(x, n)
    ratio = max(f32(w) / f32(tw), f32(h) / f32(th))
    rh, rw = f32(h) / ratio, f32(w) / ratio
    ph = max(0, int(np.floor((f32(th) - rh) / f32(2))))
    pw = max(0, int(np.floor((f32(tw) - rw) / f32(2))))
    y = resize(x, [int(np.floor(rh)), int(np.floor(rw))], method, antialias=antialias)
    return pad_to_bounding_box(y, ph, pw, th, tw)


def _axis_weights(lo, hi, size, n_out, method):
    """``[N, n_out, size]`` sampling weights and ``[N, n_out]`` in-range flags."""
    size_f = f32(size - 1)
    if n_out > 1:
        step = (hi - lo) * (size_f / f32(n_out - 1))
        pos = lo[:, None] * size_f + step[:, None] * np.arange(n_out, dtype=f32)[None, :]
    else:
        pos = ((lo + hi) * (f32(0.5) * size_f))[:, None]
    valid = (pos >= f32(0)) & (pos <= size_f)
    grid = np.arange(size, dtype=f32)
    d = pos[:, :, None] - grid[None, None, :]
    if method == "nearest":
        w = _k.astype(_u.floor(pos + f32(0.5))[:, :, None] == grid[None, None, :], F32)
    else:
        w = _u.maximum(f32(1) - _u.abs(d), f32(0))
    return w, valid


def crop_and_resize(image, boxes, box_indices, crop_size, method="bilinear",
                    extrapolation_value=0.0, name=None):
    """Crop ``boxes`` (normalised ``[y1, x1, y2, x2]``) out of the batch ``image`` and
    resize each to ``crop_size``; samples outside the image are ``extrapolation_value``.
    Result ``[num_boxes, crop_height, crop_width, depth]`` float32."""
    n = "crop_and_resize"
    x = image_tensor(image, n, ranks=(4,))
    m = str(method).lower()
    if m not in ("bilinear", "nearest"):
        raise ValueError(f"{n}: method must be 'bilinear' or 'nearest', got {method!r}"
                         f"{source_info.where()}")
    ch, cw = _size(crop_size, n)
    h, w = hw(x, n)
    b = _k.astype(convert_to_tensor(boxes), F32)
    if len(b.shape) != 2 or b.shape[-1] not in (4, None):
        raise ValueError(f"{n}: boxes must be 2-D [num_boxes, 4], got shape "
                         f"{tuple(b.shape)}{source_info.where()}")
    idx = convert_to_tensor(box_indices)
    img = _k.astype(take(x, idx, axis=0), F32)
    wy, vy = _axis_weights(b[:, 0], b[:, 2], h, ch, m)
    wx, vx = _axis_weights(b[:, 1], b[:, 3], w, cw, m)
    y = einsum("nyh,nhwc->nywc", wy, img)
    y = einsum("nxw,nywc->nyxc", wx, y)
    ok = vy[:, :, None, None] & vx[:, None, :, None]
    return _u.where(ok, y, _k.astype(convert_to_tensor(extrapolation_value), F32))


def extract_patches(images, sizes, strides, rates, padding, name=None):
    """``[batch, out_h, out_w, kh * kw * depth]`` patches of a 4-D batch (``sizes``,
    ``strides``, ``rates`` as ``[1, h, w, 1]``; padding 'VALID' or 'SAME')."""
    n = "extract_patches"
    x = image_tensor(images, n, ranks=(4,))
    if not isinstance(padding, str) or padding.upper() not in ("VALID", "SAME"):
        raise ValueError(f"{n}: padding must be 'VALID' or 'SAME', got {padding!r}"
                         f"{source_info.where()}")
    for v, what in ((sizes, "ksizes"), (strides, "strides"), (rates, "rates")):
        if len(list(v)) != 4:
            raise ValueError(f"{n}: {what} must be a list of 4 ints{source_info.where()}")
    ks = spatial_ints(sizes, 2, False, "ksizes", n)
    st = spatial_ints(strides, 2, False, "strides", n)
    rt = spatial_ints(rates, 2, False, "rates", n)
    h, w = hw(x, n)
    outs, pads = windows([h, w], ks, st, rt, padding, 2, False, n)
    p = patches(x, ks, st, rt, pads, outs)
    c = x.shape[-1]
    bsz = -1 if x.shape[0] is None else x.shape[0]
    return reshape(p, (bsz, outs[0], outs[1], ks[0] * ks[1] * c))
