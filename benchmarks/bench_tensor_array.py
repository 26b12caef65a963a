"""Table "tensor_array": collecting loop states in a ``gc.TensorArray``, compiled.

The workload of issue "Time to compiled result": a loop of ``STEPS`` steps over a
(32, 64) float64 state appends each state; NumPy keeps a Python list and stacks it at
the end. graphc writes a dynamic ``TensorArray`` inside one staged loop, compiled by
Numba: the buffer is written in place (``runtime/cpu/ownership.py``) and grows by
doubling, so appends cost amortized O(1). Target: at most 2x NumPy.
"""

from __future__ import annotations

import numpy as np

import graphc as gc
import graphc.numpy as gnp
from benchmarks.runner import Settings, fmt_ratio, fmt_time, measure, render_table

STEPS = 2000
SHAPE = (32, 64)


def numpy_collect(x, n):
    states = []
    for _ in range(n):
        x = x * 0.5 + 1.0
        states.append(x)
    return np.stack(states)


def graphc_collect(x, n):
    ta = gc.TensorArray(gnp.float64, size=0, dynamic_size=True)
    for i in gc.range(n):
        x = x * 0.5 + 1.0
        ta = ta.write(i, x)
    return ta.stack()


def run(settings=None) -> str:
    """Measure and return the table (``settings``: a ``Settings`` or ``quick`` bool)."""
    if not isinstance(settings, Settings):
        settings = Settings(quick=bool(settings))
    steps = STEPS // 10 if settings.quick else STEPS
    x = np.random.default_rng(0).random(SHAPE)
    n = np.asarray(steps)
    fn = gc.function(graphc_collect, jit_compile=True)
    got = np.asarray(fn(x, n))
    want = numpy_collect(x, steps)
    if not np.array_equal(got, want):
        raise AssertionError("tensor_array: the compiled TensorArray differs from NumPy")
    t = measure({"NumPy": (numpy_collect, (x, steps)), "graphc": (fn, (x, n))}, settings)
    rows = [[f"{steps} writes of f64{list(SHAPE)}", fmt_time(t["NumPy"]),
             fmt_time(t["graphc"]), fmt_ratio(t["graphc"] / t["NumPy"])]]
    return render_table("tensor_array: loop states collected, NumPy list + stack vs "
                        "compiled TensorArray", ["workload", "NumPy", "graphc", "graphc/NumPy"],
                        rows, ("graphc: gc.function(jit_compile=True), warm; target <= 2x",))


if __name__ == "__main__":
    print(run(Settings(quick=True)))
