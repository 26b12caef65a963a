"""``TensorSpec`` names in ``get_concrete_function``, as in TensorFlow 2.21.

A spec's name is not part of the trace key: calls never retrace for it, and a spec
without a name is served by whatever trace fits. But asking for a concrete function
with *named* specs whose names differ from those of the trace that would serve it traces
anew, so that the concrete function returned takes its arguments by those names
(``cf(first_mat=..., second_mat=...)``) and lists them in
``structured_input_signature``. The same names again return the same trace
(``TraceCache.named``); calls of the ``gc.function`` keep using the first one.
"""

from __future__ import annotations

from graphc import nest
from graphc.functions.signature import TensorSpec


def _names(values) -> tuple:
    """The name of each ``TensorSpec`` leaf of ``values`` (None for other leaves)."""
    return tuple(leaf.name if isinstance(leaf, TensorSpec) else None
                 for leaf in nest.flatten(list(values))[0])


def named_trace(function, concrete, key, args):
    """``concrete``, or the trace for ``args`` under their spec names when ``concrete``
    has other names there (traced on first request, then kept)."""
    wanted = _names(args)
    if not any(wanted):
        return concrete
    have = _names(concrete._structured)
    if len(have) == len(wanted) and all(w is None or w == h for w, h in zip(wanted, have)):
        return concrete
    named = function._traces.named
    found = named.get((key, wanted))
    if found is None:
        with function._traces.trace_lock:
            found = named.get((key, wanted))
            if found is None:
                found = named[(key, wanted)] = function._trace(
                    args, reason="get_concrete_function with new TensorSpec names")
    return found
