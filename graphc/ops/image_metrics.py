"""``gc.image`` filters and measures: ``image_gradients``, ``sobel_edges``,
``total_variation``, ``psnr``, ``ssim``, and ``non_max_suppression`` (docs/image.md).

The filters are sums of shifted slices (Sobel) or separable static weight matrices
(SSIM's Gaussian), so gradients, batching and compiled code come from the ops used.
``non_max_suppression`` returns a data-dependent number of indices: it runs in NumPy
when the graph runs (a ``numpy_function``; not differentiable, as in TensorFlow).
"""

from __future__ import annotations

import numpy as np

from graphc import source_info
from graphc.ops import array_api_keywords as _k
from graphc.ops import ufuncs as _u
from graphc.ops.convert import convert_to_tensor
from graphc.ops.creation import zeros_like
from graphc.ops.image_core import F32, convert_image_dtype, hw, image_tensor
from graphc.ops.image_resize import apply_hw
from graphc.ops.join import concatenate, stack
from graphc.ops.pad_tile import pad
from graphc.ops.pyfunc import numpy_function
from graphc.ops.reduce import mean
from graphc.ops.reduce import sum as _sum

_SOBEL = (np.array([[-1, -2, -1], [0, 0, 0], [1, 2, 1]]),
          np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]))


def image_gradients(image):
    """``(dy, dx)``: forward differences of a 4-D batch, zero in the last row/column."""
    x = convert_to_tensor(image)
    if len(x.shape) != 4:
        raise ValueError(f"image_gradients expects a 4D tensor [batch_size, h, w, d], not "
                         f"{tuple(x.shape)}.{source_info.where()}")
    dy = x[:, 1:, :, :] - x[:, :-1, :, :]
    dx = x[:, :, 1:, :] - x[:, :, :-1, :]
    dy = concatenate([dy, zeros_like(x[:, :1, :, :])], axis=1)
    dx = concatenate([dx, zeros_like(x[:, :, :1, :])], axis=2)
    return dy, dx


def sobel_edges(image):
    """``[batch, h, w, d, 2]``: the vertical and horizontal 3x3 Sobel responses of each
    channel of a 4-D batch (reflect-padded)."""
    x = image_tensor(image, "sobel_edges", ranks=(4,))
    h, w = hw(x, "sobel_edges")
    p = pad(x, [(0, 0), (1, 1), (1, 1), (0, 0)], mode="reflect")
    outs = []
    for k in _SOBEL:
        acc = None
        for a in range(3):
            for b in range(3):
                if k[a, b] == 0:
                    continue
                term = p[:, a:a + h, b:b + w, :] * np.asarray(k[a, b], np.dtype(x.dtype))
                acc = term if acc is None else acc + term
        outs.append(acc)
    return stack(outs, axis=-1)


def total_variation(images, name=None):
    """Sum of absolute differences of neighbouring pixels: a scalar for a 3-D image,
    ``[batch]`` for a 4-D batch."""
    x = convert_to_tensor(images)
    r = len(x.shape)
    if r not in (3, 4):
        raise ValueError(f"'images' must be either 3 or 4-dimensional.{source_info.where()}")
    dv = x[..., 1:, :, :] - x[..., :-1, :, :]
    dh = x[..., :, 1:, :] - x[..., :, :-1, :]
    axes = (-3, -2, -1)
    dt = np.dtype(x.dtype)
    return _sum(_u.abs(dv), axis=axes, dtype=dt) + _sum(_u.abs(dh), axis=axes, dtype=dt)


def _pair(a, b, max_val, name):
    a, b = convert_to_tensor(a), convert_to_tensor(b)
    sa, sb = tuple(a.shape), tuple(b.shape)
    if len(sa) < 3 or (None not in sa + sb and sa[-3:] != sb[-3:]):
        raise ValueError(f"{name}: the images must have the same (at least 3-D) shape, got "
                         f"{sa} and {sb}{source_info.where()}")
    mv = convert_image_dtype(_k.astype(convert_to_tensor(max_val), a.dtype), F32)
    return convert_image_dtype(a, F32), convert_image_dtype(b, F32), mv


def psnr(a, b, max_val, name=None):
    """Peak signal-to-noise ratio over the last three axes, in dB (float32)."""
    a, b, mv = _pair(a, b, max_val, "psnr")
    mse = mean((a - b) * (a - b), axis=(-3, -2, -1))
    return (np.float32(20.0) * _u.log(mv) / np.float32(np.log(10.0))
            - np.float32(10.0 / np.log(10.0)) * _u.log(mse))


