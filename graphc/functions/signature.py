"""Trace keys, ``TensorSpec`` and retrace reasons.

A call's *trace key* decides which concrete function (trace) serves it:

* tensors and NumPy arrays: ``(dtype, shape)``;
* Python ``int/float/bool/str/None`` and enums: by value (each new value retraces);
* lists, tuples, dicts, namedtuples, dataclasses, ``attrs`` classes: by structure,
  recursively;
* ``gc.Variable``: ``(dtype, shape)``, the variable itself used by reference;
* any other object: by ``==``/``hash`` if hashable, else by identity.
"""

from __future__ import annotations

import dataclasses
import enum
import inspect
import weakref

import numpy as np

from graphc.core.device_tensor import DeviceTensor
from graphc.core.spec import TensorSpec, shape_compatible  # noqa: F401 (re-exported)
from graphc.core.tensor import Tensor


def is_tensor_key(key) -> bool:
    """Tensor leaves key as a plain ``(dtype, shape)`` tuple (cheap to build and compare);
    Python values key as ``(type, value)``, never with a dtype first."""
    return type(key) is tuple and len(key) == 2 and isinstance(key[0], np.dtype)


def describe_tensor_key(key) -> str:
    dtype, shape = key
    if shape is None:
        return f"{dtype.name}[<unknown rank>]"
    return f"{dtype.name}[{', '.join('?' if d is None else str(d) for d in shape)}]"


class ExactFloat(float):
    """A float trace-key component compared by its bits: ``-0.0`` and ``0.0`` trace apart,
    and a NaN argument finds the trace made for NaN (``nan != nan`` for plain floats)."""

    __slots__ = ()

    def __eq__(self, other):
        return type(other) is ExactFloat and self.hex() == other.hex()

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(self.hex())

    def __repr__(self):
        return float.__repr__(self)


_REFUSED = {
    True: ("gc.function cannot take a set as an argument ({x!r:.60}): it is mutable and "
           "unordered, so no trace can be keyed by it (TensorFlow refuses it too); pass "
           "a frozenset, or a sorted tuple or list"),
    False: ("gc.function cannot take a weak reference as an argument ({x!r:.60}): what "
            "it refers to may change or vanish between calls (TensorFlow refuses it "
            "too); pass the object itself, or call the weak reference outside"),
}


def leaf_key(x):
    """The trace-key component of one leaf value."""
    t = type(x)
    if t is Tensor or t is np.ndarray:
        return (x.dtype, x.shape)
    if t is float:
        return (float, ExactFloat(x))
    if t in (int, bool, str, complex) or x is None:
        return (t, x)
    if isinstance(x, TensorSpec):
        return (x.dtype, x.shape)
    key = getattr(x, "_graphc_trace_key", None)
    if key is not None:
        return key()
    if isinstance(x, np.generic):
        # keyed by its Python value (floats by their bits): a NumPy scalar compared with
        # a (dtype, shape) key of an array must give a plain bool, never an array
        value = x.item()
        return (t, ExactFloat(value) if isinstance(value, float) else value)
    if isinstance(x, enum.Enum):
        return (t, x)
    if isinstance(x, Tensor):
        return (x.dtype, x.shape)
    if isinstance(x, np.ndarray) and not isinstance(x, np.ma.MaskedArray):
        return (x.dtype, x.shape)  # a subclass keys like any array (traced as one)
    if t is set or isinstance(x, weakref.ref):
        raise TypeError(_REFUSED[t is set].format(x=x))
    try:
        hash(x)
    except TypeError:
        return ("id", t, id(x))
    return ("obj", t, x)


