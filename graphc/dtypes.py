"""dtype names, literal conversion and type promotion (NumPy 2 / NEP 50).

Python numbers are *weak*: where they meet a tensor they take the tensor's dtype kind
(``float32_tensor * 2.0 -> float32``). Only where no tensor fixes the dtype do they get a
default: NumPy's (``int64``/``float64``, or ``float32`` with ``prefer_float32``) for the
``graphc.numpy`` names, TensorFlow's (``int32``/``float32``) for ``gc.constant`` and the
other TensorFlow-style names.
"""

from __future__ import annotations

import sys

import numpy as np

from graphc import config

float16 = np.dtype("float16")
float32 = np.dtype("float32")
float64 = np.dtype("float64")
int8 = np.dtype("int8")
int16 = np.dtype("int16")
int32 = np.dtype("int32")
int64 = np.dtype("int64")
uint8 = np.dtype("uint8")
bool_ = np.dtype("bool")
complex64 = np.dtype("complex64")
complex128 = np.dtype("complex128")

PYTHON_SCALARS = (bool, int, float, complex)

_INT32 = np.iinfo(np.int32)
_NON_NUMERIC = "OSUVMm"  # object, bytes, str, void, datetime, timedelta


def as_dtype(dtype) -> np.dtype | None:
    """Normalize anything NumPy accepts as a dtype (or ``None``) to ``numpy.dtype``."""
    if dtype is None or isinstance(dtype, np.dtype):
        return dtype
    try:
        return np.dtype(dtype)
    except TypeError:
        raise TypeError(f"{dtype!r} is not a dtype; use e.g. gc.float32 or 'int64'") from None


def _checked_asarray(value, dtype=None) -> np.ndarray:
    """``np.asarray`` that explains failures instead of surfacing NumPy's internals.

    Strings, objects and other non-numeric values are refused: graphc tensors hold numbers
    and booleans only (their kernels are numeric), and NumPy would otherwise make a ``<U1``
    or ``object`` array that fails later with a less helpful message.
    """
    check_plain_array(value)
    try:
        arr = np.asarray(value, dtype=dtype)
    except (ValueError, TypeError) as e:
        if "inhomogeneous" in str(e):
            raise ValueError(
                f"cannot convert {_short(value)} to a tensor: its nested sequences have "
                "different lengths (a ragged list); make every row the same length"
            ) from None
        into = "" if dtype is None else f" of dtype {dtype}"
        raise type(e)(f"cannot convert {_short(value)} to a tensor{into}: {e}") from None
    if arr.dtype.kind in _NON_NUMERIC:
        raise TypeError(
            f"cannot convert {_short(value)} to a tensor: graphc tensors hold numbers and "
            f"booleans, not {arr.dtype} values"
        )
    return arr


def check_plain_array(value) -> None:
    """Refuse arrays a tensor cannot stand for: masked arrays (a tensor has no mask, so
    converting would silently compute with the masked-out values) and non-numeric ones."""
    ma = sys.modules.get("numpy.ma")  # no masked array exists before numpy.ma is imported
    if ma is not None and isinstance(value, ma.MaskedArray):
        raise TypeError(
            f"cannot convert a masked array (shape {value.shape}, dtype {value.dtype}) to a "
            "tensor: tensors have no "
            "mask, and dropping it would compute with the masked-out values. Pass "
            "a.filled(fill_value) to choose what masked entries hold, or a.data to use "
            "them as they are")
    if isinstance(value, np.ndarray) and value.dtype.kind in _NON_NUMERIC:
        raise TypeError(
            f"cannot convert {_short(value)} to a tensor: graphc tensors hold numbers and "
            f"booleans, not {value.dtype} values")


def _short(value) -> str:
    return f"{type(value).__name__} {value!r:.60}"


def numpy_literal(value, dtype=None) -> np.ndarray:
    """Convert a Python/NumPy value to an array with NumPy's literal rules.

    Python floats become float64 (float32 under ``prefer_float32``); NumPy arrays and
    NumPy scalars keep their dtype.
    """
    dtype = as_dtype(dtype)
    if dtype is not None:
        return _checked_asarray(value, dtype)
    arr = _checked_asarray(value)
    if (
        config.state.prefer_float32
        and arr.dtype == float64
        and not isinstance(value, (np.ndarray, np.generic))
    ):
        arr = arr.astype(float32)
    return arr


def tf_literal(value, dtype=None) -> np.ndarray:
    """Convert with TensorFlow's literal rules: Python floats -> float32, ints -> int32.

    NumPy arrays keep their dtype, as ``tf.constant`` keeps them. Python ints too large
    for int32 become int64.
    """
    dtype = as_dtype(dtype)
    if dtype is not None:
        return _checked_asarray(value, dtype)
    arr = _checked_asarray(value)
    if isinstance(value, (np.ndarray, np.generic)):
        return arr
    if arr.dtype == float64:
        return arr.astype(float32)
    if arr.dtype == complex128:
        return arr.astype(complex64)
    fits = arr.size == 0 or (_INT32.min <= arr.min() and arr.max() <= _INT32.max)
    if arr.dtype == int64 and fits:
        return arr.astype(int32)
    return arr


def result_type(*arrays_and_dtypes) -> np.dtype:
    """``gnp.result_type``: NumPy 2's promotion of tensors, arrays, dtypes and scalars."""
    # tensors and arrays count by their dtype (never weak); Python numbers stay weak
    args = [a if isinstance(a, type) else getattr(a, "dtype", a) for a in arrays_and_dtypes]
    return np.result_type(*args)


def check_strict(op_name: str, dtypes) -> None:
    """Under strict promotion, raise ``TypeError`` when tensor dtypes differ."""
    first = dtypes[0]
    for d in dtypes[1:]:
        if d != first:
            raise TypeError(
                f"{op_name}: mixed dtypes {first} and {d} under strict dtype promotion; "
                f"cast one side explicitly (gc.cast(x, gc.{d}) or x.astype(...)), or call "
                f"gc.config.set_dtype_promotion('numpy') for NumPy's promotion"
            )
