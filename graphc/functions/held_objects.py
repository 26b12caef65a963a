"""Unhashable Python objects passed to a ``gc.function``: keyed by identity, held weakly.

An object that is neither a tensor, a structure nor hashable keys its trace by identity
(``signature.leaf_key``: ``("id", type, id(obj))``). The trace must not keep it alive
(TensorFlow refuses such arguments; graphc traces them once per object), so its
signature holds a :class:`WeakArg` instead, and when the object dies its trace is
dropped (an object created later at the same address must not find it). The weak
reference's callback only marks the key dead and clears the dispatch fast paths; the
trace cache drops it at the function's next cache miss (``Function._lookup``), never
from inside the garbage collector.
"""

from __future__ import annotations

import weakref

from graphc import nest
from graphc.functions.concrete import _is_tensor_leaf
from graphc.functions.signature import leaf_key


class WeakArg:
    """A Python argument of a trace, held by a weak reference (``repr`` shows it)."""

    __slots__ = ("_ref", "_key")

    def __init__(self, ref, key):
        self._ref, self._key = ref, key

    def _graphc_trace_key(self):
        # a dead object matches nothing (another object may have its id now)
        return self._key if self._ref() is not None else ("dead", self._key)

    def __repr__(self):
        obj = self._ref()
        return repr(obj) if obj is not None else f"<dead {self._key[1].__name__} object>"


def _by_identity(leaf) -> bool:
    key = leaf_key(leaf)
    return type(key) is tuple and len(key) == 3 and key[0] == "id"


def hold_weakly(function, concrete, key) -> None:
    """Replace the identity-keyed objects of ``concrete``'s signature by weak references
    whose callbacks retire ``key`` from ``function``'s traces (objects that take no
    weak reference stay held)."""
    fref = weakref.ref(function)

    def retire(_):
        fn = fref()
        if fn is not None:
            fn._last = fn._fast = fn._one = None  # plain stores: safe in a GC callback
            fn._dead_keys.append(key)

    changed = []

    def weak(leaf):
        if _is_tensor_leaf(leaf) or not _by_identity(leaf):
            return leaf
        try:
            held = WeakArg(weakref.ref(leaf, retire), leaf_key(leaf))
        except TypeError:  # no __weakref__ slot: kept alive with the trace
            return leaf
        changed.append(held)
        return held

    structured = tuple(nest.map_structure(weak, s) for s in concrete._structured)
    if changed:
        concrete._structured = structured


def retire_dead(function) -> None:
    """Drop the traces whose identity-keyed objects died (called on a cache miss)."""
    while function._dead_keys:
        function._traces.remove(function._dead_keys.pop())
