"""What a Dask task calls: a graph shipped as wire JSON, run by a per-process cache.

A :class:`GraphProgram` pickles as its wire form only (``__reduce__``: JSON text and
constant arrays), never as a closure. Each process keeps one executor per graph hash
(:data:`_executors`): the first call in a process builds the graph from the text and
compiles it once per block signature (``compiled=True``: block graphs, specialized to
the blocks' shapes and optimized again, :mod:`graphc.passes.specialize`) through the
normal program cache, or runs
it on the interpreter (``compiled=False``: the tiny combine graphs, whose shapes vary with
the tree); later calls, from any thread, reuse it. :func:`stats` counts the builds.
"""

from __future__ import annotations

import threading

import numpy as np

from graphc.core.interpreter import run_graph
from graphc.dask import wire
from graphc.passes.specialize import for_shapes

_executors: dict = {}       # (graph hash, block shapes) -> executor (arrays -> list)
_builds: dict = {}          # the same keys -> times this process built it (1: cached)
_lock = threading.Lock()    # one build per hash, however many threads ask at once


class GraphProgram:
    """``program(*blocks, **ignored) -> array or tuple``: one graph, called per block.

    ``single``: return the one output itself (Dask's functions expect an array)."""

    def __init__(self, graph=None, compiled=True, single=True, text=None, arrays=None):
        if text is None:
            text, arrays = wire.dumps(graph)
        self.text, self.arrays = text, arrays
        self.key = wire.digest(text, arrays)
        self.compiled, self.single = compiled, single
        self._graph = graph

    def __reduce__(self):
        return (_from_wire, (self.text, self.arrays, self.compiled, self.single))

    def __dask_tokenize__(self):
        return ("graphc.dask.GraphProgram", self.key, self.compiled, self.single)

    def __repr__(self):
        return f"<graphc GraphProgram {self.key[:12]}>"

    def __call__(self, *blocks, **_dask_kwargs):  # da.reduction passes axis=, keepdims=
        arrays = [np.asarray(b) for b in blocks]
        key = (self.key, tuple(a.shape for a in arrays)) if self.compiled else self.key
        run = _executors.get(key)
        if run is None:
            run = self._build(key)
        outs = run(arrays)
        return outs[0] if self.single else tuple(outs)

    def _build(self, key):
        with _lock:
            run = _executors.get(key)
            if run is not None:
                return run
            if self._graph is None:
                self._graph = wire.loads(self.text, self.arrays)
            if self.compiled:  # one program per block signature, fused for its shapes
                run = _executor(for_shapes(self._graph, key[1]), True)
            else:
                run = _executor(self._graph, False)
            _executors[key] = run
            _builds[key] = _builds.get(key, 0) + 1
            return run


def _from_wire(text, arrays, compiled, single):
    return GraphProgram(text=text, arrays=arrays, compiled=compiled, single=single)


def _executor(graph, compiled):
    if not compiled:
        return lambda arrays: run_graph(graph, arrays)
    from graphc.runtime.cpu import numba_cpu  # deferred: the CPU backend loads on first compile
    from graphc.runtime.cpu.parallel import parallel_settings  # deferred: as numba_cpu

    # Dask already runs blocks in parallel: a block program's loops stay serial (a
    # prange inside each block would start a thread pool per task and oversubscribe the
    # cores). The program's source is generated here and now, by this thread.
    with parallel_settings.serial():
        ex = numba_cpu.executor_for(graph)
    if isinstance(ex, numba_cpu.Executor) and ex.backend != "numba" and not ex.reasons:
        ex.compile_now()  # compile now: every block after the first runs compiled
    return ex


def stats() -> dict:
    """This process's program builds: ``{(graph hash, block shapes) or graph hash:
    builds}`` (each is 1: built once per block signature)."""
    with _lock:
        return dict(_builds)


def backends() -> dict:
    """``{key: "numba" | "numpy"}``: how each program built here runs (keys as
    :func:`stats`)."""
    with _lock:
        return {k: getattr(ex, "backend", "numpy") for k, ex in _executors.items()}
