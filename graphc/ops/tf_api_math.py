"""TensorFlow's top-level math names that ``gc.math`` does not define yet, and the ones
that are top-level only (``gc.clip_by_value``, ``gc.clip_by_norm``,
``gc.clip_by_global_norm``, ``gc.saturate_cast``, ``gc.einsum``, ``gc.tensordot``,
``gc.norm``, ``gc.complex``, ``gc.linspace``, ``gc.add_n``, ``gc.cumsum``,
``gc.truncatediv``...), built from graphc's existing ops: gradients, batching and
compiled kernels are those of the ops used.

``MATH_FALLBACKS`` are names ``tf.math`` also has: the face (``graphc/__init__.py``)
binds ``gc.<name>`` to ``gc.math.<name>`` when ``gc.math`` defines it, so that the two
are one object, and to the function here otherwise.
"""

from __future__ import annotations

import numpy as np

from graphc import source_info
from graphc.core.registry import bind
from graphc.errors import InvalidArgumentError
from graphc.ops import creation, join, reduce
from graphc.ops import elementwise as ew
from graphc.ops import shape as shape_ops
from graphc.ops.linalg import einsum as _np_einsum
from graphc.ops.linalg import tensordot as _np_tensordot
from graphc.ops.linalg_norms import norm as _np_norm
from graphc.ops.math_extra import FMOD
from graphc.ops.tf_api_shapes import _rank, check, tensor, value_of
from graphc.ops.tf_elementwise import _binary, _tf_args, _unary


def _cast(x, dtype):
    dtype = np.dtype(dtype)
    return x if x.dtype == dtype else bind(ew.CAST, x, dtype=dtype)


def _floats(x, name):
    if x.dtype.kind not in "fc":
        raise TypeError(f"{name}: expected a float or complex tensor, got {x.dtype}")
    return x


# --------------------------------------------------------------------------- clipping
def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """``tf.clip_by_value``: ``t`` limited to ``[clip_value_min, clip_value_max]``
    (the bounds broadcast against ``t`` and may not change its shape)."""
    x = tensor(t)
    lo, hi = _tf_args(x, clip_value_min, clip_value_max)[1:]
    out = bind(ew.MINIMUM, bind(ew.MAXIMUM, x, lo), hi)
    if x.shape is not None and out.shape is not None and len(out.shape) != len(x.shape):
        raise InvalidArgumentError(f"clip_by_value: the bounds' shapes would change the "
                                   f"tensor's shape {x.shape} to {out.shape}")
    return _cast(out, x.dtype)


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """``tf.clip_by_norm``: ``t * clip_norm / max(l2norm(t, axes), clip_norm)``."""
    x = _floats(tensor(t), "clip_by_norm")
    c = _cast(tensor(clip_norm), x.dtype)
    axes = None if axes is None else tuple(int(a) for a in np.atleast_1d(value_of(axes)))
    l2sum = reduce.sum(x * bind(ew.CONJUGATE, x), axis=axes, keepdims=True)
    l2sum = bind(ew.ABSOLUTE, l2sum) if x.dtype.kind == "c" else l2sum
    positive = l2sum > 0
    safe = bind(ew.WHERE, positive, l2sum, creation.ones_like(l2sum))
    l2norm = bind(ew.WHERE, positive, bind(ew.SQRT, safe), l2sum)
    out = x * c / _cast(bind(ew.MAXIMUM, l2norm, _cast(c, l2norm.dtype)), x.dtype)
    return out


def global_norm(t_list, name=None):
    """``tf.linalg.global_norm``: ``sqrt(sum of every element squared)`` over the
    tensors (``None`` entries skipped)."""
    parts = [tensor(t) for t in t_list if t is not None]
    if not parts:
        raise ValueError("global_norm: t_list holds no tensor")
    sums = [reduce.sum(p * p) for p in parts]
    total = sums[0]
    for s in sums[1:]:
        total = total + s
    return bind(ew.SQRT, total)


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """``tf.clip_by_global_norm``: the tensors scaled by
    ``clip_norm / max(global_norm, clip_norm)``, and the global norm (NaN scale when
    the norm is not finite)."""
    if isinstance(t_list, Exception) or not isinstance(t_list, list | tuple):
        raise TypeError("`t_list` should be a sequence of tensors")
    norm_ = global_norm(t_list) if use_norm is None else tensor(use_norm)
    c = _cast(tensor(clip_norm), norm_.dtype)
    one = np.ones((), norm_.dtype)
    scale = c * bind(ew.MINIMUM, one / norm_, one / c) + (norm_ - norm_)
    out = [None if t is None else tensor(t) * _cast(scale, tensor(t).dtype) for t in t_list]
    return out, norm_


