"""``gc.function(input_signature=...)``: which parameters the specs cover and how a call's
arguments are converted to them (TensorFlow 2.21's rules).

* The specs cover the leading parameters, one spec (or one nest of specs: lists, tuples,
  dicts, namedtuples of ``gc.TensorSpec``) per parameter. Every parameter after them
  must have a default (``*args`` / ``**kwargs`` stay empty); a parameter with no spec
  and no default is refused when the function is decorated.
* A covered argument is converted to its spec: Python numbers and lists (and NumPy
  scalars) become arrays of the spec's dtype when NumPy casts them ``same_kind``; a
  tensor or NumPy array must already have that dtype; every shape must fit the spec's.
  Defaults of covered parameters are converted too. So every call that fits is served by
  the one trace of the signature, whatever form its values come in.
* Specs beyond the positional parameters are the elements of ``*args`` (that many
  extra positional arguments, each converted to its spec).
* In a nested call, a traced value whose shape is less known than its spec's (an
  unknown dim or rank) is accepted and takes the spec's shape, as in TensorFlow.
* An uncovered parameter keeps its default: passing any other value raises
  ``TypeError`` (TensorFlow fixes it to the default as a constant of the trace). A
  Python number or string equal to the default (``3.0`` or ``True`` for ``1``) is
  accepted and the function sees the default itself, as TensorFlow casts it.
"""

from __future__ import annotations

import inspect

import numpy as np

from graphc import nest
from graphc.core.spec import TensorSpec, shape_compatible
from graphc.core.tensor import Tensor
from graphc.functions.signature import structure_key
from graphc.ops import shape as shape_ops

_EMPTY = inspect.Parameter.empty
_LITERALS = (bool, int, float, complex, str)  # Python values a default may equal


class InputSignature:
    """The specs of one ``gc.function`` checked against its parameters."""

    def __init__(self, fn_name, params, specs):
        self.fn_name = fn_name
        self.specs = tuple(specs)
        for s in nest.flatten(self.specs)[0]:
            if not isinstance(s, TensorSpec):
                raise TypeError(f"input_signature must hold gc.TensorSpec objects (or "
                                f"lists, tuples, dicts of them), got {s!r}")
        # a method's ``self`` (as TensorFlow, by that name) takes no spec: the specs
        # cover the parameters after it (the Function bound to an instance has none)
        self.first = 1 if params and params[0].name == "self" else 0
        self.params = list(params)
        covered = [p for p in self.params[self.first:]
                   if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        # one spec per covered parameter; specs beyond them are ``*args``' elements
        self.param_specs = list(self.specs[:len(covered)])
        extra = self.specs[len(covered):]
        if extra:
            if not any(p.kind == p.VAR_POSITIONAL for p in self.params):
                raise TypeError(f"input_signature has {len(self.specs)} specs but "
                                f"{fn_name} takes {len(covered)} positional arguments")
            self.param_specs.append(tuple(extra))  # *args comes right after them
        self.end = self.first + len(self.param_specs)
        for p in self.params[self.end:]:
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.default is not _EMPTY:
                continue
            raise TypeError(
                f"gc.function {fn_name!r}: input_signature has no spec for parameter "
                f"{p.name!r}, which has no default; add a gc.TensorSpec for it (or give "
                "it a default: it then keeps that value in every call)")

    def convert(self, bound) -> tuple:
        """``bound`` (arguments in parameter order, defaults filled in) with the covered
        ones converted to their specs; ``TypeError`` for one that does not fit."""
        out = list(bound)
        for i, (p, value) in enumerate(zip(self.params, bound)):
            if i < self.first:
                continue
            if i < self.end:
                out[i] = _to_spec(p.name, "", self.param_specs[i - self.first], value)
            elif _is_default(p, value):
                out[i] = value if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) else p.default
            else:
                given = f"{type(value).__name__} {value!r:.60}"
                raise TypeError(
                    f"{self.fn_name}: argument {p.name!r} is not in the input_signature, "
                    f"so it keeps its default {_default_text(p)}; got {given}. Add a "
                    "gc.TensorSpec for it to pass tensors, or drop input_signature")
        return tuple(out)

    def trace_args(self, bound) -> tuple:
        """The arguments to trace with: the specs themselves, then the defaults."""
        return (*bound[:self.first], *self.param_specs, *bound[self.end:])

    def key_pattern(self, bound) -> tuple:
        return tuple(map(structure_key, self.trace_args(bound)))


