"""``gc.linalg``'s diagonal and transpose names: ``band_part``, ``diag``, ``diag_part``,
``set_diag`` (with TensorFlow's ``k`` bands and alignments), ``tensor_diag``,
``tensor_diag_part``, ``eye``, ``trace``, ``adjoint``, ``matrix_transpose``.

All are compositions: the positions a band maps to are computed with NumPy while
tracing (they depend only on the static shapes), then one ``take`` and one ``where``
move the values, so gradients, batching and compiled kernels are those ops'.
"""

from __future__ import annotations

import numpy as np

from graphc.errors import InvalidArgumentError
from graphc.ops import ufuncs as _u
from graphc.ops.complex_parts import conjugate
from graphc.ops.convert import asarray
from graphc.ops.creation import arange
from graphc.ops.creation import eye as _np_eye
from graphc.ops.indexing import take
from graphc.ops.reduce import sum as _sum
from graphc.ops.shape import broadcast_to, reshape, swapaxes
from graphc.ops.tf_elementwise import _tf_args

_ALIGNS = {"RIGHT_LEFT": (False, True), "LEFT_RIGHT": (True, False),
           "LEFT_LEFT": (True, True), "RIGHT_RIGHT": (False, False)}


def tensor(x):
    """``x`` as a tensor, Python literals with TensorFlow's dtypes (float32, int32)."""
    return asarray(_tf_args(x)[0])


def static_dims(x, n, name):
    """The last ``n`` dims of ``x``, which must be known while tracing."""
    shape = x.shape
    if shape is None or len(shape) < n:
        raise ValueError(f"{name}: expected a tensor of rank >= {n}, got shape {shape}")
    dims = shape[len(shape) - n:]
    if None in dims:
        raise ValueError(f"{name} needs the last {n} dims known while tracing (got shape "
                         f"{shape})")
    return dims


def _k_pair(k):
    if isinstance(k, tuple | list):
        if len(k) != 2:
            raise ValueError(f"k must be an int or a pair of ints, got {k!r}")
        lo, hi = int(k[0]), int(k[1])
    else:
        lo = hi = int(np.asarray(k.numpy() if hasattr(k, "numpy") else k))
    if lo > hi:
        raise InvalidArgumentError(f"lower_diag_index must not be larger than "
                                   f"upper_diag_index: {lo} > {hi}")
    return lo, hi


def _offset(d, length, rows, cols, align):
    """Where diagonal ``d`` starts in its row of length ``length`` (TensorFlow's
    alignments: a left-aligned diagonal is padded at its end)."""
    if align not in _ALIGNS:
        raise ValueError(f"align must be one of {sorted(_ALIGNS)}, got {align!r}")
    sup, sub = _ALIGNS[align]
    if (d >= 0 and sup) or (d <= 0 and sub):
        return 0
    return length - min(rows + min(0, d), cols - max(0, d))


def _matrix_positions(rows, cols, lo, hi, length, align):
    """For each ``(i, j)`` of a ``rows x cols`` matrix: its flat position in the
    ``(hi - lo + 1, length)`` diagonals, and whether it lies on the band."""
    i, j = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    d = j - i
    on = (d >= lo) & (d <= hi)
    pos = np.zeros((rows, cols), np.int64)
    for dd in range(lo, hi + 1):
        m = d == dd
        p = np.minimum(i, j)[m] + _offset(dd, length, rows, cols, align)
        pos[m] = (hi - dd) * length + p
    return pos, on


def band_part(input, num_lower, num_upper, name=None):  # noqa: A002 - TensorFlow's name
    """``tf.linalg.band_part``: keeps the ``num_lower`` subdiagonals and ``num_upper``
    superdiagonals of each matrix (a negative count keeps that whole triangle), zeroes
    the rest. The counts may be 0-d integer tensors."""
    x = tensor(input)
    rows, cols = static_dims(x, 2, "band_part")
    i, j = arange(rows)[:, None], arange(cols)[None, :]
    lo, up = asarray(num_lower), asarray(num_upper)
    for v, what in ((lo, "num_lower"), (up, "num_upper")):
        if v.dtype.kind not in "iu" or (v.shape is not None and len(v.shape) != 0):
            raise TypeError(f"band_part: {what} must be a 0-d integer, got {v.dtype}"
                            f"{list(v.shape or [])}")
    keep = _u.logical_and(_u.logical_or(lo < 0, i - j <= lo),
                          _u.logical_or(up < 0, j - i <= up))
    return _u.where(keep, x, np.zeros((), x.dtype))


