"""What a ``ConcreteFunction`` call does around its graph for NumPy's mutation semantics
(``docs/mutation.md``): refuse a call after a write into a captured tensor, and write
the final values of the arguments the function wrote into back into the caller's
arrays (the graph's last outputs, ``ConcreteFunction._writes``)."""

from __future__ import annotations

import numpy as np

from graphc.errors import AliasError
from graphc.ops import inplace


def check_captures(concrete) -> None:
    """Refuse a call after a write into a tensor the trace captured as a constant."""
    for t, snapshot in concrete._captured:
        if not np.array_equal(t._np, snapshot, equal_nan=t.dtype.kind in "fc"):
            raise AliasError(
                f"gc.function {concrete.name!r} uses a tensor from outside the function "
                f"(a captured tensor of shape {t.shape}) that was written into after the "
                "function was traced; graphc captures tensors by their contents when "
                "tracing. Pass the tensor as an argument instead")


def into_arrays(concrete, arrays, outs) -> list:
    """Copy the written arguments' final values into the caller's arrays (an ndarray,
    or a tensor's array); the user's outputs are returned."""
    n = len(outs) - len(concrete._writes)
    for k, value in zip(concrete._writes, outs[n:]):
        target = arrays[k]
        if not isinstance(target, np.ndarray):
            raise TypeError(f"gc.function {concrete.name!r} writes into its argument "
                            f"{argument_name(concrete, k)}, which is on a device: writes "
                            "into device tensors are not supported yet")
        if not target.flags.writeable:
            raise ValueError(f"assignment destination is read-only: gc.function "
                             f"{concrete.name!r} writes into its argument "
                             f"{argument_name(concrete, k)}, a read-only array")
        np.copyto(target, value, casting="unsafe")
    return outs[:n]


def into_tensors(concrete, tensors, outs) -> list:
    """The same for a replayed call: each written argument tensor is written (rebound in
    the caller's trace, or written eagerly where a tape records)."""
    n = len(outs) - len(concrete._writes)
    for k, value in zip(concrete._writes, outs[n:]):
        inplace.check_writable(tensors[k], f"gc.function {concrete.name!r}")
        inplace.store(tensors[k], value)
    return outs[:n]


def argument_name(concrete, k) -> str:
    return repr(concrete.input_names.get(concrete.graph.inputs[k].id, f"#{k}"))
