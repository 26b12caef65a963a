"""Table "passes": how long the optimization pipeline takes, and what it removes.

The first table times ``graphc.passes.optimize`` on generated graphs of about 1,000 and
10,000 nodes (a seeded mix of elementwise chains, constant subexpressions, duplicated
subexpressions, ``x * 1``-style identities, dead code and reductions, so every pass has
work). The passes are meant to be near-linear: the 10x graph should take at most ~12x as
long. The second table shows op counts before and after on the example functions of
``examples/optimizations.py``.
"""

from __future__ import annotations

import os

import numpy as np

import graphc as gc
from benchmarks.runner import fmt_ratio, fmt_time, measure, render_table, yes_no
from graphc.core.registry import get
from graphc.core.trace import TraceContext
from graphc.ir.graph import Aval
from graphc.passes import optimize
from graphc.passes.graphs import count_ops

SIZES = (1_000, 10_000)
QUICK_SIZES = (100, 1_000)  # a smoke run: the same 10x step, smaller graphs
TARGET_RATIO = 12.0  # time(10x nodes) / time(1x nodes)
UNARY = ("exp", "sin", "tanh", "negative", "absolute")
BINARY = ("add", "multiply", "subtract", "maximum")


def _emit(ctx, name, *values, **attrs):
    op = get(name)
    aval = op.infer(*[v.aval for v in values], **attrs)
    (out,) = ctx.add_node(op, values, attrs, (aval,))
    return out


def generated_graph(n_nodes: int, seed: int = 0):
    """A graph of about ``n_nodes`` nodes on which every pass finds something to do."""
    rng = np.random.default_rng(seed)
    f32 = np.dtype(np.float32)
    with TraceContext(f"generated_{n_nodes}") as ctx:
        inputs = [ctx.new_input(Aval((64,), f32)) for _ in range(4)]
        live, read = list(inputs), set()
        while len(ctx.nodes) < n_nodes:
            # operands are recent values (code reads what it just computed), sometimes
            # an input (weights, the original argument) or an older value (a skip link)
            x = live[rng.integers(max(0, len(live) - 8), len(live))]
            r = rng.random()
            y = (live[rng.integers(max(0, len(live) - 32), len(live))] if r < 0.8 else
                 inputs[rng.integers(len(inputs))] if r < 0.95 else
                 live[rng.integers(0, len(live))])
            read.update((x.id, y.id))
            kind = rng.integers(0, 10)
            if kind < 4:  # an elementwise chain: fusion
                v = _emit(ctx, BINARY[rng.integers(len(BINARY))], x, y)
                v = _emit(ctx, UNARY[rng.integers(len(UNARY))], v)
            elif kind == 4:  # a constant subexpression: folding
                k = _emit(ctx, "add", ctx.constant(np.float32(rng.random())),
                          ctx.constant(np.float32(1.0)))
                v = _emit(ctx, "multiply", x, k)
            elif kind == 5:  # an identity: simplification
                v = _emit(ctx, "multiply", _emit(ctx, "negative", _emit(ctx, "negative", x)),
                          ctx.constant(np.float32(1.0)))
            elif kind == 6:  # the same expression twice: CSE
                a = _emit(ctx, "exp", x)
                v = _emit(ctx, "add", a, _emit(ctx, "exp", x))
            elif kind == 7:  # dead code: pruning
                _emit(ctx, "sin", _emit(ctx, "exp", x))
                continue
            else:  # a reduction broadcast back: a fusion barrier
                s = _emit(ctx, "sum", x, axis=None, keepdims=False)
                v = _emit(ctx, "multiply", y, s)
            live.append(v)
        out = [v for v in live[len(inputs):] if v.id not in read]  # values nothing reads
    return ctx.finish(out)


def run(settings) -> str:
    """Both tables; ``settings`` is a ``benchmarks.runner.Settings`` (or a bool: quick)."""
    if isinstance(settings, bool):
        from benchmarks.runner import Settings

        settings = Settings(quick=settings)
    saved = os.environ.pop("GRAPHC_CHECK", None)  # the verifier is not part of the cost
    try:
        return _timing_table(settings) + "\n\n" + _examples_table()
    finally:
        if saved is not None:
            os.environ["GRAPHC_CHECK"] = saved


def _timing_table(settings) -> str:
    sizes = QUICK_SIZES if settings.quick else SIZES
    graphs = {n: generated_graph(n) for n in sizes}
    times = measure({n: (optimize, (g,)) for n, g in graphs.items()}, settings)
    header = ["graph", "ops before", "ops after", "pipeline", "per op", "fold", "simplify",
              "cse", "prune", "fuse"]
    rows = []
    for n, g in graphs.items():
        optimized, report = optimize(g)
        per_pass = [fmt_time(e.seconds * 1e9) for e in report]
        rows.append([f"{n:,} nodes", count_ops(g), count_ops(optimized), fmt_time(times[n]),
                     fmt_time(times[n] / count_ops(g)), *per_pass])
    small, large = sizes
    ratio = times[large] / times[small]
    met = yes_no(ratio <= TARGET_RATIO)
    notes = (
        "pipeline = graphc.passes.optimize (all passes on, verifier off); per-pass columns "
        "are from one run's report",
        f"scaling: {large:,} nodes take {fmt_ratio(ratio)} the time of {small:,} "
        f"(target <= {TARGET_RATIO:.0f}x for {large // small}x the nodes): met? {met}",
    )
    return render_table("passes: optimization pipeline time on generated graphs", header,
                        rows, notes)


def _examples_table() -> str:
    from examples.optimizations import EXAMPLES

    header = ["example", "ops before", "ops after", "folded", "simplified", "merged",
              "pruned", "fused groups"]
    rows = []
    for name, fn, args in EXAMPLES:
        concrete = gc.function(fn).get_concrete_function(*args)
        optimized, report = optimize(concrete.graph)
        e = {entry.name: entry for entry in report}
        rows.append([name, count_ops(concrete.graph), count_ops(optimized),
                     len(e["constant_folding"].changes),
                     len(e["arithmetic_simplification"].changes), len(e["cse"].changes),
                     e["pruning"].ops_before - e["pruning"].ops_after,
                     len(e["fusion"].changes)])
    notes = ("ops count nodes, inside branch and loop bodies too; a fused group counts as one",
             "folded / simplified / merged: rewrites; pruned: ops removed; fused groups: "
             "fused_elementwise nodes made")
    return render_table("passes: op counts before and after, on examples/optimizations.py",
                        header, rows, notes)