# --------------------------------------------------------------------------- casts
def saturate_cast(value, dtype, name=None):
    """``tf.saturate_cast``: ``value`` cast to ``dtype``, values outside its range
    clamped to the nearest one it holds (so nothing wraps around)."""
    x = tensor(value)
    dtype = np.dtype(dtype)
    if x.dtype.kind == "c" and dtype.kind != "c":
        x = bind(ew.CAST, x, dtype=np.empty(0, x.dtype).real.dtype)
    if dtype.kind in "iu" and x.dtype.kind in "iuf":
        info = np.iinfo(dtype)
        lo, hi = _bounds_in(x.dtype, info.min, info.max)
        if lo is not None:
            x = bind(ew.MAXIMUM, x, lo)
        if hi is not None:
            x = bind(ew.MINIMUM, x, hi)
    elif dtype.kind == "f" and x.dtype.kind == "f" and dtype.itemsize < x.dtype.itemsize:
        info = np.finfo(dtype)
        x = bind(ew.MINIMUM, bind(ew.MAXIMUM, x, np.asarray(info.min, x.dtype)),
                 np.asarray(info.max, x.dtype))
    return _cast(x, dtype)


def _bounds_in(src, lo, hi):
    """The clamp bounds for an integer target, in the source dtype (``None``: no clamp
    needed); a float bound rounds inward so the cast cannot overflow."""
    if src.kind in "iu":
        s = np.iinfo(src)
        return (np.asarray(lo, src) if lo > s.min else None,
                np.asarray(hi, src) if hi < s.max else None)
    flo, fhi = np.asarray(lo, src), np.asarray(hi, src)
    if int(fhi) > hi:
        fhi = np.nextafter(fhi, np.asarray(0, src))
    if int(flo) < lo:
        flo = np.nextafter(flo, np.asarray(0, src))
    return flo, fhi


def complex(real, imag, name=None):  # noqa: A001 - TensorFlow's name
    """``tf.complex``: ``real + 1j * imag`` (float32 -> complex64, float64 ->
    complex128; both parts must have the same dtype)."""
    re, im = _tf_args(real, imag)
    if re.dtype != im.dtype or re.dtype.kind != "f" or re.dtype.itemsize < 4:
        raise TypeError(f"complex: real and imag must both be float32 or float64, got "
                        f"{re.dtype} and {im.dtype}")
    ctype = np.dtype(np.complex64 if re.dtype == np.float32 else np.complex128)
    return _cast(tensor(re), ctype) + _cast(tensor(im), ctype) * np.asarray(1j, ctype)


# --------------------------------------------------------------------------- products and norms
def einsum(equation, *inputs, **kwargs):
    """``tf.einsum(equation, *inputs)``: NumPy's einsum (explicit or implicit output,
    ``...`` broadcasting)."""
    kwargs.pop("name", None)
    kwargs.pop("optimize", None)
    if kwargs:
        raise TypeError(f"Invalid keyword arguments for this function: {sorted(kwargs)}")
    return _np_einsum(equation.replace(" ", ""), *[tensor(t) for t in inputs])


def tensordot(a, b, axes, name=None):
    """``tf.tensordot``: contracts ``axes`` (an int N: the last N of ``a`` with the
    first N of ``b``; or a pair of axis lists)."""
    x, y = _tf_args(a, b)
    known = value_of(axes)
    if known is None:
        raise ValueError("tensordot: axes must be known while tracing")
    if known.ndim == 0:
        if int(known) < 0:
            raise ValueError(f"'axes' must be at least 0, got {int(known)}")
        return _np_tensordot(tensor(x), tensor(y), int(known))
    pair = [np.atleast_1d(np.asarray(v)).astype(int).tolist() for v in axes]
    if len(pair) != 2:
        raise ValueError("tensordot: axes must be an int or a pair of axis lists")
    return _np_tensordot(tensor(x), tensor(y), (pair[0], pair[1]))


