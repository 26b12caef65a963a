"""``gc.saved_model.save``: graphs to JSON by the attr table, arrays to ``.npz``.

The directory holds ``graph.json`` (the schema of :mod:`graphc.saved_model.schema`),
``constants.npz`` (``const`` node values), ``variables.npz`` (variable values) and
``manifest.json`` (format, version and the sha256 and size of every other file).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import types

import numpy as np

from graphc import nest
from graphc.errors import SavedModelError
from graphc.functions.concrete import _TENSOR, ConcreteFunction
from graphc.functions.function import Function
from graphc.saved_model import schema, structure
from graphc.variables import Variable

FILES = ("graph.json", "constants.npz", "variables.npz")
CALLBACK_OPS = frozenset({"py_function", "numpy_function", "stateless_numpy_function"})


def save(obj, path, signatures=None) -> None:
    """Save ``obj``'s traced graphs (and the variables they use) to directory ``path``.

    ``obj``: a ``gc.function`` (every trace so far, or its ``input_signature``), a
    ``ConcreteFunction``, or an object whose attributes hold ``gc.function``s and
    ``gc.Variable``s. ``signatures``: a concrete function, or a dict name -> concrete
    function, ``gc.function`` or ``(gc.function, spec, ...)``; these replace the traces.

    >>> gc.saved_model.save(f, "saved/f")     # doctest: +SKIP
    """
    doc, constants, variables = document(obj, signatures)
    blobs = {
        "graph.json": to_json(doc).encode(),
        "constants.npz": _npz(constants),
        "variables.npz": _npz(variables),
    }
    os.makedirs(path, exist_ok=True)
    manifest = {"format": schema.FORMAT, "version": list(schema.VERSION), "files": {}}
    for name in FILES:
        data = blobs[name]
        with open(os.path.join(path, name), "wb") as f:
            f.write(data)
        manifest["files"][name] = {"sha256": hashlib.sha256(data).hexdigest(),
                                   "size": len(data)}
    with open(os.path.join(path, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)


def document(obj, signatures=None) -> tuple:
    """``(graph.json document, {constant name: array}, {variable key: array})`` for
    ``obj`` and ``signatures`` as :func:`save` takes them (no files written)."""
    functions, extra_variables = _collect(obj, signatures)
    writer = _Writer()
    sigs = {}
    for pyname, named in functions.items():
        for sig_name, concrete in named:
            if sig_name in sigs:
                raise SavedModelError(f"signature name {sig_name!r} is used twice")
            sigs[sig_name] = writer.signature(pyname, sig_name, concrete)
    for attr, var in extra_variables.items():
        index = writer.variable(var)
        writer.named_variables[attr] = index
    doc = {
        "format": schema.FORMAT, "version": list(schema.VERSION),
        "graphs": writer.graphs, "signatures": sigs,
        "functions": {name: [s for s, _ in named] for name, named in functions.items()},
        "variables": writer.variable_entries(), "object_variables": writer.named_variables,
    }
    constants = dict(writer.refs.constants.values())
    variables = {f"v{i}": _value(v) for i, v in writer.refs.variables.values()}
    return doc, constants, variables


def to_json(doc) -> str:
    return json.dumps(doc, indent=1, allow_nan=False)


# --------------------------------------------------------------------------- what to save
def _collect(obj, signatures):
    """``({python name: [(signature name, concrete)]}, {attr: Variable})``."""
    if signatures is not None:
        if isinstance(signatures, ConcreteFunction):
            signatures = {"serving_default": signatures}
        if not isinstance(signatures, dict):
            raise TypeError("signatures= must be a ConcreteFunction or a dict name -> "
                            "concrete function / gc.function / (gc.function, *specs)")
        functions: dict = {}
        for name, target in signatures.items():
            if isinstance(target, tuple) and target and isinstance(target[0], Function):
                concretes = [target[0].get_concrete_function(*target[1:])]
            else:
                concretes = _traces(target, str(name))
            for i, c in enumerate(concretes):
                key = str(name) if len(concretes) == 1 else f"{name}_{i}"
                functions.setdefault(c.name, []).append((key, c))
        return functions, {}
    if isinstance(obj, ConcreteFunction):
        return {obj.name: [(obj.name, obj)]}, {}
    if isinstance(obj, Function):
        return _named(obj.__name__, obj), {}
    functions, variables = {}, {}
    _members(obj, "", functions, variables, {id(obj)})  # (its ancestors: no cycles)
    if not functions:
        raise TypeError(f"gc.saved_model.save: {type(obj).__name__} holds no gc.function "
                        "to save (pass a gc.function, a concrete function or signatures=)")
    return functions, variables


MAX_DEPTH = 8  # sub-object levels saved (a layer of a block of a model ...)


def _members(obj, prefix, functions, variables, ancestors) -> None:
    """``obj``'s ``gc.function``s and ``gc.Variable``s by dotted path (``"l1.w"``), its
    sub-objects' too (instance attributes holding plain user objects, as ``tf.Module``
    tracks submodules). A sub-object held by two attributes is saved under both (its
    variables once: they are shared); one that is its own ancestor (a cycle) is not
    walked again."""
    names = sorted(set(dir(type(obj))) | set(getattr(obj, "__dict__", {})))
    for attr in names:
        if attr.startswith("__") and attr != "__call__":  # tf.Module's __call__ is saved
            continue
        try:
            value = getattr(obj, attr)
        except Exception:  # noqa: BLE001 - a property that raises holds nothing to save
            continue
        if isinstance(value, Function):
            functions.update(_named(prefix + attr, value))
        elif isinstance(value, Variable):
            variables[prefix + attr] = value
        elif attr in getattr(obj, "__dict__", {}) and _sub_object(value) \
                and id(value) not in ancestors and prefix.count(".") < MAX_DEPTH:
            _members(value, f"{prefix}{attr}.", functions, variables,
                     ancestors | {id(value)})


def _sub_object(value) -> bool:
    """A user object that may hold functions and variables (not a class, a module, a
    function or a library's value)."""
    kind = type(value)
    return hasattr(value, "__dict__") and not isinstance(
        value, type | types.ModuleType | types.FunctionType | types.MethodType) and \
        kind.__module__.split(".")[0] not in ("builtins", "numpy", "graphc", "functools")


def _traces(target, what) -> list:
    if isinstance(target, ConcreteFunction):
        return [target]
    if isinstance(target, Function):
        if target._input_signature is not None and not target.concrete_functions():
            target.get_concrete_function()
        traces = target.concrete_functions()
        if not traces:
            raise SavedModelError(
                f"{what}: gc.function {target.__name__!r} has not been traced; call it (or "
                "give it an input_signature, or pass (fn, *TensorSpecs)) before saving")
        return traces
    raise TypeError(f"{what}: cannot save a {type(target).__name__} as a signature")


def _named(name, fn) -> dict:
    traces = _traces(fn, name)
    return {name: [(name if len(traces) == 1 else f"{name}_{i}", c)
                   for i, c in enumerate(traces)]}


def _value(var) -> np.ndarray:
    if var._value is None:
        raise SavedModelError(f"gc.Variable {var.name!r} is not initialized; call the "
                              "function that initializes it before saving")
    return np.asarray(var._current())


def _param(p, where) -> dict:
    """A parameter's name and kind, and its default when the structure table holds it."""
    out = {"name": p.name, "kind": p.kind.name}
    if p.default is not p.empty:
        try:
            out["default"] = structure.encode(p.default, where)
        except SavedModelError:
            pass  # callers then pass that argument explicitly
    return out


def _npz(arrays: dict) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


# --------------------------------------------------------------------------- graphs
class _Writer:
    def __init__(self):
        self.graphs: list = []
        self._index: dict = {}  # id(Graph) -> index
        self._keep: list = []  # the graphs indexed (ids stay valid)
        self.refs = schema.Refs(self.graph_index, {}, {})
        self.named_variables: dict = {}

    def variable(self, var) -> int:
        hit = self.refs.variables.get(id(var))
        if hit is None:
            hit = self.refs.variables[id(var)] = (len(self.refs.variables), var)
        return hit[0]

    def variable_entries(self) -> list:
        out = []
        for i, var in sorted(self.refs.variables.values(), key=lambda e: e[0]):
            out.append({"name": var.name, "shape": list(var.shape), "dtype": var.dtype.name,
                        "trainable": bool(var.trainable), "key": f"v{i}"})
        return out

    def signature(self, pyname, sig_name, concrete) -> dict:
        where = f"signature {sig_name!r}"
        graph_index = self.graph_index(concrete.graph)
        params = concrete._function._params
        leaves = [structure.Output(concrete._tensor_slots.index(i)) if t is _TENSOR else t
                  for i, t in enumerate(concrete._out_template)]
        entry = {
            "function": pyname, "graph": graph_index,
            "params": [_param(p, where) for p in params],
            "inputs": [structure.encode(s, where) for s in concrete._structured],
            "outputs": structure.encode(nest.unflatten(concrete._out_treedef, leaves), where),
        }
        if concrete._writes:  # the arguments written back: the graph's last outputs
            entry["writes"] = list(concrete._writes)
        return entry

    def graph_index(self, graph) -> int:
        hit = self._index.get(id(graph))
        if hit is None:
            entry = self._graph(graph)  # subgraphs get their indexes first
            hit = self._index[id(graph)] = len(self.graphs)
            self._keep.append(graph)
            self.graphs.append(entry)
        return hit

    def _graph(self, graph) -> dict:
        ids: dict = {}

        def define(v):
            ids[v.id] = len(ids)

        for v in graph.inputs:
            define(v)
        if graph.token_in is not None:
            define(graph.token_in)
        nodes = []
        for node in graph.nodes:
            op = node.op.name
            if op in CALLBACK_OPS:
                line = node.src or "an unknown line"
                raise SavedModelError(
                    f"cannot save a graph holding {op} (traced at {line}): it calls back "
                    "into Python, which a saved graph cannot hold")
            attrs = {k: schema.encode_attr(v, self.refs, f"op {op!r} (at {node.src}) attr "
                                           f"{k!r}") for k, v in sorted(node.attrs.items())}
            entry = {"op": op, "inputs": [ids[v.id] for v in node.inputs], "attrs": attrs,
                     "outputs": [schema.encode_aval(v.aval) for v in node.outputs],
                     "src": node.src if isinstance(node.src, str) else None}
            for v in node.outputs:
                define(v)
            nodes.append(entry)
        return {
            "name": graph.name,
            "inputs": [schema.encode_aval(v.aval) for v in graph.inputs],
            "token_in": graph.token_in is not None, "nodes": nodes,
            "outputs": [ids[v.id] for v in graph.outputs],
            "token_out": None if graph.token_out is None else ids[graph.token_out.id],
        }
