"""What a call of a concrete function checks and holds: arguments against its signature
(``check_matches``, with the descriptions its errors use), plain array arguments, and the
locks of the variables a graph writes (``variable_guard``). Used by ``ConcreteFunction``,
loaded saved graphs and the device placement."""

from __future__ import annotations

import numpy as np

from graphc import nest
from graphc.core.tensor import Tensor
from graphc.dtypes import check_plain_array
from graphc.functions.signature import TensorSpec, leaf_key, shape_compatible
from graphc.ops.state import is_resource
from graphc.variables import VariableSpec, locks_of


def check_array_argument(function, name, array) -> None:
    """A masked, string or object array argument gets eager mode's error, naming it."""
    try:
        check_plain_array(array)
    except TypeError as e:
        raise TypeError(f"gc.function {function.__name__!r}, argument {name!r}: {e}") \
            from None



def variable_guard(graph):
    """``execute -> execute``: for a graph that writes variables, the executor wrapped so
    each call holds the locks of every variable the graph uses (closed over, or passed in
    as a resource argument) until it returns: its reads and writes of them do not
    interleave with other threads' writes. Other graphs' executors are left as they are
    (each read is atomic by itself)."""
    closed, writes, graphs = {}, False, [graph]
    while graphs:
        for node in graphs.pop().nodes:
            name = node.op.name
            if name == "assign_variable":
                writes = True
            elif name == "variable":
                v = node.attrs["ref"].deref()
                closed[id(v)] = v
            graphs.extend(node.subgraphs())
    if not writes:
        return lambda execute: execute
    fixed = list(closed.values())
    static = locks_of(fixed)
    passed = [i for i, v in enumerate(graph.inputs) if is_resource(v.aval)]

    def guard(execute):
        def execute_holding(arrays):
            locks = locks_of(fixed + [arrays[i][()] for i in passed]) if passed else static
            for lock in locks:
                lock.acquire()
            try:
                return execute(arrays)
            finally:
                for lock in reversed(locks):
                    lock.release()
        return execute_holding

    return guard


def check_matches(fn_name, name, spec, value):
    s_leaves, s_td = nest.flatten(spec)
    v_leaves, v_td = nest.flatten(value)
    ok = s_td == v_td and len(s_leaves) == len(v_leaves)
    if ok:
        for s, v in zip(s_leaves, v_leaves):
            if isinstance(s, VariableSpec):
                ok = s.is_compatible_with(v)
            elif isinstance(s, TensorSpec):
                ok = (isinstance(v, Tensor | np.ndarray) and v.dtype == s.dtype
                      and shape_compatible(s.shape, v.shape))
            else:
                ok = leaf_key(s) == leaf_key(v)  # as trace keys compare (NaN, -0.0)
            if not ok:
                break
    if not ok:
        raise TypeError(
            f"{fn_name}: argument '{name}' does not match this concrete function: expected "
            f"{describe_spec(spec)}, got {describe_value(value)}. Call the gc.function itself "
            "to trace a new signature.")


def describe_spec(spec) -> str:
    """A structure of specs as messages show it (``float32 Tensor, shape=(3,)``)."""
    return nest.to_text(spec, _describe_one_spec)


def _describe_one_spec(spec) -> str:
    if isinstance(spec, VariableSpec):
        return f"{spec.dtype.name} gc.Variable, shape={spec.shape}"
    if isinstance(spec, TensorSpec):
        shape = "<unknown>" if spec.shape is None else str(spec.shape)
        return f"{spec.dtype.name} Tensor, shape={shape}"
    return repr(spec)


def describe_value(v) -> str:
    if isinstance(v, Tensor | np.ndarray):
        return f"{v.dtype.name} tensor of shape {tuple(v.shape)}"
    return f"{type(v).__name__} {v!r:.60}"
