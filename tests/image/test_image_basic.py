"""gc.image dtype conversion, flips, transposes, rotations, crops and pads against
NumPy, eagerly and traced; TensorFlow's errors."""

import numpy as np
import pytest
from image_helpers import both, img, same

import graphc as gc

I = gc.image  # noqa: E741


def test_convert_image_dtype_int_to_float_and_back():
    x = np.array([[[0], [128], [255]]], np.uint8)
    for got in both(I.convert_image_dtype, x, gc.float32):
        same(got, x.astype(np.float32) * np.float32(1 / 255), rtol=0)
    f = np.array([[[0.0], [0.5], [1.0], [1.2], [-0.3]]], np.float32)
    want = (f * np.float32(255.5)).astype(np.int64).astype(np.uint8)  # truncation, wraps
    same(I.convert_image_dtype(f, gc.uint8), want)
    sat = np.clip(f * np.float32(255.5), 0, 255).astype(np.uint8)
    for got in both(I.convert_image_dtype, f, gc.uint8, saturate=True):
        same(got, sat)


def test_convert_image_dtype_int_to_int_and_float_to_float():
    x = np.array([[[0], [1], [255]]], np.uint8)
    same(I.convert_image_dtype(x, gc.int32), x.astype(np.int32) * np.int32(2 ** 23))
    y = np.array([[[0], [2 ** 23], [2 ** 31 - 1]]], np.int32)
    same(I.convert_image_dtype(y, gc.uint8), (y // 2 ** 23).astype(np.uint8))
    same(I.convert_image_dtype(y, gc.int8), (y // 2 ** 24).astype(np.int8))
    f = img(2, 2, 1)
    got = I.convert_image_dtype(f, gc.float64)
    assert got.dtype == np.float64
    same(got, f.astype(np.float64), rtol=0)
    assert I.convert_image_dtype(f, gc.float32).dtype == np.float32
    with pytest.raises(AttributeError):
        I.convert_image_dtype(f, gc.bool)


@pytest.mark.parametrize("shape", [(3, 4, 2), (2, 3, 4, 2)])
def test_flips_transpose_rot90(shape):
    x = img(*shape)
    for got in both(I.flip_left_right, x):
        same(got, x[..., ::-1, :], rtol=0)
    for got in both(I.flip_up_down, x):
        same(got, x[..., ::-1, :, :], rtol=0)
    for got in both(I.transpose, x):
        same(got, np.swapaxes(x, -3, -2), rtol=0)
    for k in range(-1, 6):
        for got in both(I.rot90, x, k):
            same(got, np.rot90(x, k, axes=(-3, -2)), rtol=0)


def test_flip_needs_3_or_4_dims():
    with pytest.raises(ValueError, match="3 or 4"):
        I.flip_left_right(np.zeros((2, 2), np.float32))


def test_crop_and_pad_to_bounding_box():
    x = img(2, 5, 6, 3)
    for got in both(I.crop_to_bounding_box, x, 1, 2, 3, 4):
        same(got, x[:, 1:4, 2:6], rtol=0)
    want = np.zeros((2, 8, 9, 3), np.float32)
    want[:, 2:7, 1:7] = x
    for got in both(I.pad_to_bounding_box, x, 2, 1, 8, 9):
        same(got, want, rtol=0)
    same(I.pad_to_bounding_box(x[0], 2, 1, 8, 9), want[0], rtol=0)
    with pytest.raises(ValueError, match="width must be >= target \\+ offset"):
        I.crop_to_bounding_box(x, 0, 3, 2, 4)
    with pytest.raises(ValueError, match="offset_height must be >= 0"):
        I.crop_to_bounding_box(x, -1, 0, 2, 2)
    with pytest.raises(ValueError, match="target_width must be > 0"):
        I.crop_to_bounding_box(x, 0, 0, 2, 0)
    with pytest.raises(ValueError, match="height must be <= target - offset"):
        I.pad_to_bounding_box(x, 4, 0, 8, 9)


def test_resize_with_crop_or_pad():
    x = img(5, 6, 1)
    got = I.resize_with_crop_or_pad(x, 3, 9)
    want = np.zeros((3, 9, 1), np.float32)
    want[:, 1:7] = x[1:4]
    same(got, want, rtol=0)
    for got in both(I.resize_with_crop_or_pad, x, 8, 3):
        want = np.zeros((8, 3, 1), np.float32)
        want[1:6] = x[:, 1:4]
        same(got, want, rtol=0)


def test_central_crop():
    x = img(2, 10, 7, 1)
    for got in both(I.central_crop, x, 0.5):
        same(got, x[:, 2:8, 1:6], rtol=0)
    same(I.central_crop(x[0], 1.0), x[0], rtol=0)
    for bad in (0.0, 1.5):
        with pytest.raises(ValueError, match="central_fraction"):
            I.central_crop(x, bad)
