"""``graphc.numpy.fft`` (``gnp.fft``): NumPy's ``numpy.fft``, its 18 names and signatures.

The transforms (``fft``, ``ifft``, ``fft2``, ``ifft2``, ``fftn``, ``ifftn``, ``rfft``,
``irfft``, ``rfft2``, ``irfft2``, ``rfftn``, ``irfftn``, ``hfft``, ``ihfft``) each bind the
``fft`` op of ``fft.py`` once (its gradient and batching rules come with it); the helpers
``fftfreq``, ``rfftfreq``, ``fftshift`` and ``ifftshift`` are compositions of existing ops
(constants, ``roll``).

>>> x = gnp.linspace(0.0, 1.0, 8)
>>> h = gnp.exp(-gnp.arange(5.0))                # a low-pass half spectrum
>>> gnp.fft.irfft(gnp.fft.rfft(x) * h, n=8)     # a circular filter

Arguments are read as NumPy reads them (``n``/``s`` crop or zero-pad, ``s`` entries
``-1`` mean the whole axis, ``norm`` ``None``/``"backward"``/``"ortho"``/``"forward"``,
NumPy 2's deprecation warnings for ``s`` without ``axes`` and for ``None`` in ``s``) and
raise NumPy's errors (``ValueError`` for a length below 1 or a bad ``norm``, ``AxisError``
for a bad axis). ``out=`` (a tensor or an ndarray of the result's shape) is written and
returned. See docs/fft.md.
"""

from __future__ import annotations

import operator as _operator
import warnings as _warnings

import numpy as _np

from graphc import source_info as _source_info
from graphc.core.tensor import Tensor as _Tensor
from graphc.ops import fft as _fft
from graphc.ops import fft_grad as _fft_grad  # noqa: F401  (attaches the gradient rule)
from graphc.ops import inplace as _inplace
from graphc.ops.convert import asarray as _asarray
from graphc.ops.differences import roll as _roll
from graphc.ops.shape import shape as _shape
from graphc.ops.shape_args import static_value as _static_value

_S_WITHOUT_AXES = (
    "`axes` should not be `None` if `s` is not `None` (Deprecated in NumPy 2.0). In a future "
    "version of NumPy, this will raise an error and `s[i]` will correspond to the size along "
    "the transformed axis specified by `axes[i]`. To retain current behaviour, pass a "
    "sequence [0, ..., k-1] to `axes` for an array of dimension k.")
_NONE_IN_S = (
    "Passing an array containing `None` values to `s` is deprecated in NumPy 2.0 and will "
    "raise an error in a future version of NumPy. To use the default behaviour of the "
    "corresponding 1-D transform, pass the value matching the default for its `n` "
    "parameter. To use the default behaviour for every axis, the `s` argument can be "
    "omitted.")


# --------------------------------------------------------------------------- arguments
def _rank(a, name):
    if a.shape is None:
        raise ValueError(f"fft.{name} needs an input of known rank{_source_info.where()}")
    return len(a.shape)


def _int(v, what, name):
    """An int argument (a length or an axis), also from a tensor known while tracing."""
    if isinstance(v, _Tensor):
        known = _static_value(v)
        if known is None:
            raise ValueError(f"fft.{name}: {what} must be known while tracing (it sets the "
                             f"result's shape){_source_info.where()}")
        v = known[()] if known.ndim == 0 else v
    return _operator.index(v)


def _norm(norm):
    if norm is None:
        return "backward"
    if not isinstance(norm, str) or norm not in _fft.NORMS:
        raise _fft.norm_error(norm)
    return norm


def _axis(axis, nd):
    """``axis`` as a negative int; NumPy's ``AxisError`` when out of range."""
    if not -nd <= axis < nd:
        raise _np.exceptions.AxisError(axis, nd)
    return axis - nd if axis >= 0 else axis


def _length(n, dim, c2r, name):
    """A 1-D transform's length: ``n``, or its default for an input dim ``dim``; ``None``
    (the op's marker for the default) where ``dim`` is unknown."""
    if n is None:
        n = _fft.default_length(dim, c2r)
    else:
        n = _int(n, "n", name)
    if n is not None and n < 1:
        raise _fft.points_error(n)
    return n


def _write(out, result, name):
    if out is None:
        return result
    want = tuple(result.shape)
    got = getattr(out, "shape", None)
    if got is not None and None not in want and tuple(got) != want:
        raise ValueError("output array has wrong shape.")
    return _inplace.into_out(out, result, f"fft.{name}", result)


