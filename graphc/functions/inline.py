"""A ``gc.function`` called while another function traces: its body is inlined into
the outer graph (its ops join it), as before, but the call follows the inner function's
own contract, as a nested ``tf.function`` call does in TensorFlow 2.21:

* its ``input_signature`` binds and converts the arguments (a tensor of another dtype
  raises ``TypeError``; Python values become tensors of the spec's dtype);
* each new trace key counts as one of its traces (``experimental_get_tracing_count``,
  ``retrace_reasons``), so its tracing can be watched like a top-level call's; no
  ``ConcreteFunction`` is kept for it (its ops are in the outer graph);
* a ``gc.Variable`` it returns is read when it returns, as a top-level call's result
  is (``outputs.py``): ``assign()`` then ``assign_add()`` in the caller gives 1, 2, not
  the final value twice.
"""

from __future__ import annotations

from graphc import nest
from graphc.functions import eager_call
from graphc.functions.signature import structure_key
from graphc.functions.structured_signature import split_call
from graphc.variables import Variable

MAX_KEYS = 128  # inlined trace keys remembered per function (then counted afresh)


def call_inlined(function, args, kwargs):
    """Run ``function``'s converted body on the call's arguments, in the open trace."""
    bound = function._bind(args, kwargs)
    if function._sig is not None:
        bound = function._sig.convert(bound)
        bound = tuple(eager_call._convert(function, p.name, v)  # arrays -> tensors
                      for p, v in zip(function._params, bound))
    try:
        key = tuple(map(structure_key, bound))
        hash(key)
    except TypeError:
        key = None
    seen = function._inlined_keys
    if key is not None and key not in seen and function._traces.get(key) is None:
        if len(seen) >= MAX_KEYS:
            seen.clear()
        seen.add(key)
        with function._traces.trace_lock:
            function.tracing_count += 1
            function.retrace_reasons.append("inlined into another gc.function's trace")
    pos, kw = split_call(function._params, bound)
    result = function._converted()(*pos, **kw)
    return nest.map_structure(_snapshot, result)


def _snapshot(leaf):
    return leaf.read_value() if isinstance(leaf, Variable) else leaf
