"""``Function.explain``: the optimizer's report and the runtime's for one trace (text),
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
    text = explain_text(concrete)
    if function._backend == "numba":
        from graphc.runtime.cpu import numba_cpu  # deferred: the CPU backend loads on first compile

        runtime = concrete.runtime or numba_cpu.executor_for(
            concrete.optimized_graph, warned=function._fallback_warned)
        text += "\n\n=== runtime ===\n" + runtime.explain()
        text += placement.runtime_text(concrete)  # on accelerators, if any
    else:
        text += "\n\n=== runtime ===\nbackend: numpy (reference interpreter)"
    print(text)
    return text
