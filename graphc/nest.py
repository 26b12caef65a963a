"""Nested structures (lists, tuples, dicts, namedtuples, dataclasses, ``attrs`` classes):
flatten and rebuild.

Leaves are everything else. ``flatten`` returns the leaves in a stable order plus a
``treedef`` that ``unflatten`` uses to rebuild the same structure around new leaves.
Other container types join with :func:`register` (``gc.TensorArray`` flattens to its
tensors, so it can be the state of a tensor loop or ``if``).
"""

from __future__ import annotations

import dataclasses

# type -> (to_children(x) -> (children, aux), from_children(aux, children) -> x); ``aux``
# is the static part (hashable, compared with ==: it is part of the treedef)
_REGISTERED: dict = {}


def register(cls, to_children, from_children) -> None:
    """Make instances of ``cls`` nodes: ``to_children(x)`` returns ``(children, aux)``
    (children are flattened in turn; ``aux`` is static and compared with ``==``) and
    ``from_children(aux, children)`` rebuilds one."""
    _REGISTERED[cls] = (to_children, from_children)


def _is_namedtuple(x) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def flatten(structure):
    """``(leaves, treedef)`` for any nest of lists/tuples/dicts/namedtuples/dataclasses."""
    leaves = []
    treedef = _flatten(structure, leaves)
    return leaves, treedef


def _flatten(x, leaves):
    t = type(x)
    if t is list or t is tuple:
        return (t, tuple(_flatten(v, leaves) for v in x))
    if t is dict:
        keys = sorted(x, key=repr)
        return (dict, tuple(keys), tuple(_flatten(x[k], leaves) for k in keys))
    if _is_namedtuple(x):
        return (t, tuple(_flatten(v, leaves) for v in x))
    custom = _REGISTERED.get(t)
    if custom is not None:
        children, aux = custom[0](x)
        return ("registered", t, aux, tuple(_flatten(c, leaves) for c in children))
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        names = tuple(f.name for f in dataclasses.fields(x))
        return ("dataclass", t, names, tuple(_flatten(getattr(x, n), leaves) for n in names))
    attrs = getattr(t, "__attrs_attrs__", None)  # an ``attrs`` class, as TensorFlow's nest
    if attrs is not None:
        names = tuple(a.name for a in attrs)
        inits = tuple(getattr(a, "alias", None) or a.name.lstrip("_") for a in attrs)
        return ("dataclass", t, inits, tuple(_flatten(getattr(x, n), leaves) for n in names))
    leaves.append(x)
    return None


def unflatten(treedef, leaves):
    """Rebuild the structure described by ``treedef`` with ``leaves`` in order."""
    it = iter(leaves)
    out = _unflatten(treedef, it)
    return out


def _unflatten(td, it):
    if td is None:
        return next(it)
    kind = td[0]
    if kind is list:
        return [_unflatten(c, it) for c in td[1]]
    if kind is tuple:
        return tuple(_unflatten(c, it) for c in td[1])
    if kind is dict:
        return {k: _unflatten(c, it) for k, c in zip(td[1], td[2])}
    if kind == "registered":
        _, cls, aux, children = td
        return _REGISTERED[cls][1](aux, [_unflatten(c, it) for c in children])
    if kind == "dataclass":
        _, cls, names, children = td
        return cls(**{n: _unflatten(c, it) for n, c in zip(names, children)})
    return kind(*[_unflatten(c, it) for c in td[1]])  # namedtuple


def map_structure(fn, structure):
    leaves, td = flatten(structure)
    return unflatten(td, [fn(x) for x in leaves])


def to_text(x, leaf=repr) -> str:
    """``x`` written as Python writes lists, tuples (not namedtuples) and dicts, every
    other value by ``leaf``: how messages show a structure of specs or values.

    >>> to_text([1, (2,), {"a": 3}])
    "[1, (2,), {'a': 3}]"
    """
    if isinstance(x, list):
        return "[" + ", ".join(to_text(v, leaf) for v in x) + "]"
    if isinstance(x, tuple) and not _is_namedtuple(x):
        body = ", ".join(to_text(v, leaf) for v in x)
        return f"({body},)" if len(x) == 1 else f"({body})"
    if isinstance(x, dict):
        return "{" + ", ".join(f"{k!r}: {to_text(v, leaf)}" for k, v in x.items()) + "}"
    return leaf(x)
