"""Timing helpers and plain-text tables shared by every benchmark table.

A *case* is ``(fn, args)``: timing it means calling ``fn(*args)`` in a tight loop, so the
only cost beyond the call itself is one loop iteration. ``measure`` sizes a loop count per
case so that one batch takes about ``Settings.batch_ns``, then runs the batches of all
cases interleaved (A, B, A, B, ...) so that machine drift hits every column alike, and
returns the median time per call of each case. Times are never asserted.
"""

from __future__ import annotations

import contextlib
import gc as _gc
import importlib
import importlib.util
import itertools
import math
import os
import platform
import statistics
import sys
from dataclasses import dataclass
from time import perf_counter_ns


@dataclass(frozen=True)
class Settings:
    """How long to measure: ``quick`` is a smoke run, the default aims at stable medians."""

    quick: bool = False

    @property
    def batch_ns(self) -> int:
        return 5_000_000 if self.quick else 10_000_000

    @property
    def batches(self) -> int:
        return 3 if self.quick else 15


@contextlib.contextmanager
def eager_fresh_cache():
    """Compile on the first call (``numba_cpu.settings.mode = "eager"``) into a new,
    empty cache directory, for a table timing warm programs; both restored after."""
    import tempfile

    from graphc.runtime.cpu import numba_cpu

    mode, old_dir = numba_cpu.settings.mode, os.environ.get("GRAPHC_CACHE_DIR")
    numba_cpu.settings.mode = "eager"
    os.environ["GRAPHC_CACHE_DIR"] = tempfile.mkdtemp(prefix="graphc-bench-")
    try:
        yield
    finally:
        numba_cpu.settings.mode = mode
        if old_dir is None:
            os.environ.pop("GRAPHC_CACHE_DIR", None)
        else:
            os.environ["GRAPHC_CACHE_DIR"] = old_dir


def _batch(fn, args, loops: int) -> int:
    """Nanoseconds taken by ``loops`` calls of ``fn(*args)``."""
    it = itertools.repeat(None, loops)
    t0 = perf_counter_ns()
    for _ in it:
        fn(*args)
    return perf_counter_ns() - t0


def _calibrate(fn, args, target_ns: int) -> int:
    """A loop count that makes one batch last about ``target_ns``."""
    loops = 1
    while True:
        elapsed = _batch(fn, args, loops)
        if elapsed >= target_ns // 10 or loops >= 10**8:
            return max(1, round(loops * target_ns / max(elapsed, 1)))
        loops *= 10


def measure(cases: dict, settings: Settings) -> dict[str, float]:
    """Median nanoseconds per call of each ``name: (fn, args)`` case, batches interleaved."""
    gc_was_enabled = _gc.isenabled()
    _gc.disable()
    try:
        loops = {}
        for name, (fn, args) in cases.items():
            fn(*args)  # warm-up: caches, first trace, lazy imports
            loops[name] = _calibrate(fn, args, settings.batch_ns)
        samples: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(settings.batches):
            for name, (fn, args) in cases.items():
                samples[name].append(_batch(fn, args, loops[name]) / loops[name])
    finally:
        if gc_was_enabled:
            _gc.enable()
    return {name: statistics.median(s) for name, s in samples.items()}


# --------------------------------------------------------------------------- formatting
def fmt_time(ns: float) -> str:
    """``0.43 µs``, ``12.5 µs``, ``1.23 ms``, ``2.10 s``: three significant digits."""
    for scale, unit in ((1e9, "s"), (1e6, "ms"), (1e3, "µs")):
        if abs(ns) >= scale or unit == "µs":
            value = ns / scale
            digits = 2 if abs(value) < 10 else 1 if abs(value) < 100 else 0
            return f"{value:.{digits}f} {unit}"
    raise AssertionError("unreachable")


def fmt_delta(ns: float) -> str:
    """A signed time difference, ``+1.32 µs`` / ``-0.05 µs``."""
    return ("+" if ns >= 0 else "-") + fmt_time(abs(ns))


def fmt_ratio(r: float) -> str:
    return f"{r:.2f}x"


def wait_gone(pid, timeout: float = 120.0) -> None:
    """Wait until process ``pid`` (a compile worker that outlives the child that started
    it) has exited, at most ``timeout`` seconds; a falsy ``pid`` returns at once."""
    import time  # deferred: only the fresh-process tables wait

    deadline = time.monotonic() + timeout
    while pid and time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except OSError:
            return
        time.sleep(0.05)


def geomean(xs) -> float:
    """The geometric mean of positive ratios (NaN for none)."""
    xs = list(xs)
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def yes_no(ok: bool) -> str:
    return "yes" if ok else "NO"


def render_table(title: str, header: list[str], rows: list[list[str]],
                 notes: tuple[str, ...] = ()) -> str:
    """An aligned plain-text table: first column left-aligned, the others right-aligned."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]

    def line(cells):
        parts = [str(c).ljust(w) if i == 0 else str(c).rjust(w)
                 for i, (c, w) in enumerate(zip(cells, widths, strict=True))]
        return " | ".join(parts).rstrip()

    rule = "-+-".join("-" * w for w in widths)
    out = [title, "=" * len(title), line(header), rule, *map(line, rows)]
    out += [f"  * {n}" for n in notes]
    return "\n".join(out)


# --------------------------------------------------------------------------- machine
def optional_frameworks() -> dict:
    """``{"TF": tensorflow, "JAX": jax}`` for those importable; missing ones are skipped."""
    found = {}
    for label, name in (("TF", "tensorflow"), ("JAX", "jax")):
        if importlib.util.find_spec(name) is None:
            continue
        try:
            found[label] = importlib.import_module(name)
        except Exception:  # noqa: BLE001 - a broken install is as good as a missing one
            continue
    return found


def machine_header(settings: Settings) -> str:
    """One line of machine facts so tables from different runs can be compared."""
    import numpy as np

    import graphc

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name"))
    except (OSError, StopIteration):
        pass
    extras = "".join(f", {k} {m.__version__}" for k, m in optional_frameworks().items())
    mode = "quick (smoke run, noisy)" if settings.quick else "full"
    blas = os.environ.get("OPENBLAS_NUM_THREADS", "default")
    return (f"graphc {graphc.__version__} | python {platform.python_version()} | "
            f"numpy {np.__version__}{extras} | {os.cpu_count()} CPUs ({cpu}) | "
            f"BLAS threads {blas} | {platform.system()} {platform.machine()} | mode: {mode} | "
            f"median of {settings.batches} batches of ~{fmt_time(settings.batch_ns)}"
            + ("" if sys.flags.optimize == 0 else " | python -O"))
