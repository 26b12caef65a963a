"""gc.image.resize / resize_with_pad against explicit half-pixel formulas, eagerly and
traced; TensorFlow's dtype rules and errors."""

import numpy as np
import pytest
from image_helpers import both, img, same

import graphc as gc

I = gc.image  # noqa: E741


def bilinear_np(x, nh, nw):
    h, w = x.shape[-3:-1]
    out = np.zeros(x.shape[:-3] + (nh, nw, x.shape[-1]))
    for i in range(nh):
        yy = (i + 0.5) * h / nh - 0.5
        y0 = int(np.floor(yy))
        ly = yy - y0
        t, b = max(y0, 0), min(y0 + 1, h - 1)
        for j in range(nw):
            xx = (j + 0.5) * w / nw - 0.5
            x0 = int(np.floor(xx))
            lx = xx - x0
            left, right = max(x0, 0), min(x0 + 1, w - 1)
            top = x[..., t, left, :] + (x[..., t, right, :] - x[..., t, left, :]) * lx
            bot = x[..., b, left, :] + (x[..., b, right, :] - x[..., b, left, :]) * lx
            out[..., i, j, :] = top + (bot - top) * ly
    return out


def nearest_np(x, nh, nw):
    h, w = x.shape[-3:-1]
    ri = [min(int(np.floor((i + 0.5) * h / nh)), h - 1) for i in range(nh)]
    ci = [min(int(np.floor((j + 0.5) * w / nw)), w - 1) for j in range(nw)]
    return x[..., ri, :, :][..., ci, :]


def keys(t):
    t = abs(t)
    if t < 1:
        return 1.5 * t ** 3 - 2.5 * t ** 2 + 1
    if t < 2:
        return -0.5 * t ** 3 + 2.5 * t ** 2 - 4 * t + 2
    return 0.0


def bicubic_matrix(n, m):
    a = np.zeros((m, n))
    for i in range(m):
        p = (i + 0.5) * n / m - 0.5
        base = int(np.floor(p))
        taps = [(j, keys(p - j)) for j in range(base - 1, base + 3) if 0 <= j < n]
        total = sum(wt for _, wt in taps)
        for j, wt in taps:
            a[i, j] += wt / total
    return a


@pytest.mark.parametrize("size", [(7, 4), (2, 3), (5, 6), (1, 1)])
def test_bilinear_and_nearest(size):
    x = img(2, 5, 6, 3)
    for got in both(I.resize, x, size):
        assert got.dtype == np.float32
        same(got, bilinear_np(x.astype(np.float64), *size), rtol=1e-5, atol=1e-6)
    for got in both(I.resize, x[0], size, method="nearest"):
        same(got, nearest_np(x[0], *size), rtol=0)
    u8 = (x * 255).astype(np.uint8)
    got = I.resize(u8, size, method=I.ResizeMethod.NEAREST_NEIGHBOR)
    same(got, nearest_np(u8, *size))
    assert I.resize(u8, size).dtype == np.float32


def test_bicubic_area_and_kernels():
    x = img(6, 5, 2)
    a, b = bicubic_matrix(6, 9), bicubic_matrix(5, 3)
    want = np.einsum("oh,hwc,pw->opc", a, x.astype(np.float64), b)
    for got in both(I.resize, x, [9, 3], method="bicubic"):
        same(got, want, rtol=0, atol=2e-3)  # TensorFlow's table quantises to 1/1024
    blocks = x[:6, :4].reshape(3, 2, 2, 2, 2).mean(axis=(1, 3))
    for got in both(I.resize, x[:6, :4], [3, 2], method="area"):
        same(got, blocks, rtol=1e-5)
    same(I.resize(x[:2, :2], [4, 6], method="area"), x[:2, :2].repeat(2, 0).repeat(3, 1),
         rtol=1e-5)
    for m in ("lanczos3", "lanczos5"):
        same(I.resize(x, [6, 5], method=m), x, rtol=1e-6)
    flat = np.full((4, 5, 1), 0.3, np.float32)
    for m in ("bicubic", "area", "lanczos3", "lanczos5", "gaussian", "mitchellcubic"):
        for aa in (False, True):
            same(I.resize(flat, [7, 3], method=m, antialias=aa), np.full((7, 3, 1), 0.3),
                 rtol=1e-5)


def test_antialiased_bilinear_downsampling():
    x = img(8, 8, 1)
    got = I.resize(x, [4, 4], antialias=True).numpy()
    k = np.array([1, 3, 3, 1]) / 8
    i = 1  # an interior output pixel: rows/cols 1..4
    want = np.einsum("h,w,hw->", k, k, x[1:5, 1:5, 0].astype(np.float64))
    np.testing.assert_allclose(got[i, i, 0], want, rtol=1e-5)


def test_preserve_aspect_ratio_and_resize_with_pad():
    x = img(4, 8, 1)
    assert I.resize(x, [6, 6], preserve_aspect_ratio=True).shape == (3, 6, 1)
    for got in both(I.resize_with_pad, x, 6, 6):
        want = np.zeros((6, 6, 1))
        want[1:4] = bilinear_np(x.astype(np.float64), 3, 6)
        same(got, want, rtol=1e-5, atol=1e-6)


def test_resize_errors():
    x = img(4, 4, 1)
    with pytest.raises(ValueError, match="2 elements"):
        I.resize(x, [2, 2, 2])
    with pytest.raises(ValueError, match="not implemented"):
        I.resize(x, [2, 2], method="cubic")
    with pytest.raises(ValueError, match="3 or 4"):
        I.resize(x[..., 0], [2, 2])
    with pytest.raises(ValueError, match="int32"):
        I.resize(x, [2.0, 2.0])
