"""Graph optimization passes (Grappler-style): folding, CSE, simplification, pruning, fusion.

``optimize(graph) -> (optimized_graph, report)`` runs the pipeline (``pipeline.py``);
``format_report(report)`` and ``explain_text(concrete)`` render what it did. Each pass
module has one job and a ``run(graph, ctx) -> graph``; see docs/passes.md.
"""

from graphc.passes.context import PassReport
from graphc.passes.graphs import inline_graph
from graphc.passes.pipeline import PASSES, optimize
from graphc.passes.report import explain_text, format_report

__all__ = ["PASSES", "PassReport", "explain_text", "format_report", "inline_graph", "optimize"]
