"""Rebuild graphs and callables from a checked ``graph.json`` document.

``build_graph`` checks each graph entry as it builds it (keys and types, op names in the
registry, attrs by the table, references defined before use); ``build_object`` makes the
loaded object: one :class:`LoadedFunction` per saved Python name, dispatching over its
signatures' ``ConcreteFunction``s, which compile on the default backend as any trace.
"""

from __future__ import annotations

import inspect
import sys

from graphc import nest, source_info
from graphc.errors import SavedModelError
from graphc.functions.call_checks import check_matches, describe_spec
from graphc.functions.concrete import _TENSOR, ConcreteFunction
from graphc.functions.function import call_handlers, function
from graphc.ir import graph as ir
from graphc.ir.graph import FrozenAttrs
from graphc.ops.state import is_resource
from graphc.saved_model import schema, structure

_SIGNATURE_KEYS = {"function", "graph", "params", "inputs", "outputs"}
_GRAPH_KEYS = {"name", "inputs", "token_in", "nodes", "outputs", "token_out"}
_NODE_KEYS = {"op", "inputs", "attrs", "outputs", "src"}


def build_graph(g, refs, ops, where) -> ir.Graph:
    if type(g) is not dict or set(g) != _GRAPH_KEYS:
        raise SavedModelError(f"{where}: a graph needs exactly {sorted(_GRAPH_KEYS)}")
    if type(g["name"]) is not str or type(g["token_in"]) is not bool:
        raise SavedModelError(f"{where}: name must be a string, token_in a bool")
    for key in ("inputs", "nodes", "outputs"):
        if type(g[key]) is not list:
            raise SavedModelError(f"{where}: {key!r} must be a list")
    values = [ir.Value(schema.decode_aval(a, f"{where}.inputs")) for a in g["inputs"]]
    inputs = list(values)
    token_in = None
    if g["token_in"]:
        token_in = ir.Value(ir.TOKEN)
        values.append(token_in)
    nodes = [_node(n, refs, ops, values, f"{where}.nodes[{i}]")
             for i, n in enumerate(g["nodes"])]
    outputs = [_ref(values, r, f"{where}.outputs") for r in g["outputs"]]
    token_out = None if g["token_out"] is None else _ref(values, g["token_out"],
                                                           f"{where}.token_out")
    return ir.Graph(inputs, nodes, outputs, name=g["name"], token_in=token_in,
                    token_out=token_out)


def _node(n, refs, ops, values, where) -> ir.Node:
    if type(n) is not dict or set(n) != _NODE_KEYS:
        raise SavedModelError(f"{where}: a node needs exactly {sorted(_NODE_KEYS)}")
    op = ops.get(n["op"]) if type(n["op"]) is str else None
    if op is None:
        raise SavedModelError(f"{where}: op {n['op']!r} is not a registered graphc op")
    where = f"{where} (op {op.name!r})"
    if type(n["attrs"]) is not dict or type(n["inputs"]) is not list \
            or type(n["outputs"]) is not list:
        raise SavedModelError(f"{where}: attrs must be an object, inputs/outputs lists")
    if n["src"] is not None and (type(n["src"]) is not str or len(n["src"]) > 4096):
        raise SavedModelError(f"{where}: src must be a short string or null")
    attrs = FrozenAttrs({k: schema.decode_attr(v, refs, f"{where} attr {k!r}")
                         for k, v in n["attrs"].items()})
    _check_attrs(op, attrs, where)
    inputs = [_ref(values, r, f"{where}.inputs") for r in n["inputs"]]
    _check_binds(op, [v for v in inputs if not v.aval.is_token], attrs, where)
    outputs = [ir.Value(schema.decode_aval(a, f"{where}.outputs")) for a in n["outputs"]]
    values.extend(outputs)
    return ir.Node(op, inputs, attrs, outputs, n["src"])


def _check_attrs(op, attrs, where) -> None:
    """Every attr is one the op declares (``OpDef.attrs``), of the declared kind, and
    every attr its ``infer``/``ref`` requires is there."""
    declared = op.attrs
    if declared is None:
        raise SavedModelError(f"{where}: op {op.name!r} declares no attr kinds, so it "
                              "cannot be loaded")
    for key, value in attrs.items():
        kind = declared.get(key)
        if kind is None:
            raise SavedModelError(f"{where}: op {op.name!r} has no attr {key!r} (it takes "
                                  f"{sorted(declared) or 'none'})")
        if not kind.accepts(value):
            shown = repr(value) if type(value) in (bool, int, str) else \
                f"a {type(value).__name__}"
            raise SavedModelError(f"{where} attr {key!r}: {shown[:80]} is not of the "
                                  f"declared kind ({kind.name})")
    missing = sorted(k for k in declared if k not in attrs and _required(op, k))
    if missing:
        raise SavedModelError(f"{where}: op {op.name!r} needs attrs {missing}")


