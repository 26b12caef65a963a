"""``np.convolve``, ``correlate``, ``cross``, ``vecdot``, ``matvec``, ``vecmat`` and
``kron``, built from ``take``, ``matmul``, slices, products and sums (no op of their own:
gradients, batching and compiled kernels are those of the ops used).

``convolve``/``correlate`` gather the sliding windows of the zero-padded longer input
with a constant index matrix and multiply them with the shorter one (lengths known while
tracing). Complex operands are conjugated where NumPy conjugates them.
"""

from __future__ import annotations

import numpy as np

from graphc import errors, source_info
from graphc.ops.complex_parts import conjugate
from graphc.ops.convert import asarray
from graphc.ops.creation import zeros
from graphc.ops.indexing import take
from graphc.ops.join import concatenate, stack
from graphc.ops.linalg import matmul
from graphc.ops.reduce import any as _any
from graphc.ops.reduce import sum as _sum
from graphc.ops.shape import broadcast_to, flip, moveaxis, reshape
from graphc.ops.ufuncs import astype

_MODES = {"valid": 0, "same": 1, "full": 2, 0: 0, 1: 1, 2: 2}


def _conj(x):
    """NumPy conjugates complex operands here (``correlate``'s ``v``, ``vecdot``'s and
    ``vecmat``'s first argument)."""
    return conjugate(x) if x.dtype.kind == "c" else x


def _vector(x, name):
    x = asarray(x)
    if len(x.shape) == 0:
        x = reshape(x, (1,))
    if len(x.shape) != 1:
        raise ValueError("object too deep for desired array")
    if x.shape[0] is None:
        raise ValueError(f"gnp.{name} needs the lengths known while tracing"
                         f"{source_info.where()}")
    return x