def structure_key(x):
    """Key of an argument, recursing into containers."""
    t = type(x)
    if t is Tensor:
        a = x._np
        if a is not None:
            return (a.dtype, a.shape)
        return (x.dtype, x.shape)
    if t is np.ndarray:
        return (x.dtype, x.shape)
    if t is int or t is bool or t is str or x is None:
        return (t, x)
    if t is float:
        return (float, ExactFloat(x))
    if t is DeviceTensor:  # a tensor on a GPU keys like any tensor (the device is not
        return (x._dtype, x._shape)  # part of the trace, only of the executor)
    if t is list or t is tuple or (isinstance(x, tuple) and hasattr(t, "_fields")):
        return (t, tuple(structure_key(v) for v in x))
    if t is dict:
        return (dict, tuple((k, structure_key(x[k])) for k in sorted(x, key=repr)))
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return (t, tuple((f.name, structure_key(getattr(x, f.name)))
                         for f in dataclasses.fields(x)))
    attrs = getattr(t, "__attrs_attrs__", None)  # an ``attrs`` class: as a dataclass
    if attrs is not None:
        return (t, tuple((a.name, structure_key(getattr(x, a.name))) for a in attrs))
    return leaf_key(x)


def describe_key(key) -> str:
    """Readable text for a key component, e.g. ``float32[4]`` or ``Python int 3``."""
    if is_tensor_key(key):
        return describe_tensor_key(key)
    if type(key) is tuple and len(key) == 3 and key[0] == "variable":  # gc.Variable
        return f"gc.Variable {describe_tensor_key(key[1:])}"
    if isinstance(key, tuple) and len(key) == 2 and isinstance(key[0], type) and (
        key[0] in (int, float, bool, str, complex, type(None)) or issubclass(key[0], enum.Enum)
    ):
        return f"Python {key[0].__name__} {key[1]!r}"
    if isinstance(key, tuple) and len(key) == 3 and key[0] in ("id", "obj"):
        return f"{key[1].__name__} object {key[2] if key[0] == 'obj' else hex(key[2])}"
    if isinstance(key, tuple) and len(key) == 2 and isinstance(key[0], type) \
            and issubclass(key[0], np.generic):  # a NumPy scalar argument, keyed by value
        return f"NumPy {key[0].__name__} {key[1]!r}"
    if isinstance(key, tuple) and len(key) == 2 and isinstance(key[0], type):
        return f"{key[0].__name__} of {len(key[1])}"
    return repr(key)


def closest_diff(names, cached_keys, key) -> list[str]:
    """Why ``key`` missed the cache: :func:`diff_keys` against the cached key it differs
    from least (``cached_keys`` most recent first, which wins ties); [] when none."""
    best = None
    for old in cached_keys:
        reasons = diff_keys(names, old, key)
        if best is None or len(reasons) < len(best):
            best = reasons
    return best or []


def diff_keys(names, old, new) -> list[str]:
    """Reasons ``new`` differs from ``old``, one per argument: ``argument 'n': ...``."""
    reasons = []
    for name, a, b in zip(names, old, new):
        if a != b:
            path, x, y = _first_difference(a, b, "")
            reasons.append(f"argument '{name}'{path}: {describe_key(x)} -> {describe_key(y)}")
    return reasons


def _first_difference(a, b, path):
    if (isinstance(a, tuple) and isinstance(b, tuple) and not is_tensor_key(a)
            and not is_tensor_key(b) and len(a) == 2 and len(b) == 2
            and a[0] is b[0] and isinstance(a[0], type)
            and a[0] in (list, tuple, dict) and len(a[1]) == len(b[1])):
        for i, (x, y) in enumerate(zip(a[1], b[1])):
            if x != y:
                if a[0] is dict:
                    return _first_difference(x[1], y[1], f"{path}[{x[0]!r}]")
                return _first_difference(x, y, f"{path}[{i}]")
    return path, a, b


# ------------------------------------------------ matching calls to patterns
def key_matches(pattern, key) -> bool:
    if is_tensor_key(pattern):
        return (is_tensor_key(key) and pattern[0] == key[0]
                and shape_compatible(pattern[1], key[1]))
    if isinstance(pattern, tuple) and isinstance(key, tuple) and len(pattern) == len(key):
        return all(key_matches(p, k) for p, k in zip(pattern, key))
    return pattern == key