def _required(op, key) -> bool:
    for fn in (op.infer, op.ref):
        try:
            p = inspect.signature(fn).parameters.get(key)
        except (TypeError, ValueError):
            continue
        if p is not None and p.default is p.empty:
            return True
    return False


def _check_binds(op, data, attrs, where) -> None:
    """The op's ``infer`` and ``ref`` accept these inputs and exactly these attrs."""
    try:
        hash(attrs)
    except TypeError:
        raise SavedModelError(f"{where}: attrs are not hashable (a list attr?)") from None
    for fn in (op.infer, op.ref):
        try:
            sig = inspect.signature(fn)
        except (TypeError, ValueError):
            continue  # a builtin without a signature: infer in verify checks the call
        try:
            sig.bind(*data, **attrs)
        except TypeError as e:
            raise SavedModelError(f"{where}: {len(data)} inputs and attrs {sorted(attrs)} "
                                  f"do not fit the op ({e})") from None


def _ref(values, r, where) -> ir.Value:
    if type(r) is not int or not 0 <= r < len(values):
        raise SavedModelError(f"{where}: value reference {r!r} is not defined before use")
    return values[r]


_LEADING = {"cond": 1, "switch_case": 1, "while_loop": 0}  # pred / index before operands


def check_calls(graph, where) -> None:
    """Each control-flow node's operands fit its branch and body graphs' inputs (the
    ops' ``infer`` reads only the graphs, so ``verify`` alone would not catch a node that
    lost an operand)."""
    for i, node in enumerate(graph.nodes):
        subs = node.subgraphs()
        here = f"{where}.nodes[{i}] (op {node.op.name!r})"
        if subs and node.op.name not in _LEADING:
            raise SavedModelError(f"{here}: holds graphs but is not a control-flow op")
        data = [v.aval for v in node.inputs if not v.aval.is_token]
        operands = data[_LEADING.get(node.op.name, 0):]
        for sub in subs:
            if len(sub.inputs) != len(operands) or not all(
                    _fits(a, v.aval) for a, v in zip(operands, sub.inputs)):
                raise SavedModelError(f"{here}: operands {operands} do not fit graph "
                                      f"{sub.name!r} inputs {[v.aval for v in sub.inputs]}")
            check_calls(sub, f"{here}/{sub.name}")
        if node.op.name == "while_loop":
            body, n = node.attrs["body"], len(node.attrs["body"].outputs)
            if n > len(operands) or not all(_fits(v.aval, w.aval) for v, w in
                                            zip(body.outputs, body.inputs)):
                raise SavedModelError(f"{here}: body outputs do not fit its loop variables")


def _fits(have, want) -> bool:
    if have.dtype != want.dtype or is_resource(have) != is_resource(want):
        return False
    if want.shape is None:
        return True
    if have.shape is None or len(have.shape) != len(want.shape):
        return False
    return all(w is None or h == w for h, w in zip(have.shape, want.shape))


# --------------------------------------------------------------------------- callables
_KINDS = {k.name: k for k in (
    inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD,
    inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.KEYWORD_ONLY,
    inspect.Parameter.VAR_KEYWORD)}


class _Owner:
    """What a ``ConcreteFunction`` asks of its ``gc.function``: name, backend, binding."""

    def __init__(self, name, params):
        self.__name__ = name
        self._backend = "numba"
        self._jit_compile = None
        self._params = params
        self._signature = inspect.Signature(params)

    def _bind(self, args, kwargs) -> tuple:
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self.__name__}(): {e}") from None
        bound.apply_defaults()
        return tuple(bound.arguments[p.name] for p in self._params)


