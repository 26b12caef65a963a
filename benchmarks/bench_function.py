"""Table "function": what a warm (already traced) ``gc.function`` call costs.

Each workload is timed four ways in the same run: NumPy running the same Python code on
ndarrays, graphc eager (the Python function on ``gc.Tensor``), the ``gc.function`` call,
and the graph's own work alone (the interpreter, ``run_graph(optimized_graph, arrays)``).
``dispatch = gc.function - graph run``: signature key, cache lookup, unwrapping the
arguments and wrapping the results.
"""

from __future__ import annotations

from time import perf_counter_ns

import numpy as np

import graphc as gc
from benchmarks.runner import (
    fmt_ratio,
    fmt_time,
    measure,
    optional_frameworks,
    render_table,
    yes_no,
)
from benchmarks.workloads import np_power, power
from graphc.core.interpreter import run_graph

DISPATCH_NS = 5_000  # a cached gc.function call: at most 5 µs on top of its graph


def plus_one(x):
    return x + 1






def _framework_case(label, mod, workload, arr, extra):
    """The workload as a compiled TF / JAX function (warm), on a copy of the data."""
    if label == "TF":
        tf = mod
        if workload == "power":
            def fn(x, y):
                result = tf.eye(10, dtype=tf.int32)
                for _ in range(y):
                    result = tf.linalg.matmul(x, result)
                return result
        else:
            fn = plus_one
        return tf.function(fn), (tf.constant(arr), *extra)
    import jax
    import jax.numpy as jnp

    if workload == "power":
        def fn(x, y):
            result = jnp.eye(10, dtype=jnp.int32)
            for _ in range(y):
                result = jnp.matmul(x, result)
            return result
        jitted = jax.jit(fn, static_argnums=1)
    else:
        jitted = jax.jit(plus_one)
    return (lambda *a: jitted(*a).block_until_ready()), (jnp.asarray(arr), *extra)


def _workloads():
    rng = np.random.default_rng(0)
    mat = rng.integers(0, 3, (10, 10)).astype(np.int32)
    return (
        # label, numpy fn, python fn, ndarray input, extra Python args
        ("x + 1, f32 scalar", "plus_one", plus_one, plus_one, np.asarray(3.0, np.float32), ()),
        ("x + 1, f32[4]", "plus_one", plus_one, plus_one, np.arange(4, dtype=np.float32), ()),
        ("power(x, 100), i32[10,10]", "power", np_power, power, mat, (100,)),
    )


def run(settings) -> str:
    frameworks = optional_frameworks()
    header = ["workload", "NumPy", "eager", "gc.function", "graph run", "dispatch",
              "ratio", "target", "met?", *frameworks]
    rows, notes = [], []
    for label, kind, np_fn, py_fn, arr, extra in _workloads():
        x = gc.constant(arr, dtype=arr.dtype)
        fn = gc.function(py_fn, backend="numpy")  # the numba table measures compiled calls
        t0 = perf_counter_ns()
        fn(x, *extra)  # the first call traces
        first = perf_counter_ns() - t0
        graph = fn.get_concrete_function(x, *extra).optimized_graph
        fn(x, *extra)  # leave this trace on the dispatch fast path
        cases = {
            "NumPy": (np_fn, (arr, *extra)),
            "eager": (py_fn, (x, *extra)),
            "function": (fn, (x, *extra)),
            "graph": (run_graph, (graph, [arr])),
        }
        for name, mod in frameworks.items():
            cases[name] = _framework_case(name, mod, kind, arr, extra)
        t = measure(cases, settings)
        dispatch = t["function"] - t["graph"]
        if kind == "power":
            target, ok = "gc.function ≤ eager", t["function"] <= t["eager"]
            notes.append(f"power: first call (trace + run) took {fmt_time(first)}; "
                         f"its graph has {len(graph.nodes)} nodes")
        else:
            target, ok = f"dispatch ≤ {fmt_time(DISPATCH_NS)}", dispatch <= DISPATCH_NS
        rows.append([label, fmt_time(t["NumPy"]), fmt_time(t["eager"]),
                     fmt_time(t["function"]), fmt_time(t["graph"]), fmt_time(dispatch),
                     fmt_ratio(t["function"] / t["NumPy"]), target, yes_no(ok),
                     *(fmt_time(t[k]) for k in frameworks)])
    notes = [
        "NumPy runs the same Python code on ndarrays; eager runs it on gc.Tensor",
        "graph run = graphc.core.interpreter.run_graph(concrete.optimized_graph, arrays)",
        "dispatch = gc.function - graph run; ratio = gc.function / NumPy",
        *notes,
    ]
    if frameworks:
        notes.append("TF / JAX: tf.function / jax.jit of the same code, warm call")
    return render_table("function: gc.function call overhead (warm, cached trace)",
                        header, rows, tuple(notes))
