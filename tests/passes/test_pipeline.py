"""The pipeline: options, the verifier after each pass, reports, explain, the guard."""

import numpy as np
import pytest
from pass_helpers import F32, Aval, build, emit

import graphc as gc
from graphc.core.interpreter import run_graph
from graphc.ir.graph import Graph
from graphc.ir.verify import VerificationError
from graphc.passes import explain_text, format_report, optimize, pipeline
from graphc.passes.context import Names, PassContext, PassReport
from graphc.passes.graphs import make_node
from graphc.passes.rewrite import MAX_SWEEPS, rewrite

X = Aval((4,), F32)


@pytest.fixture
def options():
    saved = gc.config.optimizer.get_options()
    yield gc.config.optimizer
    gc.config.optimizer.set_options(saved)


def every_pass(x):
    y = x * 1.0                               # simplified away
    c = gc.constant(2.0) + gc.constant(3.0)   # folded
    a = gc.exp(y) * c
    b = gc.exp(y) * c                         # merged with a
    gc.gather(x, [7])                         # pruned (would fail: x has 4 elements)
    return gc.sqrt(a + b)                     # exp, mul, add, sqrt: fused


def _concrete():
    return gc.function(every_pass).get_concrete_function(
        gc.constant(np.arange(4, dtype=np.float32)))


def test_every_pass_fires_and_report_reads_well():
    concrete = _concrete()
    optimized, report = optimize(concrete.graph)
    assert [e.name for e in report] == [
        "constant_folding", "arithmetic_simplification", "cse", "pruning", "fusion"]
    assert all(e.changes for e in report)
    assert format_report(report) == """\
optimization passes (names as in the traced graph; new values numbered after it):
  constant_folding           13 -> 13 ops       1 change
      folded %5 = add %3 %4 -> %14 = 5.
  arithmetic_simplification  13 -> 12 ops       1 change
      simplified %2 = multiply %0 %1 by rule mul(x, 1) -> x
  cse                        12 -> 10 ops       2 changes
      merged %8 = exp %0 into %6
      merged %9 = multiply %8 %14 into %7
  pruning                    10 -> 5 ops        2 changes
      pruned %11 = gather %0 %10 axis=0 batch_dims=0 (result unused)
      pruned 4 unused constants %1, %3, %4, %10
  fusion                     5 -> 2 ops         1 change
      fused 4 ops (exp, multiply, add, sqrt) into %13 = fused_elementwise %0 %14
  total                      13 -> 2 ops (-85%)"""
    x = np.arange(4, dtype=np.float32)
    (out,) = run_graph(optimized, [x])
    assert out.tobytes() == np.sqrt(np.exp(x) * 5 * 2).astype(np.float32).tobytes()


def test_explain_text_shows_traced_report_and_optimized():
    concrete = _concrete()
    text_ = explain_text(concrete)
    assert text_.startswith("=== every_pass: traced graph ===\nevery_pass(%0:f32[4]) {")
    assert "optimization passes" in text_
    # the listings name each node's line, as str(graph) does
    assert text_.endswith(str(optimize(concrete.graph)[0]))
    assert "  # test_pipeline.py:" in text_.split("optimization passes")[0]


def test_switched_off_passes_change_nothing(options):
    concrete = _concrete()
    options.set_options({k: False for k in options.get_options()})
    optimized, report = optimize(concrete.graph)
    assert optimized is concrete.graph
    assert not any(e.enabled for e in report)
    assert "off (gc.config.optimizer option 'cse')" in format_report(report)
    options.set_options({"cse": True})
    _, report = optimize(concrete.graph)
    assert [e.name for e in report if e.enabled] == ["cse"]


def test_explicit_options_override_config():
    _, report = optimize(_concrete().graph, {"fusion": False})
    assert [e.enabled for e in report] == [True, True, True, True, False]


def test_verifier_names_the_pass_that_broke_the_graph(monkeypatch):
    def broken(graph, ctx):  # drops every node but keeps the outputs
        return Graph(graph.inputs, [], graph.outputs, name=graph.name,
                     token_in=graph.token_in, token_out=graph.token_out)

    monkeypatch.setattr(pipeline, "PASSES", [("cse", "cse", broken)])
    g = build(lambda c, x: emit(c, "exp", x), X)
    with pytest.raises(VerificationError, match="after pass 'cse'"):
        optimize(g)


def test_unchanged_graph_comes_back_as_is():
    g = build(lambda c, x: emit(c, "exp", x), X)
    assert optimize(g)[0] is g


def test_iteration_guard():
    def forever(node, rw):  # rewrites every exp into a fresh exp, never settling
        if node.op.name == "exp":
            new = make_node(node.op, node.inputs, {}, node.src)
            return rw.add(new), "{node} again"

    g = build(lambda c, x: emit(c, "exp", x), X)
    names = Names()
    names.add_graph(g)
    entry = PassReport("loop")
    out = rewrite(g, PassContext(entry, names), forever)
    assert entry.changes[-1].startswith(f"stopped after {MAX_SWEEPS} sweeps")
    assert [n.op.name for n in out.nodes] == ["exp"]


def test_optimizing_twice_changes_nothing():
    once, _ = optimize(_concrete().graph)
    twice, report = optimize(once)
    assert twice is once and not any(e.changes for e in report)


def test_report_names_are_the_printers():
    from graphc.ir.printer import Namer

    def body(c, x):
        kw = dict(shape=(4,), dtype=F32, low=0.0, high=1.0, seed=None)
        r = emit(c, "random_uniform", **kw)
        return emit(c, "add", emit(c, "exp", x), r)

    g = build(body, X)
    names = Names()
    names.add_graph(g)
    values = [*g.inputs, g.token_in, *(v for n in g.nodes for v in n.outputs)]
    printer = Namer(g)
    assert [names.name(v, "") for v in values] == [printer(v) for v in values]