def diag(diagonal, name="diag", k=0, num_rows=-1, num_cols=-1, padding_value=0,
         align="RIGHT_LEFT"):
    """``tf.linalg.diag``: matrices with ``diagonal`` on diagonal ``k`` (or the band
    ``k = (lo, hi)``, one row of ``diagonal`` per diagonal from ``hi`` down, aligned as
    ``align`` says) and ``padding_value`` elsewhere; ``num_rows``/``num_cols`` as
    TensorFlow infers them when -1."""
    v = tensor(diagonal)
    lo, hi = _k_pair(k)
    band = lo != hi
    length = static_dims(v, 2 if band else 1, "diag")[-1]
    if band and v.shape[-2] != hi - lo + 1:
        raise InvalidArgumentError(f"diag: the diagonal has {v.shape[-2]} rows for "
                                   f"{hi - lo + 1} diagonals (k = {k})")
    min_rows, min_cols = length - min(hi, 0), length + max(lo, 0)
    rows, cols = int(num_rows), int(num_cols)
    if rows != -1 and rows < min_rows:
        raise InvalidArgumentError("The number of rows is too small.")
    if cols != -1 and cols < min_cols:
        raise InvalidArgumentError("The number of columns is too small.")
    if rows == -1 and cols == -1:
        rows = cols = max(min_rows, min_cols)
    elif rows == -1:
        rows = min_rows
    elif cols == -1:
        cols = min_cols
    if rows != min_rows and cols != min_cols:
        raise InvalidArgumentError("The number of rows or columns is not consistent with "
                                   "the specified d_lower, d_upper, and diagonal.")
    batch = v.shape[:-2] if band else v.shape[:-1]
    pos, on = _matrix_positions(rows, cols, lo, hi, length, align)
    flat = reshape(v, batch + ((hi - lo + 1) * length,)) if band else v
    pad = asarray(padding_value).astype(v.dtype)
    return _u.where(on, take(flat, pos, axis=-1), pad)


def diag_part(input, name="diag_part", k=0, padding_value=0,  # noqa: A002
              align="RIGHT_LEFT"):
    """``tf.linalg.diag_part``: diagonal ``k`` of each matrix (``[..., L]``), or the
    band ``k = (lo, hi)`` as ``[..., hi - lo + 1, L]`` rows from ``hi`` down, shorter
    diagonals padded with ``padding_value`` as ``align`` says."""
    x = tensor(input)
    rows, cols = static_dims(x, 2, "diag_part")
    lo, hi = _k_pair(k)
    if (rows or cols) and not (-rows < lo <= hi < cols):
        raise InvalidArgumentError(f"diag_part: k = {k} is out of bounds for a "
                                   f"{rows}x{cols} matrix")
    length = max(0, min(rows + min(hi, 0), cols - max(lo, 0)))
    n = hi - lo + 1
    pos = np.zeros((n, length), np.int64)
    valid = np.zeros((n, length), bool)
    for r in range(n):
        d = hi - r
        q = np.arange(length) - _offset(d, length, rows, cols, align)
        size = min(rows + min(0, d), cols - max(0, d))
        ok = (q >= 0) & (q < size)
        i, j = q + max(-d, 0), q + max(d, 0)
        pos[r] = np.where(ok, i * cols + j, 0)
        valid[r] = ok
    flat = reshape(x, x.shape[:-2] + (rows * cols,))
    out = _u.where(valid, take(flat, pos, axis=-1), asarray(padding_value).astype(x.dtype))
    return out[..., 0, :] if lo == hi else out


