"""gc.image colour conversions and adjustments against per-pixel NumPy / colorsys
oracles, eagerly and traced."""

import colorsys

import numpy as np
import pytest
from image_helpers import both, img, same

import graphc as gc

I = gc.image  # noqa: E741


def per_pixel(fn, x):
    flat = x.reshape(-1, 3).astype(np.float64)
    return np.array([fn(*p) for p in flat]).reshape(x.shape)


def test_rgb_hsv_round_trip_against_colorsys():
    x = img(2, 3, 4, 3)
    x[0, 0, 0] = [0.5, 0.5, 0.5]  # grey: hue and saturation 0
    x[0, 0, 1] = [0.0, 0.0, 0.0]
    want = per_pixel(colorsys.rgb_to_hsv, x)
    for got in both(I.rgb_to_hsv, x):
        same(got, want, rtol=1e-5, atol=1e-6)
    for got in both(I.hsv_to_rgb, want.astype(np.float32)):
        same(got, per_pixel(colorsys.hsv_to_rgb, want), rtol=1e-5, atol=1e-6)
    assert I.rgb_to_hsv(x.astype(np.float64)).dtype == np.float64
    with pytest.raises(TypeError, match="floating"):
        I.rgb_to_hsv(np.zeros((1, 1, 3), np.uint8))
    with pytest.raises(ValueError, match="last dimension must be 3"):
        I.rgb_to_hsv(np.zeros((1, 1, 4), np.float32))


def test_grayscale_and_yuv():
    x = img(2, 3, 3)
    w = np.array([0.2989, 0.5870, 0.1140])
    for got in both(I.rgb_to_grayscale, x):
        same(got, (x @ w)[..., None], rtol=1e-6)
    u8 = (x * 255).astype(np.uint8)
    g = (u8.astype(np.float32) / np.float32(255)) @ w.astype(np.float32)
    same(I.rgb_to_grayscale(u8), (g * np.float32(255.5)).astype(np.uint8)[..., None])
    g1 = x[..., :1]
    for got in both(I.grayscale_to_rgb, g1):
        same(got, np.repeat(g1, 3, -1), rtol=0)
    yuv = np.stack([x @ [0.299, 0.587, 0.114],
                    x @ [-0.14714119, -0.28886916, 0.43601035],
                    x @ [0.61497538, -0.51496512, -0.10001026]], -1)
    for got in both(I.rgb_to_yuv, x):
        same(got, yuv, rtol=1e-5, atol=1e-6)
    for got in both(I.yuv_to_rgb, yuv.astype(np.float32)):
        same(got, x, rtol=1e-4, atol=1e-5)


def test_brightness_contrast_gamma():
    x = img(2, 3, 4, 3)
    for got in both(I.adjust_brightness, x, 0.25):
        same(got, x + np.float32(0.25), rtol=0)
    u8 = np.array([[[10], [250]]], np.uint8)
    want = np.clip((u8 / 255 + 0.1) * 255.5, 0, 255).astype(np.uint8)
    same(I.adjust_brightness(u8, 0.1), want)
    m = x.mean(axis=(-3, -2), keepdims=True)
    for got in both(I.adjust_contrast, x, 1.7):
        same(got, (x - m) * 1.7 + m, rtol=1e-5, atol=1e-6)
    for got in both(I.adjust_gamma, x, 2.2, 0.8):
        same(got, 0.8 * x ** 2.2, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="Gamma"):
        I.adjust_gamma(x, -1.0)
    d = I.adjust_brightness(x.astype(np.float64), 0.25)
    assert d.dtype == np.float64


def test_hue_and_saturation_against_colorsys():
    x = img(3, 4, 3)
    hsv = per_pixel(colorsys.rgb_to_hsv, x)

    def hue(h, s, v):
        return colorsys.hsv_to_rgb((h - 0.3) % 1.0, s, v)

    def sat(h, s, v):
        return colorsys.hsv_to_rgb(h, min(s * 1.6, 1.0), v)

    for got in both(I.adjust_hue, x, -0.3):
        same(got, per_pixel(hue, hsv), rtol=1e-5, atol=2e-6)
    for got in both(I.adjust_saturation, x, 1.6):
        same(got, per_pixel(sat, hsv), rtol=1e-5, atol=2e-6)
    with pytest.raises(ValueError, match="delta must be in the interval"):
        I.adjust_hue(x, 1.5)


def test_per_image_standardization():
    x = img(2, 3, 4, 3)
    m = x.mean(axis=(1, 2, 3), keepdims=True)
    s = np.maximum(x.std(axis=(1, 2, 3), keepdims=True), 1 / np.sqrt(36))
    for got in both(I.per_image_standardization, x):
        same(got, (x - m) / s, rtol=1e-5, atol=1e-6)
    flat = np.full((2, 2, 1), 7, np.uint8)
    got = I.per_image_standardization(flat)
    assert got.dtype == np.float32
    same(got, np.zeros((2, 2, 1), np.float32))
