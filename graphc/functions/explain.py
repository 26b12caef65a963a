"""``Function.explain``: for one trace (text), how it runs first (the backend, what falls
back to Python and why, the accelerators it runs on), then the details: the traced
graph, the optimizer's report and the optimized graph, each node with the user's line;
or the HTML report of every trace (``graphc.functions.report``)."""

from __future__ import annotations

from graphc.functions import placement


def explain(function, args, kwargs, format="text", path=None) -> str:
    """See ``Function.explain``."""
    if format != "text":
        from graphc.functions.report import explain_html  # deferred: the report's modules

        return explain_html(function, format, path, args, kwargs)

    from graphc.passes import explain_text  # deferred: the pass pipeline (see concrete.py)

    concrete = function.get_concrete_function(*args, **kwargs)
    details = explain_text(concrete)
    ops = (f"ops: {len(concrete.graph.nodes)} traced, "
           f"{len(concrete.optimized_graph.nodes)} after the optimization passes")
    if function._backend == "numba":
        from graphc.runtime.cpu import numba_cpu  # deferred: the CPU backend loads on first compile

        runtime = concrete.runtime or numba_cpu.executor_for(
            concrete.optimized_graph, warned=function._fallback_warned)
        how = f"{runtime.explain()}\n{ops}" + placement.runtime_text(concrete)
    else:
        how = f"backend: numpy (reference interpreter)\n{ops}"
    text = f"=== runtime ===\n{how}\n\n{details}"  # how it runs first, then the graphs
    print(text)
    return text