def set_diag(input, diagonal, name="set_diag", k=0, align="RIGHT_LEFT"):  # noqa: A002
    """``tf.linalg.set_diag``: ``input`` with diagonal ``k`` (or the band ``k = (lo,
    hi)``) replaced by ``diagonal``, shaped as ``diag_part`` returns it."""
    x, v = (asarray(t) for t in _tf_args(input, diagonal))
    rows, cols = static_dims(x, 2, "set_diag")
    lo, hi = _k_pair(k)
    length = max(0, min(rows + min(hi, 0), cols - max(lo, 0)))
    band = lo != hi
    want = (hi - lo + 1, length) if band else (length,)
    got = tuple(v.shape[len(v.shape) - len(want):])
    if got != want:
        raise InvalidArgumentError(f"set_diag: diagonal must end in shape {want} for a "
                                   f"{rows}x{cols} matrix and k = {k}, got {v.shape}")
    pos, on = _matrix_positions(rows, cols, lo, hi, length, align)
    flat = reshape(v, v.shape[:-2] + (want[0] * length,)) if band else v
    return _u.where(on, take(flat, pos, axis=-1).astype(x.dtype), x)


def tensor_diag(diagonal, name=None):
    """``tf.linalg.tensor_diag``: shape ``D`` to ``D + D``, ``out[i.., i..] =
    diagonal[i..]`` and zeros elsewhere."""
    v = tensor(diagonal)
    shape = v.shape
    if None in shape:
        raise ValueError(f"tensor_diag needs the shape known while tracing (got {shape})")
    n = int(np.prod(shape, dtype=np.int64))
    flat = reshape(v, (n,))
    out = _u.where(np.eye(n, dtype=bool), flat, np.zeros((), v.dtype))
    return reshape(out, shape + shape)


def tensor_diag_part(input, name=None):  # noqa: A002 - TensorFlow's name
    """``tf.linalg.tensor_diag_part``: shape ``D + D`` to ``D``, ``out[i..] =
    input[i.., i..]``."""
    x = tensor(input)
    shape = x.shape
    if None in shape:
        raise ValueError(f"tensor_diag_part needs the shape known while tracing (got "
                         f"{shape})")
    half = len(shape) // 2
    if len(shape) % 2 or shape[:half] != shape[half:]:
        raise InvalidArgumentError(f"tensor_diag_part: input must have even rank and "
                                   f"shape D + D, got {shape}")
    n = int(np.prod(shape[:half], dtype=np.int64))
    flat = reshape(x, (n * n,))
    return reshape(take(flat, np.arange(n) * (n + 1)), shape[:half])


def eye(num_rows, num_columns=None, batch_shape=None, dtype=np.float32, name=None):
    """``tf.linalg.eye``: an identity matrix (``num_rows x num_columns``), repeated over
    ``batch_shape``."""
    rows = int(num_rows)
    cols = rows if num_columns is None else int(num_columns)
    out = _np_eye(rows, cols, dtype=np.dtype(dtype))
    if batch_shape is not None:
        out = broadcast_to(out, tuple(int(b) for b in batch_shape) + (rows, cols))
    return out


def trace(x, name=None):
    """``tf.linalg.trace``: the sum of each matrix's main diagonal (``[..., M, N]`` to
    ``[...]``)."""
    return _sum(diag_part(x), axis=-1)


def matrix_transpose(a, name="matrix_transpose", conjugate=False):  # noqa: A002
    """``tf.linalg.matrix_transpose``: the last two dims swapped (and conjugated with
    ``conjugate=True``)."""
    x = tensor(a)
    if x.shape is not None and len(x.shape) < 2:
        raise ValueError(f"Argument `a` should be a (batch) matrix with rank >= 2. "
                         f"Received `a` = {x} with shape: {x.shape}")
    out = swapaxes(x, -1, -2)
    return conjugate_if(out, conjugate)


def conjugate_if(x, flag):
    return conjugate(x) if flag and x.dtype.kind == "c" else x


def adjoint(matrix, name=None):
    """``tf.linalg.adjoint``: the conjugate transpose of each matrix."""
    return matrix_transpose(matrix, conjugate=True)
