"""A ``gc.function`` call under ``gc.config.run_functions_eagerly(True)``.

The body runs as plain Python, on the arguments tracing would give it: every NumPy array
leaf (in lists, tuples, dicts, namedtuples, dataclasses) becomes an eager ``gc.Tensor``
over the same memory (so writes into it reach the caller's array, as a traced call's
write-back does), tensors and ``gc.Variable``s stay what they are, and Python values
(numbers, strings, ``None``, NumPy scalars, other objects) are passed unchanged, as
tracing keeps them. Arguments with an ``input_signature`` spec are checked against it
and converted to its dtype, as the trace of that signature sees them. So code that
works traced (``tape.watch(x)``, ``x.numpy()``, tensor methods) works eagerly too.
"""

from __future__ import annotations

import numpy as np

from graphc import nest
from graphc.core.tensor import _eager
from graphc.functions.call_checks import check_array_argument
from graphc.functions.structured_signature import split_call


def call_eagerly(function, args, kwargs):
    """Run ``function``'s Python body on ``args``/``kwargs`` converted as when traced."""
    bound = function._bind(args, kwargs)  # parameter order, defaults filled in
    if function._sig is not None:  # TypeError, as the traced call raises
        bound = function._sig.convert(bound)
    converted = [_convert(function, param.name, value)
                 for param, value in zip(function._params, bound)]
    pos, kw = split_call(function._params, converted)
    return function._python_function(*pos, **kw)


def _convert(function, name, value):
    leaves, treedef = nest.flatten(value)
    out = []
    for leaf in leaves:
        if isinstance(leaf, np.ndarray):
            check_array_argument(function, name, leaf)  # masked, strings: as when traced
            leaf = _eager(np.asarray(leaf))
        out.append(leaf)
    return nest.unflatten(treedef, out)

