"""``gc.signal``'s Fourier transforms with TensorFlow's names and rules, each one node of
the registry op ``fft`` (``graphc/ops/fft.py``: NumPy's reference, gradient, batching;
docs/fft.md).

TensorFlow's rules, kept: the transforms work on the innermost 1, 2 or 3 axes; ``fft``,
``ifft``, ``fft2d``... take complex64/complex128 only (real input raises ``TypeError``),
``rfft*`` take float32/float64 (giving complex64/complex128), ``irfft*`` complex
(giving float32/float64). ``fft_length`` crops or zero-pads each transformed axis;
``irfft``'s default is ``2 * (inner - 1)``. ``fftnd``/``ifftnd``/``rfftnd``/``irfftnd``
take ``fft_length``, ``axes`` and ``norm`` as NumPy's ``fftn`` takes ``s``, ``axes``
and ``norm``.
"""

from __future__ import annotations

import numpy as np

from graphc import source_info
from graphc.ops import fft as _fft
from graphc.ops import fft_grad as _fft_grad  # noqa: F401  (attaches the gradient rule)
from graphc.ops.fft_namespace import fftshift as _np_fftshift
from graphc.ops.fft_namespace import ifftshift as _np_ifftshift
from graphc.ops.tf_api_shapes import tensor, value_of

_NORMS = {None: "backward", "backward": "backward", "ortho": "ortho", "forward": "forward"}


def _checked(x, kinds, name):
    t = tensor(x)
    if t.dtype.kind not in kinds or t.dtype.itemsize < (8 if kinds == "c" else 4):
        want = "complex64 or complex128" if kinds == "c" else "float32 or float64"
        raise TypeError(f"{name}: input must be {want}, got {t.dtype}")
    if t.shape is None:
        raise ValueError(f"{name} needs a tensor of known rank{source_info.where()}")
    return t


def _lengths(t, fft_length, rank, inverse_real, name):
    if len(t.shape) < rank:
        raise ValueError(f"{name}: input must have rank >= {rank}, got shape {t.shape}")
    if fft_length is None:
        dims_ = list(t.shape[-rank:])
        if inverse_real:
            last = dims_[-1]
            dims_[-1] = None if last is None else 2 * (last - 1)
        out = [-1 if d is None else d for d in dims_]
    else:
        known = value_of(fft_length)
        if known is None:
            raise ValueError(f"{name}: fft_length must be known while tracing")
        out = [int(v) for v in np.atleast_1d(known)]
        if len(out) != rank:
            raise ValueError(f"{name}: fft_length must have {rank} entries, got {out}")
    for n in out:
        if n != -1 and n < 1 and not (inverse_real and n == 0):
            raise ValueError(f"{name}: fft lengths must be positive, got {out}")
    return out


def _inner(x, kind, rank, fft_length, name):
    kinds = "f" if kind == "rfft" else "c"
    t = _checked(x, kinds, name)
    s = _lengths(t, fft_length, rank, kind == "irfft", name)
    return _fft.transform(t, kind, s, tuple(range(-rank, 0)), "backward")


def fft(input, name=None):  # noqa: A002 - TensorFlow's argument name
    """``tf.signal.fft``: the DFT over the innermost axis of a complex tensor."""
    return _inner(input, "fft", 1, None, "fft")


def ifft(input, name=None):  # noqa: A002
    """``tf.signal.ifft``: the inverse DFT (scaled by 1/n) over the innermost axis."""
    return _inner(input, "ifft", 1, None, "ifft")


def fft2d(input, name=None):  # noqa: A002
    """``tf.signal.fft2d``: the 2-D DFT over the innermost two axes."""
    return _inner(input, "fft", 2, None, "fft2d")


def ifft2d(input, name=None):  # noqa: A002
    """``tf.signal.ifft2d``: the inverse 2-D DFT over the innermost two axes."""
    return _inner(input, "ifft", 2, None, "ifft2d")


def fft3d(input, name=None):  # noqa: A002
    """``tf.signal.fft3d``: the 3-D DFT over the innermost three axes."""
    return _inner(input, "fft", 3, None, "fft3d")


def ifft3d(input, name=None):  # noqa: A002
    """``tf.signal.ifft3d``: the inverse 3-D DFT over the innermost three axes."""
    return _inner(input, "ifft", 3, None, "ifft3d")


