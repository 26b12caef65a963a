"""The pass pipeline: a plain ordered list of ``Graph -> Graph`` passes.

``optimize(graph)`` runs each pass switched on in ``gc.config.optimizer`` (read on every
call), in this order, and returns the optimized graph with one :class:`PassReport` per
pass (switched-off passes get an entry too, marked off):

1. ``constant_folding`` first, so constant subexpressions (and ``cond`` on a constant) are
   gone before the other passes look;
2. ``arithmetic_simplification``, which then sees folded constants (``x * (2 - 1)``);
3. ``cse``, which also merges what simplification made equal;
4. ``pruning``, so dead code is neither fused nor run;
5. ``fusion`` last: it changes no values, only how nodes are grouped.

With ``GRAPHC_CHECK=1`` the verifier runs on the input and after every pass; a failure
names the pass that broke the graph.

>>> graph, report = optimize(concrete.graph)        # doctest: +SKIP
>>> print(format_report(report))                    # doctest: +SKIP
"""

from __future__ import annotations

from time import perf_counter

from graphc import config
from graphc.ir.graph import Graph
from graphc.ir.verify import VerificationError, verify
from graphc.passes import constant_fold, cse, fusion, prune, simplify
from graphc.passes.context import Names, PassContext, PassReport
from graphc.passes.graphs import count_ops

# (report name, gc.config.optimizer option, pass function)
PASSES = [
    ("constant_folding", "constant_folding", constant_fold.run),
    ("arithmetic_simplification", "arithmetic_simplification", simplify.run),
    ("cse", "cse", cse.run),
    ("pruning", "pruning", prune.run),
    ("fusion", "fusion", fusion.run),
]


def optimize(graph: Graph, options: dict | None = None) -> tuple[Graph, list[PassReport]]:
    """Run the pipeline on ``graph``; return ``(optimized_graph, report)``.

    ``options`` overrides ``gc.config.optimizer.get_options()`` (same keys). The input
    graph is never modified; when no pass changes anything the same object comes back.
    """
    switches = dict(config.state.optimizer)
    if options:
        switches.update(options)
    check = config.check_passes()
    if check:
        _verify(graph, "the traced graph (before any pass)")
    names = Names()
    names.add_graph(graph)
    report = []
    ops = count_ops(graph)
    for name, option, run in PASSES:
        entry = PassReport(name, option=option, enabled=bool(switches.get(option, True)))
        report.append(entry)
        entry.ops_before = entry.ops_after = ops
        if not entry.enabled:
            continue
        start = perf_counter()
        new = run(graph, PassContext(entry, names))
        entry.seconds = perf_counter() - start
        if new is not graph:
            graph, ops = new, count_ops(new)
            entry.ops_after = ops
        if check:
            _verify(graph, f"pass {name!r}")
    return graph, report


def _verify(graph: Graph, after: str) -> None:
    try:
        verify(graph)
    except VerificationError as e:
        raise VerificationError(f"after {after}: {e}") from None
