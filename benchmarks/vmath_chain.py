"""``python -m benchmarks.vmath_chain [--quick]``: float32 transcendentals as graphc runs
them, in ns per value on one thread.

Each function, and the GELU*softplus chain of issue 17 (``bench_numba.gelu_softplus``)
with its two halves, is traced and compiled by graphc (its fused loop: 512-bit vectors,
interleaved 4x) for 2^16 float32 values, below the size where loops use ``prange``, so
this is the serial per-value cost the vmath kernels control. NumPy's own time for the
same function beside it. Minimum over interleaved blocks of calls; results in
docs/vmath.md.
"""

from __future__ import annotations

import sys
import time

import numpy as np

import graphc as gc
import graphc.numpy as gnp
from benchmarks.bench_numba import gelu_softplus
from benchmarks.runner import eager_fresh_cache
from graphc.runtime.cpu import numba_cpu


def _gelu(m):
    return lambda v: (v * 0.5) * (m.tanh((v + v * v * v * 0.044715) * 0.7978845608028654) + 1.0)


def _lg(m):
    return lambda v: m.log1p(m.exp(-m.abs(v)))


# name: (graphc function, NumPy function, input scale)
CASES = {
    "GELU*softplus chain": (gelu_softplus, lambda v: gelu_softplus(v, np), 1.0),
    "  tanh half (GELU)": (_gelu(gnp), _gelu(np), 1.0),
    "  log1p(exp(-|x|))": (_lg(gnp), _lg(np), 1.0),
    **{name: (getattr(gnp, name), getattr(np, name), scale) for name, scale in
       (("exp", 10.0), ("tanh", 3.0), ("log1p", 10.0), ("log", 10.0), ("sin", 100.0),
        ("cos", 100.0))},
}


def main(quick=False):
    n, rounds = 1 << 16, 30 if quick else 300
    rng = np.random.default_rng(0)
    base = rng.standard_normal(n).astype(np.float32)
    print(f"float32, {n} values, one thread, ns per value (min of {rounds} rounds)")
    print(f"{'function':22s} {'graphc':>7s} {'NumPy':>7s}")
    with eager_fresh_cache():
        for name, (fn, np_fn, scale) in CASES.items():
            x = np.abs(base) * np.float32(scale) if name in ("log", "log1p") else \
                base * np.float32(scale)
            g = gc.function(fn).get_concrete_function(gc.constant(x, dtype=x.dtype))
            ex = numba_cpu.executor_for(g.optimized_graph)
            assert ex.backend == "numba", ex.explain()
            best = [float("inf")] * 2
            # blocks of 10 calls each: NumPy's temporaries between two graphc calls made
            # malloc hand the chain's result fresh pages (0.5 ns per value of page faults)
            for _ in range(rounds // 10):
                for i, call in enumerate((lambda: ex([x]), lambda: np_fn(x))):
                    for _ in range(10):
                        t = time.perf_counter_ns()
                        call()
                        best[i] = min(best[i], time.perf_counter_ns() - t)
            print(f"{name:22s} {best[0] / n:7.3f} {best[1] / n:7.3f}")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