def rfft(input_tensor, fft_length=None, name=None):
    """``tf.signal.rfft``: the DFT of a real signal over the innermost axis (cropped or
    zero-padded to ``fft_length``), its ``fft_length // 2 + 1`` unique terms."""
    return _inner(input_tensor, "rfft", 1, fft_length, "rfft")


def irfft(input_tensor, fft_length=None, name=None):
    """``tf.signal.irfft``: the real signal of ``fft_length`` points (default
    ``2 * (inner - 1)``) whose half spectrum is the innermost axis."""
    return _inner(input_tensor, "irfft", 1, fft_length, "irfft")


def rfft2d(input_tensor, fft_length=None, name=None):
    """``tf.signal.rfft2d``: :func:`rfft` over the innermost two axes."""
    return _inner(input_tensor, "rfft", 2, fft_length, "rfft2d")


def irfft2d(input_tensor, fft_length=None, name=None):
    """``tf.signal.irfft2d``: :func:`irfft` over the innermost two axes."""
    return _inner(input_tensor, "irfft", 2, fft_length, "irfft2d")


def rfft3d(input_tensor, fft_length=None, name=None):
    """``tf.signal.rfft3d``: :func:`rfft` over the innermost three axes."""
    return _inner(input_tensor, "rfft", 3, fft_length, "rfft3d")


def irfft3d(input_tensor, fft_length=None, name=None):
    """``tf.signal.irfft3d``: :func:`irfft` over the innermost three axes."""
    return _inner(input_tensor, "irfft", 3, fft_length, "irfft3d")


# --------------------------------------------------------------------------- N-d
def _nd(kind, x, fft_length, axes, norm, name):
    t = _checked(x, "f" if kind == "rfft" else "c", name)
    if norm not in _NORMS:
        raise ValueError(f"{name}: norm must be 'backward', 'ortho' or 'forward', got "
                         f"{norm!r}")
    nd = len(t.shape)
    if axes is None:
        count = nd if fft_length is None else len(np.atleast_1d(value_of(fft_length)))
        axes = list(range(nd - count, nd))
    axes = [int(a) for a in np.atleast_1d(value_of(axes))]
    for a in axes:
        if not -nd <= a < nd:
            raise ValueError(f"{name}: axis {a} is out of range for rank {nd}")
    axes = [a % nd - nd for a in axes]
    if fft_length is None:
        s = [t.shape[a] if t.shape[a] is not None else -1 for a in axes]
        if kind == "irfft":
            s[-1] = -1 if t.shape[axes[-1]] is None else 2 * (t.shape[axes[-1]] - 1)
    else:
        s = [int(v) for v in np.atleast_1d(value_of(fft_length))]
        if len(s) != len(axes):
            raise ValueError(f"{name}: fft_length and axes must have the same length")
    if not axes:
        return t
    return _fft.transform(t, kind, s, axes, _NORMS[norm])


def fftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None):
    """``tf.signal.fftnd``: the N-D DFT over ``axes`` (default: the last
    ``len(fft_length)`` axes, or all), lengths ``fft_length``, ``norm`` as NumPy's."""
    return _nd("fft", input_tensor, fft_length, axes, norm, "fftnd")


def ifftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None):
    """``tf.signal.ifftnd``: the inverse of :func:`fftnd`."""
    return _nd("ifft", input_tensor, fft_length, axes, norm, "ifftnd")


def rfftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None):
    """``tf.signal.rfftnd``: the N-D DFT of a real tensor, the last axis halved."""
    return _nd("rfft", input_tensor, fft_length, axes, norm, "rfftnd")


def irfftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None):
    """``tf.signal.irfftnd``: the inverse of :func:`rfftnd`."""
    return _nd("irfft", input_tensor, fft_length, axes, norm, "irfftnd")


def fftshift(x, axes=None, name=None):
    """``tf.signal.fftshift``: the zero-frequency term moved to the center (all axes by
    default)."""
    return _np_fftshift(tensor(x), axes)


def ifftshift(x, axes=None, name=None):
    """``tf.signal.ifftshift``: the inverse of :func:`fftshift`."""
    return _np_ifftshift(tensor(x), axes)
