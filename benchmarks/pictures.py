"""How long pictures and the HTML report take on big graphs (docs/inspecting.md).

Workload: a Python loop of ``n`` iterations unrolled into the graph (``x = x @ x * 0.5 +
x``: 4 nodes per iteration), traced once on the reference interpreter; times the built-in
``to_svg`` of the traced graph and ``fn.explain(format="html")`` (optimization passes
included, as on a first report), best of a few repeats::

    python -m benchmarks.pictures            # n = 100, 1000
    python -m benchmarks.pictures --quick    # n = 100

Prints one markdown row per ``n``.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

import graphc as gc
from graphc.ir.pictures import to_svg


def unrolled(n: int):
    def big(x):
        for _ in range(n):
            x = gc.matmul(x, x) * 0.5 + x
        return x

    return gc.function(big, backend="numpy", name=f"unrolled_{n}", unroll=True)


def best(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def row(n: int, repeats: int) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the unrolled-loop warning is expected here
        fn = unrolled(n)
        graph = fn.get_concrete_function(np.ones((2, 2), np.float32)).graph
    svg = to_svg(graph, engine="builtin")
    t_svg = best(lambda: to_svg(graph, engine="builtin"), repeats)
    fn.clear_cache()
    fn.get_concrete_function(np.ones((2, 2), np.float32))
    html = fn.explain(format="html")  # the first report runs the passes
    t_html = best(lambda: fn.explain(format="html"), repeats)
    return (f"| {n} | {len(graph.nodes)} | {t_svg * 1e3:.0f} ms | {len(svg) / 1e6:.2f} MB "
            f"| {t_html * 1e3:.0f} ms | {len(html) / 1e6:.2f} MB |")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 100 only, one repeat")
    args = parser.parse_args(argv)
    sizes, repeats = ((100,), 1) if args.quick else ((100, 1000), 3)
    print("| iterations | nodes | to_svg (built-in) | SVG | explain(format='html') | HTML |")
    print("|---|---|---|---|---|---|")
    for n in sizes:
        print(row(n, repeats), flush=True)


if __name__ == "__main__":
    main()
