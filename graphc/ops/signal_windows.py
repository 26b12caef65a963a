"""``gc.signal``'s windows: ``hann_window``, ``hamming_window``, ``kaiser_window``,
``kaiser_bessel_derived_window``, ``vorbis_window``, with TensorFlow's formulas (a
length-1 window is ``[1]``; ``periodic`` lengthens only even windows, as TensorFlow's
``_raised_cosine_window``). The length (and ``beta``) must be known while tracing: the
window is then a constant, computed in NumPy in ``dtype`` (Kaiser windows in float64,
then cast)."""

from __future__ import annotations

import numpy as np

from graphc import source_info
from graphc.ops.convert import asarray
from graphc.ops.tf_api_shapes import value_of


def _length(window_length, name):
    n = value_of(window_length)
    if n is None:
        raise ValueError(f"{name}: window_length must be known while tracing"
                         f"{source_info.where()}")
    if np.ndim(n) or np.asarray(n).dtype.kind not in "iu":
        raise ValueError(f"{name}: window_length must be a scalar integer, got {n!r}")
    if int(n) < 0:
        raise ValueError(f"{name}: window_length must be >= 0, got {int(n)}")
    return int(n)


def _float(dtype, name):
    dtype = np.dtype(dtype)
    if dtype.kind != "f":
        raise ValueError(f"dtype must be a floating point type. Found {dtype}")
    return dtype


def _raised_cosine(window_length, periodic, dtype, a, b, name):
    n, dtype = _length(window_length, name), _float(dtype, name)
    if n == 1:
        return asarray(np.ones(1, dtype))
    even = 1 - n % 2
    denom = dtype.type(n + int(bool(value_of(periodic))) * even - 1)
    count = np.arange(n).astype(dtype)
    arg = dtype.type(2 * np.pi) * count / denom
    return asarray((dtype.type(a) - dtype.type(b) * np.cos(arg)).astype(dtype))


def hann_window(window_length, periodic=True, dtype=np.float32, name=None):
    """``tf.signal.hann_window``: ``0.5 - 0.5 cos(2 pi n / N)``."""
    return _raised_cosine(window_length, periodic, dtype, 0.5, 0.5, "hann_window")


def hamming_window(window_length, periodic=True, dtype=np.float32, name=None):
    """``tf.signal.hamming_window``: ``0.54 - 0.46 cos(2 pi n / N)``."""
    return _raised_cosine(window_length, periodic, dtype, 0.54, 0.46, "hamming_window")


def _kaiser(n, beta):
    if n == 1:
        return np.ones(1)
    half = (n - 1) / 2.0
    arg = (np.arange(n) - half) / half
    return np.i0(beta * np.sqrt(np.maximum(1.0 - arg * arg, 0.0))) / np.i0(beta)


def _beta(beta, name):
    b = value_of(beta)
    if b is None:
        raise ValueError(f"{name}: beta must be known while tracing")
    return float(b)


def kaiser_window(window_length, beta=12.0, dtype=np.float32, name=None):
    """``tf.signal.kaiser_window``: ``I0(beta sqrt(1 - (2n/(N-1) - 1)^2)) / I0(beta)``."""
    n, dtype = _length(window_length, "kaiser_window"), _float(dtype, "kaiser_window")
    return asarray(_kaiser(n, _beta(beta, "kaiser_window")).astype(dtype))


def kaiser_bessel_derived_window(window_length, beta=12.0, dtype=np.float32, name=None):
    """``tf.signal.kaiser_bessel_derived_window``: the square root of the running sums
    of a Kaiser window of ``N // 2 + 1`` points, mirrored (the MDCT's KBD window)."""
    n = _length(window_length, "kaiser_bessel_derived_window")
    dtype = _float(dtype, "kaiser_bessel_derived_window")
    k = _kaiser(n // 2 + 1, _beta(beta, "kaiser_bessel_derived_window"))
    total = np.cumsum(k)
    half = np.sqrt(total[:-1] / total[-1])
    return asarray(np.concatenate([half, half[::-1]]).astype(dtype))


def vorbis_window(window_length, dtype=np.float32, name=None):
    """``tf.signal.vorbis_window``: ``sin(pi/2 sin^2(pi (n + 1/2) / N))``."""
    n, dtype = _length(window_length, "vorbis_window"), _float(dtype, "vorbis_window")
    arg = np.arange(n).astype(dtype)
    inner = np.sin(dtype.type(np.pi) / dtype.type(n if n else 1) * (arg + dtype.type(0.5)))
    return asarray(np.sin(dtype.type(np.pi / 2.0) * inner ** 2).astype(dtype))
