"""TensorFlow's top-level shape and slicing names (``gc.expand_dims``, ``gc.squeeze``,
``gc.slice``, ``gc.strided_slice``, ``gc.split``, ``gc.unstack``, ``gc.reverse``,
``gc.roll``, ``gc.meshgrid``, ``gc.repeat``, ``gc.shape_n``, ``gc.ensure_shape``...),
built from graphc's existing ops (no op of their own: gradients, batching and compiled
kernels are those of the ops they use). docs/tf_api.md lists where they differ from
TensorFlow.

Python literals convert with TensorFlow's dtypes (int32, float32); a failing run-time
check raises ``gc.errors.InvalidArgumentError`` (eagerly at once, inside
``gc.function`` when the graph runs), as TensorFlow's kernels do.
"""

from __future__ import annotations

import builtins
import operator

import numpy as np

from graphc import source_info
from graphc.core.registry import bind
from graphc.core.tensor import Tensor
from graphc.dtypes import tf_literal
from graphc.errors import InvalidArgumentError
from graphc.ops import creation, join
from graphc.ops import shape as shape_ops
from graphc.ops.array_helpers import dims
from graphc.ops.convert import asarray
from graphc.ops.differences import roll as _np_roll
from graphc.ops.effects import assert_op
from graphc.ops.grids import meshgrid as _np_meshgrid
from graphc.ops.shape_args import static_value


# --------------------------------------------------------------------------- helpers
def tensor(x) -> Tensor:
    """``x`` as a tensor, Python literals with TensorFlow's dtypes (int32, float32)."""
    if hasattr(x, "_graphc_tensor_"):
        x = x._graphc_tensor_()
    if isinstance(x, Tensor):
        return x
    return asarray(tf_literal(x))


def value_of(x):
    """``x``'s value as a NumPy array when known while tracing, else ``None``."""
    if hasattr(x, "_graphc_tensor_"):
        x = x._graphc_tensor_()
    if isinstance(x, Tensor):
        return static_value(x)
    if isinstance(x, list | tuple) and any(isinstance(v, Tensor) for v in x):
        vals = [value_of(v) for v in x]
        return None if any(v is None for v in vals) else np.asarray(vals)
    return np.asarray(x)


def ints(x, what: str) -> list:
    """A list of Python ints from a known 0-d/1-d integer value (``x`` may be a
    list of traced 0-d tensors: those entries stay tensors)."""
    if isinstance(x, list | tuple):
        out = []
        for v in x:
            known = value_of(v)
            out.append(v if known is None else operator.index(known.item() if
                                                               np.ndim(known) == 0 else known))
        return out
    known = value_of(x)
    if known is None:
        t = tensor(x)
        if t.shape is None or len(t.shape) != 1 or t.shape[0] is None:
            raise ValueError(f"{what} must have a known length while tracing"
                             f"{source_info.where()}")
        return [t[i] for i in range(t.shape[0])]
    if known.dtype.kind not in "iu":
        raise TypeError(f"{what} must hold integers, got {known.dtype}")
    return [int(v) for v in np.atleast_1d(known).ravel()]


def check(ok, message: str) -> None:
    """``ok`` must hold everywhere: eagerly (or when known while tracing) now, else
    when the graph runs; ``InvalidArgumentError`` otherwise (TensorFlow's kernel error)."""
    known = value_of(ok)
    if known is None:
        assert_op("assert", (ok,), message=message)
    elif not np.all(known):
        raise InvalidArgumentError(message)


def _rank(x, name: str) -> int:
    if x.shape is None:
        raise ValueError(f"{name} needs a tensor of known rank{source_info.where()}")
    return len(x.shape)


def _axis(axis, ndim: int, name: str) -> int:
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise InvalidArgumentError(f"{name}: axis {axis} is out of range for a tensor of "
                                   f"rank {ndim} (expected [{-ndim}, {ndim}))")
    return axis % ndim


