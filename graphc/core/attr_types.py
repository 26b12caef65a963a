"""The kinds of values an op's attrs take, declared on each ``OpDef`` as ``attrs=``.

An op declares every attr it takes and the kind of each, built from the leaf kinds
below with :func:`one_of` and :func:`tuple_of`::

    attrs={"axis": AXES, "keepdims": BOOL, "dtype": OPT_DTYPE}

The leaf kinds are exactly the entries of the saved-graph attr table
(``graphc.saved_model.schema`` holds one encoder and decoder per leaf, keyed by the leaf's
name, and checks at import that the two lists agree): a value of a declared kind can be
saved, and a loaded attr is checked against its op's declaration before the graph is
built. :data:`PYOBJ` is the one kind outside the table: a Python object an op holds by
reference (a callback, a file), which no saved graph can hold.
"""

from __future__ import annotations

import numpy as np

from graphc.ir.graph import Aval, ConstArray, Graph


class AttrType:
    """A set of attr values: ``accepts(value)``; ``name`` reads as the kind in errors."""

    __slots__ = ("name", "_check")

    def __init__(self, name: str, check):
        self.name = name
        self._check = check

    def accepts(self, value) -> bool:
        return bool(self._check(value))

    def __repr__(self):
        return self.name


def _exact(*types):
    return lambda v: type(v) in types


class VariableRef:
    """A hashable reference to a variable, by identity (``v.ref()``, TensorFlow's name).

    Variables compare elementwise like tensors, so they cannot be dict keys or node attrs
    themselves; their refs can.
    """

    __slots__ = ("_variable",)

    def __init__(self, variable):
        self._variable = variable

    def deref(self):
        """The variable this refers to."""
        return self._variable

    def __hash__(self):
        return id(self._variable)

    def __eq__(self, other):
        return isinstance(other, VariableRef) and other._variable is self._variable

    def __repr__(self):
        v = self._variable
        return f"<gc.Variable {v.name!r} {Aval(v.shape, v.dtype)}>"


def _is_variable_ref(v) -> bool:
    return type(v) is VariableRef


# The leaves of the saved-graph attr table (tuples and lists are its containers).
NONE = AttrType("none", lambda v: v is None)
BOOL = AttrType("bool", _exact(bool))
INT = AttrType("int", _exact(int))
FLOAT = AttrType("float", _exact(float))
COMPLEX = AttrType("complex", _exact(complex))
STR = AttrType("str", _exact(str))
DTYPE = AttrType("dtype", lambda v: isinstance(v, np.dtype))
GRAPH = AttrType("graph", _exact(Graph))
CONST = AttrType("const", _exact(ConstArray))
VARIABLE = AttrType("variable", _is_variable_ref)
# the builtin container types (a print template's structure names them)
CONTAINER = AttrType("container", lambda v: type(v) is type and v in (list, tuple, dict))
LEAVES = (NONE, BOOL, INT, FLOAT, COMPLEX, STR, DTYPE, GRAPH, CONST, VARIABLE, CONTAINER)


def leaf_of(value) -> AttrType | None:
    """The table leaf ``value`` belongs to (``None`` for containers and other types)."""
    for leaf in LEAVES:
        if leaf.accepts(value):
            return leaf
    return None


def one_of(*kinds: AttrType) -> AttrType:
    return AttrType(" or ".join(k.name for k in kinds),
                    lambda v: any(k.accepts(v) for k in kinds))


def tuple_of(kind: AttrType, length: int | None = None) -> AttrType:
    """A tuple (never a list: attrs are hashable) of ``kind``, of ``length`` if given."""
    n = "" if length is None else f"{length} "

    def check(v):
        return type(v) is tuple and (length is None or len(v) == length) and all(
            kind.accepts(x) for x in v)

    return AttrType(f"tuple of {n}({kind.name})", check)


def _nest(v, depth=0) -> bool:
    if type(v) is tuple:
        return depth < 32 and all(_nest(x, depth + 1) for x in v)
    return leaf_of(v) not in (GRAPH, CONST, VARIABLE) and type(v) is not list


def _outside_table(v) -> bool:
    return leaf_of(v) is None and type(v) not in (tuple, list)


# Kinds the ops share.
PYOBJ = AttrType("Python object (cannot be saved)", _outside_table)
NUMBER = one_of(BOOL, INT, FLOAT, COMPLEX)
OPT_INT = one_of(NONE, INT)
OPT_DTYPE = one_of(NONE, DTYPE)
OPT_STR = one_of(NONE, STR)
INTS = tuple_of(INT)
OPT_INTS = one_of(NONE, INTS)
INT_OR_INTS = one_of(INT, INTS)
AXIS = OPT_INT                                  # one axis, or None: every axis / flattened
AXES = one_of(NONE, INT, INTS)                  # reductions: None, one axis or several
SHAPE = tuple_of(one_of(INT, NONE))             # static dims, None where a dim is dynamic
GRAPHS = tuple_of(GRAPH)
DTYPES = one_of(DTYPE, tuple_of(DTYPE))
# A static nest of plain values in tuples (getitem keys, print templates; the op's own
# ``infer`` checks the structure). A Python object inside (a print template's container
# type) is allowed but, being outside the table, cannot be saved.
NEST = AttrType("tuple nest of plain values", _nest)
