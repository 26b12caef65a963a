"""``gc.linalg``'s products and norms with TensorFlow's signatures and rules:
``matmul``, ``matvec``, ``einsum``, ``tensordot``, ``cross``, ``norm``, ``normalize``,
``global_norm``, ``l2_normalize``. Compositions of existing ops.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np

from graphc.linalg._diag import tensor
from graphc.ops import linalg as _linalg
from graphc.ops import linalg_namespace as _ns
from graphc.ops import ufuncs as _u
from graphc.ops.complex_parts import conjugate, imag, real
from graphc.ops.convert import asarray
from graphc.ops.join import stack
from graphc.ops.reduce import max as _max
from graphc.ops.reduce import sum as _sum
from graphc.ops.shape import expand_dims, moveaxis, squeeze, swapaxes
from graphc.ops.tf_elementwise import _tf_args


def _flip(x, transpose, adjoint, which):
    if transpose and adjoint:
        raise ValueError(f"Only one of transpose_{which} and adjoint_{which} can be True.")
    if transpose or adjoint:
        x = swapaxes(x, -1, -2)
    return conjugate(x) if adjoint and x.dtype.kind == "c" else x


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
           a_is_sparse=False, b_is_sparse=False, output_type=None, grad_a=False,
           grad_b=False, name=None):
    """``tf.linalg.matmul``: ``a @ b`` over the last two dims (both of rank >= 2, batch
    dims broadcast), each operand transposed or conjugate-transposed first as asked.
    ``a_is_sparse``/``b_is_sparse``/``grad_a``/``grad_b`` are hints and change nothing;
    ``output_type`` casts the operands (int8 to int32, as TensorFlow allows)."""
    a, b = (asarray(t) for t in _tf_args(a, b))
    for t, which in ((a, "a"), (b, "b")):
        if t.shape is not None and len(t.shape) < 2:
            raise ValueError(f"matmul: {which} must have rank >= 2, got shape {t.shape}")
    a = _flip(a, transpose_a, adjoint_a, "a")
    b = _flip(b, transpose_b, adjoint_b, "b")
    if output_type is not None:
        a, b = a.astype(np.dtype(output_type)), b.astype(np.dtype(output_type))
    return _linalg.matmul(a, b)


def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False,
           name=None):
    """``tf.linalg.matvec``: ``a @ b`` for matrices ``a`` ``[..., M, N]`` and vectors
    ``b`` ``[..., N]``."""
    a, b = (asarray(t) for t in _tf_args(a, b))
    if b.shape is not None and len(b.shape) < 1:
        raise ValueError(f"matvec: b must have rank >= 1, got shape {b.shape}")
    return matmul(a, expand_dims(b, -1), transpose_a=transpose_a, adjoint_a=adjoint_a)[..., 0]


def einsum(equation, *inputs, **kwargs):
    """``tf.linalg.einsum``: Einstein summation (``optimize`` and ``name`` are accepted
    and ignored)."""
    unknown = set(kwargs) - {"name", "optimize"}
    if unknown:
        raise TypeError(f"Invalid keyword arguments for this function: {sorted(unknown)}")
    operands = [asarray(t) for t in _tf_args(*inputs)] if inputs else []
    return _linalg.einsum(equation, *operands)


def tensordot(a, b, axes, name=None):
    """``tf.linalg.tensordot``: ``axes`` an int ``N`` (the last ``N`` dims of ``a`` with
    the first ``N`` of ``b``) or a pair ``[a_axes, b_axes]``."""
    a, b = (asarray(t) for t in _tf_args(a, b))
    if hasattr(axes, "numpy"):
        axes = axes.numpy().tolist()
    if isinstance(axes, np.ndarray):
        axes = axes.tolist()
    if isinstance(axes, numbers.Integral):
        if axes < 0:
            raise ValueError(f"'axes' must be at least 0, got {axes}")
        return _linalg.tensordot(a, b, axes=int(axes))
    if len(axes) != 2:
        raise ValueError(f"'axes' must be an integer or have length 2, got {axes}")
    pair = tuple(tuple(int(i) for i in x) if isinstance(x, list | tuple) else int(x)
                 for x in axes)
    return _linalg.tensordot(a, b, axes=pair)


def cross(a, b, name=None):
    """``tf.linalg.cross``: the cross product of 3-vectors along the last dim (``a`` and
    ``b`` of one shape)."""
    a, b = (asarray(t) for t in _tf_args(a, b))
    if a.shape != b.shape and None not in (a.shape or (None,)) + (b.shape or (None,)):
        raise ValueError(f"cross: a and b must have the same shape, got {a.shape} and "
                         f"{b.shape}")
    return _ns.cross(a, b, axis=-1)


# --------------------------------------------------------------------------- norms
def _abs_sq_sum(x, axis):
    sq = _u.square(_u.abs(x)) if x.dtype.kind == "c" else x * x
    return _sum(sq, axis=axis, keepdims=True)


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None):  # noqa: A002
    """``tf.linalg.norm``: a vector norm over all of ``tensor`` (``axis=None``) or along
    one axis (``ord``: ``'euclidean'``, 1, 2, ``np.inf`` or any ``p > 0``), or a matrix
    norm over two axes (``'euclidean'``/``'fro'``, 1, 2, ``np.inf``). A complex tensor's
    euclidean norm keeps the complex dtype, as in TensorFlow."""
    x = asarray(_tf_args(tensor)[0])
    is_matrix = isinstance(axis, tuple | list) and len(axis) == 2
    if is_matrix:
        axis = tuple(axis)
        if not all(isinstance(i, int) for i in axis) or axis[0] == axis[1]:
            raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique "
                             f"integers, got {axis}")
        supported = ["euclidean", "fro", 1, 2, np.inf]
        if not any(ord == s and type(ord) is not bool for s in supported):
            raise ValueError(f"'ord' must be a supported matrix norm in {supported}, got "
                             f"{ord}")
    else:
        if not (isinstance(axis, int) or axis is None):
            raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique "
                             f"integers, got {axis}")
        if not (ord == "euclidean" or (isinstance(ord, numbers.Real)
                                       and not isinstance(ord, bool) and ord > 0)):
            raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
        if axis is not None:
            axis = (axis,)
    if ord in ("fro", "euclidean") or (ord == 2 and not is_matrix):
        if x.dtype.kind not in "fc":
            raise TypeError(f"norm: the euclidean norm needs a float or complex tensor, "
                            f"got {x.dtype}")
        result = _u.sqrt(_abs_sq_sum(x, axis))
        if x.dtype.kind == "c":
            result = result.astype(x.dtype)
    elif ord == 2:
        nd = len(x.shape)
        r, c = (i % nd for i in axis)
        s = _ns.svd(moveaxis(x, (r, c), (-2, -1)), compute_uv=False)
        result = _max(s, axis=-1, keepdims=True)[..., None]
        result = moveaxis(result, (-2, -1), (r, c)) if (r, c) != (nd - 2, nd - 1) else result
    else:
        result = _u.abs(x)
        if ord == 1:
            result = _sum(result, axis=None if axis is None else axis[0], keepdims=True)
            if is_matrix:
                result = _max(result, axis=axis[-1], keepdims=True)
        elif ord == np.inf:
            if is_matrix:
                result = _sum(result, axis=axis[1], keepdims=True)
            result = _max(result, axis=None if axis is None else axis[0], keepdims=True)
        else:
            result = _sum(result ** float(ord), axis=axis, keepdims=True) ** (1.0 / ord)
    if not keepdims:
        result = squeeze(result, axis=axis)
    return result


def normalize(tensor, ord="euclidean", axis=None, name=None):  # noqa: A002
    """``tf.linalg.normalize``: ``(tensor / norm, norm)``, the norm kept with the reduced
    dims (``keepdims=True``)."""
    x = asarray(_tf_args(tensor)[0])
    n = norm(x, ord=ord, axis=axis, keepdims=True).astype(x.dtype)
    return x / n, n


def global_norm(t_list, name=None):
    """``tf.linalg.global_norm``: ``sqrt(sum of the squares of every tensor of
    t_list)``; ``None`` entries are skipped."""
    if not isinstance(t_list, Sequence) or isinstance(t_list, str):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received "
                        f"{type(t_list)}.")
    parts = [_sum(v * v) for v in (tensor(t) for t in t_list if t is not None)]
    if not parts:
        raise ValueError("global_norm: t_list holds no tensor")
    return _u.sqrt(_sum(stack(parts)))


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """``tf.linalg.l2_normalize``: ``x / sqrt(max(sum(|x|**2, axis), epsilon))``."""
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'dim'")
        axis = dim
    x = asarray(_tf_args(x)[0])
    if x.dtype.kind == "c":
        re, im = real(x), imag(x)
        sq = _sum(re * re + im * im, axis=axis, keepdims=True)
        inv = 1.0 / _u.sqrt(_u.maximum(sq, np.asarray(epsilon, sq.dtype)))
        return (re * inv) + (im * inv) * np.asarray(1j, x.dtype)
    sq = _sum(x * x, axis=axis, keepdims=True)
    return x * (1.0 / _u.sqrt(_u.maximum(sq, np.asarray(epsilon, sq.dtype))))