# --------------------------------------------------------------------------- dims
def expand_dims(input, axis, name=None):  # noqa: A002 - TensorFlow's argument name
    """``tf.expand_dims``: a new dim of length 1 at ``axis`` (in ``[-rank-1, rank]``)."""
    x = tensor(input)
    (axis,) = ints(axis, "expand_dims: axis") if not isinstance(axis, int) else (axis,)
    nd = _rank(x, "expand_dims")
    if not -nd - 1 <= axis <= nd:
        raise InvalidArgumentError(f"expand_dims: axis {axis} is out of range "
                                   f"[{-nd - 1}, {nd}]")
    return shape_ops.expand_dims(x, axis % (nd + 1))


def squeeze(input, axis=None, name=None):  # noqa: A002
    """``tf.squeeze``: the dims of length 1 removed (those in ``axis``, which must be 1)."""
    x = tensor(input)
    if axis is None:
        if x.shape is not None and None in x.shape:
            raise ValueError("squeeze(axis=None) needs every dim known while tracing; "
                             f"name the axes{source_info.where()}")
        return shape_ops.squeeze(x)
    nd = _rank(x, "squeeze")
    axes = [_axis(a, nd, "squeeze") for a in ints(axis, "squeeze: axis")]
    for a in axes:
        if x.shape[a] is not None and x.shape[a] != 1:
            raise InvalidArgumentError(f"Can not squeeze dim[{a}], expected a dimension "
                                       f"of 1, got {x.shape[a]}")
    return shape_ops.squeeze(x, tuple(sorted(set(axes))))


def reverse(tensor_, axis, name=None):
    """``tf.reverse``: ``tensor_`` with the dims in ``axis`` (a 1-D list) reversed."""
    x = tensor(tensor_)
    nd = _rank(x, "reverse")
    axes = [_axis(a, nd, "reverse") for a in ints(axis, "reverse: axis")]
    if len(set(axes)) != len(axes):
        raise InvalidArgumentError(f"reverse: axis {axes} holds a dim twice")
    return shape_ops.flip(x, tuple(axes)) if axes else x


def roll(input, shift, axis, name=None):  # noqa: A002
    """``tf.roll``: elements shifted along ``axis`` (shifts for a repeated axis add)."""
    x = tensor(input)
    nd = _rank(x, "roll")
    shift_known = value_of(shift)
    axes = ints(axis, "roll: axis")
    if shift_known is not None:
        shifts = [int(s) for s in np.atleast_1d(shift_known)]
        if len(shifts) != len(axes):
            raise InvalidArgumentError("roll: shift and axis must have the same size")
        axes = [_axis(a, nd, "roll") for a in axes]
        return _np_roll(x, tuple(shifts), tuple(axes))
    # a traced shift: one roll per axis (those of a repeated axis add up); a list of
    # numbers and traced 0-d tensors is taken entry by entry, as TensorFlow packs it
    pieces = list(shift) if isinstance(shift, list | tuple) else None
    if pieces is None:
        s = tensor(shift)
        pieces = [s.reshape(())] if s.shape in ((), (1,)) else \
            [s[i] for i in range(len(axes))]
    if len(pieces) != len(axes):
        raise InvalidArgumentError("roll: shift and axis must have the same size")
    for piece, a in zip(pieces, axes):
        x = _np_roll(x, piece, _axis(a, nd, "roll"))
    return x