def _one(kind, name, a, n, axis, norm, out):
    """A 1-D transform of ``a`` along ``axis`` (NumPy's ``fft``-style signature)."""
    a = _asarray(a)
    nd = _rank(a, name)
    ax = _axis(_int(axis, "axis", name), nd)
    n = _length(n, a.shape[ax], kind in ("irfft", "hfft"), name)
    result = _fft.transform(a, kind, (n,), (ax,), _norm(norm))
    return _write(out, result, name)


def _many(kind, name, a, s, axes, norm, out):
    """A transform over several axes (NumPy's ``fftn``-style signature, its
    ``_cook_nd_args``: ``s`` alone means the last ``len(s)`` axes, with a warning)."""
    a = _asarray(a)
    nd = _rank(a, name)
    shapeless = s is None
    if shapeless:
        axes = list(range(nd)) if axes is None else list(axes)
        s = [None] * len(axes)
    else:
        s = list(s)
        if axes is None:
            _warnings.warn(_S_WITHOUT_AXES, DeprecationWarning, stacklevel=3)
            axes = list(range(-len(s), 0))
        else:
            axes = list(axes)
    if len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    axes = [_axis(_int(ax, "axes", name), nd) for ax in axes]
    if not axes:
        if kind in ("rfft", "irfft"):
            raise IndexError(f"fft.{name}: no axes to transform (NumPy raises IndexError)")
        return a  # NumPy returns its input untransformed
    if not shapeless and any(n is None for n in s):
        _warnings.warn(_NONE_IN_S, DeprecationWarning, stacklevel=3)
    lengths = []
    for k, (n, ax) in enumerate(zip(s, axes)):
        dim = a.shape[ax]
        c2r = kind == "irfft" and k == len(axes) - 1
        if n is not None and _int(n, "s", name) == -1:
            n = dim if dim is not None else -1
        else:
            n = _length(n, dim, c2r, name)
        lengths.append(n)
    result = _fft.transform(a, kind, lengths, axes, _norm(norm))
    return _write(out, result, name)


# --------------------------------------------------------------------------- 1-D
def fft(a, n=None, axis=-1, norm=None, out=None):
    """``np.fft.fft``: the 1-D discrete Fourier transform along ``axis``, the input cropped
    or zero-padded to ``n`` points; complex64 for float32 input, complex128 for float64,
    ints and bools."""
    return _one("fft", "fft", a, n, axis, norm, out)


def ifft(a, n=None, axis=-1, norm=None, out=None):
    """``np.fft.ifft``: the inverse of :func:`fft` (scaled by ``1/n`` with the default
    ``norm="backward"``)."""
    return _one("ifft", "ifft", a, n, axis, norm, out)


def rfft(a, n=None, axis=-1, norm=None, out=None):
    """``np.fft.rfft``: the FFT of real input, the ``n // 2 + 1`` non-negative frequency
    terms; complex input raises ``TypeError`` (as NumPy's)."""
    return _one("rfft", "rfft", a, n, axis, norm, out)


def irfft(a, n=None, axis=-1, norm=None, out=None):
    """``np.fft.irfft``: the inverse of :func:`rfft`, ``n`` real points (default
    ``2 * (m - 1)`` for ``m`` input points); the imaginary parts of the zero (and, for
    even ``n``, the Nyquist) bin are ignored."""
    return _one("irfft", "irfft", a, n, axis, norm, out)


def hfft(a, n=None, axis=-1, norm=None, out=None):
    """``np.fft.hfft``: the FFT of a signal with Hermitian symmetry given by its first
    half, ``n`` real points (default ``2 * (m - 1)``)."""
    return _one("hfft", "hfft", a, n, axis, norm, out)


def ihfft(a, n=None, axis=-1, norm=None, out=None):
    """``np.fft.ihfft``: the inverse of :func:`hfft` for real input, ``n // 2 + 1``
    complex points (the conjugate of ``rfft`` scaled by ``1/n``)."""
    return _one("ihfft", "ihfft", a, n, axis, norm, out)


# --------------------------------------------------------------------------- N-D
def fftn(a, s=None, axes=None, norm=None, out=None):
    """``np.fft.fftn``: the FFT over ``axes`` (all by default; with ``s`` only, the last
    ``len(s)`` axes, with NumPy 2's deprecation warning), each cropped or zero-padded to
    its ``s`` entry (``-1``: the whole axis). No axes: the input, untransformed."""
    return _many("fft", "fftn", a, s, axes, norm, out)


def ifftn(a, s=None, axes=None, norm=None, out=None):
    """``np.fft.ifftn``: the inverse of :func:`fftn`."""
    return _many("ifft", "ifftn", a, s, axes, norm, out)


