"""Weak Python scalars next to tensors (NEP 50): the dtype a Python number takes, the
0-d arrays standing for it (cached: NumPy's own Python-scalar path costs ~1.5 us a
call), and the out-of-range cases. Used by ``registry._operands`` and the eager fast
paths of ``registry``."""

from __future__ import annotations

import numpy as np

from graphc import source_info
from graphc.dtypes import numpy_literal
from graphc.errors import InvalidArgumentError


def _all_weak(out, weak_at, op) -> None:
    """Python numbers, no tensor: as in NumPy, each gets its default dtype (int64 for
    ints; floats float64, or float32 under ``prefer_float32``), promoted together, and is
    converted to that (``gnp.add(2**63, 1)`` overflows int64 as ``np.add`` does, rather
    than becoming uint64)."""
    values = [out[i] for i in weak_at]
    dtype = np.result_type(*[np.dtype(np.int64) if type(v) is int else numpy_literal(v).dtype
                             for v in values])
    for i, v in zip(weak_at, values):
        try:
            out[i] = np.asarray(v, dtype=dtype)
        except OverflowError:
            raise InvalidArgumentError(
                f"{op.name}: Python number {v!r} does not fit {dtype}, the dtype NumPy gives "
                f"these Python numbers{source_info.where()}; pass an array of the dtype you "
                "mean") from None


# Caches for weak scalars: NEP 50 makes a weak scalar's dtype depend only on its Python
# type and the tensors' dtypes, so both the dtype and the 0-d array for a value can be
# reused (NumPy's own handling of Python scalars costs ~1.5 us per call here). Shared by
# all threads without a lock: each access is one dict operation (atomic under the GIL),
# a stored array is read-only before it is stored, and two threads filling one key store
# equal arrays.
_WEAK_DTYPES: dict = {}
_WEAK_ARRAYS: dict = {}
_WEAK_ARRAYS_MAX = 4096


def _weak_array(value, strong, op, types=None) -> np.ndarray:
    """``value`` as a 0-d array of the dtype NEP 50 gives it beside tensors of dtypes
    ``strong`` (``types``: the Python types of all weak numbers, when there are several)."""
    t = type(value)
    if strong is None:
        return numpy_literal(value)
    key = (t if types is None else types, *strong)
    dtype = _WEAK_DTYPES.get(key)
    if dtype is None:
        dtype = _WEAK_DTYPES[key] = np.result_type(*strong, *[w(0) for w in types or (t,)])
    # keyed by the single strong dtype when there is one, so the fast path in ``bind``
    # (which knows only the tensor's dtype) finds it; otherwise by the dtype itself (the
    # same array: promoting ``dtype`` with one more weak number of type ``t`` keeps it)
    akey = (strong[0] if len(strong) == 1 and types is None else dtype, t, value)
    arr = _WEAK_ARRAYS.get(akey)
    if arr is None:
        try:
            arr = np.asarray(value, dtype=dtype)
        except OverflowError:
            return _weak_out_of_range(value, strong, op, dtype)
        arr.flags.writeable = False
        # A float zero is not cached: -0.0 == 0.0 (and hashes alike), so the key could not
        # tell them apart and ``x + -0.0`` would get the cached +0.0 (or the reverse).
        if t is int or t is bool or value != 0:
            if len(_WEAK_ARRAYS) >= _WEAK_ARRAYS_MAX:
                _WEAK_ARRAYS.clear()
            _WEAK_ARRAYS[akey] = arr
    return arr


_COMPARISONS = frozenset(["equal", "not_equal", "less", "less_equal", "greater",
                          "greater_equal"])


def _weak_out_of_range(value, strong, op, dtype) -> np.ndarray:
    """A weak Python int that does not fit the tensors' dtype, handled as NumPy 2 does.

    Comparisons with integer tensors are exact (``int8_t < 300`` is all True): any value
    beyond every integer dtype's range compares alike, so a float64 +-2**65 stands in.
    Ufuncs whose loop is not the promoted dtype convert the number to the loop's dtype
    (``int8_t / 300`` runs in float64; ``logical_and(int8_t, 300)`` in bool). Everything
    else raises, where NumPy raises ``OverflowError``. Never cached: the cache is shared by
    all ops.
    """
    if type(value) is int:
        if op.name in _COMPARISONS and all(d.kind in "iu" for d in strong):
            return np.asarray(2.0**65 if value > 0 else -2.0**65)
        ufunc = op.ref
        if isinstance(ufunc, np.ufunc) and ufunc.nin == len(strong) + 1:
            try:
                loop = ufunc.resolve_dtypes((*strong, int) + (None,) * ufunc.nout)
                return np.asarray(value, dtype=loop[len(strong)])
            except (TypeError, OverflowError):
                pass
    raise InvalidArgumentError(
        f"{op.name}: Python number {value!r} does not fit the tensor dtype {dtype} "
        f"it is combined with{source_info.where()}; cast the tensor to a wider dtype "
        "first") from None