def has_unknown_dims(key) -> bool:
    """True if ``key`` (from ``TensorSpec`` arguments) has a ``None`` dim or an unknown
    rank: it is a pattern, matched by the keys of many calls (``key_matches``)."""
    if is_tensor_key(key):
        return key[1] is None or None in key[1]
    return isinstance(key, tuple) and any(has_unknown_dims(k) for k in key)


def generalize(old, new):
    """A pattern covering both keys if they differ only in tensor dims (same ranks)."""
    if is_tensor_key(old) or is_tensor_key(new):
        if not (is_tensor_key(old) and is_tensor_key(new)):
            return None
        if old[0] != new[0] or old[1] is None or new[1] is None or len(old[1]) != len(
                new[1]):
            return None
        return ((old[0], tuple(a if a == b else None
                                        for a, b in zip(old[1], new[1]))))
    if isinstance(old, tuple) and isinstance(new, tuple) and len(old) == len(new):
        parts = [generalize(a, b) for a, b in zip(old, new)]
        if any(p is None and not (a is None and b is None)
               for p, a, b in zip(parts, old, new)):
            return None
        return tuple(parts)
    return old if old == new else None


def specs_from_pattern(pattern):
    """Arguments to trace with from a generalized key: TensorSpecs for tensor leaves,
    the structures (lists, tuples, namedtuples, dicts) rebuilt around them; None when a
    part cannot be rebuilt (an object keyed by identity, a dataclass)."""
    try:
        return tuple(_from_part(part) for part in pattern)
    except _NotRebuilt:
        return None


class _NotRebuilt(Exception):
    pass


def _from_part(part):
    if is_tensor_key(part):
        return TensorSpec(part[1], part[0])
    if isinstance(part, tuple) and len(part) == 2 and isinstance(part[0], type):
        kind, inner = part
        if kind in (int, float, bool, str, complex, type(None)):
            return float(inner) if kind is float else inner
        if kind is dict:
            return {k: _from_part(v) for k, v in inner}
        if kind is list or kind is tuple:
            return kind(_from_part(v) for v in inner)
        if issubclass(kind, tuple) and hasattr(kind, "_fields"):
            return kind(*(_from_part(v) for v in inner))
    raise _NotRebuilt


def relaxable(keys, key):
    """With reduce_retracing: ``(spec args, pattern)`` for a key with ``None`` dims
    covering ``key`` and the first of ``keys`` (newest first) differing from it only in
    shapes, or None."""
    for old in keys:
        pattern = generalize(old, key)
        if pattern is not None:
            specs = specs_from_pattern(pattern)
            return None if specs is None else (specs, pattern)
    return None


def positional_kind(params) -> str | None:
    """``"simple"``: every parameter positional (``f(a, b)``); ``"varargs"``: positional
    ones then ``*rest`` (a positional call's tensors are its arguments in order); else
    None (keywords only or ``**kw``: calls bind through the signature)."""
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    if all(p.kind in positional for p in params):
        return "simple"
    if params and all(p.kind in positional for p in params[:-1]) and (
            params[-1].kind == inspect.Parameter.VAR_POSITIONAL):
        return "varargs"
    return None


def fast_path_key(kind, key, bound) -> tuple | None:
    """For a call of a ``kind`` function bound to ``bound`` (parameter order) with trace
    key ``key``: the key of each positional argument in order, when every one is a plain
    tensor or ndarray (``gc.function``'s cached-call path compares them in place); else
    None."""
    if kind is None:
        return None
    leaves = (*bound[:-1], *bound[-1]) if kind == "varargs" else bound
    if not all(type(a) is np.ndarray or type(a) is Tensor and a._np is not None
               for a in leaves):
        return None
    return key if kind == "simple" else tuple(map(structure_key, leaves))
