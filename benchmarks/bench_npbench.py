"""Table "npbench": NPBench's NumPy kernels, unchanged, on graphc.

``python -m benchmarks npbench --path NPBENCH_CHECKOUT [--timeout S] [--compile-timeout S]
[--max-ops N] [--kernels a,b] [--quick]``. For every benchmark of the checkout
(``bench_info/*.json``, preset ``S``) one child process runs ``npbench_harness``:
NPBench's init builds the inputs, the ``_numpy.py`` kernel runs as it is and again
with ``import numpy as np`` turned into ``import graphc.numpy as np`` under
``gc.function``, and the returned values and every array argument are compared by
NPBench's tolerance rule.

graphc runs twice (``npbench_harness.run_kernel``): first on its reference interpreter
(trace + run: the check that decides pass / wrong / error), then from a fresh
``gc.function`` compiled by Numba (``GRAPHC_JIT=eager`` unless the caller set
``GRAPHC_JIT``, in a fresh cache directory), checked again and timed. The child gets
``timeout`` seconds up to the end of the check and ``compile_timeout`` more for the
compile and the timing; past either it is killed with its process group. A kernel killed
while compiling keeps its ``pass`` (its result was right) and shows ``timeout`` under
"compile"; one whose graph has more than ``max_ops`` ops (``--max-ops``, default
``MAX_OPS``: Python loops unrolled into thousands of ops take minutes to compile today) is
not compiled ("skipped"). Without ``--path`` the table says how to run it and measures
nothing.

``peers`` (``--peers``; default: those of Numba and JAX that are installed) adds NPBench's
own ``_numba_n`` and ``_jax`` versions of each passing kernel (``npbench_peers``): each
compiled, checked against NumPy and timed interleaved with graphc; "graphc/Numba" and
"graphc/JAX" are those ratios. Each peer gets its own ``compile_timeout``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from time import perf_counter

from benchmarks.npbench_harness import discover
from benchmarks.npbench_peers import PEERS, installed, peer_cells, peer_header, peer_notes
from benchmarks.runner import fmt_ratio, fmt_time, geomean, render_table

TITLE = "npbench: NPBench NumPy kernels (preset S) run unchanged on graphc"
HEADER = ["kernel", "status", "ops", "NumPy 1st", "graphc 1st", "compile", "NumPy", "graphc",
          "graphc/NumPy"]
MAX_OPS = 1000  # larger graphs (unrolled Python loops) take minutes to compile today
REPO = Path(__file__).resolve().parents[1]
LATE_STAGES = ("compile", "timing", "peers", "done")


def default_timeouts(settings) -> tuple[float, float]:
    """Seconds allowed up to the end of the check, and then for compile + timing."""
    return (30.0, 10.0) if settings.quick else (60.0, 20.0)


def _progress(path: Path) -> tuple:
    """Where the child is: its stage and, while it runs peers, the last peer's label."""
    try:
        record = json.loads(path.read_text())
    except (OSError, ValueError):
        return (None,)
    return (record.get("stage"), *list(record.get("peers", {}))[-1:])


def _wait(proc, record_path: Path, timeout: float, compile_timeout: float) -> bool:
    """Wait for the child; kill its process group once it overstays. True if killed.

    ``timeout`` runs until a late stage; then ``compile_timeout`` for graphc's compile and
    timing, and again for each peer."""
    deadline, step = perf_counter() + timeout, None
    while True:
        try:
            proc.wait(timeout=0.1)
            return False
        except subprocess.TimeoutExpired:
            pass
        progress = _progress(record_path)
        if progress[0] in LATE_STAGES and (step is None or len(progress) > len(step)
                                           or progress[1:] != step[1:]):
            step, deadline = progress, perf_counter() + compile_timeout
        if perf_counter() > deadline:
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # the child and anything it started
            except ProcessLookupError:  # it ended just now
                pass
            proc.wait()
            return True


