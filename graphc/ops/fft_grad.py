"""The gradient rule of the ``fft`` op (``fft.py``); the end of this module attaches it.

An FFT is linear, so its reverse-mode rule is its transpose, as JAX defines it: the
cotangent ``ct`` of a complex value ``z`` pairs with a change ``dz`` as ``Re(ct * dz)``
(no conjugate: the convention of graphc's ``multiply``/``divide`` rules, ``g * y``). The
op is a chain of 1-D transforms (``fft.steps``), so the rule runs the chain backwards,
each step's transpose followed by the transpose of its crop / zero-pad (a zero-pad / crop
back to the step's input length), all with the step's ``norm``:

* ``fft`` <-> ``fft`` and ``ifft`` <-> ``ifft`` (the DFT matrix is symmetric);
* ``rfft``'s transpose is ``hfft`` of the cotangent weighted by 1/2 on the bins that
  stand for two (all but the zero and, for even ``n``, the Nyquist bin): the real part of
  ``ct``'s sum against the half spectrum's exponentials;
* ``hfft``'s transpose is ``rfft`` of the cotangent weighted by 2 on those bins (they
  appear twice in the Hermitian spectrum ``hfft`` reads);
* ``irfft`` <-> ``ihfft`` the same way (``ihfft`` weighted by 2, ``irfft`` of a 1/2
  weighted cotangent).

A real operand's cotangent is the real part of the complex one (the real part is taken
by a 1-point ``hfft``, itself an ``fft`` node, so no complex-to-real cast warns). The
bins' weights need the transform length ``n`` while tracing for the real-data kinds, and
a crop or pad needs the input's length: otherwise the rule raises
``NotImplementedError`` saying so.
"""

from __future__ import annotations

import numpy as np

from graphc import source_info
from graphc.ops import fft as _fft
from graphc.ops.pad_tile import pad
from graphc.ops.shape import expand_dims, squeeze

# a step's transpose: (form, forward) -> (kind of the transposing 1-D op, weights where)
_TRANSPOSE = {
    ("c2c", True): ("fft", None),
    ("c2c", False): ("ifft", None),
    ("r2c", True): ("hfft", "before"),
    ("r2c", False): ("irfft", "before"),
    ("c2r", True): ("rfft", "after"),
    ("c2r", False): ("ihfft", "after"),
}


def _need(value, what):
    if value is None:
        raise NotImplementedError(
            f"the gradient of fft needs {what} known while tracing (give the input a known "
            f"shape, or pass n=/s= explicitly){source_info.where()}")
    return value


def _weights(n, axis, dtype, before):
    """Per-bin weights of a half spectrum of length ``n // 2 + 1`` along ``axis``: 1/2
    (``before``) or 2 on the bins standing for two, 1 on the zero and Nyquist bins."""
    w = np.full(n // 2 + 1, 0.5 if before else 2.0)
    w[0] = 1.0
    if n % 2 == 0:
        w[-1] = 1.0
    real = np.empty(0, dtype).real.dtype
    return w.astype(real if real.kind == "f" else np.float64).reshape(
        (-1,) + (1,) * (-axis - 1))


def _resize(ct, axis, have, want):
    """``ct`` cropped or zero-padded along ``axis`` from length ``have`` to ``want``."""
    if have == want:
        return ct
    have = _need(have, "the transform length")
    want = _need(want, "the input's length along a transformed axis")
    nd = len(ct.shape)
    if want < have:
        key = (Ellipsis, slice(0, want)) + (slice(None),) * (-axis - 1)
        return ct[key]
    widths = [(0, 0)] * nd
    widths[nd + axis] = (0, want - have)
    return pad(ct, widths)


def real_part(z):
    """``z.real`` for a complex tensor: the 1-point ``hfft`` (its DC bin's real part)."""
    one = _fft.transform(expand_dims(z, -1), "hfft", (1,), (-1,), "backward")
    return squeeze(one, -1)


def fft_grad(cts, args, outs, kind, s, axes, norm):
    (x,), (ct,) = args, cts
    if x.dtype.kind not in "fc" or ct is None:
        return (None,)
    if x.shape is None:
        raise NotImplementedError(f"the gradient of fft needs an operand of known rank"
                                  f"{source_info.where()}")
    for form, forward, axis, n, n_in, n_out in reversed(_fft.steps(kind, x.shape, s, axes)):
        op, weights = _TRANSPOSE[(form, forward)]
        if form == "c2c":
            ct = _fft.transform(ct, op, (-1 if n is None else n,), (axis,), norm)
            have = n
        else:
            n = _need(n, "the transform length")
            if weights == "before":
                ct = ct * _weights(n, axis, ct.dtype, True)
            ct = _fft.transform(ct, op, (n,), (axis,), norm)
            if weights == "after":
                ct = ct * _weights(n, axis, ct.dtype, False)
            have = n // 2 + 1 if form == "c2r" else n
        ct = _resize(ct, axis, have, n_in)
    if x.dtype.kind == "f" and ct.dtype.kind == "c":
        ct = real_part(ct)
    return (ct,)


_fft.FFT.grad = fft_grad
