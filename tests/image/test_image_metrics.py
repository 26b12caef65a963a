"""gc.image filters and measures (image_gradients, sobel_edges, total_variation, psnr,
ssim), extract_patches, crop_and_resize and non_max_suppression against NumPy / SciPy
oracles, eagerly and traced."""

import numpy as np
import pytest
from image_helpers import both, img, same
from scipy import ndimage, signal

import graphc as gc

I = gc.image  # noqa: E741


def test_image_gradients_and_total_variation():
    x = img(2, 3, 4, 2)
    dy = np.zeros_like(x)
    dy[:, :-1] = np.diff(x, axis=1)
    dx = np.zeros_like(x)
    dx[:, :, :-1] = np.diff(x, axis=2)
    for got in both(I.image_gradients, x):
        same(got[0], dy, rtol=0)
        same(got[1], dx, rtol=0)
    with pytest.raises(ValueError, match="4D"):
        I.image_gradients(x[0])
    tv = np.abs(np.diff(x, axis=1)).sum((1, 2, 3)) + np.abs(np.diff(x, axis=2)).sum((1, 2, 3))
    for got in both(I.total_variation, x):
        same(got, tv, rtol=1e-5)
    same(I.total_variation(x[0]), tv[0], rtol=1e-5)
    xi = (x * 100).astype(np.int32)
    ti = np.abs(np.diff(xi, axis=1)).sum((1, 2, 3)) + np.abs(np.diff(xi, axis=2)).sum((1, 2, 3))
    same(I.total_variation(xi), ti.astype(np.int32))


def test_sobel_edges():
    x = img(2, 4, 5, 2)
    ky = np.array([[-1, -2, -1], [0, 0, 0], [1, 2, 1]], np.float64)
    want = np.zeros(x.shape + (2,))
    for n in range(2):
        for c in range(2):
            for k, kern in enumerate((ky, ky.T)):
                want[n, :, :, c, k] = ndimage.correlate(x[n, :, :, c].astype(np.float64),
                                                        kern, mode="mirror")
    for got in both(I.sobel_edges, x):
        same(got, want, rtol=1e-5, atol=1e-6)


def ssim_np(a, b, max_val, size=11, sigma=1.5, k1=0.01, k2=0.03):
    c = np.arange(size) - (size - 1) / 2
    g = np.exp(-(c[:, None] ** 2 + c[None, :] ** 2) / (2 * sigma ** 2))
    g /= g.sum()
    out = np.zeros(a.shape[:-3])
    for idx in np.ndindex(a.shape[:-3]):
        vals = []
        for ch in range(a.shape[-1]):
            x, y = a[idx][..., ch].astype(np.float64), b[idx][..., ch].astype(np.float64)
            f = lambda t: signal.correlate2d(t, g, mode="valid")  # noqa: E731
            mx, my = f(x), f(y)
            vx, vy, cxy = f(x * x) - mx ** 2, f(y * y) - my ** 2, f(x * y) - mx * my
            c1, c2 = (k1 * max_val) ** 2, (k2 * max_val) ** 2
            lum = (2 * mx * my + c1) / (mx ** 2 + my ** 2 + c1)
            cs = (2 * cxy + c2) / (vx + vy + c2)
            vals.append(np.mean(lum * cs))
        out[idx] = np.mean(vals)
    return out


def test_psnr_and_ssim():
    a, b = img(2, 12, 13, 3), img(2, 12, 13, 3)
    mse = ((a.astype(np.float64) - b) ** 2).mean((1, 2, 3))
    for got in both(I.psnr, a, b, 1.0):
        same(got, 10 * np.log10(1 / mse), rtol=1e-5)
    ua, ub = (a * 255).astype(np.uint8), (b * 255).astype(np.uint8)
    mse8 = ((ua / 255.0 - ub / 255.0) ** 2).mean((1, 2, 3))
    same(I.psnr(ua, ub, 255), 10 * np.log10(1 / mse8), rtol=1e-5)
    b2 = np.clip(a * 0.8 + 0.1 * b, 0, 1).astype(np.float32)
    for got in both(I.ssim, a, b2, 1.0):
        same(got, ssim_np(a, b2, 1.0), rtol=1e-4, atol=1e-5)
    same(I.ssim(a[0], a[0], 1.0), 1.0, rtol=1e-5)
    assert I.ssim(a, b2, 1.0, return_index_map=True).shape == (2, 2, 3)
    with pytest.raises(ValueError, match="filter_size"):
        I.ssim(a[:, :8], b[:, :8], 1.0)