def run_child(root, name: str, settings, timeout: float, compile_timeout: float,
              max_ops: int = MAX_OPS, peers=()) -> dict:
    """Run kernel ``name`` of the checkout ``root`` in a child process under the two time
    limits (see the module docstring); returns the child's record."""
    reps, budget = (2, 0.5) if settings.quick else (10, 2.0)
    with tempfile.TemporaryDirectory(prefix="graphc-npbench-") as tmp:
        out, err = Path(tmp) / "record.json", Path(tmp) / "stderr.txt"
        env = dict(os.environ)
        env.setdefault("GRAPHC_JIT", "eager")
        env["GRAPHC_CACHE_DIR"] = str(Path(tmp) / "cache")
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
        cmd = [sys.executable, "-m", "benchmarks.npbench_harness", str(root), name,
               "--out", str(out), "--reps", str(reps), "--budget", str(budget),
               "--max-ops", str(max_ops), "--peers", ",".join(peers)]
        with open(err, "wb") as stderr:
            proc = subprocess.Popen(cmd, cwd=tmp, env=env, stdout=subprocess.DEVNULL,
                                    stderr=stderr, start_new_session=True)
            killed = _wait(proc, out, timeout, compile_timeout)
        record = json.loads(out.read_text()) if out.exists() else {"stage": "start"}
        tail = err.read_text(errors="replace").strip().splitlines()
    record["kernel"] = name
    if killed and record.get("stage") == "peers":  # the last peer started overstayed
        label = list(record["peers"])[-1]
        record["peers"][label].update(error="timeout", message=f"over {compile_timeout:g} s")
    elif killed and record.get("status") == "pass":  # right answer, compiled code too slow
        record["compile" if "compile_s" not in record else "timing"] = "timeout"
    elif killed:
        record.update(status="timeout", message=f"over {timeout:g} s during {record['stage']}")
    elif not record.get("finished"):  # crashed (a signal, sys.exit, out of memory)
        record.update(status="error", error=f"exit {proc.returncode}",
                      message=tail[-1] if tail else "no output")
    return record


def status_cell(record: dict) -> str:
    """``pass``, ``wrong``, ``timeout`` or the exception type, prefixed ``setup:`` when
    loading the NumPy kernel, NPBench's init or the NumPy run failed (graphc not involved
    yet) and ``compile:`` when only the compiled run failed."""
    status = record["status"]
    if status != "error":
        return status
    stage = record.get("stage")
    prefix = ("setup: " if stage in ("load", "init", "numpy") else
              "compile: " if stage in LATE_STAGES else "")
    return prefix + record.get("error", "error")


def reason(record: dict) -> str:
    """What a failing row is grouped under in the notes."""
    if record["status"] == "wrong":
        if set(record.get("wrong", [])) == set(record.get("unwritten", ["?"])):
            return "wrong: graphc left unchanged the array arguments NumPy writes into"
        where = " by the compiled program" if record.get("compiled") else ""
        return f"wrong: outputs differ{where} beyond NPBench's tolerance"
    if record["status"] == "timeout":
        return f"timeout (during {record.get('stage', '?')})"
    return f"{status_cell(record)}: {record.get('message', '')}"


def _secs(record: dict, key: str) -> str:
    return fmt_time(record[key] * 1e9) if key in record else ""


def row(record: dict, peers=()) -> list[str]:
    status = status_cell(record)
    if record["status"] == "wrong":
        unwritten = record.get("unwritten", [])
        status += " (" + ("compiled: " if record.get("compiled") else "") + ", ".join(
            f"{a} unchanged" if a in unwritten else a for a in record.get("wrong", [])) + ")"
    cells = [record["kernel"], status, str(record.get("ops") or ""),
             _secs(record, "numpy_first_s"), _secs(record, "graphc_first_s"),
             record.get("compile") or _secs(record, "compile_s"), "", "", ""]
    if "graphc_s" in record:
        cells[6:] = [_secs(record, "numpy_s"), _secs(record, "graphc_s"),
                     fmt_ratio(record["graphc_s"] / record["numpy_s"])]
    elif record.get("timing") == "timeout":
        cells[7] = "timeout"
    return cells + peer_cells(record, peers, fmt_time, fmt_ratio)