# --------------------------------------------------------------------------- slices
def slice(input_, begin, size, name=None):  # noqa: A001 - TensorFlow's name
    """``tf.slice``: the block of ``size`` elements starting at ``begin`` (a size of -1
    takes the rest of that dim); a block past the end raises ``InvalidArgumentError``."""
    x = tensor(input_)
    nd = _rank(x, "slice")
    b, s = ints(begin, "slice: begin"), ints(size, "slice: size")
    if len(b) != nd or len(s) != nd:
        raise InvalidArgumentError(f"Expected begin and size arguments to be 1-D tensors "
                                   f"of size {nd}, but got shapes [{len(b)}] and [{len(s)}]")
    sizes = dims(x)
    key = []
    for i, (bi, si, n) in enumerate(zip(b, s, sizes)):
        if isinstance(si, int) and si == -1:
            si = n - bi
        end = bi + si
        if all(isinstance(v, int) for v in (bi, si, n)):
            if bi < 0 or si < 0 or end > n:
                raise InvalidArgumentError(
                    f"Expected begin[{i}] in [0, {n}] and size[{i}] in [0, {n - bi}], but "
                    f"got {bi} and {si}")
        else:
            check((bi >= 0) & (si >= 0) & (end <= n),
                  f"slice: begin[{i}] + size[{i}] is outside [0, dim {i}]")
        key.append(builtins.slice(bi, end))
    return x[tuple(key)]


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0,
                  ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0, var=None,
                  name=None):
    """``tf.strided_slice``: ``input_[begin:end:strides]`` spelt with TensorFlow's
    masks (bit ``i`` of ``begin_mask``/``end_mask`` ignores ``begin[i]``/``end[i]``;
    ``ellipsis_mask``, ``new_axis_mask`` and ``shrink_axis_mask`` make entry ``i`` an
    ``...``, a ``None`` or an integer index)."""
    x = tensor(input_)
    b, e = ints(begin, "strided_slice: begin"), ints(end, "strided_slice: end")
    st = [1] * len(b) if strides is None else ints(strides, "strided_slice: strides")
    if not len(b) == len(e) == len(st):
        raise ValueError("strided_slice: begin, end and strides must have the same length")
    if bin(ellipsis_mask).count("1") > 1:
        raise ValueError("Multiple ellipses in slice spec not allowed")
    key = []
    for i, (bi, ei, si) in enumerate(zip(b, e, st)):
        bit = 1 << i
        if not isinstance(si, int):
            raise ValueError("strided_slice: strides must be known while tracing")
        if si == 0:
            raise ValueError(f"strides[{i}] must be non-zero")
        if ellipsis_mask & bit:
            key.append(Ellipsis)
        elif new_axis_mask & bit:
            key.append(None)
        elif shrink_axis_mask & bit:
            key.append(bi)
        else:
            key.append(builtins.slice(None if begin_mask & bit else bi,
                                     None if end_mask & bit else ei, si))
    return x[tuple(key)]


def split(value, num_or_size_splits, axis=0, num=None, name=None):
    """``tf.split``: a list of pieces along ``axis``; an int splits into that many equal
    pieces, a list gives their sizes (one of them may be -1: the rest)."""
    x = tensor(value)
    nd = _rank(x, "split")
    ax = _axis(ints(axis, "split: axis")[0], nd, "split")
    n = x.shape[ax]
    if isinstance(num_or_size_splits, int | np.integer) or (
            value_of(num_or_size_splits) is not None
            and np.ndim(value_of(num_or_size_splits)) == 0):
        k = int(value_of(num_or_size_splits))
        if k <= 0:
            raise ValueError(f"split: the number of splits must be positive, got {k}")
        if n is not None and n % k:
            raise InvalidArgumentError(f"Number of ways to split should evenly divide the "
                                       f"split dimension, but got split_dim {ax} (size = "
                                       f"{n}) and num_split {k}")
        return join.split(x, k, ax)
    sizes = ints(num_or_size_splits, "split: size_splits")
    if any(not isinstance(s, int) for s in sizes):
        raise ValueError("split: the sizes must be known while tracing")
    if sizes.count(-1) > 1:
        raise InvalidArgumentError("split: at most one size may be -1")
    if n is None:
        raise ValueError(f"split: the length of axis {ax} must be known while tracing")
    if -1 in sizes:
        sizes[sizes.index(-1)] = n - (sum(sizes) + 1)
    if sum(sizes) != n or any(s < 0 for s in sizes):
        raise InvalidArgumentError(f"Determined shape must either match input shape along "
                                   f"split_dim exactly if fully specified, or be less than "
                                   f"the size of the input along split_dim if not fully "
                                   f"specified.  Got: {sum(sizes)} vs {n}")
    if num is not None and num != len(sizes):
        raise ValueError(f"split: num={num} differs from the {len(sizes)} sizes given")
    return join.split(x, list(np.cumsum(sizes[:-1])), ax)


def unstack(value, num=None, axis=0, name=None):
    """``tf.unstack``: the list of slices along ``axis`` (its length must be known)."""
    x = tensor(value)
    nd = _rank(x, "unstack")
    if not -nd <= axis < nd:
        raise ValueError(f"axis = {axis} not in [{-nd}, {nd})")
    ax = axis % nd
    n = x.shape[ax] if num is None else num
    if n is None:
        raise ValueError(f"Cannot infer argument `num` from shape {x.shape}")
    if x.shape[ax] is not None and x.shape[ax] != n:
        raise ValueError(f"unstack: num={n} differs from dim {ax} = {x.shape[ax]}")
    lead = (builtins.slice(None),) * ax
    return [x[lead + (i,)] for i in range(n)]


