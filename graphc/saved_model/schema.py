"""The saved-graph JSON schema: the attr-type table, avals, signature structures.

Every attr value is written by an explicit entry of :data:`ATTR_TYPES` and read back by
the same entry; a value whose type has no entry refuses to save (``SavedModelError``
naming the op and the attr). JSON ``null``/``true``/``false``/integers/strings stand for
themselves; every other value is a one-key object whose key is its tag::

    {"float": "0x1.8p+1"}   {"complex": ["0x0p+0", "0x1p+0"]}   {"tuple": [...]}
    {"list": [...]}         {"dtype": "float32"}                {"graph": 3}
    {"const": "c0"}         {"variable": 0}        {"container": "list"}

Nothing read is evaluated: floats come from ``float.fromhex``, dtypes from a fixed list of
names, graphs/constants/variables are indexes into what the loader already built.
"""

from __future__ import annotations

import numpy as np

from graphc.core import attr_types
from graphc.errors import SavedModelError
from graphc.ir.graph import TOKEN, Aval, ConstArray
from graphc.ops.state import RESOURCE, VariableRef, is_resource

FORMAT = "graphc.saved_model"
VERSION = (1, 0)  # (major, minor): a loader reads every minor <= its own of its major
MAX_RANK = 64
MAX_DIM = 2 ** 62

DTYPES = frozenset({
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128",
})


class Refs:
    """What attrs refer to while saving: graph indexes, constant names, variables."""

    def __init__(self, graph_index, constants: dict, variables: dict):
        self.graph_index = graph_index  # Graph -> int (assigned before its users)
        self.constants = constants      # id(ConstArray) -> (name, array)
        self.variables = variables      # id(Variable) -> (index, Variable)


# --------------------------------------------------------------------------- attrs: save
def _encode_const(value, refs, where):
    a = value.array
    if a.dtype.name not in DTYPES:
        raise SavedModelError(f"{where}: a constant of dtype {a.dtype} cannot be saved")
    hit = refs.constants.get(id(value))
    if hit is None:
        hit = refs.constants[id(value)] = (f"c{len(refs.constants)}", a)
    return {"const": hit[0]}


def _encode_variable(value, refs, where):
    var = value.deref()
    hit = refs.variables.get(id(var))
    if hit is None:
        hit = refs.variables[id(var)] = (len(refs.variables), var)
    return {"variable": hit[0]}


def _encode_dtype(value, refs, where):
    if value.name not in DTYPES:
        raise SavedModelError(f"{where}: dtype {value.name} cannot be saved")
    return {"dtype": value.name}


def _itself(value, refs, where):
    return value


# The attr table: one encoder per leaf kind of ``graphc.core.attr_types`` (the kinds ops
# declare their attrs with), keyed by the kind's name; tuples and lists hold leaves.
ENCODERS = {
    "none": _itself, "bool": _itself, "int": _itself, "str": _itself,
    "float": lambda v, refs, where: {"float": v.hex()},
    "complex": lambda v, refs, where: {"complex": [v.real.hex(), v.imag.hex()]},
    "dtype": _encode_dtype,
    "graph": lambda v, refs, where: {"graph": refs.graph_index(v)},
    "const": _encode_const,
    "variable": _encode_variable,
    "container": lambda v, refs, where: {"container": v.__name__},
}
CONTAINERS = {"list": list, "tuple": tuple, "dict": dict}
assert set(ENCODERS) == {k.name for k in attr_types.LEAVES}, "attr table != leaf kinds"


def encode_attr(value, refs: Refs, where: str):
    """``value`` as JSON data by the table; ``where`` names the op and attr for errors."""
    t = type(value)
    if t is tuple or t is list:
        return {t.__name__: [encode_attr(v, refs, where) for v in value]}
    leaf = attr_types.leaf_of(value)
    if leaf is None:
        raise SavedModelError(
            f"{where}: an attr of type {t.__module__}.{t.__qualname__} has no entry in the "
            "saved-graph attr table (see docs/saved_model.md); this graph cannot be saved")
    return ENCODERS[leaf.name](value, refs, where)


