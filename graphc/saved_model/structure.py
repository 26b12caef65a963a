"""Signature structures in the saved-graph JSON: argument specs and output nests.

A structure is a nest of ``{"list": [...]}``, ``{"tuple": [...]}``, ``{"dict": [[key,
value], ...]}`` (string keys) around leaves: ``{"tensor_spec": {"shape", "dtype",
"name"}}``, ``{"variable_spec": {...}}``, ``{"output": k}`` (the k-th graph output, in
output structures) and Python constants by the attr table (null, bools, ints, strings,
``{"float": hex}``). Namedtuples, dataclasses and other types refuse to save.
"""

from __future__ import annotations

from graphc.core.spec import TensorSpec
from graphc.errors import SavedModelError
from graphc.saved_model import schema
from graphc.variables import VariableSpec


class Output:
    """Marks the k-th graph output inside an output structure."""

    __slots__ = ("k",)

    def __init__(self, k):
        self.k = k


def encode(x, where: str):
    t = type(x)
    if t is list or t is tuple:
        return {t.__name__: [encode(v, where) for v in x]}
    if t is dict:
        if not all(type(k) is str for k in x):
            raise SavedModelError(f"{where}: only dicts with string keys can be saved")
        return {"dict": [[k, encode(x[k], where)] for k in sorted(x)]}
    if t is TensorSpec or t is VariableSpec:
        tag = "tensor_spec" if t is TensorSpec else "variable_spec"
        return {tag: {"shape": None if x.shape is None else list(x.shape),
                      "dtype": x.dtype.name, "name": x.name if type(x.name) is str else None}}
    if t is Output:
        return {"output": x.k}
    if x is None or t in (bool, int, str, float):
        return schema.encode_attr(x, None, where)
    raise SavedModelError(f"{where}: a {t.__qualname__} in a signature cannot be saved "
                          "(tensors, lists, tuples, string-keyed dicts and Python numbers, "
                          "strings, bools and None can)")


def decode(data, where: str, n_outputs: int | None = None, depth: int = 0):
    """The structure for ``data``; ``{"output": k}`` leaves become :class:`Output` (only
    when ``n_outputs`` is given, with ``0 <= k < n_outputs``)."""
    if depth > 64:
        raise SavedModelError(f"{where}: structure nested more than 64 deep")
    if type(data) is not dict or len(data) != 1:
        return schema.decode_attr(data, schema.NO_REFS, where)
    (tag, payload), = data.items()
    if tag in ("list", "tuple"):
        if type(payload) is not list:
            raise SavedModelError(f"{where}: {tag} needs a JSON list")
        items = [decode(v, where, n_outputs, depth + 1) for v in payload]
        return items if tag == "list" else tuple(items)
    if tag == "dict":
        if type(payload) is not list or not all(
                type(p) is list and len(p) == 2 and type(p[0]) is str for p in payload):
            raise SavedModelError(f"{where}: dict needs [[string key, value], ...]")
        return {k: decode(v, where, n_outputs, depth + 1) for k, v in payload}
    if tag in ("tensor_spec", "variable_spec"):
        if type(payload) is not dict or set(payload) != {"shape", "dtype", "name"}:
            raise SavedModelError(f"{where}: {tag} needs exactly shape, dtype, name")
        name = payload["name"]
        if name is not None and type(name) is not str:
            raise SavedModelError(f"{where}: {tag} name must be a string or null")
        shape = schema.shape(payload["shape"], where)
        dtype = schema.dtype(payload["dtype"], where)
        if tag == "tensor_spec":
            return TensorSpec(shape, dtype, name)
        if shape is None or None in shape:
            raise SavedModelError(f"{where}: a variable_spec needs a fully known shape")
        return VariableSpec(shape, dtype, name)
    if tag == "output":
        if n_outputs is None or type(payload) is not int or not 0 <= payload < n_outputs:
            raise SavedModelError(f"{where}: output reference {payload!r} is not one of the "
                                  "graph's outputs")
        return Output(payload)
    return schema.decode_attr(data, schema.NO_REFS, where)