def _is_default(p, value) -> bool:
    if p.kind == p.VAR_POSITIONAL:
        return value == ()
    if p.kind == p.VAR_KEYWORD:
        return value == {}
    if type(value) in _LITERALS and type(p.default) in _LITERALS:
        return value == p.default  # 3.0 for 3, True for 1: the default (TensorFlow's Literal)
    return value is p.default or structure_key(value) == structure_key(p.default)


def _default_text(p) -> str:
    if p.kind == p.VAR_POSITIONAL:
        return "() (no extra positional arguments)"
    if p.kind == p.VAR_KEYWORD:
        return "{} (no extra keyword arguments)"
    return repr(p.default)


def _mismatch(name, path, spec, given) -> TypeError:
    return TypeError(
        f"argument '{name}{path}' does not match the input_signature: expected {spec}, "
        f"got {given}. Convert it (gc.cast / reshape) or drop input_signature.")


def _to_spec(name, path, spec, value):
    """``value`` converted to fit ``spec`` (a spec or a nest of specs)."""
    if isinstance(spec, TensorSpec):
        return _leaf_to_spec(name, path, spec, value)
    if isinstance(spec, dict):
        if not isinstance(value, dict) or set(value) != set(spec):
            raise _mismatch(name, path, spec, f"{type(value).__name__} {value!r:.60}")
        return {k: _to_spec(name, f"{path}[{k!r}]", spec[k], value[k]) for k in spec}
    if isinstance(spec, list | tuple):
        if not isinstance(value, list | tuple) or len(value) != len(spec):
            raise _mismatch(name, path, spec, f"{type(value).__name__} {value!r:.60}")
        items = [_to_spec(name, f"{path}[{i}]", s, v)
                 for i, (s, v) in enumerate(zip(spec, value))]
        kind = type(spec)
        return kind(*items) if hasattr(kind, "_fields") else kind(items)
    raise TypeError(f"input_signature holds {spec!r}, not a gc.TensorSpec")


def _leaf_to_spec(name, path, spec, value):
    if isinstance(value, Tensor) and value._np is None and value.dtype == spec.dtype \
            and not shape_compatible(spec.shape, value.shape) \
            and _may_fit(spec.shape, value.shape):
        # a traced value (a nested call) whose shape is less known than the spec's: it
        # takes the spec's shape, as TensorFlow's nested call does (checked at run time)
        return value if spec.shape is None or None in spec.shape else shape_ops.reshape(
            value, spec.shape)
    if isinstance(value, TensorSpec | Tensor | np.ndarray):
        if value.dtype != spec.dtype or not shape_compatible(spec.shape, value.shape):
            shape = "<unknown>" if value.shape is None else tuple(value.shape)
            raise _mismatch(name, path, spec, f"{np.dtype(value.dtype).name} tensor of "
                                              f"shape {shape}")
        return value
    handle = getattr(value, "_graphc_handle", None)
    if handle is not None:  # a gc.Variable where a tensor is expected: its value now
        return _leaf_to_spec(name, path, spec, value.read_value())
    try:
        arr = np.asarray(value)
    except Exception:  # noqa: BLE001 (ragged lists and the like)
        arr = None
    if arr is None or arr.dtype.kind in "OUSV" or not np.can_cast(
            arr.dtype, spec.dtype, "same_kind"):
        raise _mismatch(name, path, spec, f"{type(value).__name__} {value!r:.60}")
    if not shape_compatible(spec.shape, arr.shape):
        raise _mismatch(name, path, spec, f"{type(value).__name__} of shape {arr.shape}")
    return np.asarray(arr, dtype=spec.dtype)


def _may_fit(spec_shape, shape) -> bool:
    """Whether a value of ``shape`` (``None`` dims or rank unknown) may have one that
    fits ``spec_shape``."""
    if spec_shape is None or shape is None:
        return True
    return len(spec_shape) == len(shape) and all(
        a is None or b is None or a == b for a, b in zip(spec_shape, shape))
