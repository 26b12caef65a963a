"""The discrete Fourier transforms of NumPy's ``numpy.fft``: one registry op, ``fft``.

Its attrs say which transform and where (NumPy's own functions are its reference):

* ``kind``: ``"fft"``/``"ifft"`` (complex to complex over ``axes``: ``np.fft.fftn`` /
  ``ifftn``), ``"rfft"`` (real to complex: ``rfftn``, the half spectrum along the last of
  ``axes``), ``"irfft"`` (its inverse, complex to real: ``irfftn``), ``"hfft"`` /
  ``"ihfft"`` (one axis: ``np.fft.hfft`` / ``ihfft``, the Hermitian pair).
* ``axes``: the transformed axes as negative ints (so a batch axis in front changes
  nothing), in NumPy's order; repeated axes are transformed again, as NumPy does.
* ``s``: one length per axis: an int ``>= 1`` (the input is cropped or zero-padded to it),
  or, only where the input's dim is unknown while tracing, ``-1`` (that dim) or ``None``
  (the 1-D transform's default: the dim, or ``2 * (dim - 1)`` for the last axis of
  ``irfft`` / the axis of ``hfft``). The public functions resolve them when dims are known.
* ``norm``: ``"backward"``, ``"ortho"`` or ``"forward"``.

A transform over several axes is a chain of 1-D transforms (:func:`steps`, in NumPy's
order); ``infer`` and the gradient rule (``fft_grad.py``) walk the same chain. Dtypes are
NumPy's: complex results of a float32 (or float16) input are complex64, of float64, ints
and bools complex128; real results have the input's real precision (float16 stays
float16, ints give float64). ``rfft``/``ihfft`` of complex input raise ``TypeError``.

The Numba backend compiles neither complex dtypes nor FFTs: these nodes run on the NumPy
interpreter (``explain()`` names them); the CUDA backend runs them on the host.
"""

from __future__ import annotations

import numpy as np

from graphc.core.attr_types import INT, NONE, STR, one_of, tuple_of
from graphc.core.registry import OpDef, bind, register
from graphc.ir.graph import Aval
from graphc.ops import batch_util as bu

NORMS = ("backward", "ortho", "forward")
# kind -> the 1-D transform of each axis but the last, and of the last one:
# (shape of the data: "c2c" / "r2c" / "c2r", forward direction?)
KINDS = {
    "fft": (("c2c", True), ("c2c", True)),
    "ifft": (("c2c", False), ("c2c", False)),
    "rfft": (("c2c", True), ("r2c", True)),
    "irfft": (("c2c", False), ("c2r", False)),
    "hfft": (None, ("c2r", True)),
    "ihfft": (None, ("r2c", False)),
}


def norm_error(norm):
    return ValueError(f'Invalid norm value {norm}; should be "backward", "ortho" or '
                      '"forward".')


def points_error(n):
    return ValueError(f"Invalid number of FFT data points ({n}) specified.")


def default_length(shape1d, c2r_axis):
    """The 1-D transform's default length for an input dim (``None``: unknown)."""
    if shape1d is None:
        return None
    return 2 * (shape1d - 1) if c2r_axis else shape1d


