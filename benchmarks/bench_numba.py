"""Table "numba": the compiled Numba program of a graph next to NumPy and the interpreter.

Each workload is traced once with ``gc.function`` (passes on, so elementwise chains are
``fused_elementwise`` nodes) and its optimized graph is timed three ways in the same run:
NumPy running the same code on ndarrays, the reference interpreter
(``run_graph(graph, arrays)``) and the Numba executor (``numba_cpu.executor_for(graph)``,
compiled before timing). The compile column is the wall time of that compile in a fresh
cache directory (memory and disk cold; Numba's own helper caches may be warm).
"""

from __future__ import annotations

import contextlib
from time import perf_counter, perf_counter_ns

import numpy as np

import graphc as gc
from benchmarks import peers
from benchmarks.runner import (
    Settings,
    eager_fresh_cache,
    fmt_ratio,
    fmt_time,
    measure,
    optional_frameworks,
    render_table,
)
from benchmarks.workloads import collatz_steps, newton_sqrt, np_newton_sqrt, np_power, power
from graphc.core.interpreter import run_graph
from graphc.runtime.cpu import numba_cpu, parallel


def plus_one(x):
    return x + 1


def sigmoid(x):
    return 1.0 / (1.0 + gc.exp(-x))


def np_sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def chain(x, m=None):
    """20 elementwise ops (m = the module: gc for graphc, np for NumPy)."""
    m = m or gc
    y = x * 1.0001 + 0.5                       # 2
    y = m.maximum(y - 0.25, -1.0)              # 4
    y = m.minimum(y * 0.999, 10.0)             # 6
    y = m.sqrt(m.abs(y) + 1.0) * 2.0 - 1.0     # 11
    y = (y * y) * 0.5 + 0.1                    # 14
    y = m.abs(-y) / 1.5 + 0.2                  # 18
    return y * 3.0 - 0.3                       # 20


def np_chain(x):
    return chain(x, np)


def gelu_softplus(x, m=None):
    """GELU (tanh form) times softplus, squashed: the transcendental chain of issue 17
    (tanh, exp, log1p, abs; 17 ops). Python float constants are weak: float32 stays."""
    m = m or gc.numpy
    x2 = x * x
    x3 = x2 * x
    inner = x + x3 * 0.044715
    t = m.tanh(inner * 0.7978845608028654)
    gelu = (x * 0.5) * (t + 1.0)
    ax = m.abs(x)
    lg = m.log1p(m.exp(-ax))
    relu = (x + ax) * 0.5
    y = gelu * (relu + lg)
    return y / (y * y + 1.0)


def np_gelu_softplus(x):
    return gelu_softplus(x, np)


def _logreg(rng):
    """One logistic-regression gradient step on X (5000 x 20, float64), y and w fixed:
    ``X.T @ (p - y)`` must reach BLAS as a transposed operand, not as a copy."""
    y = (rng.random(5000) > 0.5).astype(np.float64)
    w = rng.standard_normal(20) * 0.1

    def step(X, m=None):
        m = m or gc.numpy
        p = 1.0 / (1.0 + m.exp(-(X @ w)))
        return w - 0.1 * (m.transpose(X) @ (p - y) / X.shape[0])

    return step, (lambda X: step(X, np)), rng.standard_normal((5000, 20))


def _workloads(quick: bool):
    rng = np.random.default_rng(0)
    rows = [("x + 1, f32 scalar", "plus_one", plus_one, plus_one,
             np.asarray(3.0, np.float32), ())]
    # the sigmoid at every fourth power of two: graphc must be <= NumPy at every size
    for n in (2**20,) if quick else (2**0, 2**4, 2**8, 2**12, 2**16, 2**20, 2**24):
        rows.append((f"sigmoid f32[2^{n.bit_length() - 1}]", "sigmoid", np_sigmoid, sigmoid,
                     rng.standard_normal(n).astype(np.float32), ()))
    for n in (10**6,) if quick else (10**6, 10**7):
        rows.append((f"20-op chain f32[1e{len(str(n)) - 1}]", "chain", np_chain, chain,
                     rng.standard_normal(n).astype(np.float32), ()))
    for n in (10**6,) if quick else (10**6, 10**7):
        rows.append((f"GELU*softplus chain f32[1e{len(str(n)) - 1}]", "gelu_softplus",
                     np_gelu_softplus, gelu_softplus,
                     rng.standard_normal(n).astype(np.float32), ()))
    step, np_step, X = _logreg(rng)
    rows.append(("logistic regression step f64[5000,20]", "logreg", np_step, step, X, ()))
    rows.append(("power(x, 100), i32[10,10]", "power", np_power, power,
                 rng.integers(0, 3, (10, 10)).astype(np.int32), (100,)))
    rows.append(("Newton sqrt f64[1e5], 7 iterations", "newton", np_newton_sqrt, newton_sqrt,
                 rng.uniform(1.0, 100.0, 10**5), ()))
    # NumPy column: the same Python on a Python int (NumPy scalars are slower)
    rows.append(("Collatz steps of 837799", "collatz", lambda n: collatz_steps(int(n)),
                 collatz_steps, np.asarray(837799, np.int64), ()))
    if quick:  # a smoke run (the test suite's): one row per code path of _row, each a
        # compile of its own: the call (x + 1), the chain's notes, logreg's, the hand njit
        rows = [r for r in rows if r[1] in QUICK_KINDS]
    return rows


