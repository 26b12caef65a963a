"""``gc.random``: TensorFlow-style random ops (float32 by default)."""

from graphc.ops.random import normal, set_seed, uniform  # noqa: F401
