"""``python -m benchmarks [TABLE ...] [--quick] [table options]``: print the named tables
(default: all). The table options (``--path``, ``--timeout``, ``--compile-timeout``,
``--max-ops``) reach only the tables whose ``run`` takes a parameter of that name
(``npbench``); the others ignore them."""

from __future__ import annotations

import argparse
import importlib
import inspect
import os
import sys
from time import perf_counter

from benchmarks import TABLES
from benchmarks.runner import Settings, fmt_time, machine_header

# run(settings, **these)
TABLE_OPTIONS = ("path", "timeout", "compile_timeout", "max_ops", "kernels", "peers")


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
    table_opts = parser.add_argument_group(
        "table options", "passed only to tables whose run() takes them (npbench); others "
        "ignore them")
    table_opts.add_argument("--path", default=None,
                            help="npbench: the NPBench checkout to run")
    table_opts.add_argument("--timeout", type=float, default=None,
                            help="npbench: seconds per kernel up to its correctness check "
                            "(default 60, 30 with --quick)")
    table_opts.add_argument("--compile-timeout", type=float, default=None,
                            help="npbench: seconds more to compile and time a passing kernel "
                            "(default 20, 10 with --quick)")
    table_opts.add_argument("--max-ops", type=int, default=None,
                            help="npbench: compile only graphs of at most this many ops "
                            "(default 1000)")
    table_opts.add_argument("--kernels", type=lambda text: text.split(","), default=None,
                            help="npbench: only these kernels (comma-separated names)")
    table_opts.add_argument("--peers", type=lambda text: text.split(","), default=None,
                            help="npbench: NPBench's versions to time graphc against "
                            "(comma-separated from Numba,JAX; '' for none; default: those "
                            "installed)")
    args = parser.parse_args(argv)
    unknown = [t for t in args.tables if t not in TABLES]
    if unknown:
        parser.error(f"unknown table(s) {', '.join(unknown)}; choose from {', '.join(TABLES)}")
    settings = Settings(quick=args.quick)
    start = perf_counter()
    print(machine_header(settings), flush=True)
    for name in args.tables or TABLES:
        module = importlib.import_module(TABLES[name])
        options = {k: getattr(args, k) for k in TABLE_OPTIONS
                   if getattr(args, k) is not None
                   and k in inspect.signature(module.run).parameters}
        print(f"\n{module.run(settings, **options)}", flush=True)
    print(f"\n(total {fmt_time((perf_counter() - start) * 1e9)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
