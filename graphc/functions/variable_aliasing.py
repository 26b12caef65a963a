"""Variable arguments that are the same object: a trace made with one variable for two
parameters reads and writes both through one graph input (the body cannot tell them
apart), so it must not serve a call passing two different variables.

Traces are keyed by each variable's dtype and shape only (SPEC 2), so such a call finds
the aliased trace. :func:`traced_pairs` records, when tracing, which variable arguments
were the same; :func:`trace_for_call` gives a call whose variables are not the same
where the trace's were a trace of its own (made once per aliasing pattern and kept on
the aliased trace). The other way round is sound: a trace made with distinct variables
reads and writes each through its own input, in program order, whatever is passed.
"""

from __future__ import annotations

from graphc import nest
from graphc.variables import Variable


def _variables(flat_args) -> list:
    return [x for a in flat_args for x in nest.flatten(a)[0] if isinstance(x, Variable)]


def _pattern(variables) -> tuple:
    """Each variable argument's first position among them: (0, 1, 0) for ``(a, b, a)``."""
    first: dict = {}
    return tuple(first.setdefault(id(v), i) for i, v in enumerate(variables))


def traced_pairs(flat_args):
    """``(i, j)`` pairs of variable arguments that were the same object while tracing
    (None when all are distinct: nothing to check on calls)."""
    pattern = _pattern(_variables(flat_args))
    pairs = tuple((p, j) for j, p in enumerate(pattern) if p != j)
    return pairs or None


def trace_for_call(concrete, flat_args):
    """None when ``concrete`` (traced with aliased variables) serves this call; else the
    trace for the call's own aliasing, traced on first use."""
    variables = _variables(flat_args)
    if all(variables[i] is variables[j] for i, j in concrete._aliases):
        return None
    key = _pattern(variables)
    with concrete._function._traces.trace_lock:  # as Function._lookup traces
        other = concrete._unaliased.get(key)
        if other is None:
            i, j = next((i, j) for i, j in concrete._aliases
                        if variables[i] is not variables[j])
            other = concrete._function._trace(
                flat_args, reason=f"variable arguments {i} and {j} were the same "
                                  "gc.Variable when traced and differ now")
            concrete._unaliased[key] = other
    return other
