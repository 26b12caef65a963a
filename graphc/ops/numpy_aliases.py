"""NumPy 2's Array-API spellings of existing names: ``acos``... ``atan2``, ``pow``,
``bitwise_invert``/``bitwise_not``, ``concat``, ``permute_dims``, ``matrix_transpose``.

The ufunc aliases are the same objects as the names they stand for (``gnp.acos is
gnp.arccos``, as ``np.acos is np.arccos``); the others are compositions of ``concatenate``,
``transpose`` and ``swapaxes``.
"""

from __future__ import annotations

import numpy as np

from graphc import source_info
from graphc.ops import inplace as _inplace
from graphc.ops import ufuncs as _u
from graphc.ops.convert import asarray
from graphc.ops.join import concatenate
from graphc.ops.shape import ravel, swapaxes, transpose

acos, acosh, asin, asinh = _u.arccos, _u.arccosh, _u.arcsin, _u.arcsinh
atan, atanh, atan2 = _u.arctan, _u.arctanh, _u.arctan2
bitwise_invert = bitwise_not = _u.invert
pow = _u.power  # noqa: A001 - NumPy's name


def concat(arrays, /, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """``np.concat`` (``np.concatenate``'s Array-API name): join along ``axis``
    (``None``: the flattened arrays); ``dtype`` casts each array first, checked against
    ``casting`` as NumPy does; ``out`` (a tensor or an ndarray) receives the result."""
    if out is not None and dtype is not None:
        raise TypeError("concatenate() only takes `out` or `dtype` as an argument, but "
                        "both were provided.")
    arrays = [asarray(a) for a in arrays]
    if axis is None:
        arrays = [ravel(a) for a in arrays]
        axis = 0
    if dtype is not None:
        dtype = np.dtype(dtype)
        for a in arrays:
            if not np.can_cast(a.dtype, dtype, casting):
                raise TypeError(f"Cannot cast array data from dtype('{a.dtype}') to "
                                f"dtype('{dtype}') according to the rule '{casting}'")
        arrays = [a.astype(dtype) for a in arrays]
    r = concatenate(arrays, axis=axis)
    if out is not None:
        return _inplace.into_out(out, r, "concatenate", None)
    return r


def permute_dims(a, axes=None):
    """``np.permute_dims`` (``np.transpose``'s Array-API name): ``axes`` a permutation
    of the dims, ``None`` reversing them."""
    return transpose(a, axes)


def matrix_transpose(x, /):
    """``np.matrix_transpose``: the last two dims swapped (a stack of matrices each
    transposed); fewer than two dims raise ``ValueError``."""
    x = asarray(x)
    if x.ndim < 2:
        raise ValueError(f"Input array must be at least 2-dimensional, but it is "
                         f"{x.ndim}{source_info.where()}")
    return swapaxes(x, -1, -2)
