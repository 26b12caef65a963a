"""Table "control": data-dependent loops, eager vs graph (``while_loop`` + ``cond``).

Two workloads, both written as plain Python loops that AutoGraph turns into one graph
``while_loop`` (the Collatz step has a ``cond`` inside it):

* Newton's square root of a float64 vector of 1e5 values, iterated until
  ``max|x*x - a| < 1e-6`` (a vector-wide loop: few iterations, big ops);
* the number of Collatz steps of 837799 (524 iterations of scalar ops: per-op overhead).

Columns: NumPy (the same Python on ndarrays / Python ints), graphc eager (the Python
function on ``gc.Tensor``), and the traced ``gc.function`` run by the reference
interpreter (``backend="numpy"``).
"""

from __future__ import annotations

import numpy as np

import graphc as gc
from benchmarks.runner import Settings, fmt_ratio, fmt_time, measure, render_table
from benchmarks.workloads import collatz_steps, newton_sqrt, np_newton_sqrt

NEWTON_SIZE = 100_000
COLLATZ_START = 837799  # 524 steps; its trajectory peaks near 3e9, so int64 is needed








def _workloads():
    a = np.random.default_rng(0).uniform(1.0, 100.0, NEWTON_SIZE)
    n = np.asarray(COLLATZ_START, np.int64)
    return (
        ("Newton sqrt, f64[1e5]", np_newton_sqrt, newton_sqrt, a, a),
        ("Collatz steps of 837799", collatz_steps, collatz_steps, COLLATZ_START, n),
    )


def run(settings=None) -> str:
    """Measure and return the table (``settings``: a ``Settings`` or ``quick`` bool)."""
    if not isinstance(settings, Settings):
        settings = Settings(quick=bool(settings))
    rows, notes = [], []
    for label, np_fn, py_fn, np_arg, arr in _workloads():
        x = gc.constant(arr, dtype=arr.dtype)
        fn = gc.function(py_fn, backend="numpy")
        expected = np.asarray(np_fn(np_arg))
        got = fn(x).numpy()
        if not np.allclose(got, expected):
            raise AssertionError(f"{label}: graph result {got} != NumPy result {expected}")
        graph = fn.get_concrete_function(x).optimized_graph
        loops = sum(1 for n in graph.nodes if n.op.name == "while_loop")
        notes.append(f"{label}: the optimized graph has {len(graph.nodes)} top-level nodes, "
                     f"{loops} while_loop")
        t = measure({"NumPy": (np_fn, (np_arg,)), "eager": (py_fn, (x,)),
                     "graph": (fn, (x,))}, settings)
        rows.append([label, fmt_time(t["NumPy"]), fmt_time(t["eager"]), fmt_time(t["graph"]),
                     fmt_ratio(t["eager"] / t["graph"]), fmt_ratio(t["graph"] / t["NumPy"])])
    notes = ["graph = gc.function(fn, backend='numpy') (reference interpreter), warm",
             "eager/graph above 1.00x: the graph is faster", *notes]
    return render_table("control: data-dependent loops, eager vs graph",
                        ["workload", "NumPy", "eager", "graph", "eager/graph", "graph/NumPy"],
                        rows, tuple(notes))


if __name__ == "__main__":
    print(run(Settings(quick=True)))
