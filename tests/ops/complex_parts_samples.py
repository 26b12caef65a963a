"""Registry samples of the ops of graphc/ops/complex_parts.py (``conjugate``, ``real``,
``imag``), merged into ``test_registry.SAMPLES`` so every registry walk covers them.

Each op's first sample is float64 (the Numba and CUDA walks compile it: complex runs on
the interpreter); the others cover complex64/complex128, ints and 0-d inputs.
"""

from __future__ import annotations

import numpy as np

F32, F64, I32, I64 = (np.dtype(n) for n in ("float32", "float64", "int32", "int64"))
C64, C128 = np.dtype("complex64"), np.dtype("complex128")


def s(*args, **attrs):
    return (args, attrs)


def values(shape, dtype):
    """Both signs, distinct magnitudes; complex ones with nonzero imaginary parts."""
    n = int(np.prod(shape, dtype=np.int64))
    v = np.arange(n) - n // 2 + 0.25
    if np.dtype(dtype).kind == "c":
        v = v + 1j * (0.5 - np.arange(n) * 0.75)
    elif np.dtype(dtype).kind in "iu":
        v = np.round(v)
    return v.reshape(shape).astype(dtype)


_PART = [s(values((2, 3), F64)), s(values((2, 3), C128)), s(values((4,), C64)),
         s(values((), C128)), s(values((3,), F32)), s(values((2, 2), I32))]

COMPLEX_SAMPLES = {
    "conjugate": _PART + [s(values((3,), I64))],
    "real": list(_PART),
    "imag": list(_PART),
}

COMPLEX_EQUIV = {
    "conjugate": np.conjugate,
    "real": np.real,
    "imag": np.imag,
}
