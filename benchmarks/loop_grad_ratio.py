"""The cost of reverse mode through a tensor loop (docs/autodiff.md, "Control flow").

Workload: ``for _ in gc.range(n): y = gnp.sin(y) * w + 0.1`` in float64; the forward
program returns ``sum(y)``, the gradient program returns the gradients of ``sum(y)`` with
respect to the initial ``y`` and ``w`` (a saving loop plus a backward loop). Both are
traced once (``n`` is a run-time argument) and timed, best of several repeats, on the
NumPy interpreter and on the compiled Numba program (compiled before timing)::

    python -m benchmarks.loop_grad_ratio            # the docs table
    python -m benchmarks.loop_grad_ratio --quick    # fewer repeats

Prints one markdown row per (elements, backend): gradient time / forward time per ``n``.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

import graphc as gc
import graphc.numpy as gnp
from graphc.core.interpreter import run_graph
from graphc.runtime.cpu import numba_cpu

SIZES = (16, 1000)
TRIPS = (100, 1000, 4000)


def forward(y, w, n):
    for _ in gc.range(n):
        y = gnp.sin(y) * w + 0.1
    return gnp.sum(y)


def gradient(y, w, n):
    with gc.GradientTape() as tape:
        tape.watch([y, w])
        loss = forward(y, w, n)
    return tape.gradient(loss, [y, w])


def programs(fn, args):
    """``(interpreter, numba)`` callables on NumPy arrays for ``fn``'s optimized graph."""
    graph = gc.function(fn).get_concrete_function(*[gc.constant(a) for a in args]) \
        .optimized_graph
    mode, numba_cpu.settings.mode = numba_cpu.settings.mode, "eager"  # compile now
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", numba_cpu.FallbackWarning)
            ex = numba_cpu.executor_for(graph)
    finally:
        numba_cpu.settings.mode = mode
    assert ex.backend == "numba", ex.explain()
    return (lambda xs: run_graph(graph, xs)), ex


def best(fn, args, repeats: int) -> float:
    fn(list(args))  # warm up (and compile)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn(list(args))
        times.append(time.perf_counter() - t0)
    return min(times)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 repeats instead of 7")
    opts = parser.parse_args(argv)
    repeats = 3 if opts.quick else 7
    rng = np.random.default_rng(0)
    print("| elements | backend | " + " | ".join(f"n = {n}" for n in TRIPS) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in TRIPS) + " |")
    for size in SIZES:
        y0, w = rng.uniform(-1, 1, size), rng.uniform(-0.9, 0.9, size)
        example = [y0, w, np.int64(3)]
        fwd, grad = programs(forward, example), programs(gradient, example)
        for b, backend in enumerate(("numpy", "numba")):
            cells = []
            for n in TRIPS:
                args = [y0, w, np.int64(n)]
                ratio = best(grad[b], args, repeats) / best(fwd[b], args, repeats)
                cells.append(f"{ratio:.1f}x")
            print(f"| {size} | {backend} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
