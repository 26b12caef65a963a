"""What a traced function's results become: graph outputs, or values kept as they are.

As in ``tf.function``, a tensor, an array, a NumPy scalar and a Python
``bool``/``int``/``float``/``complex`` are graph outputs, so every call returns a tensor
for them. A Python number takes NumPy's dtype (``gnp.asarray``'s: ``3`` is int64,
``3.0`` float64, float32 under ``prefer_float32``), not TensorFlow's int32/float32: a
value computed in Python while tracing comes back exactly (``docs/state.md``). A
``gc.Variable`` is read when the function returns (after its own writes): the call
returns that value, a snapshot later assignments do not change, not the live variable.
``None`` and any other Python object (a string: graphc has no string tensors) are
returned as they are.

A literal stays in the trace's output template, as the Python value (so
``gc.dask.map_blocks`` and saved functions see it as before); each call makes it a new
tensor (``ConcreteFunction._wrap_outputs``).
"""

from __future__ import annotations

import numpy as np

from graphc.core import trace
from graphc.core.tensor import Tensor, _eager, _symbolic
from graphc.dtypes import numpy_literal
from graphc.variables import Variable

_LITERALS = (np.generic, bool, int, float, complex)


def graph_value(ctx, leaf):
    """The graph value ``ctx`` returns for the result ``leaf``, or None when ``leaf`` is
    kept in the function's output template (a literal, None, any other object)."""
    if isinstance(leaf, Variable):
        leaf = leaf.read_value()
    if isinstance(leaf, Tensor):
        return ctx.value_of(leaf)
    if isinstance(leaf, np.ndarray):
        return ctx.constant(leaf)
    return None


def is_literal(leaf) -> bool:
    """Whether a template entry is a number each call returns as a new tensor."""
    return isinstance(leaf, _LITERALS)


def literal_tensor(leaf) -> Tensor:
    """A new tensor for the literal ``leaf`` (tensors are mutable: one per call); a
    constant of the trace when the call is inlined into one."""
    array = np.array(numpy_literal(leaf))
    if trace.active():
        return _symbolic(trace.current().constant(array))
    return _eager(array)
