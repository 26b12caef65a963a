"""Table "programs": 14 real programs, compile latency and steady speed, graphc vs jax.jit
and ``numba.njit``.

Each (program, library) runs in its own fresh Python process
(``python -m benchmarks.bench_programs --child LIB NAME OUT``):

* ``first``: the first call, from arguments in hand to the result in hand: trace,
  optimization, compilation and one run. graphc runs with ``GRAPHC_JIT=eager`` (compile
  on the first call) and a new empty ``GRAPHC_CACHE_DIR``; JAX with ``jax.jit`` and x64.
* ``steady``: the median of later calls (each waits for its result), the lower of two
  processes per library (``_again``).
* ``compile`` = ``first - steady``, the issue's definition of compile latency.

The parent checks that the libraries computed the same numbers (``programs.check``) and
prints per program the two compile latencies, their ratio, the steady times and their
ratio; the notes give the medians, worst and geomean ratios against the targets (compile
median <= 1.0x, worst <= 3x; steady <= 1.0x on every program, geomean <= 0.7x). Without
JAX only graphc's columns are filled. The last columns time each program's
``numba.njit`` twin (:mod:`benchmarks.programs_numba`, a third child process) and the
ratio graphc / Numba (target <= 1.0x on every program).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from time import perf_counter

import numpy as np

from benchmarks import programs
from benchmarks.runner import fmt_time, geomean, render_table


def _child(lib: str, name: str, out_path: str) -> None:
    args = programs.INPUTS[name]()
    if lib == "graphc":
        import graphc as gc

        fn = gc.function(programs.graphc_program(name))
        wait = programs.as_numpy
    elif lib == "numba":
        from benchmarks.programs_numba import numba_program

        fn, wait = numba_program(name), programs.as_numpy
    else:
        import jax

        jax.config.update("jax_enable_x64", True)
        fn = jax.jit(programs.jax_program(name))
        wait = jax.block_until_ready
    t0 = perf_counter()
    result = wait(fn(*args))
    first = perf_counter() - t0
    times = []
    budget = perf_counter() + 1.5
    while len(times) < 5 or (perf_counter() < budget and len(times) < 200):
        t0 = perf_counter()
        wait(fn(*args))
        times.append(perf_counter() - t0)
    extra = {}
    if lib == "graphc":
        ex = fn.get_concrete_function(*args).runtime
        extra = {"backend": getattr(ex, "backend", "?"),
                 "ops": len(fn.get_concrete_function(*args).optimized_graph.nodes)}
    np.savez(out_path, *programs.as_numpy(result))
    print(json.dumps({"first": first, "steady": float(np.median(times)), **extra}))


def _run_child(lib: str, name: str) -> tuple[dict, list]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(GRAPHC_JIT="eager", GRAPHC_CACHE_DIR=tempfile.mkdtemp(prefix="gc-prog-"),
               OPENBLAS_NUM_THREADS=env.get("OPENBLAS_NUM_THREADS", "1"))
    out = tempfile.mktemp(suffix=".npz")
    res = subprocess.run([sys.executable, "-m", "benchmarks.bench_programs", "--child",
                          lib, name, out], env=env, capture_output=True, text=True,
                         check=False)
    if res.returncode != 0:
        return {"error": res.stderr.strip().splitlines()[-1][:120]}, []
    with np.load(out) as z:
        arrays = [z[k] for k in sorted(z.files, key=lambda s: int(s.split("_")[1]))]
    os.unlink(out)
    return json.loads(res.stdout.strip().splitlines()[-1]), arrays


def _again(first: dict, lib: str, name: str) -> dict:
    """A second fresh process for ``lib``, run after the other libraries' first ones:
    its steady time if lower (run alone, graphc's logreg was 7.4-7.6 us per call, and
    8.1-9.3 us right after another library's process; each library gets the same
    second chance). The first call is the first process's."""
    if not first or "error" in first:
        return first
    second, _out = _run_child(lib, name)
    if "error" not in second and second["steady"] < first["steady"]:
        steady = second["steady"]
        return {**first, "first": first["first"] - first["steady"] + steady, "steady": steady}
    return first


