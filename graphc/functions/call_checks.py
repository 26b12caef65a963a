"""What a call of a concrete function checks and holds: arguments against its signature
(``check_matches``, with the descriptions its errors use), plain array arguments, what
the traced body did with its arguments and result (``check_unmodified``,
``check_not_lazy``), and the locks of the variables a graph writes (``variable_guard``).
Used by ``ConcreteFunction``, loaded saved graphs and the device placement."""

from __future__ import annotations

import types

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



def snapshot_arguments(values) -> list:
    """What :func:`check_unmodified` compares: each argument's structure and leaves."""
    return [nest.flatten(v) for v in values]


def check_unmodified(fn_name, names, values, snapshot) -> None:
    """``ValueError`` (as TensorFlow raises) when the traced body changed a list, dict
    or other structure it was given: the change would happen once, while tracing,
    not on every call. The body gets copies of the structures, so the caller's own
    objects are never touched."""
    changed = [name for name, v, (leaves, td) in zip(names, values, snapshot)
               if _changed(v, leaves, td)]
    if changed:
        raise ValueError(
            f"gc.function {fn_name!r} modified its argument(s) {', '.join(changed)} "
            "(a list, dict or other structure): that change would happen only while "
            "tracing, not on every call. Modify a copy (list(x), dict(x)) and return it")


def _changed(value, leaves, td) -> bool:
    now, now_td = nest.flatten(value)
    return now_td != td or len(now) != len(leaves) or any(
        a is not b for a, b in zip(now, leaves))


def check_not_lazy(function, python_fn, result) -> None:
    """A generator or coroutine cannot be traced: its body runs later, outside the trace
    (the graph would be empty and its tensors escape): say so at the call."""
    if not isinstance(result, types.GeneratorType | types.CoroutineType
                      | types.AsyncGeneratorType):
        return
    what = {types.GeneratorType: "a generator", types.CoroutineType: "a coroutine",
            types.AsyncGeneratorType: "an async generator"}[type(result)]
    if hasattr(result, "close"):
        result.close()
    code = getattr(getattr(python_fn, "__func__", python_fn), "__code__", None)
    where = f" (defined at {code.co_filename}:{code.co_firstlineno})" if code else ""
    raise TypeError(
        f"gc.function {function.__name__!r}{where} returned {what}: a traced function must "
        "compute its results when called. Return a tuple or list of tensors (or "
        "gc.stack them) instead of yielding them, or call a generator inside the "
        "function and collect what it yields")


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