def patches_np(x, k, s, r, padding):
    kh, kw = k
    eh, ew = (kh - 1) * r[0] + 1, (kw - 1) * r[1] + 1
    h, w = x.shape[1:3]
    if padding == "VALID":
        oh, ow, pt, pl = (h - eh) // s[0] + 1, (w - ew) // s[1] + 1, 0, 0
    else:
        oh, ow = -(-h // s[0]), -(-w // s[1])
        pt = max((oh - 1) * s[0] + eh - h, 0) // 2
        pl = max((ow - 1) * s[1] + ew - w, 0) // 2
    out = np.zeros((x.shape[0], oh, ow, kh * kw * x.shape[3]), x.dtype)
    for i in range(oh):
        for j in range(ow):
            vals = []
            for a in range(kh):
                for b in range(kw):
                    y, z = i * s[0] + a * r[0] - pt, j * s[1] + b * r[1] - pl
                    ok = 0 <= y < h and 0 <= z < w
                    vals.append(x[:, y, z] if ok else np.zeros_like(x[:, 0, 0]))
            out[:, i, j] = np.concatenate(vals, axis=-1)
    return out


@pytest.mark.parametrize("k,s,r,padding", [((2, 2), (2, 2), (1, 1), "VALID"),
                                           ((3, 2), (1, 2), (2, 1), "SAME"),
                                           ((2, 3), (3, 1), (1, 2), "VALID")])
def test_extract_patches(k, s, r, padding):
    x = img(2, 7, 6, 2)
    want = patches_np(x, k, s, r, padding)
    for got in both(I.extract_patches, x, [1, *k, 1], [1, *s, 1], [1, *r, 1], padding):
        same(got, want, rtol=0)


def crop_resize_np(x, boxes, idx, ch, cw, extrap, nearest=False):
    h, w = x.shape[1:3]
    out = np.zeros((len(boxes), ch, cw, x.shape[3]))
    for n, ((y1, x1, y2, x2), bi) in enumerate(zip(boxes, idx)):
        for i in range(ch):
            yy = y1 * (h - 1) + i * (y2 - y1) * (h - 1) / (ch - 1) if ch > 1 \
                else 0.5 * (y1 + y2) * (h - 1)
            for j in range(cw):
                xx = x1 * (w - 1) + j * (x2 - x1) * (w - 1) / (cw - 1) if cw > 1 \
                    else 0.5 * (x1 + x2) * (w - 1)
                if not (0 <= yy <= h - 1 and 0 <= xx <= w - 1):
                    out[n, i, j] = extrap
                elif nearest:
                    out[n, i, j] = x[bi, int(np.floor(yy + 0.5)), int(np.floor(xx + 0.5))]
                else:
                    t, b, left, r = int(np.floor(yy)), int(np.ceil(yy)), int(np.floor(xx)), \
                        int(np.ceil(xx))
                    ly, lx = yy - t, xx - left
                    top = x[bi, t, left] + (x[bi, t, r] - x[bi, t, left]) * lx
                    bot = x[bi, b, left] + (x[bi, b, r] - x[bi, b, left]) * lx
                    out[n, i, j] = top + (bot - top) * ly
    return out


def test_crop_and_resize():
    x = img(2, 5, 6, 2)
    boxes = np.array([[0.1, 0.2, 0.9, 0.7], [-0.2, 0.0, 1.2, 1.0], [0.8, 0.9, 0.3, 0.1]],
                     np.float32)
    idx = np.array([1, 0, 1], np.int32)
    want = crop_resize_np(x.astype(np.float64), boxes.astype(np.float64), idx, 3, 4, -1.0)
    for got in both(I.crop_and_resize, x, boxes, idx, [3, 4], extrapolation_value=-1.0):
        same(got, want, rtol=1e-5, atol=1e-6)
    want = crop_resize_np(x, boxes, idx, 1, 2, 0.0, nearest=True)
    same(I.crop_and_resize(x, boxes, idx, [1, 2], method="nearest"), want, rtol=1e-6)
    with pytest.raises(ValueError, match="method"):
        I.crop_and_resize(x, boxes, idx, [2, 2], method="bicubic")


def test_non_max_suppression():
    boxes = np.array([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11],
                      [1, 10.1, 0, 11.1], [0, 100, 1, 101]], np.float32)
    scores = np.array([0.9, 0.75, 0.6, 0.95, 0.5, 0.3], np.float32)
    for got in both(I.non_max_suppression, boxes, scores, 3):
        same(got, np.array([3, 0, 5], np.int32))
    same(I.non_max_suppression(boxes, scores, 10, iou_threshold=0.9),
         np.array([3, 0, 1, 2, 4, 5], np.int32))
    same(I.non_max_suppression(boxes, scores, 10, score_threshold=0.6),
         np.array([3, 0], np.int32))
    with pytest.raises(ValueError, match="iou_threshold"):
        I.non_max_suppression(boxes, scores, 3, iou_threshold=1.5)
