"""Registry samples of the ops of graphc/ops/math_extra.py (``copysign``, ``signbit``,
``fmod``, ``ldexp``, ``nextafter``, ``logaddexp``, ``logaddexp2``), merged into
``test_registry.SAMPLES`` so every registry walk (values, gradients, batching, Numba,
CUDA, saved-graph attrs) covers them.

Each op's first sample is float32 or float64 (the one the Numba and CUDA walks compile);
the others cover the other float type, integers (promoted by the ufunc) and 0-d inputs.
Float samples keep away from zeros and from ``x / y`` integral (where ``fmod`` and
``copysign`` have no derivative).
"""

from __future__ import annotations

import numpy as np

F32, F64, I32, I64 = (np.dtype(n) for n in ("float32", "float64", "int32", "int64"))
I8 = np.dtype("int8")


def s(*args, **attrs):
    return (args, attrs)


def mixed(shape, dtype):
    """Both signs, no zeros among floats: ``(k - n/2 + 0.25) * 0.5``."""
    n = int(np.prod(shape, dtype=np.int64))
    v = np.arange(n) - n // 2
    if np.dtype(dtype).kind == "f":
        v = (v + 0.25) * 0.5
    return v.reshape(shape).astype(dtype)


def pos(shape, dtype):
    n = int(np.prod(shape, dtype=np.int64))
    return np.arange(1, n + 1).reshape(shape).astype(dtype)


def _binary_float():
    return [s(mixed((2, 3), F64), pos((3,), F64) * 0.75),
            s(mixed((2, 1), F32), pos((1, 3), F32)),
            s(mixed((4,), I32), pos((4,), I32)),
            s(mixed((), F64), pos((2,), F32)),
            s(mixed((3,), I64), pos((3,), F64) * 0.75)]


MATH_EXTRA_SAMPLES = {
    "copysign": _binary_float(),
    "signbit": [s(mixed((2, 3), F64)), s(mixed((4,), F32)), s(mixed((3,), I32)),
                s(np.array([-0.0, 0.0, np.nan, -np.inf], F64)), s(mixed((), I64))],
    # the integer samples put negative operands on both sides (C's truncation)
    "fmod": _binary_float() + [s(mixed((2, 3), I64), np.array([2, -3, 4], I64)),
                               s(mixed((4,), I8), np.array([3, -2, 5, 1], I8))],
    "ldexp": [s(mixed((2, 3), F64), np.array([-3, 0, 5], I64)),
              s(mixed((4,), F32), np.array([1, 2, -2, 0], I32)),
              s(mixed((3,), I32), np.array(2, I64)),
              s(mixed((), F64), np.array([-1, 4], I32))],
    "nextafter": _binary_float(),
    "logaddexp": _binary_float(),
    "logaddexp2": _binary_float(),
}

MATH_EXTRA_EQUIV = {"ldexp": np.ldexp}
