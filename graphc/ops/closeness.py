"""``np.isclose``, ``allclose``, ``array_equal``, ``array_equiv``, from comparisons and
``all`` (no op of their own).

NumPy returns Python bools from ``allclose``/``array_equal``/``array_equiv``; so does
graphc when the answer is known while tracing (eagerly, or from constants), else a 0-d
bool tensor (inside ``gc.function`` it can stand in an ``if``). Shape mismatches are
decided from the static shapes; ``array_equal``/``array_equiv`` with dims unknown while
tracing compare assuming the shapes match (a mismatch then fails when the graph runs).
"""

from __future__ import annotations

import builtins

import numpy as np

from graphc.core.shapes import broadcast_shapes
from graphc.ops.convert import asarray
from graphc.ops.reduce import all as _all
from graphc.ops.shape_args import static_value
from graphc.ops.ufuncs import absolute, astype, isfinite, isnan

_PY = (builtins.int, builtins.float, builtins.complex, builtins.bool)


def _as(x):
    return x if type(x) in _PY else asarray(x)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``np.isclose``: ``|a - b| <= atol + rtol * |b|`` elementwise, with infinities
    equal only to themselves and NaN equal to NaN only with ``equal_nan``. ``b`` is
    compared as a float (integers as float64, NumPy's guard against ``abs(INT_MIN)``);
    Python numbers stay weak, as in NumPy."""
    x, y = _as(a), _as(b)
    if type(y) in _PY:
        if type(x) in _PY:
            x = asarray(x)
        y = builtins.float(y) if type(y) is not builtins.complex else y
        ay, finite = builtins.abs(y), np.isfinite(y)
        with np.errstate(invalid="ignore", over="ignore"):
            r = (absolute(x - y) <= atol + rtol * ay) & finite | (x == y)
            if equal_nan and np.isnan(y):
                r = r | isnan(x)
        return r
    dt = np.result_type(y.dtype, 1.0)
    if y.dtype != dt:
        y = astype(y, dt)
    with np.errstate(invalid="ignore", over="ignore"):
        r = (absolute(x - y) <= atol + rtol * absolute(y)) & isfinite(y) | (x == y)
        if equal_nan:
            r = r | (isnan(x) & isnan(y))
    return r


def _known_bool(t):
    v = static_value(t)
    return t if v is None else builtins.bool(np.asarray(v))


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``np.allclose``: ``all(isclose(...))``; a Python bool when known while tracing."""
    return _known_bool(_all(isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)))


def array_equal(a1, a2, equal_nan=False):
    """``np.array_equal``: same shape and all elements equal (NaN equal to NaN with
    ``equal_nan``)."""
    a1, a2 = asarray(a1), asarray(a2)
    s1, s2 = tuple(a1.shape), tuple(a2.shape)
    if len(s1) != len(s2) or builtins.any(
            d1 is not None and d2 is not None and d1 != d2 for d1, d2 in zip(s1, s2)):
        return False
    eq = a1 == a2
    if equal_nan and (a1.dtype.kind in "fc" or a2.dtype.kind in "fc"):
        eq = eq | (isnan(a1) & isnan(a2))
    return _known_bool(_all(eq))


def array_equiv(a1, a2):
    """``np.array_equiv``: the arrays broadcast together and all elements are equal."""
    a1, a2 = asarray(a1), asarray(a2)
    try:
        broadcast_shapes(tuple(a1.shape), tuple(a2.shape))
    except ValueError:
        return False
    return _known_bool(_all(a1 == a2))


__all__ = ["allclose", "array_equal", "array_equiv", "isclose"]
