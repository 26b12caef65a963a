"""Table "load": compiled parallel loops alone and beside a competing CPU-bound process.

The sigmoid (float32) at 2^20 and 2^22 values, compiled three ways in this process: with
parallel loops disabled (serial), with parallel loops on all threads always (the
behaviour before threads.py), and with parallel loops choosing their threads per call
(the default, ``graphc.runtime.cpu.threads``). Each is timed alone, then while a child
process this table starts (``while True: pass``) keeps one core busy, then alone
again; the child is killed when the table is done. Target: under load the default
within 1.2x the serial program; alone, as fast as always-parallel.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np

import graphc as gc
from benchmarks.runner import eager_fresh_cache, fmt_ratio, fmt_time, measure, render_table
from graphc.runtime.cpu import numba_cpu, parallel, threads


def sigmoid(x):
    return 1.0 / (1.0 + gc.exp(-x))


def _executors(x):
    graph = gc.function(sigmoid).get_concrete_function(gc.constant(x)).optimized_graph
    out = {}
    old = (parallel.parallel_settings.min_size, threads.settings.adaptive)
    try:
        parallel.parallel_settings.min_size = x.size + 1
        out["serial"] = numba_cpu.executor_for(graph)
        parallel.parallel_settings.min_size = 1
        threads.settings.adaptive = False
        out["always parallel"] = numba_cpu.executor_for(graph)
        numba_cpu.cache.clear(disk=False)  # the same program, wrapped anew below
        threads.settings.adaptive = True
        out["adaptive"] = numba_cpu.executor_for(graph)
    finally:
        parallel.parallel_settings.min_size, threads.settings.adaptive = old
    return out


def run(settings) -> str:
    with eager_fresh_cache():  # compile now; the timings are of warm programs
        return _run(settings)


def _run(settings) -> str:
    rng = np.random.default_rng(0)
    rows = []
    for n in (2**20,) if settings.quick else (2**20, 2**22):
        x = rng.standard_normal(n).astype(np.float32)
        exs = _executors(x)
        cases = {name: (ex, ([x],)) for name, ex in exs.items()}
        for phase in ("alone", "one busy process", "alone again"):
            busy = None
            if phase == "one busy process":
                busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
                time.sleep(0.2)
            try:
                t = measure(cases, settings)
            finally:
                if busy is not None:
                    busy.kill()
                    busy.wait()
            target = "<= 1.20x" if phase == "one busy process" else "<= always parallel"
            choice = getattr(exs["adaptive"]._compiled, "serial", None)
            rows.append([f"sigmoid f32[2^{n.bit_length() - 1}]", phase,
                         fmt_time(t["serial"]), fmt_time(t["always parallel"]),
                         fmt_time(t["adaptive"]), fmt_ratio(t["adaptive"] / t["serial"]),
                         {True: "1 thread", False: "all", None: "?"}[choice], target])
    notes = (f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} "
             "cores (other processes on the machine count too)",
             "adaptive / serial: the target is for the 'one busy process' rows; 'now' = "
             "the threads the adaptive program chose last")
    return render_table("load: parallel loops beside a busy process",
                        ["workload", "phase", "serial", "always parallel", "adaptive",
                         "adaptive/serial", "now", "target"], rows, notes)


if __name__ == "__main__":
    from benchmarks.runner import Settings

    print(run(Settings(quick="--quick" in sys.argv)))
