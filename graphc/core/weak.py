"""Weakly typed tensors: traced values that stand for a Python number.

A loop variable that starts as a Python number and only ever holds numbers derived from
Python numbers (``i = 0; while i < n: ...; i += 1``) becomes a graph value, but it keeps
the *weak* typing of a Python number (NEP 50; JAX's ``weak_type``): next to a tensor it
takes that tensor's dtype instead of imposing its default one, so ``gc.stack([i])``
concatenated with an int32 tensor stays int32.

Weakness belongs to the traced value (``ir.Value``), kept here in a weak set so nothing
else carries it: ``bind`` reads it for the ops' weak positions (``OpDef.weak``, and
``OpDef.weak_tensors`` for ops such as ``concatenate`` whose operands promote together
without treating Python numbers weakly), and marks an op's outputs weak when all its
promoting operands were weak.
"""

from __future__ import annotations

import weakref

_values: "weakref.WeakSet" = weakref.WeakSet()


def mark(tensor):
    """Mark a symbolic tensor weak; returns it."""
    _values.add(tensor._sym)
    return tensor


def is_weak(x) -> bool:
    """Whether ``x`` is a weakly typed symbolic tensor."""
    sym = getattr(x, "_sym", None)
    return sym is not None and sym in _values


def any_weak() -> bool:
    """Cheap test before looking at operands: are there weak values at all?"""
    return bool(_values)


def python_kind(dtype):
    """The Python number a weak value of ``dtype`` stands for (its promotion class)."""
    return {"b": False, "i": 0, "u": 0, "f": 0.0, "c": 0j}[dtype.kind]
