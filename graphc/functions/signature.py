"""Trace keys, ``TensorSpec`` and retrace reasons.

A call's *trace key* decides which concrete function (trace) serves it:

* tensors and NumPy arrays: ``(dtype, shape)``;
* Python ``int/float/bool/str/None`` and enums: by value (each new value retraces);
* lists, tuples, dicts, namedtuples, dataclasses: by structure, recursively;
* ``gc.Variable``: ``(dtype, shape)``, the variable itself used by reference;
* any other object: by ``==``/``hash`` if hashable, else by identity.
"""

from __future__ import annotations

import dataclasses
import enum

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


# ------------------------------------------------ matching calls to signatures and patterns
def check_against_spec(name, spec, value):
    """Check argument ``name`` against its ``input_signature`` spec; the spec to trace with.

    Python values convert when NumPy can cast them to the spec's dtype ("same_kind")."""
    if isinstance(value, TensorSpec | Tensor | np.ndarray):
        given = value
    else:
        try:
            arr = np.asarray(value)
        except Exception:  # noqa: BLE001
            arr = None
        if arr is None or not np.can_cast(arr.dtype, spec.dtype, "same_kind"):
            raise TypeError(_mismatch(name, spec, f"{type(value).__name__} {value!r:.60}"))
        return TensorSpec(arr.shape, spec.dtype)
    if given.dtype != spec.dtype or not shape_compatible(spec.shape, given.shape):
        raise TypeError(_mismatch(name, spec, f"{given.dtype.name} tensor of shape "
                                              f"{tuple(given.shape)}"))
    return spec


def args_as_specs(names, specs, flat_args) -> tuple:
    """Check a call's arguments against ``input_signature`` ``specs`` (one per leading
    parameter); the arguments with specs in place of tensors (Python values stay)."""
    return tuple(check_against_spec(name, specs[i], arg) if i < len(specs) else arg
                 for i, (name, arg) in enumerate(zip(names, flat_args)))


def signature_mismatch(fn_name, names, specs, flat_args):
    """Raise ``TypeError`` for a call that the ``input_signature`` trace does not serve
    (the first argument that does not fit its spec, else the whole signature)."""
    for name, spec, arg in zip(names, specs, flat_args):
        check_against_spec(name, spec, arg)
    raise TypeError(f"{fn_name}: arguments do not match input_signature {list(specs)}")


def _mismatch(name, spec, given):
    return (f"argument '{name}' does not match the input_signature: expected {spec}, got "
            f"{given}. Convert it (gc.cast / reshape) or drop input_signature.")


def key_matches(pattern, key) -> bool:
    if is_tensor_key(pattern):
        return (is_tensor_key(key) and pattern[0] == key[0]
                and shape_compatible(pattern[1], key[1]))
    if isinstance(pattern, tuple) and isinstance(key, tuple) and len(pattern) == len(key):
        return all(key_matches(p, k) for p, k in zip(pattern, key))
    return pattern == key


def generalize(old, new):
    """A pattern covering both keys if they differ only in tensor dims (same ranks)."""
    if is_tensor_key(old) or is_tensor_key(new):
        if not (is_tensor_key(old) and is_tensor_key(new)):
            return None
        if old[0] != new[0] or len(old[1]) != len(new[1]):
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
    """Arguments to trace with from a generalized key: TensorSpecs for tensor leaves."""
    raise_if = None  # patterns only cover flat tensor/Python args (nested: no relaxing)
    out = []
    for part in pattern:
        if is_tensor_key(part):
            out.append(TensorSpec(part[1], part[0]))
        elif isinstance(part, tuple) and len(part) == 2 and isinstance(part[0], type) and (
                part[0] in (int, float, bool, str, complex, type(None))):
            out.append(float(part[1]) if part[0] is float else part[1])
        else:
            return raise_if
    return tuple(out)