def parallel_stack(values, name=None):
    """``tf.parallel_stack``: ``gc.stack(values, axis=0)`` (graphc has one stack)."""
    return join.tf_stack(values, axis=0)


def meshgrid(*args, **kwargs):
    """``tf.meshgrid(*args, indexing='xy')``: coordinate grids of the 1-D ``args``."""
    indexing = kwargs.pop("indexing", "xy")
    kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"Invalid keyword argument(s): {sorted(kwargs)}")
    if indexing not in ("xy", "ij"):
        raise ValueError("Argument `indexing` parameter must be either 'xy' or 'ij', got "
                         f"'{indexing}'")
    if not args:
        return []
    return list(_np_meshgrid(*[tensor(a) for a in args], indexing=indexing))


def repeat(input, repeats, axis=None, name=None):  # noqa: A002
    """``tf.repeat``: each element (of the flattened input for ``axis=None``) repeated
    ``repeats`` times (a scalar, or one count per element along ``axis``)."""
    x = tensor(input)
    counts = value_of(repeats)
    if counts is None:
        raise ValueError(f"repeat: repeats must be known while tracing{source_info.where()}")
    if counts.dtype.kind not in "iu":
        raise TypeError("repeat: repeats must be integers")
    if (counts < 0).any():
        raise InvalidArgumentError("repeat: repeats must be non-negative")
    if axis is None:
        x = shape_ops.reshape(x, (-1,))
        axis = 0
    counts = int(counts.ravel()[0]) if counts.size == 1 else counts.astype(np.int64)
    return shape_ops.repeat(x, counts, axis)


# --------------------------------------------------------------------------- likes and lists
def zeros_like(input, dtype=None, name=None, layout=None):  # noqa: A002
    """``tf.zeros_like``: zeros of ``input``'s shape (and dtype unless given)."""
    return creation.zeros_like(tensor(input), dtype)


def ones_like(input, dtype=None, name=None, layout=None):  # noqa: A002
    """``tf.ones_like``: ones of ``input``'s shape (and dtype unless given)."""
    return creation.ones_like(tensor(input), dtype)


def shape_n(input, out_type=np.int32, name=None):  # noqa: A002
    """``tf.shape_n``: the list of the tensors' shapes (1-D ``out_type`` tensors)."""
    return [shape_ops.shape(tensor(t), out_type) for t in input]


def identity_n(input, name=None):  # noqa: A002
    """``tf.identity_n``: a list of identities of the tensors."""
    return [bind(creation.IDENTITY, tensor(t)) for t in input]


def ensure_shape(x, shape, name=None):
    """``tf.ensure_shape``: ``x``, checked against ``shape`` (``None`` dims match any
    length; a dim known while tracing is checked then, ``ValueError``; the others when
    the graph runs, ``InvalidArgumentError``). The result carries the dims ``shape``
    gives."""
    x = tensor(x)
    want = None if shape is None else getattr(shape, "dims", shape)
    if want is None:
        return x
    want = [None if d is None else int(d) for d in want]
    have = x.shape
    if have is not None and (len(have) != len(want) or any(
            h is not None and w is not None and h != w for h, w in zip(have, want))):
        raise ValueError(f"Shape of tensor {name or 'x'} {list(have)} is not compatible "
                         f"with expected shape {want}.")
    if have is None:
        raise ValueError(f"ensure_shape needs a tensor of known rank{source_info.where()}")
    open_dims = [i for i, (h, w) in enumerate(zip(have, want)) if h is None and w is not None]
    if not open_dims:
        return x
    sizes = shape_ops.shape(x, np.int64)
    for i in open_dims:
        check(sizes[i] == want[i], f"Shape of tensor x {list(have)} is not compatible "
              f"with expected shape {want}.")
    return shape_ops.reshape(x, [w if w is not None else (h if h is not None else sizes[i])
                                 for i, (h, w) in enumerate(zip(have, want))])
