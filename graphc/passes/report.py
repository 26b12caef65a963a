"""Readable pass reports: what each pass folded, merged, simplified, pruned and fused.

``format_report(report)`` renders ``concrete.pass_report``; ``explain_text(concrete)``
puts it between the traced and the optimized graph listings, which is what
``fn.explain(*args)`` prints. Value names in the report are those of the traced listing
(``print(concrete.graph)``), which is shown first; values created by passes are numbered
after the traced ones.
"""

from __future__ import annotations

from graphc.ir.printer import format_graph
from graphc.passes.context import PassReport
from graphc.passes.pipeline import optimize

MAX_LINES = 20  # changes listed per pass before "... and N more"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.2f} ms"


def format_report(report: list[PassReport], max_lines: int = MAX_LINES,
                  timings: bool = False) -> str:
    """The report as text: one header line per pass, then its changes.

    ``max_lines`` caps the changes listed per pass (``None`` lists all); ``timings``
    adds each pass's time (off by default so the text is reproducible).

    >>> print(format_report(concrete.pass_report))      # doctest: +SKIP
    optimization passes (names as in the traced graph):
      constant_folding           5 -> 4 ops   1 change
        folded %2 = add %0 %1 -> 3.0
      ...
    """
    if not report:
        return "optimization passes: none ran"
    width = max(len(e.name) for e in report)
    lines = ["optimization passes (names as in the traced graph; new values numbered "
             "after it):"]
    for e in report:
        head = f"  {e.name.ljust(width)}  "
        if not e.enabled:
            lines.append(f"{head}off (gc.config.optimizer option {e.option!r})")
            continue
        count = f"{e.ops_before} -> {e.ops_after} ops"
        changes = _plural(len(e.changes), "change") if e.changes else "no changes"
        extra = f"   {_ms(e.seconds)}" if timings else ""
        lines.append(f"{head}{count:<18} {changes}{extra}")
        shown = e.changes if max_lines is None else e.changes[:max_lines]
        lines.extend(f"      {c}" for c in shown)
        if len(shown) < len(e.changes):
            lines.append(f"      ... and {len(e.changes) - len(shown)} more")
    ran = [e for e in report if e.enabled]
    if ran:
        before, after = report[0].ops_before, report[-1].ops_after
        pct = f" ({(after - before) / before:+.0%})" if before else ""
        total = f"  {'total'.ljust(width)}  {before} -> {after} ops{pct}"
        if timings:
            total += f"   {_ms(sum(e.seconds for e in ran))}"
        lines.append(total)
    return "\n".join(lines)


def explain_text(concrete, optimized=None, report=None, max_lines: int = MAX_LINES) -> str:
    """The traced graph, the pass report and the optimized graph of ``concrete``, each
    node with the user's line it was traced at (``# file.py:12``).

    Uses ``concrete.optimized_graph`` / ``concrete.pass_report`` when the function has
    them; otherwise (or when ``optimized``/``report`` are not given) runs the pipeline.
    """
    if optimized is None or report is None:
        optimized = getattr(concrete, "optimized_graph", None)
        report = getattr(concrete, "pass_report", None)
        if not report or optimized is None:
            optimized, report = optimize(concrete.graph)
    name = getattr(concrete, "name", concrete.graph.name)
    parts = [
        f"=== {name}: traced graph ===",
        format_graph(concrete.graph, show_src=True),
        "",
        format_report(report, max_lines=max_lines),
        "",
        f"=== {name}: optimized graph ===",
        format_graph(optimized, show_src=True),
    ]
    return "\n".join(parts)
