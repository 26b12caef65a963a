"""On-stack replacement for loops: a ``while_loop`` the interpreter is running hands its
state to a compiled program of the loop alone, once that program is ready.

A function called once never reaches the compile policy's ``compile_after`` calls, so a
long loop in it used to run wholly on the interpreter (200,000 iterations of a small
body: ~14 s against Numba's 4 s compile included). Now the interpreter's ``while_loop``
(``ops/control/flow._while_ref``, through ``hooks.loop_handover``) asks for a handover
after ``HANDOVER_AFTER`` iterations (64): this module builds a graph of just that loop
(its carried values and captured operands as inputs, one ``while_loop`` node), queues
its compile on the background worker like any program (``numba_cpu.Executor``), and the
interpreter keeps iterating meanwhile. At each iteration after that it checks whether
the program is ready; the first time it is, the program runs the remaining iterations
from the current state and the interpreter returns its results. The loop state is
explicit (the node's operands), so nothing else has to be transferred. A short loop
never asks (no compile for nothing), and a loop whose graph cannot compile (effects,
dtypes the backend lacks) keeps running on the interpreter: the call is never slower
than the interpreter by more than one program generation.

The loop program is keyed by the body graph, so every later call (and every trace
sharing that body) finds it compiled; it is cached on disk like every program.
"""

from __future__ import annotations

import threading
import weakref

from graphc.core.registry import get as get_op
from graphc.ir.graph import FrozenAttrs, Graph, Node, Value
from graphc.runtime.cpu.settings import setting

_programs: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_lock = threading.Lock()
handovers = 0  # loops handed over in this process (tests, explain)


def start(cond, body):
    """``finish(arrays) -> results or None`` for ``while_loop(cond, body)``: its compiled
    program, queued now, runs the rest of the loop from ``arrays`` once it is ready
    (None before); None when the loop will not compile (effects, unsupported ops, a
    compile policy other than lazy: eagerly the whole graph compiled already)."""
    if setting("mode") != "lazy":
        return None
    with _lock:
        hit = _programs.get(body)
    if hit is None or hit[0] is not cond:
        executor = None
        if not _has_effects(cond) and not _has_effects(body):
            executor = _build(cond, body)
        hit = (cond, executor)
        with _lock:
            _programs[body] = hit
    executor = hit[1]
    return None if executor is None else (lambda arrays: _finish(executor, arrays))


def _has_effects(graph) -> bool:
    """Whether ``graph`` (or a graph inside it) threads effects (prints, variables,
    random draws): those stay on the interpreter, in program order."""
    if any(v.aval.is_token or v.aval.dtype is None for v in graph.inputs):
        return True
    for node in graph.nodes:
        if any(v.aval.is_token for v in (*node.inputs, *node.outputs)):
            return True
        if any(_has_effects(g) for g in node.subgraphs()):
            return True
    return False


def _build(cond, body):
    from graphc.runtime.cpu import numba_cpu  # deferred: numba_cpu imports the CPU backend

    n = len(body.outputs)
    inputs = [Value(v.aval) for v in body.inputs]
    outputs = [Value(v.aval) for v in body.inputs[:n]]
    node = Node(get_op("while_loop"), inputs, FrozenAttrs({"cond": cond, "body": body}),
                outputs)
    graph = Graph(inputs, [node], outputs, name=f"{body.name}_loop")
    executor = numba_cpu.Executor(graph, warn=False)
    if executor.program is None or executor.reasons:
        return None
    executor.start_compile()
    return executor


def _finish(executor, arrays):
    global handovers
    if executor.backend != "numba":
        return None
    handovers += 1
    return executor(arrays)
