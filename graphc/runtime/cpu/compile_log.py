"""Compile logging: what the ``graphc`` logger says about Numba compiles.

* INFO when a program starts compiling (the function, its ops, the generated lines) and
  when it is ready (seconds, from the disk cache or compiled), or failed;
* once per compile of a large graph (``LARGE_GRAPH_OPS`` ops or more, control-flow bodies
  included) a WARNING, shown even with logging unconfigured, that says the compile may
  take long and why the graph is large: the user line that the most ops were traced at,
  typically the body of a Python loop AutoGraph unrolled.

Turn the INFO messages on with ``logging.getLogger("graphc").setLevel(logging.INFO)``
(and a handler, e.g. ``logging.basicConfig()``).
"""

from __future__ import annotations

import collections
import logging
import time

log = logging.getLogger("graphc")

LARGE_GRAPH_OPS = 500  # ops (bodies included) from which a compile is "large" (~7 s and up)


def _ops(graph, by_line: collections.Counter) -> int:
    n = 0
    for node in graph.nodes:
        n += 1
        if node.src:
            by_line[node.src] += 1
        for sub in node.subgraphs():
            n += _ops(sub, by_line)
    return n


def started(graph, program, background: bool) -> float:
    """Log the start of a compile; returns its start time for :func:`finished`."""
    by_line: collections.Counter = collections.Counter()
    n = _ops(graph, by_line)
    lines = program.source.count("\n") if program is not None else 0
    log.info("compiling gc.function %r%s: %d ops, %d lines of generated code",
             graph.name, " in the background" if background else "", n, lines)
    if n >= LARGE_GRAPH_OPS:
        log.warning("%s", large_graph_text(graph.name, n, by_line, background))
    return time.perf_counter()


def large_graph_text(name: str, n: int, by_line: collections.Counter,
                     background: bool = False) -> str:
    """Why a graph of ``n`` ops is large, in the user's terms."""
    meanwhile = " (calls run on the NumPy interpreter meanwhile)" if background else ""
    text = (f"gc.function {name!r} is a large graph ({n} ops): compiling it may take a "
            f"minute or more{meanwhile}.")
    if by_line:
        where, count = by_line.most_common(1)[0]
        if count >= n // 4:
            text += (f" {count} of its ops were traced at {where}: a line traced many "
                     "times, such as the body of a Python loop AutoGraph unrolled (a loop "
                     "over a Python range or list). Loop over gc.range(n) or a tensor to "
                     "make it one graph loop.")
    return text


def finished(graph, t0: float, origin: str | None, ok: bool) -> None:
    """Log the end of a compile started at ``t0``."""
    seconds = time.perf_counter() - t0
    if ok:
        log.info("gc.function %r compiled in %.2f s (%s)", graph.name, seconds,
                 "loaded from the disk cache" if origin == "disk" else "compiled")
    else:
        log.info("gc.function %r failed to compile after %.2f s (it runs on the NumPy "
                 "interpreter; the FallbackWarning says why)", graph.name, seconds)
