"""Registry samples of ``erf`` (graphc/ops/special_erf.py, gc.nn.gelu's exact form),
merged into ``test_registry.SAMPLES`` so every registry walk (values, gradients,
batching, Numba, CUDA, saved-graph attrs) covers it.

The first sample is float64 (the one the Numba and CUDA walks compile); the others cover
float32, integers (promoted as ``np.exp`` promotes them) and 0-d inputs. The oracle is
``math.erf`` elementwise, independent of the op's SciPy reference.
"""

from __future__ import annotations

import math

import numpy as np

F32, F64, I32 = (np.dtype(n) for n in ("float32", "float64", "int32"))


def s(*args, **attrs):
    return (args, attrs)


def _erf(x):
    x = np.asarray(x)
    out = np.exp.resolve_dtypes((x.dtype, None))[1]
    return np.vectorize(math.erf, otypes=[np.float64])(x.astype(np.float64)).astype(out)


NN_SAMPLES = {
    "erf": [s(np.linspace(-2.5, 2.5, 6).reshape(2, 3)), s(np.linspace(-1, 3, 4).astype(F32)),
            s(np.arange(-2, 2, dtype=I32)), s(np.array(0.75))],
}
NN_EQUIV = {"erf": _erf}