def norm(tensor_, ord="euclidean", axis=None, keepdims=None, name=None):  # noqa: A002
    """``tf.norm``: a vector norm over every element (``axis=None``) or one axis, or a
    matrix norm over an axis pair (``ord`` 'euclidean'/'fro', 1, 2, ``np.inf``, or a
    positive p for vectors); the result has the input's real dtype."""
    x = _floats(tensor(tensor_), "norm")
    keep = bool(keepdims)
    if axis is not None:
        axis = [int(a) for a in np.atleast_1d(value_of(axis))]
    matrix = axis is not None and len(axis) == 2
    if axis is not None and len(axis) not in (1, 2):
        raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique "
                         f"integers, got {axis}")
    if matrix:
        if axis[0] % len(x.shape) == axis[1] % len(x.shape):
            raise ValueError(f"'axis' must be a tuple of 2 unique integers, got {axis}")
        if ord not in ("euclidean", "fro", 1, 2, np.inf):
            raise ValueError(f"'ord' must be a supported matrix norm in ['euclidean', "
                             f"'fro', 1, 2, inf], got {ord}")
        return _np_norm(x, "fro" if ord == "euclidean" else ord, tuple(axis), keep)
    if ord == "fro":
        raise ValueError("'ord' must be a supported vector norm, got fro")
    if isinstance(ord, str) and ord != "euclidean":
        raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
    if not isinstance(ord, str) and not ord > 0:
        raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
    p = 2 if ord == "euclidean" else ord
    if axis is None:
        out = _np_norm(shape_ops.reshape(x, (-1,)), p, 0, False)
        return shape_ops.reshape(out, (1,) * len(x.shape)) if keep else out
    return _np_norm(x, p, axis[0], keep)


# --------------------------------------------------------------------------- ranges
def linspace(start, stop, num, name=None, axis=0):
    """``tf.linspace``: ``num`` evenly spaced values from ``start`` to ``stop`` (both
    ends exact; tensors broadcast, the new dim at ``axis``)."""
    a, b = _tf_args(start, stop)
    a, b = tensor(a), tensor(b)
    if a.dtype.kind in "iub":  # TensorFlow divides integers into float64
        a, b = _cast(a, np.float64), _cast(b, np.float64)
    b = _cast(b, a.dtype)
    n = value_of(num)
    if n is None:
        raise ValueError(f"linspace: num must be known while tracing{source_info.where()}")
    n = int(n)
    if n < 0:
        raise InvalidArgumentError(f"Requires num >= 0: {n}")
    a, b = a + b * np.zeros((), a.dtype), b + a * np.zeros((), a.dtype)  # broadcast
    nd = len(a.shape)
    ax = axis % (nd + 1)
    first, last = shape_ops.expand_dims(a, ax), shape_ops.expand_dims(b, ax)
    if n == 0:
        return shape_ops.reshape(first, [d if i != ax else 0
                                         for i, d in enumerate(first.shape)])
    if n == 1:
        return first
    steps = _cast(creation.arange(1, n - 1), a.dtype)
    steps = shape_ops.reshape(steps, [1] * ax + [-1] + [1] * (nd - ax))
    delta = (last - first) / np.asarray(n - 1, a.dtype)
    return join.concatenate([first, first + steps * delta, last], axis=ax)


# --------------------------------------------------------------------------- tf.math names
def add_n(inputs, name=None):
    """``tf.add_n``: the elementwise sum of a list of tensors of one shape and dtype."""
    if not inputs or not isinstance(inputs, list | tuple):
        raise ValueError("Inputs must be an iterable of at least one Tensor/"
                         "IndexedSlices with the same dtype and shape.")
    parts = [tensor(t) for t in inputs]
    if len({p.dtype for p in parts}) != 1 or len({p.shape for p in parts}) != 1:
        raise ValueError("Inputs must be an iterable of at least one Tensor/"
                         "IndexedSlices with the same dtype and shape.")
    total = parts[0]
    for p in parts[1:]:
        total = total + p
    return total if len(parts) > 1 else bind(creation.IDENTITY, total)


def argmin(input, axis=None, output_type=np.int64, name=None):  # noqa: A002
    """``tf.argmin``: the index of the smallest value along ``axis`` (default 0)."""
    x = tensor(input)
    return _cast(reduce.argmin(x, 0 if axis is None else int(value_of(axis))), output_type)


