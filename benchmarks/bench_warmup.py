"""Table "warmup": how soon a hot loop runs compiled, and a short script run twice.

SPEC section 6: a hot function reaches compiled speed within about twice the time its
compile takes alone, also while its caller calls it in a tight loop; a short script run
twice runs compiled code on its second run. Every number comes from fresh processes
with a new ``GRAPHC_CACHE_DIR`` (nothing on disk), medians of a few:

* alone: ``GRAPHC_JIT=eager``, the first call (trace + compile + run);
* hot loop: ``GRAPHC_JIT=lazy``, the function called back to back until it runs
  compiled (or ``LIMIT`` seconds), with the compile in a worker process (the default)
  and, for comparison, in a thread of the calling process (``GRAPHC_COMPILE_WORKER=0``);
* script twice: a script calling the function 3 times, run twice on one cache (the
  second run starts once the first run's compile worker, which outlives it to finish
  the compile, has exited).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from statistics import median_high

from benchmarks.runner import fmt_time, render_table, wait_gone

LIMIT = 60.0  # seconds a hot loop may take to switch (reported as "> LIMIT")

_CHILD = r"""
import json, os, sys, time
t0 = time.perf_counter()
mode, graph, limit = sys.argv[1], sys.argv[2], float(sys.argv[3])
import numpy as np
import graphc as gc
if graph == "add1":
    x = np.arange(1000, dtype=np.float32)
    f = gc.function(lambda x: x + 1)
else:
    x = np.random.default_rng(0).standard_normal(1 << 18).astype(np.float32)
    tnp = gc.numpy
    f = gc.function(lambda x: tnp.sort(tnp.cumsum(tnp.tanh(x) * 2.0 + x)))
out = {}
t1 = time.perf_counter()
f(x)
ex = f.get_concrete_function(x).runtime
if mode == "script":
    f(x); f(x)
    out["compiled"] = ex.backend == "numba"
    out["origin"] = ex.origin
    from graphc.runtime.cpu import compile_worker
    w = compile_worker._worker
    out["worker_pid"] = w.proc.pid if w is not None else None
elif mode == "alone":
    out["switch"] = time.perf_counter() - t1
else:
    times = []
    while ex.backend != "numba" and time.perf_counter() - t1 < limit:
        t = time.perf_counter(); f(x); times.append(time.perf_counter() - t)
    out["switch"] = time.perf_counter() - t1
    out["compiled"] = ex.backend == "numba"
    times.sort()
    out["interp_call"] = times[len(times) // 2] if times else 0.0
    out["interp_worst"] = times[-1] if times else 0.0
    after = []
    for _ in range(50):
        t = time.perf_counter(); f(x); after.append(time.perf_counter() - t)
    after.sort()
    out["compiled_call"] = after[len(after) // 2]
print(json.dumps(out))
"""


def _child(mode, graph, env, limit=LIMIT) -> dict:
    res = subprocess.run([sys.executable, "-c", _CHILD, mode, graph, str(limit)], env=env,
                         capture_output=True, text=True, check=False, timeout=limit + 120)
    if res.returncode != 0:
        raise RuntimeError(f"warmup child {mode!r} failed:\n{res.stderr}")
    return json.loads(res.stdout.strip().splitlines()[-1])


_dirs: list[str] = []


def _env(base, **extra):
    _dirs.append(tempfile.mkdtemp(prefix="graphc-warmup-"))
    return {**base, "GRAPHC_CACHE_DIR": _dirs[-1], **extra}


def run(settings) -> str:
    try:
        return _run(settings)
    finally:
        for d in _dirs:
            shutil.rmtree(d, ignore_errors=True)
        _dirs.clear()


def _run(settings) -> str:
    reps = 1 if settings.quick else 3
    limit = 20.0 if settings.quick else LIMIT
    base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    base["GRAPHC_JIT"] = "lazy"
    rows, notes = [], []
    graphs = (("add1", "x + 1, f32[1000]"), ("sort", "sort(cumsum(tanh(x)*2 + x)), f32[2^18]"))
    for graph, label in graphs[:1] if settings.quick else graphs:
        alone = median_high([_child("alone", graph, _env(base, GRAPHC_JIT="eager"))["switch"]
                         for _ in range(reps)])
        rows.append([label, "compile alone (eager first call)", fmt_time(alone * 1e9),
                     "", "", ""])
        for policy, env in (("worker process", {}), ("thread", {"GRAPHC_COMPILE_WORKER": "0"})):
            runs = [_child("hot", graph, _env(base, **env), limit) for _ in range(reps)]
            switch = median_high([r["switch"] for r in runs])
            late = not all(r["compiled"] for r in runs)
            rows.append([label, f"hot loop, compile in a {policy}",
                         (">" if late else "") + fmt_time(switch * 1e9),
                         f"{switch / alone:.2f}x",
                         fmt_time(median_high([r["interp_call"] for r in runs]) * 1e9) + " / "
                         + fmt_time(median_high([r["interp_worst"] for r in runs]) * 1e9),
                         "<= 2x" if policy == "worker process" else ""])
        env = _env(base)
        first = _child("script", graph, env)
        wait_gone(first["worker_pid"])  # the worker finishes run 1's compile after it
        second = _child("script", graph, env)
        rows.append([label, "script of 3 calls, run twice: compiled in run 1 / run 2",
                     f"{first['compiled']} / {second['compiled']} ({second['origin']})",
                     "", "", "run 2 compiled"])
    notes.append("time = first call until the compiled program answers (median of "
                 f"{reps} fresh processes, empty cache); ratio = to the compile alone; "
                 "calls = median / worst interpreter call while waiting")
    return render_table("warmup: hot loops and short scripts reach compiled code",
                        ["graph", "case", "time", "ratio", "calls", "target"], rows,
                        tuple(notes))


if __name__ == "__main__":
    from benchmarks.runner import Settings

    print(run(Settings(quick="--quick" in sys.argv)))