class LoadedFunction:
    """A saved ``gc.function``: calls dispatch to the first signature they match."""

    def __init__(self, name, concretes):
        self.__name__ = name
        self._concretes = concretes
        self._over_blocks = None  # a gc.function calling this one, for call_handlers

    def concrete_functions(self) -> list:
        return list(self._concretes)

    def __call__(self, *args, **kwargs):
        for module, handler in call_handlers:  # e.g. Dask arrays: as a gc.function does
            if module in sys.modules:
                if self._over_blocks is None:
                    self._over_blocks = function(self, autograph=False)
                over = self._over_blocks
                out = handler(over, over._bind(args, kwargs))
                if out is not NotImplemented:
                    return out
        for c in self._concretes:
            try:
                flat = c._function._bind(args, kwargs)
                for name, spec, value in zip(c._names, c._structured, flat):
                    check_matches(c.name, name, spec, value)
            except TypeError:
                continue
            try:
                return c._call_bound(flat)
            except Exception as e:  # the user's frames only, as gc.function's call does
                source_info.hide_internal_frames(e)
                raise
        listed = "\n".join(c.pretty_printed_signature() for c in self._concretes)
        def shown(a):
            return (describe_spec(a) if not hasattr(a, "shape") else
                    f"{a.dtype} shape={tuple(a.shape)}")

        got = ", ".join([shown(a) for a in args]
                        + [f"{k}={shown(a)}" for k, a in kwargs.items()])
        raise TypeError(f"{self.__name__}({got}) matches no saved signature; saved:\n{listed}")

    def __repr__(self):
        return f"<loaded gc.function {self.__name__}: {len(self._concretes)} signatures>"


class Loaded:
    """What ``gc.saved_model.load`` returns: saved functions and variables as attributes,
    ``signatures`` (name -> ``ConcreteFunction``), ``functions`` (name -> callable) and
    ``variables`` (every one)."""

    def __init__(self):
        self.signatures = {}
        self.functions = {}  # every saved function by name (``<lambda>`` included)
        self.variables = []

    def __call__(self, *args, **kwargs):
        """The saved object's own ``__call__`` (a ``gc.function``), as ``tf.Module``'s; or,
        for an object holding exactly one function (a ``gc.function`` saved directly, as
        TensorFlow's loaded ``tf.function``), that function."""
        fn = self.functions.get("__call__")
        if fn is None:
            own = [n for n in self.functions if "." not in n and not n.startswith("__")]
            if len(own) != 1:
                raise TypeError(f"this saved object has no __call__ and holds {len(own)} "
                                f"functions; call one of them: {sorted(own)}")
            fn = self.functions[own[0]]
        try:
            return fn(*args, **kwargs)
        except Exception as e:  # the user's frames only: no frame of this method either
            source_info.hide_internal_frames(e)
            raise

    def __repr__(self):
        return f"<gc.saved_model object: {sorted(self.signatures)}>"


def _attribute_name(name) -> bool:
    """A name a file may set on the loaded object: an identifier that is not a dunder
    (``__class__``, ``__dict__``) and not one of ``Loaded``'s own attributes."""
    return name.isidentifier() and not name.startswith("__") and name not in (
        "signatures", "variables", "functions")


def build_object(doc, refs) -> Loaded:
    out = Loaded()
    out.variables = list(refs.variables)
    for name, entry in doc["signatures"].items():
        out.signatures[name] = _signature(name, entry, refs)
    for pyname, names in doc["functions"].items():
        if type(names) is not list or not names or not all(
                type(n) is str and n in out.signatures for n in names):
            raise SavedModelError(f"functions[{pyname!r}]: must list saved signature names")
        fn = LoadedFunction(pyname, [out.signatures[n] for n in names])
        out.functions[pyname] = fn
        path = pyname.split(".")
        if len(path) > 1 and not all(map(_attribute_name, path[:-1])):
            continue  # not a sub-object's: reachable through functions[] only
        owners = _owners(out, path[:-1], pyname)
        owners[-1].functions[path[-1]] = fn
        if _attribute_name(path[-1]):  # others (``__call__``, ``<lambda>``): functions[]
            _set(owners[-1], path[-1], fn, pyname)
    for attr, index in doc["object_variables"].items():
        path = attr.split(".")
        if not all(map(_attribute_name, path)) or attr in doc["functions"]:
            raise SavedModelError(f"object_variables: bad attribute name {attr!r}")
        var = schema.decode_attr({"variable": index}, refs, "object_variables").deref()
        owners = _owners(out, path[:-1], attr)
        _set(owners[-1], path[-1], var, attr)
        for owner in owners[1:]:  # a sub-object lists the variables it holds
            owner.variables.append(var)
    return out


