"""Shared helpers of the TensorFlow reference tests (tests/tf_reference/README.md).

Every graphc check here stands on its own: the expected values are worked out by hand
or by central differences, never read from TensorFlow. When TensorFlow is installed,
the ``*_tensorflow`` tests run the same cases on it, to show the expectations are
TensorFlow's; without it only those tests skip.
"""

from __future__ import annotations

import os

import numpy as np
import pytest


def tensorflow():
    """The ``tensorflow`` module, or skip the calling (TensorFlow-side) test."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    return pytest.importorskip("tensorflow")


def central_difference(f, x0, eps=1e-6):
    """d f / d x at ``x0`` (a float64 array or number), one element at a time."""
    x0 = np.array(x0, dtype=np.float64)
    grad = np.zeros_like(x0)
    flat = grad.reshape(-1)
    for i in range(x0.size):
        up, down = x0.copy().reshape(-1), x0.copy().reshape(-1)
        up[i] += eps
        down[i] -= eps
        flat[i] = (f(up.reshape(x0.shape)) - f(down.reshape(x0.shape))) / (2 * eps)
    return grad


def value(t):
    """A graphc or TensorFlow tensor (or None) as a NumPy value."""
    return None if t is None else np.asarray(t.numpy() if hasattr(t, "numpy") else t)
