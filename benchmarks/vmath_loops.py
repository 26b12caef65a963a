"""``python -m benchmarks.vmath_loops [--quick]``: one Numba loop per vmath function.

For 2^20 float32 and float64 values: NumPy's ufunc, a Numba loop calling ``math.<f>``
(what a fused loop did before vmath) and a Numba loop calling ``vmath.<f>_f32/_f64``.
Each cell is the minimum over interleaved rounds (the machine may be shared), in ms.
Results are in docs/vmath.md.
"""

from __future__ import annotations

import math  # noqa: F401  (used by the generated loops)
import sys
import time

import numba
import numpy as np

from graphc.runtime import vmath

# name: (input range, NumPy's function, the scalar expression a loop used before vmath)
CASES = {
    "exp": ((-10, 10), np.exp, "math.exp(v)"),
    "sigmoid": ((-10, 10), lambda x, out: np.divide(1, 1 + np.exp(-x), out=out),
                "1.0 / (1.0 + math.exp(-v))"),
    "log": ((1e-3, 100), np.log, "math.log(v)"),
    "log1p": ((-0.99, 100), np.log1p, "math.log1p(v)"),
    "expm1": ((-10, 10), np.expm1, "math.expm1(v)"),
    "tanh": ((-10, 10), np.tanh, "math.tanh(v)"),
    "sin": ((-100, 100), np.sin, "math.sin(v)"),
    "cos": ((-100, 100), np.cos, "math.cos(v)"),
}

_LOOP = """
@numba.njit(error_model="numpy", nogil=True)
def loop(x, out):
    for i in range(x.shape[0]):
        v = x[i]
        out[i] = {expr}
"""


# float32 sin/cos: the loop graphc generates, the fast variant and its guard, and the
# exact function again only when an element needs it (scalar_templates.FAST_VARIANTS)
_GUARDED = """
@numba.njit(error_model="numpy", nogil=True)
def loop(x, out):
    big = np.int32(0)
    for i in range(x.shape[0]):
        v = x[i]
        big = max(big, guard(v))
        out[i] = fast(v)
    if big != 0:
        for i in range(x.shape[0]):
            out[i] = f(x[i])
"""


def _loop(expr, env):
    ns = dict(env, numba=numba, math=math)
    exec(_LOOP.format(expr=expr), ns)
    return ns["loop"]


def _guarded(env):
    ns = dict(env, numba=numba)
    exec(_GUARDED, ns)
    return ns["loop"]


def _times(fns, args, rounds):
    for f in fns:
        f(*args)  # compile / warm up
    best = [float("inf")] * len(fns)
    for _ in range(rounds):
        for i, f in enumerate(fns):
            t = time.perf_counter()
            f(*args)
            best[i] = min(best[i], time.perf_counter() - t)
    return [b * 1e3 for b in best]


def main(quick=False):
    n, rounds = 1 << 20, 5 if quick else 30
    print(f"{n} values, ms (min of {rounds} interleaved rounds); numba {numba.__version__}, "
          f"numpy {np.__version__}")
    print(f"{'function':10s} {'dtype':8s} {'NumPy':>7s} {'math.*':>7s} {'vmath':>7s} "
          f"{'vs NumPy':>9s} {'vs math':>8s}")
    rng = np.random.default_rng(0)
    for name, ((lo, hi), np_fn, expr) in CASES.items():
        for dtype in (np.float32, np.float64):
            x = rng.uniform(lo, hi, n).astype(dtype)
            out = np.empty_like(x)
            fn = getattr(vmath, f"{name}_f{np.dtype(dtype).itemsize * 8}")
            cast = "np.float32" if dtype == np.float32 else "np.float64"
            fast = getattr(vmath, f"{name}_f32_fast", None) if dtype == np.float32 else None
            mine = _loop("f(v)", {"f": fn}) if fast is None else _guarded(
                {"np": np, "f": fn, "fast": fast, "guard": vmath.trig_big_f32})
            fns = [np_fn, _loop(f"{cast}({expr})", {"np": np}), mine]
            t_np, t_math, t_v = _times(fns, (x, out), rounds)
            print(f"{name:10s} {np.dtype(dtype).name:8s} {t_np:7.2f} {t_math:7.2f} {t_v:7.2f} "
                  f"{t_v / t_np:8.2f}x {t_math / t_v:7.1f}x")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
