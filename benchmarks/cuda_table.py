"""Table "cuda": graphc's CUDA backend next to CuPy, on a real GPU.

Rows: the float32 sigmoid at 2^24 elements and the 20-op elementwise chain of
``bench_numba.chain`` at 1e7, each as a cached ``gc.function`` called under
``gc.device("GPU:0")`` on a device tensor (one fused kernel), against CuPy's unfused
elementwise ops (one kernel per op) and ``cupy.fuse`` when CuPy is installed; then the
per-call overhead of a cached ``gc.function`` on a one-element device tensor (host time of
a call that launches one kernel, synchronized) and of the backend's executor alone.
Every time is the median per call of batches of calls each followed by
``cuda.synchronize()``. Targets (issue 15): the chain >= 3x unfused CuPy and >= 0.9x
``cupy.fuse``; call overhead <= 30 us.

Without a GPU (or under ``NUMBA_ENABLE_CUDASIM=1``) it prints why and measures nothing.
"""

from __future__ import annotations

import statistics
from time import perf_counter_ns

import numpy as np

from benchmarks.bench_numba import chain, np_sigmoid
from benchmarks.runner import fmt_ratio, fmt_time, render_table

TITLE = "cuda: graphc CUDA kernels vs CuPy (median per call, synchronized)"


def no_gpu_reason() -> str | None:
    """Why nothing can be measured here, or None when a real GPU is there."""
    try:
        from graphc.runtime import cuda as gcuda
        from graphc.runtime.cuda import target
    except ImportError as e:  # pragma: no cover - graphc without its cuda package
        return f"graphc's CUDA backend is missing ({e})"
    if not gcuda.available():
        return ("no GPU: numba-cuda is not installed or sees no CUDA device "
                "(pip install 'graphc[cuda]' on a machine with an NVIDIA GPU)")
    if target.simulator():
        return "no GPU: NUMBA_ENABLE_CUDASIM=1 selects Numba's simulator, which is not timed"
    return None


def _median_ns(fn, sync, settings) -> float:
    fn()
    sync()
    loops, batches = (3, 3) if settings.quick else (20, 15)
    times = []
    for _ in range(batches):
        t0 = perf_counter_ns()
        for _ in range(loops):
            fn()
        sync()
        times.append((perf_counter_ns() - t0) / loops)
    return statistics.median(times)


def _cupy():
    try:
        import cupy
    except Exception:  # noqa: BLE001 - not installed or no matching CUDA runtime
        return None
    return cupy


def _rows(settings, sizes=None):
    import graphc as gc
    import graphc.numpy as gnp
    from graphc.runtime import cuda as gcuda
    from graphc.runtime.cuda import target

    cuda = target.cuda()
    sync = cuda.synchronize
    cp = _cupy()
    n_sig, n_chain = sizes or ((1 << 20, 10**6) if settings.quick else (1 << 24, 10**7))
    rows, checks = [], []

    def sigmoid(x):
        return 1.0 / (1.0 + gnp.exp(-x))

    cases = [("sigmoid f32", n_sig, sigmoid, np_sigmoid),
             ("20-op chain f32", n_chain, lambda x: chain(x, gnp), lambda x: chain(x, np))]
    for label, n, fn, ref in cases:
        host = np.random.default_rng(0).standard_normal(n).astype(np.float32)
        f = gc.function(fn)
        with gc.device("GPU:0"):
            x = gnp.copy(host)
            out = f(x)
            got = gcuda.to_host(out._dev)
            ours = _median_ns(lambda: f(x), sync, settings)
        np.testing.assert_allclose(got, ref(host), rtol=1e-5, atol=1e-6)
        row = [f"{label} n={n:.3g}", fmt_time(ours)]
        if cp is not None:
            xc = cp.asarray(host)
            unfused = _median_ns(lambda: fn_cupy(label, xc, cp), cp.cuda.Device().synchronize,
                                 settings)
            fused_fn = _cupy_fused(label, cp)
            fused = _median_ns(lambda: fused_fn(xc), cp.cuda.Device().synchronize, settings)
            row += [fmt_time(unfused), fmt_time(fused), fmt_ratio(unfused / ours),
                    fmt_ratio(fused / ours)]
            if label.startswith("20"):
                checks.append(f"chain vs unfused CuPy {unfused / ours:.2f}x (target >= 3x), "
                              f"vs cupy.fuse {fused / ours:.2f}x (target >= 0.9x)")
        else:
            row += ["-", "-", "-", "-"]
        rows.append(row)

    tiny = gc.function(lambda x: x * 2.0 + 1.0)
    with gc.device("GPU:0"):
        one = gnp.copy(np.ones(1, np.float32))
        call = _median_ns(lambda: tiny(one), sync, settings)
        graph = tiny.get_concrete_function(np.ones(1, np.float32)).optimized_graph
    ex = gcuda.executor_for(graph)
    dev = gcuda.to_device(np.ones(1, np.float32))
    bare = _median_ns(lambda: ex([dev]), sync, settings)
    rows.append(["call overhead: cached gc.function, 1 element", fmt_time(call),
                 "-", "-", "-", "-"])
    rows.append(["call overhead: backend executor alone", fmt_time(bare), "-", "-", "-", "-"])
    checks.append(f"gc.function call overhead {call / 1e3:.1f} us (target <= 30 us)")
    return rows, checks, cp is not None


def fn_cupy(label, x, cp):
    if label.startswith("sigmoid"):
        return 1.0 / (1.0 + cp.exp(-x))
    return chain(x, cp)


def _cupy_fused(label, cp):
    """``cupy.fuse`` of one case; CuPy names the kernel after the function, so it must be
    a named one (a lambda's ``<lambda>`` is no CUDA identifier)."""
    def graphc_bench_case(v):
        return fn_cupy(label, v, cp)

    return cp.fuse(graphc_bench_case)


def run(settings) -> str:
    why = no_gpu_reason()
    if why is not None:
        return render_table(TITLE, ["case", "result"], [["(not run)", why]])
    rows, checks, have_cupy = _rows(settings)
    notes = tuple(checks)
    if not have_cupy:
        notes += ("CuPy is not installed: its columns are empty (pip install cupy-cuda13x)",)
    header = ["case", "graphc", "CuPy", "cupy.fuse", "CuPy/graphc", "fuse/graphc"]
    return render_table(TITLE, header, rows, notes)