def summary(records: list[dict], seconds: float, compile_timeout: float,
            max_ops: int = MAX_OPS, peers=()) -> list[str]:
    """Notes under the table: pass count, geometric-mean ratio, failures by reason."""
    passed = [r for r in records if r["status"] == "pass"]
    timed = [r for r in passed if "graphc_s" in r and r["numpy_s"] > 0]
    notes = [f"{len(passed)} of {len(records)} kernels pass unchanged; {len(timed)} of them "
             f"compiled and timed ({seconds:.0f} s in all)"]
    if timed:
        ratios = [r["graphc_s"] / r["numpy_s"] for r in timed]
        geo = geomean(ratios)
        notes.append(f"steady-state geometric mean graphc/NumPy over those {len(timed)}: "
                     f"{fmt_ratio(geo)}")
    notes += peer_notes(records, peers, geomean, fmt_ratio)
    big = [r["kernel"] for r in passed if r.get("compile") == "skipped"]
    if big:
        notes.append(f"{len(big)} passing kernels not compiled: graphs of more than "
                     f"{max_ops} ops (--max-ops): {', '.join(big)}")
    slow = [r["kernel"] for r in passed if r.get("compile") == "timeout"]
    if slow:
        notes.append(f"{len(slow)} passing kernels did not compile and run within "
                     f"{compile_timeout:g} s: {', '.join(slow)}")
    groups = defaultdict(list)
    for r in records:
        if r["status"] != "pass":
            groups[reason(r)].append(r["kernel"])
    for text, names in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        text = text if len(text) <= 160 else text[:157] + "..."
        notes.append(f"{len(names)} x {text}: {', '.join(names)}")
    warned = defaultdict(list)
    for r in passed:
        for category in r.get("warnings", ()):
            warned[category].append(r["kernel"])
    for category, names in sorted(warned.items()):
        notes.append(f"passing with a graphc {category}: {', '.join(names)}")
    notes.append("ops = optimized graph size; 1st = first call (graphc: trace + reference "
                 "interpreter); compile = first call of a fresh gc.function compiled by Numba "
                 "(trace + compile + run); NumPy, graphc = steady-state median per call "
                 "(graphc compiled)")
    notes.append("correct = np.allclose(rtol, atol) or relative error < norm_error "
                 "(NPBench's rule) for every return value and array argument")
    return notes


def run(settings, path=None, timeout=None, compile_timeout=None, max_ops=None,
        kernels=None, peers=None) -> str:
    """The table for the NPBench checkout at ``path`` (a not-run row without one);
    ``max_ops``: compile only graphs up to that size; ``kernels``: only these names;
    ``peers``: NPBench's versions to time beside graphc (default: those installed,
    ``npbench_peers.installed``)."""
    if path is None:
        return render_table(TITLE, ["kernel", "status"],
                            [["(not run)", "pass --path <npbench checkout>"]])
    default, default_compile = default_timeouts(settings)
    timeout = default if timeout is None else timeout
    compile_timeout = default_compile if compile_timeout is None else compile_timeout
    max_ops = MAX_OPS if max_ops is None else max_ops
    peers = installed() if peers is None else [p for p in peers if p]
    unknown = [p for p in peers if p not in PEERS]
    if unknown:
        raise ValueError(f"unknown peer(s) {', '.join(unknown)}; choose from {', '.join(PEERS)}")
    try:
        found = discover(path)
    except (OSError, ValueError, KeyError) as e:
        return render_table(TITLE, ["kernel", "status"],
                            [["(not run)", f"{type(e).__name__}: {e}"]])
    if kernels:
        found = [k for k in found if k.name in set(kernels)]
    start = perf_counter()
    records = []
    for kernel in found:
        record = run_child(Path(path).resolve(), kernel.name, settings, timeout,
                           compile_timeout, max_ops, peers)
        records.append(record)
        print(f"  npbench {kernel.name}: {status_cell(record)}", file=sys.stderr, flush=True)
    return render_table(TITLE, HEADER + peer_header(peers), [row(r, peers) for r in records],
                        tuple(summary(records, perf_counter() - start, compile_timeout,
                                      max_ops, peers)))
