"""Joining and splitting: concatenate, stack, split (and hstack, vstack, atleast_*),
with TensorFlow's ``concat``/``stack``. Their gradient rules are attached by
``grad_arrays.py``, their batching rules by ``shape_batch.py``.
"""

from __future__ import annotations

import builtins
import operator

import numpy as np

from graphc.core.attr_types import AXIS, INT, INT_OR_INTS
from graphc.core.registry import ALL, OpDef, bind, register
from graphc.core.shapes import broadcast_shapes, normalize_axis
from graphc.ir.graph import Aval
from graphc.ops.shape import _axes_error, _rank, expand_dims, reshape
from graphc.ops.shape_args import pack
from graphc.ops.tf_elementwise import _list_as, _tf_args


def _concat_infer(*xs, axis=0):
    if not xs:
        raise ValueError("need at least one tensor to concatenate")
    n = len(xs[0].shape)
    if any(len(x.shape) != n for x in xs):
        raise ValueError("all inputs must have the same rank, got shapes "
                         + ", ".join(str(x.shape) for x in xs))
    if n == 0:
        raise ValueError("zero-dimensional tensors cannot be concatenated")
    axis = normalize_axis(axis, n)
    out = []
    for i in range(n):
        dims = [x.shape[i] for x in xs]
        if i == axis:
            out.append(None if None in dims else builtins.sum(dims))
        else:
            known = {d for d in dims if d is not None}
            if len(known) > 1:
                raise ValueError(f"dimension {i} differs between inputs: {sorted(known)}")
            out.append(known.pop() if known else None)
    return Aval(tuple(out), np.result_type(*[x.dtype for x in xs]))


CONCATENATE = register(OpDef(name="concatenate", attrs={"axis": AXIS}, infer=_concat_infer,
                             ref=lambda *xs, axis=0: np.concatenate(xs, axis=axis),
                             weak_tensors=ALL))


def _stack_infer(*xs, axis=0):
    if not xs:
        raise ValueError("need at least one tensor to stack")
    shape = xs[0].shape
    for x in xs[1:]:
        if len(x.shape) != len(shape) or broadcast_shapes(x.shape, shape) != shape and (
            any(a is not None and b is not None and a != b for a, b in zip(x.shape, shape))
        ):
            raise ValueError(f"all inputs must have the same shape, got {shape} and {x.shape}")
    axis = normalize_axis(axis, len(shape) + 1)
    out = list(shape)
    out.insert(axis, len(xs))
    return Aval(tuple(out), np.result_type(*[x.dtype for x in xs]))


STACK = register(OpDef(name="stack", attrs={"axis": INT}, infer=_stack_infer,
                       ref=lambda *xs, axis=0: np.stack(xs, axis=axis), weak_tensors=ALL))


def _split_ref(x, indices_or_sections, axis=0):
    return np.split(x, indices_or_sections, axis=axis)


def _split_infer(x, indices_or_sections, axis=0):
    axis = normalize_axis(axis, len(x.shape))
    n = x.shape[axis]
    if isinstance(indices_or_sections, int):
        k = indices_or_sections
        if n is not None and (k <= 0 or n % k):
            raise ValueError(f"array split does not result in an equal division: {n} into {k}")
        sizes = [None if n is None else n // k] * k
    elif n is None:  # every part is clipped to the unknown dim, so none has a known size
        sizes = [None] * (len(indices_or_sections) + 1)
    else:
        bounds = [0, *indices_or_sections, n]
        sizes = [len(range(n)[a:b]) for a, b in zip(bounds, bounds[1:])]
    return tuple(Aval(x.shape[:axis] + (s,) + x.shape[axis + 1:], x.dtype) for s in sizes)


SPLIT = register(OpDef(name="split",
                       attrs={"indices_or_sections": INT_OR_INTS, "axis": INT},
                       infer=_split_infer, ref=_split_ref,
                       multiple_results=True))



# ----------------------------------------------------------------------------- API
def _np_pack(items):
    return stack([pack(v, _np_pack) for v in items])


def _tf_pack(items):
    """TensorFlow's packing of a list holding tensors: numbers beside them take their
    dtype (``[i, 1]`` with an int32 ``i`` is int32)."""
    items = _tf_args(*[pack(v, _tf_pack) for v in items])
    tensors = [a for a in items if not isinstance(a, int | float | bool)]
    if tensors:
        dtype = tensors[0].dtype
        items = [_list_as(a, dtype) if isinstance(a, int | float | bool) else a
                 for a in items]
    return bind(STACK, *items, axis=0)


def concatenate(arrays, axis=0):
    """``np.concatenate``. A list among ``arrays`` that holds traced tensors (``[i]``)
    is stacked into one tensor first."""
    return bind(CONCATENATE, *[pack(a, _np_pack) for a in arrays], axis=axis)


def concat(values, axis, name=None):
    """``tf.concat``; a list among ``values`` that holds traced tensors (``[i]``) is
    packed into one tensor first, as TensorFlow does."""
    return concatenate(_tf_args(*[pack(v, _tf_pack) for v in values]), axis)


def stack(arrays, axis=0):
    """``np.stack``; nested lists holding traced tensors are stacked first."""
    return bind(STACK, *[pack(a, _np_pack) for a in arrays], axis=axis)


def tf_stack(values, axis=0, name=None):
    """``tf.stack``: like ``gnp.stack``, with TensorFlow's literal dtypes."""
    return stack(_tf_args(*[pack(v, _tf_pack) for v in values]), axis)


def hstack(arrays):
    """``np.hstack``."""
    arrays = [atleast_1d(a) for a in arrays]
    return concatenate(arrays, axis=0 if _rank(arrays[0]) == 1 else 1)


def vstack(arrays):
    """``np.vstack``."""
    return concatenate([atleast_2d(a) for a in arrays], axis=0)


def atleast_1d(a):
    return reshape(a, (1,)) if _rank(a) == 0 else a


def atleast_2d(a):
    n = _rank(a)
    return reshape(a, (1, 1)) if n == 0 else (expand_dims(a, 0) if n == 1 else a)


def split(a, indices_or_sections, axis=0):
    """``np.split``; returns a list of tensors."""
    ios = indices_or_sections
    try:  # operator.index: np.split refuses [1.5] rather than truncating it
        ios = operator.index(ios) if isinstance(ios, int | np.integer) else tuple(
            operator.index(i) for i in ios)
    except TypeError as e:
        raise _axes_error("split", e) from None
    return bind(SPLIT, a, indices_or_sections=ios, axis=axis)


# gradients: graphc/ops/grad_arrays.py; batching: graphc/ops/shape_batch.py
