"""Table "dask": the 20-op chain over a chunked float32 Dask array, graphc blocks vs
the same expression in ``dask.array`` operations.

The input (default 2x10^8 float32 in 10^7-element chunks; ``--quick``: 4x10^6) is
generated and persisted first (in memory, or on the workers); each timed run computes
``chain(x).sum()`` (a scalar comes back, so no 800 MB result is gathered): with graphc,
``chain`` is the ``gc.function`` of ``bench_numba.chain`` called on the Dask array (one
compiled block program per chunk), with ``dask.array`` the same Python on the Dask array
(20 NumPy passes per chunk). Schedulers: the threaded one with 1 and 2 threads, and a
``LocalCluster`` of 1 and of 2 single-threaded worker processes. Each cell is the best
of ``--repeat`` runs after one warm-up run (which compiles the block program in every
worker). Targets: graphc >= 5x faster than dask.array, 1 -> 2 workers >= 1.6x. Peak RSS
is each worker process's high-water mark (``VmHWM``: its share of the input, the chunks
in flight, Python, Dask and Numba), over both variants' runs.

``python -m benchmarks dask [--quick]`` or, for other sizes,
``python -m benchmarks.bench_dask --elements 4e7 --chunk 5e6 --repeat 3``.
"""

from __future__ import annotations

import argparse
import resource
from time import perf_counter

import numpy as np

import graphc as gc
from benchmarks.bench_numba import chain as _chain
from benchmarks.runner import Settings, fmt_ratio, render_table

CHAIN = gc.function(_chain)


def np_chain(x):
    return _chain(x, np)


def peak_rss_mib() -> float:
    """This process's peak resident set (MiB); run on each worker by ``client.run``.

    Linux's ``VmHWM`` (``ru_maxrss`` would report the parent's peak in a worker: it
    survives the fork and exec that start one)."""
    try:
        with open("/proc/self/status") as f:
            return next(int(ln.split()[1]) for ln in f if ln.startswith("VmHWM:")) / 1024
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _best(fn, repeat):
    fn()  # warm-up: compiles the block program wherever it runs
    times = []
    for _ in range(repeat):
        t0 = perf_counter()
        fn()
        times.append(perf_counter() - t0)
    return min(times)


def _input(n, chunk):
    import dask.array as da

    return da.random.default_rng(0).standard_normal(int(n), chunks=int(chunk),
                                                    dtype=np.float32)


def _check(x, compute):
    """graphc's blocks and dask.array agree on the whole sum (float32 rounding apart)."""
    a, b = compute(CHAIN(x).sum()), compute(np_chain(x).sum())
    if not np.isclose(a, b, rtol=1e-4):
        raise AssertionError(f"graphc {a} != dask.array {b}")


def _cell(x, compute, repeat):
    """(graphc seconds, dask.array seconds) for ``chain(x).sum()``, results checked."""
    _check(x, compute)
    return (_best(lambda: compute(CHAIN(x).sum()), repeat),
            _best(lambda: compute(np_chain(x).sum()), repeat))


def measure(n=2e8, chunk=1e7, repeat=2):
    """Rows of (scheduler, graphc s, dask.array s, ratio, peak RSS per worker)."""
    import dask
    from distributed import Client, LocalCluster

    rows, graphc_times = [], {}
    for threads in (1, 2):
        with dask.config.set(scheduler="threads", num_workers=threads):
            g, d = _cell(_input(n, chunk).persist(), lambda a: a.compute(), repeat)
            rows.append([f"threaded scheduler, {threads} thread(s)", g, d,
                         f"{peak_rss_mib():.0f} (this process)"])
            graphc_times["threads", threads] = g
    for workers in (1, 2):
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                          dashboard_address=None, silence_logs=40,
                          memory_limit=0) as cluster, Client(cluster) as client:
            g, d = _cell(client.persist(_input(n, chunk)),
                         lambda a, c=client: c.compute(a, sync=True), repeat)
            peaks = client.run(peak_rss_mib)
            rows.append([f"LocalCluster {workers} worker(s)", g, d,
                         ", ".join(f"{p:.0f}" for p in peaks.values())])
            graphc_times["workers", workers] = g
    return rows, graphc_times


def table(n, chunk, repeat) -> str:
    rows, times = measure(n, chunk, repeat)
    out = [[r[0], f"{r[1]:.3f} s", f"{r[2]:.3f} s", fmt_ratio(r[2] / r[1]), r[3]]
           for r in rows]
    threads = times["threads", 1] / times["threads", 2]
    workers = times["workers", 1] / times["workers", 2]
    return render_table(
        f"dask: 20-op chain, float32[{n:.0e}] in chunks of {chunk:.0e}, chain(x).sum()",
        ["scheduler", "graphc blocks", "dask.array", "speed-up", "peak RSS/worker MiB"],
        out,
        notes=(f"graphc 1 -> 2 workers: {fmt_ratio(workers)} (target >= 1.6x); "
               f"1 -> 2 threads: {fmt_ratio(threads)} (programs run without the GIL)",
               "speed-up target: >= 5x; best of "
               f"{repeat} runs after a warm-up run"))


def run(settings: Settings) -> str:
    if settings.quick:  # a smoke run: small enough for the test suite
        return table(4e6, 5e5, 1)
    return table(2e8, 1e7, 2)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_dask")
    parser.add_argument("--elements", type=float, default=2e8)
    parser.add_argument("--chunk", type=float, default=1e7)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args(argv)
    print(table(args.elements, args.chunk, args.repeat))


if __name__ == "__main__":
    main()
