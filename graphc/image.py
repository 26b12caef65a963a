"""``gc.image``: TensorFlow's ``tf.image`` over graphc ops (docs/image.md).

Loaded on first use (``gc.image``). Images are channels-last (``[H, W, C]`` or a batch
``[B, H, W, C]``); float images hold values in ``[0, 1]``. Every name except
``non_max_suppression`` (a data-dependent length: NumPy when the graph runs) is a
composition of existing ops (definitions in ``graphc/ops/image_*.py``), so gradients,
``gc.vectorized_map`` and compiled code come from the ops used. Spatial sizes must be
known while tracing.

>>> import graphc as gc
>>> gc.image.flip_left_right(gc.constant([[[1.0], [2.0]]])).numpy()[..., 0]
array([[2., 1.]], dtype=float32)
"""

from __future__ import annotations

from graphc.ops.image_color import (  # noqa: F401
    adjust_brightness,
    adjust_contrast,
    adjust_gamma,
    adjust_hue,
    adjust_saturation,
    grayscale_to_rgb,
    hsv_to_rgb,
    per_image_standardization,
    rgb_to_grayscale,
    rgb_to_hsv,
    rgb_to_yuv,
    yuv_to_rgb,
)
from graphc.ops.image_core import (  # noqa: F401
    central_crop,
    convert_image_dtype,
    crop_to_bounding_box,
    flip_left_right,
    flip_up_down,
    pad_to_bounding_box,
    resize_with_crop_or_pad,
    rot90,
    transpose,
)
from graphc.ops.image_metrics import (  # noqa: F401
    image_gradients,
    non_max_suppression,
    psnr,
    sobel_edges,
    ssim,
    total_variation,
)
from graphc.ops.image_random import (  # noqa: F401
    random_brightness,
    random_contrast,
    random_crop,
    random_flip_left_right,
    random_flip_up_down,
)
from graphc.ops.image_resize import (  # noqa: F401
    crop_and_resize,
    extract_patches,
    resize,
    resize_with_pad,
)


class ResizeMethod:
    """The ``method`` names of :func:`resize` (TensorFlow's ``tf.image.ResizeMethod``)."""

    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"