def _correlate_long_short(a, v, mode):
    """``sum_j a[k + j] * v[j]`` over the zero-padded ``a`` (``len(a) >= len(v)``), the
    windows of NumPy's ``mode``: ``full`` starts ``len(v) - 1`` before ``a``, ``same``
    ``len(v) // 2`` before, ``valid`` at ``a[0]``."""
    n, m = a.shape[0], v.shape[0]
    dt = np.result_type(a.dtype, v.dtype)
    a, v = (t if t.dtype == dt else astype(t, dt) for t in (a, v))
    pad = {0: 0, 1: m // 2, 2: m - 1}[mode]
    length = {0: n - m + 1, 1: n, 2: n + m - 1}[mode]
    right = length + m - 1 - n - pad
    parts = [zeros((pad,), dt)] if pad else []
    parts.append(a)
    if right > 0:
        parts.append(zeros((right,), dt))
    ap = concatenate(parts) if len(parts) > 1 else a
    idx = np.arange(length)[:, None] + np.arange(m)[None, :]
    return matmul(take(ap, idx), v)


def _correlate(a, v, mode, name):
    if mode not in _MODES:
        raise ValueError(f"mode must be one of 'valid', 'same', or 'full' (got {mode!r})")
    mode = _MODES[mode]
    if a.shape[0] == 0:
        raise ValueError("a cannot be empty")
    if v.shape[0] == 0:
        raise ValueError("v cannot be empty")
    if v.shape[0] > a.shape[0]:
        return flip(_correlate_long_short(v, a, mode), 0)
    return _correlate_long_short(a, v, mode)


def correlate(a, v, mode="valid"):
    """``np.correlate``: ``c[k] = sum_n a[n + k] * v[n]`` of two 1-D sequences, modes
    ``'valid'`` (the default), ``'same'`` and ``'full'``."""
    a, v = _vector(a, "correlate"), _vector(v, "correlate")
    v = _conj(v)
    return _correlate(a, v, mode, "correlate")


def convolve(a, v, mode="full"):
    """``np.convolve``: the discrete linear convolution of two 1-D sequences, modes
    ``'full'`` (the default), ``'same'`` and ``'valid'``."""
    a, v = _vector(a, "convolve"), _vector(v, "convolve")
    if a.shape[0] == 0:
        raise ValueError("a cannot be empty")
    if v.shape[0] == 0:
        raise ValueError("v cannot be empty")
    if v.shape[0] > a.shape[0]:
        a, v = v, a
    return _correlate(a, flip(v, 0), mode, "convolve")


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """``np.cross``: the cross product of 3-vectors (or 2-vectors, deprecated in NumPy
    2: a DeprecationWarning, and two 2-vectors give the z component only) along the
    vector axes, broadcasting the others."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = moveaxis(asarray(a), axisa, -1), moveaxis(asarray(b), axisb, -1)
    la, lb = a.shape[-1], b.shape[-1]
    if la not in (2, 3) or lb not in (2, 3):
        raise ValueError("incompatible dimensions for cross product\n"
                         "(dimension must be 2 or 3)")
    if la == 2 or lb == 2:
        errors.warn("Arrays of 2-dimensional vectors are deprecated. Use arrays of "
                    "3-dimensional vectors instead. (deprecated in NumPy 2.0)",
                    DeprecationWarning)
    dt = np.result_type(a.dtype, b.dtype)
    a, b = (t if t.dtype == dt else astype(t, dt) for t in (a, b))
    a0, a1, b0, b1 = a[..., 0], a[..., 1], b[..., 0], b[..., 1]
    z = a0 * b1 - a1 * b0
    if la == 2 and lb == 2:
        return z
    a2 = a[..., 2] if la == 3 else None
    b2 = b[..., 2] if lb == 3 else None
    if a2 is None:
        x, y = a1 * b2, -(a0 * b2)
    elif b2 is None:
        x, y = -(a2 * b1), a2 * b0
    else:
        x, y = a1 * b2 - a2 * b1, a2 * b0 - a0 * b2
    shape = np.broadcast_shapes(tuple(x.shape), tuple(y.shape), tuple(z.shape))
    out = stack([broadcast_to(t, shape) for t in (x, y, z)], axis=-1)
    return moveaxis(out, -1, axisc)


def vecdot(x1, x2, /, *, axis=-1):
    """``np.vecdot``: ``sum(conj(x1) * x2, axis)`` with broadcasting (bools: any of the
    ands); integer dtypes are kept, as NumPy's ufunc."""
    x1, x2 = asarray(x1), asarray(x2)
    x1 = _conj(x1)
    x1, x2 = moveaxis(x1, axis, -1), moveaxis(x2, axis, -1)
    if x1.shape[-1] is not None and x2.shape[-1] is not None and x1.shape[-1] != x2.shape[-1]:
        raise ValueError("vecdot: Input operand 1 has a mismatch in its core dimension 0")
    dt = np.result_type(x1.dtype, x2.dtype)
    if dt == np.bool_:
        return _any(x1 & x2, axis=-1)
    return _sum(x1 * x2, axis=-1, dtype=dt)


def matvec(x1, x2, /):
    """``np.matvec``: matrix ``(..., m, n)`` times vector ``(..., n)``, broadcasting."""
    x1, x2 = asarray(x1), asarray(x2)
    return matmul(x1, x2[..., None])[..., 0]


def vecmat(x1, x2, /):
    """``np.vecmat``: vector ``(..., n)`` (conjugated) times matrix ``(..., n, m)``."""
    x1, x2 = asarray(x1), asarray(x2)
    x1 = _conj(x1)
    return matmul(x1[..., None, :], x2)[..., 0, :]


def kron(a, b):
    """``np.kron``: the Kronecker product, blocks ``a[i, j, ...] * b`` (shapes known
    while tracing)."""
    a, b = asarray(a), asarray(b)
    na, nb = len(a.shape), len(b.shape)
    if na == 0 or nb == 0:
        return a * b
    nd = max(na, nb)
    sa = (1,) * (nd - na) + tuple(a.shape)
    sb = (1,) * (nd - nb) + tuple(b.shape)
    if None in sa or None in sb:
        raise ValueError(f"gnp.kron needs the shapes known while tracing{source_info.where()}")
    a = reshape(a, tuple(d for s in sa for d in (s, 1)))
    b = reshape(b, tuple(d for s in sb for d in (1, s)))
    return reshape(a * b, tuple(x * y for x, y in zip(sa, sb)))
