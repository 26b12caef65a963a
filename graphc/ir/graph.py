"""The IR: an ordered SSA graph of nodes over abstract values, like a JAX jaxpr.

``Graph(inputs, nodes, outputs)``; ``Node(op, inputs, attrs, outputs, src)``; every
``Value`` carries an ``Aval(shape, dtype)`` whose dims may be ``None`` (unknown until run
time) and whose ``shape`` is ``None`` for a value of unknown rank. Nodes are immutable
once built: passes build new graphs. ``attrs`` are hashable and, with the op and inputs,
are a node's identity (the CSE and kernel cache key). Control-flow ops hold their branch
and body ``Graph`` objects in ``attrs``. Stateful ops take and return an effect token
(a ``Value`` whose aval is ``TOKEN``) threaded from ``Graph.token_in`` to
``Graph.token_out``, so program order is plain data dependence.
"""

from __future__ import annotations

import itertools

import numpy as np

_ids = itertools.count()

_SHORT = {
    "float16": "f16", "float32": "f32", "float64": "f64", "int8": "i8", "int16": "i16",
    "int32": "i32", "int64": "i64", "uint8": "u8", "uint16": "u16", "uint32": "u32",
    "uint64": "u64", "bool": "bool", "complex64": "c64", "complex128": "c128",
}


class Aval:
    """Abstract value: ``shape`` (tuple of int-or-None, or None for unknown rank), dtype."""

    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype):
        self.shape = None if shape is None else tuple(shape)
        self.dtype = dtype if dtype is None or isinstance(dtype, np.dtype) else np.dtype(dtype)

    @property
    def ndim(self):
        return None if self.shape is None else len(self.shape)

    @property
    def is_token(self):
        return self.dtype is None  # only the token aval has no dtype

    def __eq__(self, other):
        return (
            isinstance(other, Aval) and self.shape == other.shape and self.dtype == other.dtype
        )

    def __hash__(self):
        return hash((self.shape, self.dtype))

    def __str__(self):
        if self is TOKEN:
            return "token"
        name = _SHORT.get(self.dtype.name, self.dtype.name)
        if self.shape is None:
            return f"{name}[*]"
        return f"{name}[{','.join('?' if d is None else str(d) for d in self.shape)}]"

    __repr__ = __str__


TOKEN = Aval((), None)  # the effect token's aval: no data, only ordering


class Value:
    """One SSA value: produced by one node (or a graph input), read by any number."""

    __slots__ = ("aval", "id", "__weakref__")

    def __init__(self, aval: Aval):
        self.aval = aval
        self.id = next(_ids)

    def __repr__(self):
        return f"Value(%{self.id}:{self.aval})"


class Node:
    """``outputs = op(inputs, **attrs)``, traced at user source line ``src``."""

    __slots__ = ("op", "inputs", "attrs", "outputs", "src")

    def __init__(self, op, inputs, attrs, outputs, src=None):
        self.op = op
        self.inputs = tuple(inputs)
        self.attrs = attrs
        self.outputs = tuple(outputs)
        self.src = src

    @property
    def name(self):
        return self.op.name

    def subgraphs(self):
        """The ``Graph`` objects held in attrs (branches, loop bodies), by attr name."""
        out = []
        for _, value in sorted(self.attrs.items(), key=lambda kv: kv[0]):
            if isinstance(value, Graph):
                out.append(value)
            elif isinstance(value, tuple):
                out.extend(v for v in value if isinstance(v, Graph))
        return out

    def __repr__(self):
        return f"Node({self.op.name}, {len(self.inputs)} in, {len(self.outputs)} out)"


class Graph:
    """An ordered SSA graph. ``nodes`` are in a valid execution order."""

    __slots__ = ("name", "inputs", "nodes", "outputs", "token_in", "token_out", "__weakref__")

    def __init__(self, inputs, nodes, outputs, name="graph", token_in=None, token_out=None):
        self.name = name
        self.inputs = list(inputs)
        self.nodes = list(nodes)
        self.outputs = list(outputs)
        self.token_in = token_in
        self.token_out = token_out

    @property
    def operations(self):
        """The nodes, in execution order (TensorFlow's name)."""
        return list(self.nodes)

    def __repr__(self):
        return f"<Graph {self.name}: {len(self.inputs)} inputs, {len(self.nodes)} ops>"

    # ``str(graph)``, ``as_graph_def()``, ``to_networkx()``, ``to_dot()`` and ``to_svg()``
    # are added by graphc/ir/__init__.py from printer.py, export.py and pictures.py, which
    # import this module (so it cannot import them).


class FrozenAttrs(dict):
    """A hashable, read-only attribute dict (keys sorted for a stable identity)."""

    __slots__ = ("_hash", "_canon")

    def canonical(self) -> tuple:
        """Sorted items with floats compared by their bits (``0.0`` vs ``-0.0``, NaN):
        the node identity CSE and kernel caches use."""
        try:
            return self._canon
        except AttributeError:
            self._canon = tuple(sorted(((k, _canon(v)) for k, v in self.items()),
                                       key=lambda kv: kv[0]))
            return self._canon

    def __hash__(self):
        try:
            return self._hash
        except AttributeError:
            self._hash = hash(self.canonical())
            return self._hash

    def __eq__(self, other):
        if not isinstance(other, FrozenAttrs):
            return dict.__eq__(self, other)
        return self.canonical() == other.canonical()

    def __ne__(self, other):
        return not self.__eq__(other)

    def _readonly(self, *args, **kwargs):
        raise TypeError("node attrs are immutable; build a new node instead")

    __setitem__ = __delitem__ = update = pop = popitem = clear = setdefault = _readonly


def _canon(value):
    if type(value) is float:
        return ("float", value.hex())
    if type(value) is tuple:
        return tuple(_canon(v) for v in value)
    return value


class ConstArray:
    """An ndarray wrapped to be hashable by content, for ``const`` node attrs."""

    __slots__ = ("array", "_hash")

    def __init__(self, array: np.ndarray):
        self.array = array
        self._hash = None

    def __hash__(self):
        if self._hash is None:
            a = self.array
            self._hash = hash((a.dtype.str, a.shape, a.tobytes()))
        return self._hash

    def __eq__(self, other):
        if not isinstance(other, ConstArray):
            return NotImplemented
        a, b = self.array, other.array
        return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()

    def __repr__(self):
        a = self.array
        if a.size <= 8:
            return np.array2string(a, separator=", ").replace("\n", "")
        return f"<{a.dtype}{list(a.shape)} array>"
