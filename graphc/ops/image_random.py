"""``gc.image``'s random augmentations, drawn from ``gc.random``'s stateful streams
(``gc.random.set_seed`` and an op ``seed`` behave as for ``gc.random.uniform``; every
call of a graph draws afresh; docs/random.md, docs/image.md)."""

from __future__ import annotations

import numpy as np

from graphc import source_info
from graphc.core.tensor import Tensor
from graphc.ops import ufuncs as _u
from graphc.ops.convert import convert_to_tensor
from graphc.ops.image_color import adjust_brightness, adjust_contrast
from graphc.ops.image_core import image_tensor
from graphc.ops.indexing import take
from graphc.ops.random_tf import uniform
from graphc.ops.shape import flip, reshape
from graphc.ops.shape_args import static_value


def _random_flip(image, axis, seed, name):
    x = image_tensor(image, name)
    if len(x.shape) == 3:
        u = uniform([], 0, 1.0, seed=seed)
        return _u.where(u < np.float32(0.5), flip(x, axis=axis), x)
    b = x.shape[0]
    if b is None:
        raise ValueError(f"{name}: the batch size must be known while tracing"
                         f"{source_info.where()}")
    u = reshape(uniform([b], 0, 1.0, seed=seed), (b, 1, 1, 1))
    return _u.where(u > np.float32(0.5), flip(x, axis=axis), x)


def random_flip_left_right(image, seed=None):
    """Flip the width axis with probability 1/2 (each image of a 4-D batch on its own)."""
    return _random_flip(image, -2, seed, "random_flip_left_right")


def random_flip_up_down(image, seed=None):
    """Flip the height axis with probability 1/2 (each image of a 4-D batch on its own)."""
    return _random_flip(image, -3, seed, "random_flip_up_down")


def random_brightness(image, max_delta, seed=None):
    """``adjust_brightness`` by a delta drawn uniformly from ``[-max_delta, max_delta)``."""
    if max_delta < 0:
        raise ValueError(f"max_delta must be non-negative.{source_info.where()}")
    delta = uniform([], -max_delta, max_delta, seed=seed)
    return adjust_brightness(image, delta)


def random_contrast(image, lower, upper, seed=None):
    """``adjust_contrast`` by a factor drawn uniformly from ``[lower, upper)``."""
    if upper <= lower:
        raise ValueError(f"upper must be > lower.{source_info.where()}")
    if lower < 0:
        raise ValueError(f"lower must be non-negative.{source_info.where()}")
    factor = uniform([], lower, upper, seed=seed)
    return adjust_contrast(image, factor)


def random_crop(value, size, seed=None, name=None):
    """A window of shape ``size`` (same rank as ``value``) at a uniformly drawn offset
    (``size`` and ``value``'s shape known while tracing)."""
    x = convert_to_tensor(value)
    sv = static_value(size) if isinstance(size, Tensor) else size
    if sv is None:
        raise ValueError(f"random_crop: size must be known while tracing"
                         f"{source_info.where()}")
    sz = [int(v) for v in np.asarray(sv).reshape(-1)]
    shape = tuple(x.shape)
    if len(sz) != len(shape):
        raise ValueError(f"random_crop: size {sz} must have the rank of value's shape "
                         f"{shape}{source_info.where()}")
    if None in shape:
        raise ValueError(f"random_crop: value's shape must be known while tracing, got "
                         f"{shape}{source_info.where()}")
    if any(s > d for s, d in zip(sz, shape)):
        raise ValueError(f"Need value.shape >= size, got {list(shape)} {sz}"
                         f"{source_info.where()}")
    limit = np.array([d - s + 1 for s, d in zip(sz, shape)], np.int32)
    off = uniform([len(sz)], dtype=np.int32, maxval=np.iinfo(np.int32).max, seed=seed)
    off = off % limit
    for axis, s in enumerate(sz):
        if s == shape[axis]:
            continue
        x = take(x, off[axis] + np.arange(s, dtype=np.int32), axis=axis)
    return x
