"""``unsorted_segment_sum`` (TensorFlow's): rows of ``data`` added into ``num_segments``
rows by their segment id; the scatter-add that gradients of every op that *moves*
elements use.

``data`` has shape ``ids.shape + inner``; the result ``(num_segments,) + inner`` holds,
in row ``s``, the sum of the rows of ``data`` whose id is ``s`` (zeros where none is).
Duplicate ids add up, in the order of the flattened ids (so compiled and interpreted
results agree bit for bit); a negative id drops its row (TensorFlow's rule), an id at or
past ``num_segments`` is an error.

A batching rule (gc.vectorized_map) makes one sum of a batch (see ``_batch``).

The gradient helpers below turn any *selection* (an op whose every output element is a
copy of one input element, or a constant: indexing, take, gather, tile, repeat, pad,
sort...) into its gradient without a rule of its own: the op is applied once more to the
flat *positions* of its input (``0..size-1`` in the input's shape), which says where each
output element came from, and the cotangent is scatter-added back to those positions.
"""

from __future__ import annotations

import numpy as np

from graphc.core.attr_types import INT
from graphc.core.registry import OpDef, bind, register
from graphc.ir.graph import Aval
from graphc.ops import batch_util as bu
from graphc.ops.creation import arange
from graphc.ops.elementwise import _want
from graphc.ops.indexing import take
from graphc.ops.shape import TRANSPOSE, reshape
from graphc.ops.ufuncs import maximum, where

POSITION = np.dtype(np.int64)


def _check(data, ids, num_segments):
    if ids.dtype.kind not in "iu":
        raise TypeError(f"segment ids must be integers, got {ids.dtype}")
    if data.dtype.kind not in "iufc":
        raise TypeError(f"unsorted_segment_sum adds numbers, got {data.dtype} data")
    if not isinstance(num_segments, int) or num_segments < 0:
        raise ValueError(f"num_segments must be an int >= 0, got {num_segments!r}")
    d, i = data.shape, ids.shape
    if d is None or i is None:
        return
    if len(i) > len(d) or any(a is not None and b is not None and a != b
                              for a, b in zip(d, i)):
        raise ValueError(f"segment ids of shape {tuple(i)} must be a prefix of the data's "
                         f"shape {tuple(d)}")


def _infer(data, ids, num_segments):
    _check(data, ids, num_segments)
    if data.shape is None or ids.shape is None:
        return Aval(None, data.dtype)
    return Aval((num_segments,) + tuple(data.shape[len(ids.shape):]), data.dtype)


def _ref(data, ids, num_segments):
    _check(data, ids, num_segments)
    if ids.size and ids.max() >= num_segments:
        at = tuple(int(j) for j in np.argwhere(ids >= num_segments)[0])
        raise IndexError(f"segment_ids[{','.join(map(str, at))}] = {ids[at]} is not in "
                         f"[0, {num_segments})")
    out = np.zeros((num_segments,) + data.shape[ids.ndim:], data.dtype)
    keep = ids >= 0
    np.add.at(out, ids[keep], data[keep])  # unbuffered: duplicates add, in order
    return out


# num_segments static; negative ids dropped (see the module docstring)
UNSORTED_SEGMENT_SUM = register(OpDef(
    name="unsorted_segment_sum", attrs={"num_segments": INT}, infer=_infer, ref=_ref,
))


def unsorted_segment_sum(data, segment_ids, num_segments):
    """TensorFlow's ``unsorted_segment_sum`` with a static ``num_segments``.

    >>> unsorted_segment_sum(gnp.asarray([1.0, 2.0, 4.0]), [2, 0, 2], 3).numpy()
    array([2., 0., 5.])
    """
    return bind(UNSORTED_SEGMENT_SUM, data, np.asarray(segment_ids) if isinstance(
        segment_ids, list | tuple) else segment_ids, num_segments=int(num_segments))


