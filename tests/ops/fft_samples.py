"""Registry samples of the ``fft`` op (graphc/ops/fft.py), merged into
``test_registry.SAMPLES`` so every registry walk covers it.

One op, every kind: ``fft``/``ifft`` over one or two axes (cropped and zero-padded),
``rfft``/``irfft`` (N-D), ``hfft``/``ihfft``, every ``norm``, the unresolved length
markers (``None``: the default, ``-1``: the whole axis) and a repeated axis. Dtypes:
float64 first (its complex128 result is why the Numba walk finds no program), float32,
ints, complex64/complex128, and real input to ``irfft``/``hfft`` (real results from
real operands: the gradient walk checks those against finite differences).
"""

from __future__ import annotations

import numpy as np

F32, F64, I64 = np.dtype("float32"), np.dtype("float64"), np.dtype("int64")
C64, C128 = np.dtype("complex64"), np.dtype("complex128")


def s(x, kind, lengths, axes, norm="backward"):
    return ((x,), {"kind": kind, "s": tuple(lengths), "axes": tuple(axes), "norm": norm})


def data(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.uniform(-1, 1, shape)
    return x.astype(dtype)


FFT_SAMPLES = {
    "fft": [
        s(data((2, 4), F64), "fft", [4], [-1]),
        s(data((3, 5), F32, 1), "rfft", [3, 5], [-2, -1], "ortho"),
        s(data((2, 3), C128, 2), "irfft", [4], [-1], "forward"),
        s(np.array([3, -1, 2, 5], I64), "hfft", [6], [-1]),
        s(data((2, 5), F64, 3), "ihfft", [5], [-1], "ortho"),
        s(data((2, 3), C64, 4), "ifft", [4, 2], [-2, -1], "forward"),
        s(data((2, 3), F64, 5), "irfft", [2, 4], [-2, -1], "ortho"),
        s(data((3,), F64, 6), "hfft", [5], [-1], "forward"),
        s(data((2, 3), F64, 7), "irfft", [None], [-1]),
        s(data((3, 2), C128, 8), "fft", [-1, 3], [-1, -2], "ortho"),
        s(data((2, 3), F64, 9), "rfft", [3, 3], [-1, -1]),
        s(np.array([[1, 0, 2], [0, 1, 1]], I64), "ifft", [None, 2], [-2, -1]),
    ],
}


def _equiv(x, kind, s, axes, norm):
    """NumPy's public function for ``kind``, each length spelled as NumPy takes it."""
    lengths = []
    for k, (n, ax) in enumerate(zip(s, axes)):
        dim = x.shape[ax]
        if n is None:
            n = 2 * (dim - 1) if k == len(axes) - 1 and kind in ("irfft", "hfft") else dim
        lengths.append(dim if n == -1 else n)
    if kind in ("hfft", "ihfft"):
        return getattr(np.fft, kind)(x, n=lengths[0], axis=axes[0], norm=norm)
    return getattr(np.fft, kind + "n")(x, s=lengths, axes=list(axes), norm=norm)


FFT_EQUIV = {"fft": _equiv}
