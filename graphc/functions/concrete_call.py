"""How a ``ConcreteFunction`` call binds its arguments (TensorFlow 2.21's rules).

Two forms are accepted, the structured one tried first:

* **structured**: as the Python function is called (positionally or by parameter name;
  a parameter whose spec is one ``gc.TensorSpec`` with a name of its own may also be
  passed by that name). Parameters bound to Python values when the concrete function
  was made may be left out: they keep those values (they are constants of the trace).
* **flat**: the tensors alone, in the order of the signature's tensor leaves
  (``cf(a0, a1, b)`` for ``f(xs=[a0, a1], y=b)``), positionally or by each leaf's spec
  name; only tensors (arrays, variables), no Python numbers.

A parameter with a tensor in its spec must be given, even when the Python function has
a default for it.

Python numbers and lists given for a tensor are converted to the spec's dtype when
NumPy casts them ``same_kind``, as ``tf.function`` converts them; tensors and arrays
must already have it. What does not fit raises ``TypeError`` (``call_checks``).
"""

from __future__ import annotations

import numpy as np

from graphc import nest
from graphc.core.tensor import Tensor
from graphc.functions.call_checks import check_matches, describe_spec
from graphc.functions.signature import TensorSpec
from graphc.variables import VariableSpec


def _tensor_leaf(s) -> bool:
    return isinstance(s, TensorSpec | VariableSpec)


def _has_tensor(spec) -> bool:
    return any(_tensor_leaf(s) for s in nest.flatten(spec)[0])


def bind(concrete, args, kwargs) -> tuple:
    """The call's arguments in parameter order, converted and checked against
    ``concrete``'s signature; ``TypeError`` when neither form fits."""
    try:
        return _checked(concrete, _structured(concrete, args, kwargs))
    except TypeError as structured_error:
        flat = _flat(concrete, args, kwargs)
        if flat is None:
            raise
        try:
            return _checked(concrete, flat)
        except TypeError:
            raise structured_error from None


def _checked(concrete, values) -> tuple:
    out = []
    for name, spec, value in zip(concrete._names, concrete._structured, values):
        value = _convert(spec, value)
        check_matches(concrete.name, name, spec, value)
        out.append(value)
    return tuple(out)


def _structured(concrete, args, kwargs) -> list:
    fn = concrete._function
    params = fn._params
    names = {p.name for p in params}
    renamed = {}
    for p, spec in zip(params, concrete._structured):  # a spec's own name, for its param
        if isinstance(spec, TensorSpec) and spec.name and spec.name not in names:
            renamed[spec.name] = p.name
    kwargs = {renamed.get(k, k): v for k, v in kwargs.items()}
    try:
        bound = fn._signature.bind_partial(*args, **kwargs)
    except TypeError as e:
        raise TypeError(f"{concrete.name}(): {e}") from None
    values = []
    for p, spec in zip(params, concrete._structured):
        if p.name in bound.arguments:
            values.append(bound.arguments[p.name])
        elif not _has_tensor(spec):  # a Python value bound when the trace was made
            values.append(spec)
        else:  # a tensor parameter must be given, default or not (as in TensorFlow)
            raise TypeError(f"{concrete.name}(): missing a required argument: "
                            f"{p.name!r} ({describe_spec(spec)})")
    return values


def _flat(concrete, args, kwargs):
    """The values for the flat form, or None when the call does not have its shape."""
    slots, names = [], {}
    for p, spec in zip(concrete._function._params, concrete._structured):
        leaves = nest.flatten(spec)[0]
        for leaf in leaves:
            if _tensor_leaf(leaf):
                if isinstance(leaf, TensorSpec) and leaf.name:
                    names.setdefault(leaf.name, len(slots))
                if len(leaves) == 1:
                    names.setdefault(p.name, len(slots))
                slots.append(leaf)
    if len(args) > len(slots) or any(k not in names for k in kwargs):
        return None
    if not all(map(_is_tensor, (*args, *kwargs.values()))):
        return None  # the flat form takes tensors only (Python numbers: structured)
    given = dict(enumerate(args))
    for k, v in kwargs.items():
        if names[k] in given:
            return None
        given[names[k]] = v
    if len(given) != len(slots):
        return None
    it = iter(given[i] for i in range(len(slots)))
    values = []
    for spec in concrete._structured:
        leaves, td = nest.flatten(spec)
        values.append(nest.unflatten(td, [next(it) if _tensor_leaf(x) else x
                                          for x in leaves]))
    return values


def _is_tensor(value) -> bool:
    return isinstance(value, Tensor | np.ndarray) or getattr(
        value, "_graphc_handle", None) is not None


def _convert(spec, value):
    """Python numbers and lists where ``spec`` has a tensor: arrays of its dtype."""
    if isinstance(spec, VariableSpec):
        return value
    if isinstance(spec, TensorSpec):
        if isinstance(value, Tensor | np.ndarray) or getattr(value, "_graphc_handle", None) \
                is not None:
            return value
        try:
            arr = np.asarray(value)
        except Exception:  # noqa: BLE001 (ragged lists and the like: check_matches says)
            return value
        if arr.dtype.kind in "OUSV" or not np.can_cast(arr.dtype, spec.dtype, "same_kind"):
            return value
        return np.asarray(arr, dtype=spec.dtype)
    if isinstance(spec, dict) and isinstance(value, dict) and set(spec) == set(value):
        return {k: _convert(spec[k], value[k]) for k in spec}
    if isinstance(spec, list | tuple) and type(value) is type(spec) and len(spec) == len(
            value):
        items = [_convert(s, v) for s, v in zip(spec, value)]
        return type(spec)(*items) if hasattr(type(spec), "_fields") else type(spec)(items)
    return value



def captured_variables(graph, trainable_only=False) -> tuple:
    """The ``gc.Variable``s ``graph`` (and its branch and loop bodies) closes over, in
    the order their ``variable`` nodes appear (``ConcreteFunction.variables``)."""
    found, graphs = {}, [graph]
    while graphs:
        for node in graphs.pop(0).nodes:
            if node.op.name == "variable":
                v = node.attrs["ref"].deref()
                if v is not None and (v.trainable or not trainable_only):
                    found.setdefault(id(v), v)
            graphs.extend(node.subgraphs())
    return tuple(found.values())
