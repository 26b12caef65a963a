"""Table "first_tier": graphc's interpreter tier against NumPy on the same work.

SPEC section 14: the interpreter tier (a ``gc.function``'s calls before its compiled
program is ready, and ``backend="numpy"``) costs at most twice NumPy's own time for the
same operations, on small and large graphs. Rows:

* chains of 10, 50 and 200 elementwise ops ending in a sum (``chain``), float64 at
  10^3 and 10^5 elements: per-op overhead against array work;
* the fourteen real programs of ``programs.py`` (their NumPy twins:
  ``programs.numpy_program``, loops in Python and gradients by hand).

graphc runs ``gc.function(fn, backend="numpy")``, warm (traced, optimized: fused groups
run op by op on NumPy); NumPy runs the twin. Both results are checked equal first.
Target: graphc/NumPy <= 2x on every row.
"""

from __future__ import annotations

import numpy as np

import graphc as gc
import graphc.numpy as gnp
from benchmarks import programs
from benchmarks.runner import Settings, fmt_ratio, fmt_time, geomean, measure, render_table

TARGET = 2.0


def chain(xp, x, ops):
    """``ops`` elementwise ops (in fives: multiply, add, tanh, multiply, subtract), then
    a sum: one small graph of ``ops + 1`` nodes before fusion."""
    y = x
    for _ in range(ops // 5):
        y = xp.tanh(y * 0.5 + 0.1) - y * 0.01
    return xp.sum(y)


def _chain_rows(quick):
    sizes = (1000,) if quick else (1000, 100_000)
    lengths = (10,) if quick else (10, 50, 200)
    for n in sizes:
        x = np.random.default_rng(0).standard_normal(n)
        for ops in lengths:
            yield (f"chain of {ops} ops, f64[{n}]",
                   lambda x, ops=ops: chain(np, x, ops),
                   lambda x, ops=ops: chain(gnp, x, ops), (x,))


def _program_rows(quick):
    for name in (("logreg", "rk4") if quick else programs.NAMES):
        yield (f"program {name}", programs.numpy_program(name),
               programs.graphc_program(name), programs.INPUTS[name]())


def run(settings=None) -> str:
    """Measure and return the table (``settings``: a ``Settings`` or ``quick`` bool)."""
    if not isinstance(settings, Settings):
        settings = Settings(quick=bool(settings))
    rows, ratios = [], []
    for label, np_fn, gc_src, args in [*_chain_rows(settings.quick),
                                       *_program_rows(settings.quick)]:
        fn = gc.function(gc_src, backend="numpy")
        programs.check(label, fn(*args), np_fn(*args))
        t = measure({"NumPy": (np_fn, args), "graphc": (fn, args)}, settings)
        ratio = t["graphc"] / t["NumPy"]
        ratios.append(ratio)
        rows.append([label, fmt_time(t["NumPy"]), fmt_time(t["graphc"]), fmt_ratio(ratio),
                     "yes" if ratio <= TARGET else "no"])
    worst = max(ratios)
    notes = (f"graphc: gc.function(fn, backend='numpy'), warm; target <= {TARGET:g}x NumPy "
             f"on every row: worst {worst:.2f}x, geomean {geomean(ratios):.2f}x, "
             f"{sum(r <= TARGET for r in ratios)} of {len(ratios)} rows met",)
    return render_table("first_tier: the interpreter tier vs NumPy (same operations)",
                        ["workload", "NumPy", "graphc", "graphc/NumPy", "met?"], rows, notes)


if __name__ == "__main__":
    import sys

    print(run(Settings(quick="--quick" in sys.argv)))
