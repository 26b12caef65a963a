"""Registry samples of the special-function ops (graphc/ops/special_fns.py: ``erfc``,
``erfinv``, ``ndtri``, ``lgamma``, ``gamma``, ``digamma``, ``polygamma``, ``zeta``,
``bessel_i0``/``i0e``/``i1``/``i1e``, ``igamma``, ``igammac``, ``betainc``), merged into
``test_registry.SAMPLES`` so every registry walk (values, gradients, batching, Numba,
CUDA, saved-graph attrs) covers them.

Each op's first sample is float64 or float32 (the one the Numba and CUDA walks compile);
the others cover the other float type, integers (computed as float64) and 0-d inputs.
Values stay inside each function's domain and away from poles, so finite differences
are finite; ``polygamma``'s order is an integer array (it has no gradient).
``SPECIAL_EQUIV`` calls SciPy on float64 copies, cast to the op's result dtype.
"""

from __future__ import annotations

import numpy as np
import scipy.special as sp

F32, F64, I32, I64 = (np.dtype(n) for n in ("float32", "float64", "int32", "int64"))


def s(*args, **attrs):
    return (args, attrs)


def mixed(shape, dtype):
    """Both signs, never an integer among floats: ``(k - n/2 + 0.25) * 0.5``."""
    n = int(np.prod(shape, dtype=np.int64))
    v = np.arange(n) - n // 2
    if np.dtype(dtype).kind == "f":
        v = (v + 0.25) * 0.5
    return v.reshape(shape).astype(dtype)


def pos(shape, dtype):
    n = int(np.prod(shape, dtype=np.int64))
    return np.arange(1, n + 1).reshape(shape).astype(dtype)


def unit(shape, dtype, lo=-0.9, hi=0.9):
    n = int(np.prod(shape, dtype=np.int64))
    return np.linspace(lo, hi, n).reshape(shape).astype(dtype)


def _unary(gen_float, gen_int):
    return [s(gen_float((2, 3), F64)), s(gen_float((4,), F32)), s(gen_int((3,), I32)),
            s(gen_float((), F64)), s(gen_int((2, 2), I64))]


SPECIAL_SAMPLES = {
    "erfc": _unary(mixed, mixed),
    "erfinv": [s(unit((2, 3), F64)), s(unit((4,), F32, -0.99, 0.6)),
               s(np.zeros((3,), I32)), s(np.asarray(0.7, F64)), s(np.zeros((2,), I64))],
    "ndtri": [s(unit((2, 3), F64, 0.01, 0.99)), s(unit((4,), F32, 1e-3, 0.9)),
              s(np.array([0, 1], I32)), s(np.asarray(0.3, F64)), s(np.ones((2,), I64))],
    "lgamma": _unary(mixed, pos),
    "gamma": _unary(mixed, pos),
    "digamma": _unary(mixed, pos),
    "bessel_i0": _unary(mixed, mixed),
    "bessel_i0e": _unary(mixed, mixed),
    "bessel_i1": _unary(mixed, mixed),
    "bessel_i1e": _unary(mixed, mixed),
    "polygamma": [s(np.array([[0, 1, 2], [3, 1, 0]], I32), pos((2, 3), F64) * 0.75),
                  s(np.array([1, 2, 1, 0], I64), mixed((4,), F32)),
                  s(np.asarray(2, I32), pos((3,), F32)),
                  s(np.array([1, 3], I64), np.array([2.5, 0.5], F64))],
    "zeta": [s(pos((2, 3), F64) + 0.5, pos((3,), F64) * 0.75),
             s(pos((4,), F32) + 1, pos((4,), F32) * 0.5),
             s(np.array([2, 3, 4], I32), pos((3,), F64)),
             s(np.asarray(2.25, F64), pos((2,), F32))],
    "igamma": [s(pos((2, 3), F64) * 0.75, pos((3,), F64) * 0.5),
               s(pos((4,), F32) * 0.5, pos((4,), F32)),
               s(pos((3,), I32), pos((3,), F64) * 0.75),
               s(np.asarray(1.5, F64), pos((2,), I64))],
    "igammac": [s(pos((2, 3), F64) * 0.75, pos((3,), F64) * 0.5),
                s(pos((4,), F32) * 0.5, pos((4,), F32)),
                s(pos((3,), I32), pos((3,), F64) * 0.75),
                s(np.asarray(1.5, F64), pos((2,), I64))],
    "betainc": [s(pos((2, 3), F64) * 0.75, pos((3,), F64) * 0.5, unit((3,), F64, 0.1, 0.9)),
                s(pos((4,), F32) * 0.5, pos((4,), F32), unit((4,), F32, 0.2, 0.8)),
                s(pos((3,), I32), pos((3,), I64), unit((3,), F64, 0.3, 0.6)),
                s(np.asarray(1.5, F64), np.asarray(2.5, F64), np.asarray(0.4, F64))],
}


def _result_dtype(args):
    return np.result_type(*[np.exp.resolve_dtypes((np.asarray(a).dtype, None))[1]
                            for a in args])


def _scipy(fn, first=0):
    def equiv(*args):
        with np.errstate(all="ignore"):
            out = fn(*[np.asarray(a, np.float64) for a in args])
        return np.asarray(out).astype(_result_dtype(args[first:]))
    return equiv


SPECIAL_EQUIV = {
    "erfc": _scipy(sp.erfc), "erfinv": _scipy(sp.erfinv), "ndtri": _scipy(sp.ndtri),
    "lgamma": _scipy(sp.gammaln), "gamma": _scipy(sp.gamma), "digamma": _scipy(sp.digamma),
    "polygamma": _scipy(sp.polygamma, 1), "zeta": _scipy(sp.zeta),
    "bessel_i0": _scipy(sp.i0), "bessel_i0e": _scipy(sp.i0e), "bessel_i1": _scipy(sp.i1),
    "bessel_i1e": _scipy(sp.i1e), "igamma": _scipy(sp.gammainc),
    "igammac": _scipy(sp.gammaincc), "betainc": _scipy(sp.betainc),
}
