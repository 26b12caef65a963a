"""Table "call_once": a long loop in a function called once, in fresh processes.

The workload of issue "Time to compiled result" (the interpreter trap): a function whose
one call loops ``STEPS`` times over ``N`` float64 values. Under graphc's default policy
a function called once is answered by the interpreter; its staged loop hands its state
over to a compiled program of the loop alone once that program is ready
(``runtime/cpu/loop_handover.py``). Each row is a fresh process (the median of a few)
timed from after ``import numpy`` to the result, imports and compiles included:

* graphc, default policy, run 1: a new, empty ``GRAPHC_CACHE_DIR``;
* graphc, run 2: the same script again on the cache run 1 filled (after run 1's compile
  worker, which may outlive it, has exited);
* ``numba.njit``: the same loop written for Numba, its compile included;
* NumPy: the loop in Python (the reference without a compiler);
* ``jax.jit`` with ``lax.fori_loop`` when JAX is installed.

Target: graphc at most 1.1x ``numba.njit``, run 1 and run 2 alike. Both wall time and
the CPU time of the process tree (the compile worker included) are shown.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
from statistics import median_high

from benchmarks.runner import fmt_time, render_table, wait_gone

STEPS, N = 200_000, 1000

_CHILD = r"""
import json, os, sys, time
mode, steps, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
import numpy as np
x0 = np.random.default_rng(0).random(n)
t0 = time.perf_counter()
out = {}
if mode == "graphc":
    import graphc as gc
    import graphc.numpy as gnp

    @gc.function
    def run(x):
        for _ in range(steps):
            x = x * 0.9999 + 0.0001 * gnp.sin(x)
        return x

    r = np.asarray(run(x0))
    from graphc.runtime.cpu import compile_worker, loop_handover
    out["handovers"] = loop_handover.handovers
    w = compile_worker._worker
    out["worker_pid"] = w.proc.pid if w is not None else None
elif mode == "numba":
    import numba

    @numba.njit
    def run(x, steps):
        for _ in range(steps):
            x = x * 0.9999 + 0.0001 * np.sin(x)
        return x

    r = run(x0, steps)
elif mode == "jax":
    import jax
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    @jax.jit
    def run(x):
        return jax.lax.fori_loop(0, steps, lambda i, x: x * 0.9999 + 0.0001 * jnp.sin(x), x)

    r = np.asarray(run(x0))
else:
    def run(x):
        for _ in range(steps):
            x = x * 0.9999 + 0.0001 * np.sin(x)
        return x

    r = run(x0)
out["time"] = time.perf_counter() - t0
out["checksum"] = float(np.sum(r))
print(json.dumps(out))
"""


def _child(mode, env, steps, n, script) -> dict:
    start = os.times()
    res = subprocess.run([sys.executable, script, mode, str(steps), str(n)], env=env,
                         capture_output=True, text=True, check=False, timeout=900)
    if res.returncode != 0:
        raise RuntimeError(f"call_once child {mode!r} failed:\n{res.stderr}")
    out = json.loads(res.stdout.strip().splitlines()[-1])
    if out.get("worker_pid"):
        wait_gone(out["worker_pid"], timeout=300.0)
    end = os.times()  # the worker is not our child: its CPU is not in these
    out["cpu"] = (end.children_user - start.children_user
                  + end.children_system - start.children_system)
    return out


def run(settings) -> str:
    """Measure and return the table (``settings``: a ``Settings``)."""
    quick = getattr(settings, "quick", bool(settings))
    # quick: a smoke run, short enough that the loop asks for no compile (no worker to wait for)
    steps, reps = (50, 1) if quick else (STEPS, 3)
    base = {k: v for k, v in os.environ.items()
            if k not in ("PYTHONDONTWRITEBYTECODE", "GRAPHC_JIT")}
    dirs = [tempfile.mkdtemp(prefix="graphc-call-once-")]
    script = os.path.join(dirs[0], "call_once.py")  # a file: AutoGraph reads its source
    with open(script, "w", encoding="utf-8") as f:
        f.write(_CHILD)
    try:
        results = {"graphc1": [], "graphc2": [], "numba": [], "numpy": [], "jax": []}
        for _ in range(reps):
            dirs.append(tempfile.mkdtemp(prefix="graphc-call-once-"))
            env = {**base, "GRAPHC_CACHE_DIR": dirs[-1]}
            results["graphc1"].append(_child("graphc", env, steps, N, script))
            results["graphc2"].append(_child("graphc", env, steps, N, script))
            results["numba"].append(_child("numba", base, steps, N, script))
            if not quick and importlib.util.find_spec("jax") is not None:
                results["jax"].append(_child("jax", base, steps, N, script))
        results["numpy"].append(_child("numpy", base, min(steps, 20_000), N, script))
    finally:
        for d in dirs:
            shutil.rmtree(d, ignore_errors=True)
    ref = median_high([r["time"] for r in results["numba"]])
    want = results["numba"][0]["checksum"]
    rows = []
    labels = (("graphc1", "graphc, default policy, run 1 (empty cache)", "<= 1.1x"),
              ("graphc2", "graphc, the same script run again", "<= 1.1x"),
              ("numba", "numba.njit, compile included", ""),
              ("jax", "jax.jit + lax.fori_loop", ""),
              ("numpy", "NumPy loop in Python", ""))
    for key, label, target in labels:
        runs = results[key]
        if not runs:
            continue
        scale = steps / min(steps, 20_000) if key == "numpy" else 1.0
        t = median_high([r["time"] for r in runs]) * scale
        cpu = median_high([r["cpu"] for r in runs]) * scale
        same = "" if key == "numpy" else (
            "yes" if all(abs(r["checksum"] - want) <= 1e-9 * abs(want) for r in runs)
            else "NO")
        handed = (f"{median_high([r['handovers'] for r in runs])}" if key.startswith("graphc")
                  else "")
        rows.append([label, fmt_time(t * 1e9), fmt_time(cpu * 1e9), f"{t / ref:.2f}x",
                     handed, same, target])
    notes = (f"{steps} steps over f64[{N}], x = x*0.9999 + 0.0001*sin(x); median of {reps} "
             "fresh processes, timed from after `import numpy` to the result",
             "cpu = the child's user+system time (a compile worker that outlives it is "
             "its own process and not counted there)",
             "handovers = loops the interpreter handed to their compiled program; "
             "same = result equals numba's to 1e-9")
    if len(results["numpy"]) and steps > 20_000:
        notes += ("NumPy: 20,000 steps timed, scaled to the full count",)
    return render_table("call_once: a long loop in a function called once, fresh processes",
                        ["program", "time", "cpu", "/numba", "handovers", "same", "target"],
                        rows, notes)


if __name__ == "__main__":
    print(run("--quick" in sys.argv))