def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """``tf.cumsum``: running sums along ``axis`` in the input's dtype; ``exclusive``
    leaves out each element itself, ``reverse`` runs from the end."""
    t = tensor(x)
    nd = _rank(t, "cumsum")
    ax = int(value_of(axis))
    if not -nd <= ax < max(nd, 1):
        raise InvalidArgumentError(f"cumsum: axis {ax} is out of range for rank {nd}")
    ax %= max(nd, 1)
    if reverse:
        t = shape_ops.flip(t, ax)
    out = reduce.cumsum(t, ax, t.dtype)
    if exclusive:
        out = out - t
    return shape_ops.flip(out, ax) if reverse else out


def reduce_logsumexp(input_tensor, axis=None, keepdims=False, name=None):
    """``tf.reduce_logsumexp``: ``log(sum(exp(x)))`` over ``axis``, computed stably."""
    x = _floats(tensor(input_tensor), "reduce_logsumexp")
    ax = None if axis is None else tuple(int(a) for a in np.atleast_1d(value_of(axis)))
    m = reduce.max(x, ax, True)
    m = bind(ew.WHERE, bind(ew.ISFINITE, m), m, np.zeros((), x.dtype))
    out = bind(ew.LOG, reduce.sum(bind(ew.EXP, x - m), ax, keepdims=True)) + m
    return out if keepdims else shape_ops.squeeze(out, ax if ax is not None else None)


def scalar_mul(scalar, x, name=None):
    """``tf.scalar_mul``: ``scalar * x`` for a 0-d ``scalar``."""
    s = scalar if isinstance(scalar, int | float | complex) else tensor(scalar)
    if not isinstance(s, int | float | complex) and s.shape not in ((), None):
        raise ValueError(f"Only scalar multiply works, got shape {s.shape}")
    t = tensor(x)
    return t * (s if isinstance(s, int | float | complex) else _cast(s, t.dtype))


def truncatediv(x, y, name=None):
    """``tf.truncatediv``: division rounding toward zero (integers; floats divide); an
    integer division by zero raises ``InvalidArgumentError``."""
    a, b = _tf_args(x, y)
    a, b = tensor(a), tensor(b)
    if a.dtype.kind in "iu" and b.dtype.kind in "iu":
        check(b != 0, "Integer division by zero")
        safe = bind(ew.WHERE, b != 0, b, np.ones((), b.dtype))
        return bind(ew.FLOOR_DIVIDE, a - bind(FMOD, a, safe), safe)
    return bind(ew.TRUE_DIVIDE, a, b)


def truncatemod(x, y, name=None):
    """``tf.truncatemod``: the remainder of :func:`truncatediv` (C's ``fmod``: the
    sign of ``x``)."""
    a, b = _tf_args(x, y)
    a, b = tensor(a), tensor(b)
    if a.dtype.kind in "iu" and b.dtype.kind in "iu":
        check(b != 0, "Integer division by zero")
    return bind(FMOD, a, b)


realdiv = _binary(ew.TRUE_DIVIDE, "realdiv")
realdiv.__doc__ = "``tf.realdiv``: ``x / y`` for real tensors."

# names tf.math also has: gc.<name> is gc.math's when gc.math defines it (see the face)
MATH_FALLBACKS = {
    "acos": _unary(ew.ARCCOS, "acos"),
    "acosh": _unary(ew.ARCCOSH, "acosh"),
    "asin": _unary(ew.ARCSIN, "asin"),
    "asinh": _unary(ew.ARCSINH, "asinh"),
    "atan": _unary(ew.ARCTAN, "atan"),
    "atanh": _unary(ew.ARCTANH, "atanh"),
    "cosh": _unary(ew.COSH, "cosh"),
    "sinh": _unary(ew.SINH, "sinh"),
    "cos": _unary(ew.COS, "cos"),
    "sin": _unary(ew.SIN, "sin"),
    "tan": _unary(ew.TAN, "tan"),
    "tanh": _unary(ew.TANH, "tanh"),
    "sigmoid": _unary(ew.SIGMOID, "sigmoid"),
    "sign": _unary(ew.SIGN, "sign"),
    "floor": _unary(ew.FLOOR, "floor"),
    "round": _unary(ew.RINT, "round"),
    "square": _unary(ew.SQUARE, "square"),
    "atan2": _binary(ew.ARCTAN2, "atan2"),
    "truediv": _binary(ew.TRUE_DIVIDE, "truediv"),
    "add_n": add_n,
    "argmin": argmin,
    "cumsum": cumsum,
    "reduce_logsumexp": reduce_logsumexp,
    "scalar_mul": scalar_mul,
}