def _gauss_matrix(n, size, sigma):
    c = np.arange(size, dtype=np.float32) - np.float32((size - 1) / 2.0)
    g = np.exp(c * c * np.float32(-0.5 / (sigma * sigma)))
    g = (g / g.sum()).astype(np.float32)
    m = np.zeros((n - size + 1, n), np.float32)
    for i in range(n - size + 1):
        m[i, i:i + size] = g
    return m


def ssim(img1, img2, max_val, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03,
         return_index_map=False):
    """Structural similarity of ``[..., H, W, C]`` images (TensorFlow's: an
    ``filter_size``-wide Gaussian of ``filter_sigma``, VALID windows, the mean over
    channels). ``return_index_map=True`` gives the per-window map."""
    a, b, mv = _pair(img1, img2, max_val, "ssim")
    h, w = hw(a, "ssim")
    fs = int(filter_size)
    if h < fs or w < fs:
        raise ValueError(f"ssim: the image height and width ({h}, {w}) must be at least "
                         f"filter_size ({fs}){source_info.where()}")
    mh, mw = _gauss_matrix(h, fs, float(filter_sigma)), _gauss_matrix(w, fs, float(filter_sigma))

    def blur(t):
        return apply_hw(t, mh, mw)

    c1 = (np.float32(k1) * mv) ** 2
    c2 = (np.float32(k2) * mv) ** 2
    m0, m1 = blur(a), blur(b)
    num0 = m0 * m1 * np.float32(2.0)
    den0 = m0 * m0 + m1 * m1
    lum = (num0 + c1) / (den0 + c1)
    num1 = blur(a * b) * np.float32(2.0)
    den1 = blur(a * a + b * b)
    cs = (num1 - num0 + c2) / (den1 - den0 + c2)
    val = lum * cs
    if not return_index_map:
        val = mean(val, axis=(-3, -2))
    return mean(val, axis=-1)


def _iou(b, i, js):
    def norm(x):
        return (np.minimum(x[..., 0], x[..., 2]), np.minimum(x[..., 1], x[..., 3]),
                np.maximum(x[..., 0], x[..., 2]), np.maximum(x[..., 1], x[..., 3]))
    y0, x0, y1, x1 = norm(b[i])
    Y0, X0, Y1, X1 = norm(b[js])
    ai, aj = (y1 - y0) * (x1 - x0), (Y1 - Y0) * (X1 - X0)
    ih = np.maximum(np.minimum(y1, Y1) - np.maximum(y0, Y0), 0)
    iw = np.maximum(np.minimum(x1, X1) - np.maximum(x0, X0), 0)
    inter = ih * iw
    with np.errstate(divide="ignore", invalid="ignore"):
        out = inter / (ai + aj - inter)
    return np.where((ai <= 0) | (aj <= 0), 0.0, out)


def _nms(boxes, scores, max_out, iou_t, score_t):
    boxes = np.asarray(boxes, np.float64)
    scores = np.asarray(scores, np.float64)
    if boxes.ndim != 2 or boxes.shape[1] != 4 or scores.shape != (boxes.shape[0],):
        raise ValueError("non_max_suppression: boxes must be [num_boxes, 4] and scores "
                         "[num_boxes]")
    limit = int(np.asarray(max_out))
    order = [i for i in np.argsort(-scores, kind="stable") if scores[i] > float(score_t)]
    keep: list[int] = []
    for i in order:
        if len(keep) >= limit:
            break
        if not keep or np.all(_iou(boxes, i, np.array(keep)) <= float(iou_t)):
            keep.append(int(i))
    return np.array(keep, np.int32)


def non_max_suppression(boxes, scores, max_output_size, iou_threshold=0.5,
                        score_threshold=float("-inf"), name=None):
    """Greedy non-maximum suppression: int32 indices of at most ``max_output_size``
    boxes (``[y1, x1, y2, x2]``, any corner order), by decreasing score, dropping a box
    whose IoU with a kept one exceeds ``iou_threshold`` and boxes scoring at most
    ``score_threshold``. The length depends on the data: eager results are exact; inside
    a ``gc.function`` the result has an unknown length (it runs in NumPy when the graph
    runs, so ``jit_compile=True`` refuses it)."""
    it = float(iou_threshold)
    if not 0.0 <= it <= 1.0:
        raise ValueError(f"non_max_suppression: iou_threshold must be in [0, 1], got {it}"
                         f"{source_info.where()}")
    mo = convert_to_tensor(max_output_size)
    st = float(score_threshold)

    def run(bx, sc, m):
        return _nms(bx, sc, m, it, st)

    return numpy_function(run, [convert_to_tensor(boxes), convert_to_tensor(scores), mo],
                          np.int32, stateful=False)