def steps(kind, shape, s, axes):
    """The chain of 1-D transforms NumPy runs, in its order: a list of ``(form, forward,
    axis, n, n_in, n_out)`` (``form`` ``"c2c"``/``"r2c"``/``"c2r"``; ``n`` the transform
    length, ``n_in`` the operand's length along ``axis`` before the step, ``n_out`` after;
    ``None`` where unknown). Lengths ``s`` resolve against the input's ``shape``."""
    inner, last = KINDS[kind]
    shape = list(shape)
    order = [(k, inner) for k in range(len(axes) - 1)] + [(len(axes) - 1, last)]
    if kind in ("fft", "ifft"):      # _raw_fftnd: the last axis first
        order = order[::-1]
    elif kind == "rfft":             # the real axis first, then the others from the back
        order = [order[-1]] + order[-2::-1]
    out = []
    for k, (form, forward) in order:
        axis = axes[k]
        dim = shape[axis]
        n = s[k]
        if n is None:
            n = default_length(dim, form == "c2r")
        elif n == -1:
            n = dim
        if n is not None and n < 1:
            raise points_error(n)
        n_out = None if n is None else (n // 2 + 1 if form == "r2c" else n)
        out.append((form, forward, axis, n, shape[axis], n_out))
        shape[axis] = n_out
    return out


def resolve(kind, shape, s, axes):
    """``s`` with every entry an int (``shape`` known): the lengths NumPy's functions
    take."""
    lengths = []
    last = len(axes) - 1
    for k, (n, axis) in enumerate(zip(s, axes)):
        dim = shape[axis]
        if n is None:
            n = default_length(dim, k == last and kind in ("irfft", "hfft"))
        elif n == -1:
            n = dim
        lengths.append(int(n))
    return lengths


def _complex_dtype(dtype):
    return np.result_type(dtype, 1j)


def _real_dtype(dtype):
    return np.result_type(np.empty(0, dtype).real.dtype, 1.0)


def result_dtype(kind, dtype):
    """NumPy's result dtype of ``kind`` for an input of ``dtype`` (``TypeError`` where
    NumPy has no loop: complex input to a real-input transform, non-numeric input)."""
    dtype = np.dtype(dtype)
    if dtype.kind not in "biufc":
        raise TypeError(f"{kind}: input of dtype {dtype} is not supported (numeric only)")
    if kind in ("rfft", "ihfft") and dtype.kind == "c":
        raise TypeError(f"{kind} takes real input, not {dtype} (NumPy raises for complex "
                        f"input; use fft for complex data)")
    if kind in ("irfft", "hfft"):
        return _real_dtype(dtype)
    return _complex_dtype(dtype)


def check_attrs(kind, s, axes, norm, ndim=None):
    if kind not in KINDS:
        raise ValueError(f"fft: unknown kind {kind!r}")
    if norm not in NORMS:
        raise norm_error(norm)
    if not axes:
        raise ValueError(f"fft: {kind} needs at least one axis")
    if kind in ("hfft", "ihfft") and len(axes) != 1:
        raise ValueError(f"fft: {kind} transforms one axis")
    if len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    if ndim is not None:
        for a in axes:
            if not -ndim <= a < 0:
                raise np.exceptions.AxisError(a, ndim)


def _infer(x, kind, s, axes, norm):
    check_attrs(kind, s, axes, norm, None if x.shape is None else len(x.shape))
    dtype = result_dtype(kind, x.dtype)
    if x.shape is None:
        return Aval(None, dtype)
    shape = list(x.shape)
    for _, _, axis, _, _, n_out in steps(kind, x.shape, s, axes):
        shape[axis] = n_out
    return Aval(tuple(shape), dtype)


def _ref(x, kind, s, axes, norm):
    check_attrs(kind, s, axes, norm, x.ndim)
    x = np.asarray(x)
    lengths = resolve(kind, x.shape, s, axes)
    for n in lengths:
        if n < 1:
            raise points_error(n)
    fft = np.fft  # numpy.fft is imported by NumPy on first use
    if kind in ("hfft", "ihfft"):
        return getattr(fft, kind)(x, lengths[0], axes[0], norm=norm)
    fn = {"fft": fft.fftn, "ifft": fft.ifftn, "rfft": fft.rfftn, "irfft": fft.irfftn}[kind]
    return fn(x, s=lengths, axes=list(axes), norm=norm)


FFT = register(OpDef(
    name="fft",
    attrs={"kind": STR, "s": tuple_of(one_of(INT, NONE)), "axes": tuple_of(INT),
           "norm": STR},
    infer=_infer, ref=_ref))


def transform(x, kind, s, axes, norm):
    """Bind the ``fft`` op (attrs as the module docstring says; no checks of the user's
    arguments here: the public functions of ``fft_namespace.py`` make NumPy's)."""
    return bind(FFT, x, kind=kind, s=tuple(s), axes=tuple(axes), norm=norm)


def _batch(args, dims, **attrs):
    """The transformed axes count from the back, so a batch axis moved to the front is
    one more leading (untransformed) dim."""
    (x,), (d,) = args, dims
    if bu.example_rank(x, d) is None:
        return NotImplemented
    return bind(FFT, bu.to_front(x, d), **attrs), 0


FFT.batch = _batch