# --------------------------------------------------------------------------- attrs: load
class LoadRefs:
    """What attrs may refer to while loading: graphs built so far, constants, variables."""

    def __init__(self, graphs=(), constants=None, variables=()):
        self.graphs = graphs
        self.constants = {} if constants is None else constants
        self.variables = variables


NO_REFS = LoadRefs()  # signature structures refer to nothing


def decode_attr(data, ctx, where: str, depth: int = 0):
    """The attr value for JSON ``data``; ``ctx`` has ``graphs``, ``constants``,
    ``variables`` (already loaded). Raises ``SavedModelError`` for anything off-table."""
    if depth > 64:
        raise SavedModelError(f"{where}: attr nested more than 64 deep")
    t = type(data)
    if data is None or t is bool or t is int or t is str:
        return data
    if t is not dict or len(data) != 1:
        raise SavedModelError(f"{where}: {t.__name__} is not an attr encoding")
    (tag, payload), = data.items()
    if tag == "float":
        return _float(payload, where)
    if tag == "complex":
        if type(payload) is not list or len(payload) != 2:
            raise SavedModelError(f"{where}: complex needs [re, im]")
        return complex(_float(payload[0], where), _float(payload[1], where))
    if tag in ("tuple", "list"):
        if type(payload) is not list:
            raise SavedModelError(f"{where}: {tag} needs a JSON list")
        items = [decode_attr(v, ctx, where, depth + 1) for v in payload]
        return tuple(items) if tag == "tuple" else items
    if tag == "dtype":
        return dtype(payload, where)
    if tag == "graph":
        return _index(ctx.graphs, payload, where, "graph")
    if tag == "const":
        if type(payload) is not str or payload not in ctx.constants:
            raise SavedModelError(f"{where}: constant {payload!r} is not in constants.npz")
        return ConstArray(ctx.constants[payload])
    if tag == "variable":
        return VariableRef(_index(ctx.variables, payload, where, "variable"))
    if tag == "container":
        if type(payload) is not str or payload not in CONTAINERS:
            raise SavedModelError(f"{where}: container {payload!r:.40} is not list, tuple "
                                  "or dict")
        return CONTAINERS[payload]
    raise SavedModelError(f"{where}: unknown attr type tag {tag!r}")


def _float(payload, where):
    if type(payload) is not str or len(payload) > 40:
        raise SavedModelError(f"{where}: a float must be a hex string")
    try:
        return float.fromhex(payload)
    except (ValueError, OverflowError):
        raise SavedModelError(f"{where}: {payload!r} is not a hex float") from None


def _index(items, i, where, what):
    if type(i) is not int or not 0 <= i < len(items):
        raise SavedModelError(f"{where}: {what} reference {i!r} is not defined before use")
    return items[i]


def dtype(name, where) -> np.dtype:
    if type(name) is not str or name not in DTYPES:
        raise SavedModelError(f"{where}: {name!r} is not a saveable dtype name")
    return np.dtype(name)


# --------------------------------------------------------------------------- avals
def encode_aval(aval: Aval):
    if aval.is_token:
        return "token"
    if is_resource(aval):
        return "resource"
    return {"shape": None if aval.shape is None else list(aval.shape),
            "dtype": aval.dtype.name}


def decode_aval(data, where) -> Aval:
    if data == "token":
        return TOKEN
    if data == "resource":
        return RESOURCE
    if type(data) is not dict or set(data) != {"shape", "dtype"}:
        raise SavedModelError(f"{where}: an aval needs exactly 'shape' and 'dtype'")
    return Aval(shape(data["shape"], where), dtype(data["dtype"], where))


def shape(data, where):
    if data is None:
        return None
    if type(data) is not list or len(data) > MAX_RANK:
        raise SavedModelError(f"{where}: a shape must be a list of at most {MAX_RANK} dims")
    for d in data:
        if d is not None and (type(d) is not int or not 0 <= d <= MAX_DIM):
            raise SavedModelError(f"{where}: dim {d!r} is not null or an int in "
                                  f"[0, 2**62]")
    return tuple(data)