QUICK_KINDS = ("plus_one", "chain", "logreg", "collatz")


def _peak_extra(fn, *args):
    """Bytes the process's resident set grew to at most during one ``fn(*args)``
    (Linux: the peak is reset through /proc/self/clear_refs); None elsewhere."""
    from graphc.runtime.cpu import recycle

    recycle.release_all()  # a fresh result, as on a first call

    def status(key):
        with open("/proc/self/status") as f:
            return next(int(ln.split()[1]) * 1024 for ln in f if ln.startswith(key))

    try:
        rss = status("VmRSS:")
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        return None
    out = fn(*args)
    peak = status("VmHWM:")
    del out
    return peak - rss


def _copy_bandwidth(n: int) -> float:
    """Bytes per ns of a float32 copy of ``n`` elements (read + write), best of a few."""
    src = np.ones(n, np.float32)
    dst = np.empty_like(src)
    best = min(_timed(np.copyto, dst, src) for _ in range(5))
    return 2 * src.nbytes / best


def _timed(fn, *args) -> float:
    t0 = perf_counter_ns()
    fn(*args)
    return perf_counter_ns() - t0


def run(settings, only: str | None = None) -> str:
    """The table; ``only``: just the rows whose label contains it
    (``python -m benchmarks.bench_numba --only GELU``)."""
    with eager_fresh_cache():  # compile now; the timings are of warm programs
        return _run(settings, only)


def _run(settings, only=None) -> str:
    jax = optional_frameworks().get("JAX")
    header = ["workload", "NumPy", "interpreter", "numba", "numba/NumPy", "numba/interp",
              "compile", *(["JAX jit", "numba/JAX"] if jax else [])]
    rows, notes = [], []
    with peers.x64(jax) if jax else contextlib.nullcontext():
        for row in _workloads(settings.quick):
            if only is None or only in row[0]:
                _row(settings, jax, *row, rows, notes)
    notes = [
        "numba = numba_cpu.executor_for(optimized_graph)(arrays); exp/sigmoid/... use "
        "graphc.runtime.vmath (vectorized); loops of >= "
        f"{parallel.parallel_settings.min_size} elements run with prange on "
        f"{_threads()} threads",
        "interpreter = graphc.core.interpreter.run_graph(optimized_graph, arrays)",
        "compile = executor_for() in a fresh cache directory (codegen + Numba compile)",
        *(["JAX jit = jax.jit of the same workload (lax.while_loop for the loops), "
           "block_until_ready included; TensorFlow is not timed in this table"] if jax else []),
        *notes,
    ]
    return render_table("numba: compiled program vs NumPy and the interpreter",
                        header, rows, tuple(notes))