# --------------------------------------------------------------------------- gradients
def _segment_grad(cts, args, outs, num_segments):
    """Each data row receives its segment's cotangent row (none for dropped rows)."""
    data, ids = args
    rows = take(cts[0], maximum(ids, 0), axis=0)
    kept = reshape(ids >= 0, tuple(ids.shape) + (1,) * (len(data.shape) - len(ids.shape)))
    return where(kept, rows, 0), None


UNSORTED_SEGMENT_SUM.grad = _segment_grad


def _batch(args, dims, num_segments):
    """The batching rule (gc.vectorized_map). Shared ids: the data's batch axis goes
    behind the ids' axes and rides along as an inner axis (result batch axis 1). Batched
    ids: example ``b``'s ids are shifted by ``b * num_segments`` (negative ids stay
    dropped, ids past ``num_segments`` stay out of range), one sum into
    ``batch * num_segments`` rows, split back per example."""
    (data, dd), (ids, di) = zip(args, dims)
    if di is None:
        r, n = bu.rank(ids), bu.rank(data)
        if r is None or n is None:
            return NotImplemented
        data = bu.to_front(data, dd)
        data = bind(TRANSPOSE, data, axes=(*range(1, r + 1), 0, *range(r + 1, n)))
        return bind(UNSORTED_SEGMENT_SUM, data, ids, num_segments=num_segments), 1
    size = bu.batch_size(args, dims)
    data, ids = (bu.with_batch(a, d, size) for a, d in zip(args, dims))
    r, shape = bu.rank(ids), bu.shape_of(data)
    if not isinstance(size, int) or r is None or shape is None or None in shape[r:]:
        return NotImplemented
    shift = np.arange(size, dtype=ids.dtype).reshape((size,) + (1,) * (r - 1))
    # an id past num_segments must still fail, not land in the next example's rows
    last = (size - 1) * num_segments
    ids = where(ids < 0, ids, where(ids < num_segments, ids + shift * num_segments,
                                    ids + last))
    out = bind(UNSORTED_SEGMENT_SUM, data, ids, num_segments=size * num_segments)
    return reshape(out, (size, num_segments) + tuple(shape[r:])), 0


UNSORTED_SEGMENT_SUM.batch = _batch


def _static_size(shape, what) -> int:
    if shape is None or None in shape:
        raise NotImplementedError(
            f"the gradient of {what} needs the input's shape while tracing, got "
            f"{'unknown rank' if shape is None else tuple(shape)}; give the gc.function "
            "an input_signature with known dims")
    n = 1
    for d in shape:
        n *= d
    return n


def positions(x, what):
    """``arange(x.size)`` in ``x``'s shape (int64): each element's flat position."""
    n = _static_size(x.shape, what)
    return reshape(arange(n, dtype=POSITION), tuple(x.shape))


def scatter_back(shape, ct, picks):
    """The cotangent of a tensor of ``shape`` when ``ct`` is that of elements picked from
    it at the flat positions ``picks`` (same shape as ``ct``; -1: not from it)."""
    n = _static_size(shape, "a selection")
    flat = bind(UNSORTED_SEGMENT_SUM, reshape(ct, (-1,)), reshape(picks, (-1,)),
                num_segments=n)
    return reshape(flat, tuple(shape))


def selection(op, at=0):
    """The rule of ``op``, a selection from its argument ``at``: the op applied to the
    argument's positions finds each output element's source. Other arguments (indices,
    shape operands) pass through and get no gradient."""
    def grad(cts, args, outs, **attrs):
        grads = [None] * len(args)
        x = args[at]
        if _want(x):
            ids = positions(x, op.name)
            picks = bind(op, *args[:at], ids, *args[at + 1:], **attrs)
            grads[at] = scatter_back(x.shape, cts[0], picks)
        return tuple(grads)

    grad.__name__ = grad.__qualname__ = f"{op.name}_grad"
    return grad