def fft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """``np.fft.fft2``: :func:`fftn` over the last two axes by default."""
    return _many("fft", "fft2", a, s, axes, norm, out)


def ifft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """``np.fft.ifft2``: :func:`ifftn` over the last two axes by default."""
    return _many("ifft", "ifft2", a, s, axes, norm, out)


def rfftn(a, s=None, axes=None, norm=None, out=None):
    """``np.fft.rfftn``: ``rfft`` along the last of ``axes``, then ``fft`` along the
    others."""
    return _many("rfft", "rfftn", a, s, axes, norm, out)


def irfftn(a, s=None, axes=None, norm=None, out=None):
    """``np.fft.irfftn``: the inverse of :func:`rfftn`: ``ifft`` along all but the last
    of ``axes``, then ``irfft`` along it (``s[-1]`` real points, default
    ``2 * (m - 1)``)."""
    return _many("irfft", "irfftn", a, s, axes, norm, out)


def rfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """``np.fft.rfft2``: :func:`rfftn` over the last two axes by default."""
    return _many("rfft", "rfft2", a, s, axes, norm, out)


def irfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """``np.fft.irfft2``: :func:`irfftn` over the last two axes by default."""
    return _many("irfft", "irfft2", a, s, axes, norm, out)


# --------------------------------------------------------------------------- helpers
def _freq_args(n, d, device, name):
    if device not in (None, "cpu"):
        raise ValueError(f'Device not understood. Only "cpu" is allowed, but received: '
                         f"{device}")
    if isinstance(n, _Tensor):
        known = _static_value(n)
        if known is None:
            raise ValueError(f"fft.{name}: n must be known while tracing (it is the "
                             f"result's length){_source_info.where()}")
        if known.ndim or known.dtype.kind not in "iu":
            raise ValueError("n should be an integer")
        n = int(known)
    if not isinstance(n, int | _np.integer):
        raise ValueError("n should be an integer")
    # 1 / (n * d) as NumPy computes it (Python float, NumPy scalar or array), or with
    # graphc's ops for a tensor d
    d = _asarray(d) if isinstance(d, _Tensor) else d
    return n, 1.0 / (n * d)


def fftfreq(n, d=1.0, device=None):
    """``np.fft.fftfreq``: the sample frequencies of an ``n``-point FFT with sample
    spacing ``d``: ``[0, 1, ..., (n-1)//2, -(n//2), ..., -1] / (n * d)``, float64 (the
    integers times ``1 / (n * d)``, NumPy's steps). ``n`` must be known while tracing;
    ``d`` may be a tensor."""
    n, val = _freq_args(n, d, device, "fftfreq")
    half = (n - 1) // 2 + 1
    ints = _np.concatenate([_np.arange(0, half), _np.arange(-(n // 2), 0)]).astype(int)
    return _asarray(ints) * val


def rfftfreq(n, d=1.0, device=None):
    """``np.fft.rfftfreq``: the sample frequencies of :func:`rfft`'s ``n // 2 + 1``
    points: ``[0, 1, ..., n//2] / (n * d)``, float64."""
    n, val = _freq_args(n, d, device, "rfftfreq")
    return _asarray(_np.arange(0, n // 2 + 1, dtype=int)) * val


def _shifted(x, axes, sign, name):
    """``x`` rolled by ``sign * (dim // 2)`` along each of ``axes`` (NumPy's steps; an
    unknown dim gives a traced shift)."""
    x = _asarray(x)
    nd = _rank(x, name)
    if nd == 0 and axes is None:
        raise ValueError(f"fft.{name} of a 0-d array has no axis to shift (NumPy raises "
                         f"ValueError)")
    if axes is None:
        axes = tuple(range(nd))
    elif isinstance(axes, int | _np.integer):
        axes = (axes,)
    out = x
    for ax in axes:
        ax = _axis(_operator.index(ax), nd)
        dim = x.shape[ax]
        size = dim if dim is not None else _shape(x, out_type=_np.int64)[ax]
        out = _roll(out, sign * (size // 2), ax)
    return out


def fftshift(x, axes=None):
    """``np.fft.fftshift``: the zero-frequency term moved to the center (a ``roll`` by
    ``dim // 2`` along each of ``axes``, all by default)."""
    return _shifted(x, axes, 1, "fftshift")


def ifftshift(x, axes=None):
    """``np.fft.ifftshift``: the inverse of :func:`fftshift` (a ``roll`` by
    ``-(dim // 2)``)."""
    return _shifted(x, axes, -1, "ifftshift")
