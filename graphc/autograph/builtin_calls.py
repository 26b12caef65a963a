"""Python builtins on traced values: ``max``, ``min``, ``sum``, ``round``, ``int`` and
``float`` staged as graph ops (``operators.call_builtin`` sends calls here first).

Eagerly, the 0-d values of a NumPy program are NumPy scalars (``a[i]``, ``a.sum()``),
and these builtins give NumPy scalar semantics; a traced 0-d tensor stands for such a
scalar, so each staged call computes what the builtin would have computed on it:

* ``max(a, b, ...)`` / ``min`` (also over one list, tuple or iterator, and ``key=``):
  Python's fold, ``best = v if v > best else best``, as ``where`` ops: the first
  extreme wins and NaN behaves as in Python (a NaN first stays, a later NaN is skipped).
  ``max(t)`` over a traced 1-D tensor is one reduction with the same NaN rule.
* ``sum(t, start=0)`` of a traced tensor: ``start`` plus the sum over the first axis in
  the dtype Python's ``start + t[0] + t[1] + ...`` would have (``sum`` of an int8 vector
  stays int8, of a bool vector is int64). ``sum`` of a list of tensors needs nothing:
  Python's ``+`` on tensors already stages.
* ``int(x)`` truncates toward zero to int64, ``float(x)`` casts to float64, ``round(x)``
  rounds half to even to int64; their results stand for Python numbers, so they are
  *weak* (``x_f32 * float(y)`` stays float32, as NumPy's NEP 50 gives eagerly).
  ``round(x, n)`` is ``np.round(x, n)`` in ``x``'s dtype, as a NumPy scalar's round.
* ``abs(x)`` needs nothing: Python calls ``Tensor.__abs__``, the ``absolute`` op.

Calls whose operands are all Python values or eager tensors return ``NotImplemented``
and run as Python, so eager behaviour never changes.
"""

from __future__ import annotations

import builtins
import collections.abc
import operator

import numpy as np

from graphc.autograph.conditionals import here
from graphc.core import weak
from graphc.core.tensor import Tensor
from graphc.dtypes import result_type
from graphc.errors import AutographError, warn
from graphc.ops.control.values import is_symbolic
from graphc.ops.creation import copy
from graphc.ops.reduce import max as reduce_max
from graphc.ops.reduce import min as reduce_min
from graphc.ops.reduce import sum as reduce_sum
from graphc.ops.shape import reshape
from graphc.ops.ufuncs import astype, isnan, rint, where
from graphc.ops.ufuncs import round as np_round

_NOT_0D = "only 0-dimensional arrays can be converted to Python scalars"
_AMBIGUOUS = ("The truth value of an array with more than one element is ambiguous. "
              "Use a.any() or a.all()")


def call(func, args, kwargs):
    """``func(*args, **kwargs)`` staged as graph ops when ``func`` is one of the builtins
    above and an operand is traced, else ``NotImplemented``."""
    if func is builtins.max or func is builtins.min:
        return _extreme(func, args, kwargs)
    if func is builtins.sum:
        return _sum(args, kwargs)
    if func is builtins.round:
        return _round(args, kwargs)
    if (func is builtins.int or func is builtins.float) and len(args) == 1 and not kwargs \
            and is_symbolic(args[0]):
        return _to_python_number(func, args[0])
    return NotImplemented


# --------------------------------------------------------------------------- casts
def _scalar(x, what: str):
    """``x`` checked to be one value, as NumPy converts only 0-d arrays to scalars."""
    if x.shape is None:  # rank unknown while tracing: one element at run time
        return reshape(x, ())
    if x.shape != ():
        raise TypeError(f"{_NOT_0D}: {what} of a traced tensor of shape {x.shape} at "
                        f"{here()}; index one element first (x[i]) or use x.astype(...)")
    return x


def _to_python_number(func, x):
    x = _scalar(x, f"{func.__name__}()")
    if x.dtype.kind == "c":
        warn("Casting complex values to real discards the imaginary part",
             np.exceptions.ComplexWarning)
    return _weak(astype(x, np.int64 if func is builtins.int else np.float64), x)


def _weak(result, operand):
    """``result``, a value standing for a Python number, marked weak (a new value: the
    cast of an operand of the same dtype may be the operand itself, which stays as it
    was)."""
    if result is operand:
        result = copy(operand)
    return weak.mark(result)