def _row(settings, jax, label, kind, np_fn, py_fn, arr, extra, rows, notes) -> None:
    graph = gc.function(py_fn).get_concrete_function(
        gc.constant(arr, dtype=arr.dtype), *extra).optimized_graph
    t0 = perf_counter()
    ex = numba_cpu.executor_for(graph)
    compile_s = perf_counter() - t0
    if ex.backend != "numba":
        notes.append(f"{label}: NOT compiled: {'; '.join(ex.reasons)}")
    cases = {
        "NumPy": (np_fn, (arr, *extra)),
        "interp": (run_graph, (graph, [arr])),
        "numba": (ex, ([arr],)),
    }
    peer = peers.jax_case(jax, kind, arr, extra) if jax else None
    if peer is not None:
        cases["JAX"] = peer
    t = measure(cases, settings)
    jax_cells = []
    if jax:
        jax_cells = [fmt_time(t["JAX"]), fmt_ratio(t["numba"] / t["JAX"])] if peer \
            else ["—", "—"]
    rows.append([label, fmt_time(t["NumPy"]), fmt_time(t["interp"]), fmt_time(t["numba"]),
                 fmt_ratio(t["numba"] / t["NumPy"]), fmt_ratio(t["numba"] / t["interp"]),
                 f"{compile_s:.2f} s", *jax_cells])
    if kind == "logreg" and ex.program is not None:
        copies = ex.program.source.count(".copy()")
        notes.append(f"{label}: X.T @ (p - y) passes the transpose to BLAS "
                     + ("without a copy" if not copies else f"with {copies} copies (!)"))
    if "chain" in label:  # the bandwidth floor, and for the transcendental chain the targets
        floor = 2 * arr.nbytes / _copy_bandwidth(arr.size)
        notes.append(f"{label}: bandwidth floor (read + write once at copy speed) "
                     f"{fmt_time(floor)}, numba {t['numba'] / floor:.2f}x of it"
                     + (" (targets: <= 2.5x the floor, <= 0.35x jax.jit)"
                        if kind == "gelu_softplus" else ""))
        # measured as resident-set growth: meaningful where results come from fresh
        # mmap'ed memory (glibc: 32 MiB and more), not from malloc's resident free lists
        big = arr.nbytes >= 1 << 25
        peaks = {"numba": _peak_extra(ex, [arr]), "NumPy": _peak_extra(np_fn, arr)} if big \
            else {"": None}
        if None not in peaks.values():
            notes.append(f"{label}: peak extra memory of one call (result included, no "
                         "recycled buffer): " + ", ".join(
                             f"{k} {v / arr.nbytes:.2f}x the input" for k, v in peaks.items()))
    if kind in ("plus_one", "newton", "collatz"):
        # the whole gc.function call too: dispatch + compiled program
        fn = gc.function(py_fn)
        x = gc.constant(arr, dtype=arr.dtype)
        fn(x)
        more = {"call": (fn, (x,)), "executor": (ex, ([arr],))}
        if kind == "collatz":  # the same Python function compiled by Numba by hand
            import numba

            more["hand"] = (numba.njit(py_fn), (int(arr),))
        m = measure(more, settings)
        vs = f" ({fmt_ratio(m['call'] / t['JAX'])} of the jax.jit call)" if peer else ""
        notes.append(f"{label}: gc.function call (dispatch + compiled program) "
                     f"{fmt_time(m['call'])}{vs}")
        if "hand" in m:
            notes.append(f"{label}: hand-written numba.njit function {fmt_time(m['hand'])}; "
                         f"executor {fmt_ratio(m['executor'] / m['hand'])} of it, whole call "
                         f"{fmt_ratio(m['call'] / m['hand'])} (target <= 2x)")


def _threads() -> int:
    import numba

    return numba.get_num_threads()


def parallel_sweep(sizes=None, settings=None) -> str:
    """Serial vs ``prange`` flat loops by size (how ``parallel.parallel_settings.min_size``
    was chosen): ``x + 1`` (memory-bound) and the sigmoid (compute-bound), float32."""
    settings = settings or Settings()
    sizes = sizes or [2**e for e in (12, 14, 15, 16, 17, 18, 20, 22, 24)]
    rng = np.random.default_rng(0)
    rows = []
    old_mode, old_min = numba_cpu.settings.mode, parallel.parallel_settings.min_size
    numba_cpu.settings.mode = "eager"
    try:
        for n in sizes:
            x = rng.standard_normal(n).astype(np.float32)
            row = [f"2^{n.bit_length() - 1}"]
            for fn in (plus_one, sigmoid):
                graph = gc.function(fn).get_concrete_function(gc.constant(x)).optimized_graph
                cases = {}
                for name, min_size in (("serial", n + 1), ("parallel", 1)):
                    parallel.parallel_settings.min_size = min_size
                    cases[name] = (numba_cpu.executor_for(graph), ([x],))
                t = measure(cases, settings)
                row += [fmt_time(t["serial"]), fmt_time(t["parallel"]),
                        fmt_ratio(t["parallel"] / t["serial"])]
            rows.append(row)
    finally:
        numba_cpu.settings.mode, parallel.parallel_settings.min_size = old_mode, old_min
    return render_table(
        f"parallel sweep: serial vs prange loops ({_threads()} threads)",
        ["size", "x+1 serial", "x+1 prange", "ratio", "sigmoid serial", "sigmoid prange",
         "ratio"], rows, ("ratio = prange / serial; below 1.00x prange is faster",))


if __name__ == "__main__":
    import sys

    if "--parallel-sweep" in sys.argv:
        print(parallel_sweep(settings=Settings(quick="--quick" in sys.argv)))
    else:
        only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
        print(run(Settings(quick="--quick" in sys.argv), only))