def _owners(out, parents, name) -> list:
    """``[out, sub-object, ...]`` along a dotted name's parents, made as needed (a saved
    object's sub-objects load as ``Loaded`` objects of their own)."""
    owners = [out]
    for part in parents:
        sub = owners[-1].__dict__.get(part)
        if sub is None:
            sub = Loaded()
            setattr(owners[-1], part, sub)
        elif not isinstance(sub, Loaded):
            raise SavedModelError(f"{name!r}: {part!r} is both a sub-object and a "
                                  "function or variable")
        owners.append(sub)
    return owners


def _set(owner, attr, value, name) -> None:
    if attr in owner.__dict__:
        raise SavedModelError(f"{name!r}: {attr!r} is saved twice on one object")
    setattr(owner, attr, value)


def _signature(name, e, refs) -> ConcreteFunction:
    where = f"signatures[{name!r}]"
    if type(e) is not dict or not _SIGNATURE_KEYS <= set(e) <= _SIGNATURE_KEYS | {"writes"}:
        raise SavedModelError(f"{where}: needs function, graph, params, inputs, outputs "
                              "(and optionally writes)")
    graph = schema.decode_attr({"graph": e["graph"]}, refs, where)
    if type(e["function"]) is not str or type(e["params"]) is not list \
            or type(e["inputs"]) is not list or len(e["inputs"]) != len(e["params"]):
        raise SavedModelError(f"{where}: params and inputs must be lists of one length")
    params = []
    for p in e["params"]:
        if type(p) is not dict or not {"name", "kind"} <= set(p) <= {"name", "kind", "default"} \
                or type(p["name"]) is not str or not p["name"].isidentifier() \
                or type(p["kind"]) is not str or p["kind"] not in _KINDS:
            raise SavedModelError(f"{where}: bad parameter {p!r:.80}")
        default = structure.decode(p["default"], where) if "default" in p else \
            inspect.Parameter.empty
        try:
            params.append(inspect.Parameter(p["name"], _KINDS[p["kind"]], default=default))
        except ValueError as err:
            raise SavedModelError(f"{where}: bad parameter ({err})") from None
    try:
        owner = _Owner(e["function"], params)
    except ValueError as err:
        raise SavedModelError(f"{where}: bad parameter list ({err})") from None
    structured = tuple(structure.decode(s, where) for s in e["inputs"])
    specs = [x for s in structured for x in nest.flatten(s)[0]
             if isinstance(x, structure.TensorSpec | structure.VariableSpec)]
    if len(specs) != len(graph.inputs):
        raise SavedModelError(f"{where}: {len(specs)} tensor arguments for a graph of "
                              f"{len(graph.inputs)} inputs")
    for i, (spec, v) in enumerate(zip(specs, graph.inputs)):
        want = (schema.RESOURCE if isinstance(spec, structure.VariableSpec)
                else ir.Aval(spec.shape, spec.dtype))
        if is_resource(want) != is_resource(v.aval) or (
                not is_resource(want) and want != v.aval):
            raise SavedModelError(f"{where}: argument leaf {i} is {spec!r} but the graph "
                                  f"input is {v.aval}")
    writes = _writes(e.get("writes", []), graph, where)
    n_user = len(graph.outputs) - len(writes)
    outs = structure.decode(e["outputs"], where, n_outputs=n_user)
    leaves, treedef = nest.flatten(outs)
    order = [x.k for x in leaves if isinstance(x, structure.Output)]
    if order != list(range(n_user)):
        raise SavedModelError(f"{where}: outputs must use each graph output once, in order")
    template = [_TENSOR if isinstance(x, structure.Output) else x for x in leaves]
    concrete = ConcreteFunction(owner, graph, [p.name for p in params], structured, treedef,
                                template)
    if writes:  # written back into the caller's arrays after each call, as when traced
        concrete._writes, concrete._single = writes, False
    return concrete


def _writes(writes, graph, where) -> tuple:
    """The argument write-back list: distinct graph input indices, each matched by one of
    the graph's last outputs of the same shape and dtype."""
    if type(writes) is not list or any(type(k) is not int for k in writes) \
            or len(set(writes)) != len(writes) or len(writes) > len(graph.outputs):
        raise SavedModelError(f"{where}: writes must be a list of distinct input indices")
    tail = graph.outputs[len(graph.outputs) - len(writes):]
    for k, out in zip(writes, tail):
        if not 0 <= k < len(graph.inputs) or is_resource(graph.inputs[k].aval) \
                or out.aval != graph.inputs[k].aval:
            raise SavedModelError(f"{where}: write-back of input {k} does not fit the graph")
    return tuple(writes)