def _ratio(a, b) -> str:
    return f"{a / b:.2f}x" if a and b else "-"


def run(settings, names=None) -> str:
    has_jax = importlib.util.find_spec("jax") is not None
    names = names or (programs.NAMES[:1] if settings.quick else programs.NAMES)
    rows, compile_ratios, steady_ratios, numba_ratios, notes = [], [], [], [], []
    for name in names:
        g, g_out = _run_child("graphc", name)
        j, j_out = _run_child("jax", name) if has_jax else ({}, [])
        nb, nb_out = _run_child("numba", name)
        g, j, nb = _again(g, "graphc", name), _again(j, "jax", name), _again(nb, "numba", name)
        if "error" in g:
            rows.append([name, "error", "", "", "", "", "", "", "", "", g["error"]])
            continue
        g_compile = max(g["first"] - g["steady"], 0.0)
        row = [name, f"{g.get('ops', '?')}", fmt_time(g_compile * 1e9)]
        if j and "error" not in j:
            programs.check(name, g_out, j_out, rtol=1e-6, atol=1e-7)
            j_compile = max(j["first"] - j["steady"], 0.0)
            compile_ratios.append(g_compile / j_compile)
            steady_ratios.append(g["steady"] / j["steady"])
            row += [fmt_time(j_compile * 1e9), _ratio(g_compile, j_compile),
                    fmt_time(g["steady"] * 1e9), fmt_time(j["steady"] * 1e9),
                    _ratio(g["steady"], j["steady"])]
        else:
            row += ["-", "-", fmt_time(g["steady"] * 1e9), "-", "-"]
            if j:
                notes.append(f"{name}: jax failed: {j['error']}")
        if "error" not in nb:
            programs.check(name, g_out, nb_out, rtol=1e-6, atol=1e-7)
            numba_ratios.append((g["steady"] / nb["steady"], name))
            row += [fmt_time(nb["steady"] * 1e9), _ratio(g["steady"], nb["steady"])]
        else:
            row += ["-", "-"]
            notes.append(f"{name}: numba twin failed: {nb['error']}")
        row.append(g.get("backend", ""))
        rows.append(row)
    if compile_ratios:
        c, s = sorted(compile_ratios), sorted(steady_ratios)
        notes += [
            f"compile graphc/jax.jit: median {c[len(c) // 2]:.2f}x, worst {c[-1]:.2f}x "
            f"(targets <= 1.0x, <= 3x)",
            f"steady graphc/jax.jit: geomean {geomean(s):.2f}x, worst {s[-1]:.2f}x "
            f"(targets <= 0.7x geomean, <= 1.0x each)",
            "results checked equal between the libraries (rtol 1e-6)"]
    if numba_ratios:
        over = [f"{n} {r:.2f}x" for r, n in sorted(numba_ratios, reverse=True) if r > 1.0]
        notes.append(f"steady graphc/numba.njit: geomean "
                     f"{geomean([r for r, _ in numba_ratios]):.2f}x, worst "
                     f"{max(numba_ratios)[0]:.2f}x (target <= 1.0x each); above 1.0x: "
                     + (", ".join(over) or "none"))
    notes += ["compile = first call (trace + optimize + compile + run) - steady call; "
              "fresh process per cell, graphc GRAPHC_JIT=eager with an empty cache, "
              "jax.jit in x64; ops = optimized graph size; run = graphc's executor",
              "numba = the program's plain numba.njit twin (benchmarks/programs_numba.py: "
              "no fastmath, no parallel; loops where a Numba user writes them)"]
    return render_table("programs: compile latency and steady speed, graphc vs jax.jit "
                        "and numba.njit",
                        ["program", "ops", "graphc compile", "jax compile", "ratio",
                         "graphc steady", "jax steady", "ratio", "numba steady", "ratio",
                         "run"], rows, tuple(notes))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        _child(*sys.argv[2:5])
    else:
        from benchmarks.runner import Settings

        chosen = [a for a in sys.argv[1:] if not a.startswith("--")]
        print(run(Settings(quick="--quick" in sys.argv), chosen or None))
