"""``gc.signal.dct``/``idct`` (types 1-4, ``norm`` None or 'ortho', the innermost axis,
SciPy's definitions as TensorFlow's), ``linear_to_mel_weight_matrix`` and
``mfccs_from_log_mel_spectrograms``.

A DCT of length ``N`` is one ``matmul`` with its ``N x N`` matrix (a constant built in
float64 and cast to the input's dtype), not a chain of FFTs: it then compiles, and its
gradient and batching are ``matmul``'s; the cost is ``O(N^2)`` per row, which is what a
mel filterbank or an MDCT frame (a few hundred points) needs.
"""

from __future__ import annotations

import numpy as np

from graphc import source_info
from graphc.ops import linalg
from graphc.ops.convert import asarray
from graphc.ops.pad_tile import pad
from graphc.ops.tf_api_shapes import tensor, value_of


def _matrix(kind, n, norm):
    k = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    if kind == 1:
        c = np.cos(np.pi * k * j / (n - 1)) * np.where((j == 0) | (j == n - 1), 1.0, 2.0)
    elif kind == 2:
        c = 2.0 * np.cos(np.pi * k * (2 * j + 1) / (2 * n))
        if norm == "ortho":
            c *= np.where(k == 0, np.sqrt(1.0 / (4 * n)), np.sqrt(1.0 / (2 * n)))
    elif kind == 3:
        c = np.cos(np.pi * j * (2 * k + 1) / (2 * n))
        c = c * (np.where(j == 0, 1.0 / np.sqrt(n), np.sqrt(2.0 / n)) if norm == "ortho"
                 else np.where(j == 0, 1.0, 2.0))
    else:
        c = 2.0 * np.cos(np.pi * (2 * j + 1) * (2 * k + 1) / (4 * n))
        if norm == "ortho":
            c *= np.sqrt(1.0 / (2 * n))
    return c


def _validate(x, type, n, axis, norm, name):  # noqa: A002 - TensorFlow's argument name
    if axis != -1:
        raise NotImplementedError(f"axis must be -1. Got: {axis}")
    if n is not None and (not isinstance(n, int | np.integer) or n < 1):
        raise ValueError("n should be a positive integer or None")
    if type not in (1, 2, 3, 4):
        raise ValueError(f"Types I, II, III and IV (I)DCT are supported. Got: {type}")
    if norm not in (None, "ortho"):
        raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")
    if type == 1 and norm == "ortho":
        raise ValueError("Normalization not supported for Type-I DCT.")
    t = tensor(x)
    if t.dtype not in (np.float32, np.float64):
        raise TypeError(f"{name}: input must be float32 or float64, got {t.dtype}")
    if t.shape is None or not t.shape or t.shape[-1] is None:
        raise ValueError(f"{name}: the innermost dim must be known while tracing"
                         f"{source_info.where()}")
    if n is not None:
        have = t.shape[-1]
        if n < have:
            t = t[..., :n]
        elif n > have:
            t = pad(t, [[0, 0]] * (len(t.shape) - 1) + [[0, n - have]])
    if type == 1 and t.shape[-1] < 2:
        raise ValueError("Type-I DCT requires a dimension of size greater than 1.")
    return t


def dct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002
    """``tf.signal.dct``: the type 1-4 discrete cosine transform of the innermost axis
    (cropped or zero-padded to ``n``); ``norm='ortho'`` makes types 2-4 orthonormal."""
    t = _validate(input, type, n, axis, norm, "dct")
    c = _matrix(type, t.shape[-1], norm)
    return linalg.matmul(t, asarray(c.T.astype(t.dtype)))


def idct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002
    """``tf.signal.idct``: the DCT of the inverse type (2 <-> 3; 1 and 4 themselves);
    without ``norm='ortho'``, ``idct(dct(x)) == x * 2 * N`` (``N - 1`` for type 1)."""
    _validate(input, type, n, axis, norm, "idct")
    return dct(input, {1: 1, 2: 3, 3: 2, 4: 4}[type], n, axis, norm)


# --------------------------------------------------------------------------- mel
def _hertz_to_mel(f, dtype):
    return dtype.type(1127.0) * np.log(dtype.type(1.0) + f / dtype.type(700.0))


def _tf_linspace(start, stop, num, dtype):
    start, stop = dtype.type(start), dtype.type(stop)
    if num == 1:
        return np.array([start], dtype)
    delta = (stop - start) / dtype.type(num - 1)
    middle = start + np.arange(1, num - 1).astype(dtype) * delta
    return np.concatenate([[start], middle, [stop]]).astype(dtype)


def linear_to_mel_weight_matrix(num_mel_bins=20, num_spectrogram_bins=129,
                                sample_rate=8000, lower_edge_hertz=125.0,
                                upper_edge_hertz=3800.0, dtype=np.float32, name=None):
    """``tf.signal.linear_to_mel_weight_matrix``: the ``[num_spectrogram_bins,
    num_mel_bins]`` matrix of triangular mel filters (HTK's mel scale; the DC bin gets
    no weight), computed in ``dtype`` with TensorFlow's steps."""
    dtype = np.dtype(dtype)
    if dtype.kind != "f":
        raise ValueError(f"dtype must be a floating point type. Found {dtype}")
    mels, bins = (int(value_of(v)) for v in (num_mel_bins, num_spectrogram_bins))
    rate = float(value_of(sample_rate))
    lower, upper = float(value_of(lower_edge_hertz)), float(value_of(upper_edge_hertz))
    if mels <= 0:
        raise ValueError(f"num_mel_bins must be positive. Got: {mels}")
    if lower < 0.0:
        raise ValueError(f"lower_edge_hertz must be non-negative. Got: {lower}")
    if lower >= upper:
        raise ValueError(f"lower_edge_hertz {lower} >= upper_edge_hertz {upper}")
    if rate <= 0.0:
        raise ValueError(f"sample_rate must be positive. Got: {rate}")
    if upper > rate / 2:
        raise ValueError(f"upper_edge_hertz must not be larger than the Nyquist "
                         f"frequency (sample_rate / 2). Got {upper} for sample_rate: {rate}")
    linear = _tf_linspace(0.0, rate / 2.0, bins, dtype)[1:]
    spec_mel = _hertz_to_mel(linear, dtype)[:, None]
    edges = _tf_linspace(_hertz_to_mel(dtype.type(lower), dtype),
                         _hertz_to_mel(dtype.type(upper), dtype), mels + 2, dtype)
    lo, center, hi = edges[None, :-2], edges[None, 1:-1], edges[None, 2:]
    lower_slopes = (spec_mel - lo) / (center - lo)
    upper_slopes = (hi - spec_mel) / (hi - center)
    weights = np.maximum(dtype.type(0.0), np.minimum(lower_slopes, upper_slopes))
    return asarray(np.concatenate([np.zeros((1, mels), dtype), weights]).astype(dtype))


def mfccs_from_log_mel_spectrograms(log_mel_spectrograms, name=None):
    """``tf.signal.mfccs_from_log_mel_spectrograms``: the orthonormal-scaled type-2
    DCT of the innermost (mel) axis: ``dct(x) / sqrt(2 * num_mel_bins)``."""
    t = tensor(log_mel_spectrograms)
    out = dct(t, type=2)
    return out * np.asarray(1.0 / np.sqrt(2.0 * t.shape[-1]), out.dtype)