def _round(args, kwargs):
    if not args or len(args) > 2 or set(kwargs) - {"ndigits"} or not is_symbolic(args[0]):
        return NotImplemented
    x = args[0]
    ndigits = args[1] if len(args) == 2 else kwargs.get("ndigits")
    if x.dtype.kind in "bc":
        raise TypeError(f"type numpy.{x.dtype.name} doesn't define __round__ method "
                        f"(round() of a traced {x.dtype} value at {here()})")
    if x.shape != () and x.shape is not None:
        raise TypeError(f"type numpy.ndarray doesn't define __round__ method: round() of a "
                        f"traced tensor of shape {x.shape} at {here()} (NumPy rounds only "
                        "scalars this way); use gnp.round(x, decimals)")
    x = _scalar(x, "round()")
    if is_symbolic(ndigits):
        raise TypeError(f"round(x, ndigits) at {here()}: ndigits must be known while "
                        "tracing (a Python int), not a traced tensor")
    if ndigits is not None:  # a NumPy scalar's round: np.round, in x's dtype
        return np_round(x, operator.index(ndigits))
    rounded = rint(x) if x.dtype.kind == "f" else x  # half to even, as Python and NumPy
    return _weak(astype(rounded, np.int64), x)


# --------------------------------------------------------------------------- max, min
def _extreme(func, args, kwargs):
    if set(kwargs) - {"key", "default"} or not args:
        return NotImplemented  # Python's own TypeError
    key = kwargs.get("key")
    if len(args) > 1:
        if "default" in kwargs or not builtins.any(is_symbolic(a) for a in args):
            return NotImplemented
        return _fold(func.__name__, args, key)
    (items,) = args
    if isinstance(items, Tensor):
        if not is_symbolic(items):
            return NotImplemented
        return _extreme_of_tensor(func.__name__, items, key, kwargs)
    if isinstance(items, collections.abc.Iterator):
        items = list(items)  # consumed once, as Python would; Python's call gets the list
        if not builtins.any(is_symbolic(v) for v in items):
            return func(items, **kwargs)
    elif not isinstance(items, list | tuple) or not builtins.any(is_symbolic(v)
                                                                 for v in items):
        return NotImplemented
    return _fold(func.__name__, items, key)


def _fold(name: str, items, key):
    """Python's ``max``/``min`` loop, each traced comparison choosing with ``where``."""
    better = operator.gt if name == "max" else operator.lt
    best = items[0]
    best_key = best if key is None else key(best)
    for v in items[1:]:
        v_key = v if key is None else key(v)
        pick = better(v_key, best_key)
        if not is_symbolic(pick):
            if pick:
                best, best_key = v, v_key
            continue
        _check_truth(pick, name)
        best = where(pick, v, best)
        best_key = best if key is None else where(pick, v_key, best_key)
    return best


def _check_truth(pick, name):
    """Python calls ``bool()`` on each comparison: one element, or NumPy's error."""
    shape = pick.shape
    if shape is not None and None not in shape and int(np.prod(shape)) != 1:
        raise ValueError(f"{_AMBIGUOUS} ({name}() compares traced values of shape "
                         f"{shape} at {here()}; for elementwise results use "
                         f"gnp.{name}imum)")


def _extreme_of_tensor(name, t, key, kwargs):
    """``max(t)``/``min(t)``: the extreme of ``t``'s rows, as Python iterates them."""
    shape = t.shape
    if shape == ():
        raise TypeError(f"iteration over a 0-d array ({name}() of a traced scalar at "
                        f"{here()})")
    n = None if shape is None else shape[0]
    if n == 0:
        if "default" in kwargs:
            return kwargs["default"]
        raise ValueError(f"{name}() iterable argument is empty")
    if key is None and shape is not None and len(shape) == 1:
        return _reduce_rows(name, t)
    if n is None:
        raise AutographError(
            f"{name}() at {here()} over a traced tensor of unknown length with a key or "
            f"of rank {'unknown' if shape is None else len(shape)}: Python would loop "
            "over its rows, which a graph cannot do here; use gnp.max/gnp.argmax (or "
            "gnp.min/gnp.argmin) with an axis")
    return _fold(name, [t[i] for i in range(n)], key)


def _reduce_rows(name, t):
    """``max``/``min`` of a 1-D tensor as one reduction, with Python's NaN rule: a NaN
    first element is the result (no element compares greater), later NaNs are skipped."""
    reduce = reduce_max if name == "max" else reduce_min
    if t.dtype.kind != "f":
        return reduce(t, axis=0)
    skip = -np.inf if name == "max" else np.inf
    first = t[0]
    return where(isnan(first), first, reduce(where(isnan(t), skip, t), axis=0))


# --------------------------------------------------------------------------- sum
def _sum(args, kwargs):
    if not args or len(args) > 2 or set(kwargs) - {"start"} or not is_symbolic(args[0]):
        return NotImplemented  # a list of tensors: Python's sum adds them with tensor ops
    t = args[0]
    start = args[1] if len(args) == 2 else kwargs.get("start", 0)
    if not isinstance(start, int | float | complex | Tensor | np.generic | np.ndarray):
        return NotImplemented
    if t.shape == ():
        raise TypeError(f"iteration over a 0-d array (sum() of a traced scalar at "
                        f"{here()})")
    # the dtype of ``start + t[0] + t[1] + ...`` (a Python start number is weak)
    start_kind = weak.python_kind(start.dtype) if weak.is_weak(start) else start
    dtype = result_type(start_kind, t.dtype)
    return start + reduce_sum(t, axis=0, dtype=dtype)
