"""``python -m benchmarks [TABLE ...] [--quick]``: print the named tables (default: all)."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from time import perf_counter

from benchmarks import TABLES
from benchmarks.runner import Settings, fmt_time, machine_header


def _one_blas_thread():
    """One BLAS thread unless the caller set one: on a small or shared machine a
    multi-threaded OpenBLAS matmul swings between ~1 ms and ~15 ms from batch to batch,
    drowning what these tables measure. Effective only before NumPy is imported."""
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")


def main(argv=None) -> int:
    if "numpy" not in sys.modules:
        _one_blas_thread()
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="Time graphc next to NumPy and print one plain-text table per benchmark.")
    parser.add_argument("tables", nargs="*", metavar="TABLE",
                        help=f"tables to run (default: all): {', '.join(TABLES)}")
    parser.add_argument("--quick", action="store_true",
                        help="short smoke run (a few seconds; numbers are noisier)")
    args = parser.parse_args(argv)
    unknown = [t for t in args.tables if t not in TABLES]
    if unknown:
        parser.error(f"unknown table(s) {', '.join(unknown)}; choose from {', '.join(TABLES)}")
    settings = Settings(quick=args.quick)
    start = perf_counter()
    print(machine_header(settings), flush=True)
    for name in args.tables or TABLES:
        module = importlib.import_module(TABLES[name])
        print(f"\n{module.run(settings)}", flush=True)
    print(f"\n(total {fmt_time((perf_counter() - start) * 1e9)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
