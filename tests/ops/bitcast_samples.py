"""Registry samples of the op ``bitcast`` (graphc/ops/bitcast.py, ``gc.bitcast``), merged
into ``test_registry.SAMPLES`` so every registry walk covers it: the same itemsize (shape
kept), a smaller target (a last dim added, 0-d input included) and a larger one (the last
dim removed). The NumPy equivalent reads the bytes back with ``np.frombuffer``.
"""

from __future__ import annotations

import numpy as np

F32, F64, I32, I64 = (np.dtype(n) for n in ("float32", "float64", "int32", "int64"))
U8, I16, I8, C64 = (np.dtype(n) for n in ("uint8", "int16", "int8", "complex64"))


def s(*args, **attrs):
    return (args, attrs)


def _values(shape, dtype):
    n = int(np.prod(shape, dtype=np.int64))
    v = (np.arange(n) - n // 2) * 1.75 + 0.5
    if dtype.kind in "iu":
        v = np.round(v) % 100 if dtype.kind == "u" else np.round(v)
    if dtype.kind == "c":
        v = v + 1j * (v + 1)
    return v.reshape(shape).astype(dtype)


def _frombuffer(x, dtype):
    """The bytes of ``x`` (C order) read as ``dtype``, reshaped by TensorFlow's rule."""
    x = np.asarray(x)
    i, o = x.dtype.itemsize, np.dtype(dtype).itemsize
    shape = x.shape if i == o else x.shape + (i // o,) if i > o else x.shape[:-1]
    return np.frombuffer(x.tobytes(), dtype=dtype).reshape(shape)


BITCAST_SAMPLES = {
    "bitcast": [
        s(_values((2, 3), F64), dtype=I64),
        s(_values((2, 3), F32), dtype=I32),
        s(_values((3,), F64), dtype=U8),
        s(_values((), I16), dtype=I8),
        s(np.array([[0, 0, 128, 63], [0, 0, 0, 64]], U8), dtype=F32),
        s(_values((2, 2), I32), dtype=F64),
        s(_values((2,), C64), dtype=F64),
    ],
}

BITCAST_EQUIV = {"bitcast": lambda x, dtype: _frombuffer(x, dtype)}
