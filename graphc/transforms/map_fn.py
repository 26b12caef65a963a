"""``gc.map_fn``: ``fn`` applied to each slice of ``elems`` along dimension 0, stacked.

Eagerly it is a Python loop. While tracing it is one ``while_loop`` node whose body
reads slice ``i`` of every ``elems`` tensor, calls ``fn`` and writes each result into a
``gc.TensorArray`` (stacked after the loop), so the runtime compiles the loop natively.
gc.vectorized_map uses it for ops that have no batching rule.
"""

from __future__ import annotations

import numpy as np

from graphc import nest, source_info
from graphc.autograph.api import converted
from graphc.core import trace, weak
from graphc.core.spec import TensorSpec
from graphc.core.tensor import Tensor, _symbolic
from graphc.dtypes import as_dtype
from graphc.errors import InvalidArgumentError
from graphc.ir.graph import Aval
from graphc.ops.batch_util import batch_size
from graphc.ops.control.flow import while_loop
from graphc.ops.control.trace import enter
from graphc.ops.convert import convert_to_tensor
from graphc.ops.join import concat, stack
from graphc.ops.shape import broadcast_to, reshape, shape
from graphc.ops.tensor_array.array import TensorArray
from graphc.ops.tf_elementwise import cast


class MapFnDtypeError(InvalidArgumentError, TypeError):
    """``fn`` returned a dtype other than the signature's: TensorFlow's
    ``InvalidArgumentError``, and a ``TypeError`` (a value of the wrong type)."""


class MapFnStructureError(ValueError, TypeError):
    """``fn`` returned a structure other than the signature's: graphc's ``ValueError``,
    and the ``TypeError`` TensorFlow raises for it."""


def _tensor(x):
    if isinstance(x, Tensor):
        return x

    return convert_to_tensor(x)


def _spec_of(s):
    """``(dtype, shape or None)`` of a signature leaf: a TensorSpec, a dtype or a
    tensor-like (its dtype and shape)."""
    if isinstance(s, TensorSpec):
        shape = None if s.shape is None else tuple(s.shape)
        return as_dtype(s.dtype), shape
    if isinstance(s, Tensor | np.ndarray):
        return np.dtype(s.dtype), tuple(s.shape)
    return as_dtype(s), None


def leaves_of(elems, what: str, broadcast_ones=False):
    """The tensors of ``elems`` (a tensor or a nest), their treedef and the batch size
    (an int, or an int64 scalar tensor when only known at run time). With
    ``broadcast_ones`` (``gc.vectorized_map``, as TensorFlow's), tensors whose dimension 0
    is 1 are broadcast to the others' size."""
    leaves, treedef = nest.flatten(elems)
    if not leaves:
        raise ValueError(f"{what}: elems holds no tensors{source_info.where()}")
    leaves = [_tensor(x) for x in leaves]
    sizes = set()
    for x in leaves:
        if x.shape is not None and len(x.shape) == 0:
            raise ValueError(f"{what}: elems must have a dimension 0 to map over, got a "
                             f"0-d {x.dtype} tensor{source_info.where()}")
        if x.shape is not None and x.shape[0] is not None:
            sizes.add(x.shape[0])
    if broadcast_ones and len(sizes) == 2 and 1 in sizes:
        n = max(sizes)
        leaves = [broadcast_to(x, (n, *x.shape[1:])) if x.shape is not None
                  and x.shape[0] == 1 else x for x in leaves]
        sizes = {n}
    if len(sizes) > 1:
        raise ValueError(f"{what}: the tensors of elems differ in dimension 0 "
                         f"({sorted(sizes)}){source_info.where()}")
    if sizes:
        return leaves, treedef, sizes.pop()

    return leaves, treedef, batch_size(leaves, [0] * len(leaves))


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True,
           swap_memory=False, infer_shape=True, name=None, fn_output_signature=None):
    """``fn`` applied to each slice ``elems[i]`` (the same nest of slices), the results
    stacked along a new dimension 0 (``tf.map_fn``).

    ``fn_output_signature`` (a dtype, ``gc.TensorSpec`` or a nest of them) gives the
    structure and dtypes ``fn`` returns when they differ from ``elems``'s; without it the
    results must match ``elems`` (a result of another dtype raises ``TypeError``).

    >>> gc.map_fn(lambda x: x * x, gc.constant([1, 2, 3]))          # [1, 4, 9]
    >>> gc.map_fn(lambda x: x > 1, gc.constant([1, 2, 3]),
    ...           fn_output_signature=gc.bool)                     # [False, True, True]
    >>> gc.map_fn(lambda p: p[0] + p[1], (a, b))                   # a + b, slice by slice
    """
    signature = dtype if fn_output_signature is None else fn_output_signature
    leaves, treedef, n = leaves_of(elems, "gc.map_fn")
    if signature is None:
        signature = nest.unflatten(treedef, [x.dtype for x in leaves])
    specs, out_td = nest.flatten(signature)
    specs = [_spec_of(s) for s in specs]
    if trace.active():
        fn = converted(fn)

    def apply(slices):
        out = fn(nest.unflatten(treedef, slices))
        flat, td = nest.flatten(out)
        if td != out_td:
            raise MapFnStructureError(
                f"gc.map_fn{source_info.where()}: fn returned {out!r:.80}, whose structure "
                f"differs from fn_output_signature {signature!r:.80}; pass "
                "fn_output_signature= for results that differ from elems")
        return [_result(v, spec) for v, spec in zip(flat, specs)]

    def call(i):
        return apply([x[i] for x in leaves])

    if not trace.active():
        return nest.unflatten(out_td, _eager_loop(call, int(n), specs))
    if any(shape is None or None in shape for _, shape in specs):
        specs = _probe(apply, leaves, specs)
    return nest.unflatten(out_td, _traced_loop(call, n, specs))


def _result(value, spec):
    dtype = spec[0]
    if isinstance(value, Tensor | np.ndarray | np.generic):
        if value.dtype != dtype:
            raise MapFnDtypeError(
                f"gc.map_fn{source_info.where()}: fn returned a {np.dtype(value.dtype).name} "
                f"tensor where {dtype.name} was expected; pass fn_output_signature= "
                f"(gc.{np.dtype(value.dtype).name}) or cast the result")
        return _tensor(value)
    try:
        return _tensor(np.asarray(value, dtype=dtype))
    except (TypeError, ValueError, OverflowError):
        raise TypeError(f"gc.map_fn{source_info.where()}: fn returned {value!r:.60}, not a "
                        f"{dtype.name} value") from None


def _eager_loop(call, n, specs):
    results = [call(i) for i in range(n)]
    if n == 0:
        out = []
        for dtype, shape in specs:
            if shape is None or None in shape:
                raise InvalidArgumentError(
                    "gc.map_fn over zero elements needs the result shapes: pass "
                    "fn_output_signature=gc.TensorSpec(shape, dtype)")
            out.append(_tensor(np.zeros((0,) + shape, dtype)))
        return out
    return [stack([r[k] for r in results]) for k in range(len(specs))]


def _traced_loop(call, n, specs):
    """A result of unknown rank is written flattened (a TensorArray wants elements of
    known rank) and its shape kept in a loop variable; after the loop the stacked rows
    are reshaped to ``(n, *shape)`` (``(0,)`` after no trips): a result of unknown shape,
    as TensorFlow's."""
    m, unranked = len(specs), [k for k, (_, s) in enumerate(specs) if s is None]
    arrays = [TensorArray(dtype, size=n, element_shape=(None,) if s is None else s)
              for dtype, s in specs]

    def body(i, *state):
        values = call(i)
        flat = [reshape(v, [-1]) if k in unranked else v for k, v in enumerate(values)]
        return (i + 1, *[ta.write(i, v) for ta, v in zip(state[:m], flat)],
                *[shape(values[k], np.int64) for k in unranked])

    dims = [np.zeros((0,), np.int64) for _ in unranked]
    final = while_loop(lambda i, *_: i < n, body, (np.asarray(0, np.int64), *arrays, *dims))
    tas, dims = final[1:m + 1], final[m + 1:]
    out = [ta.stack() for ta in tas]
    for k, d in zip(unranked, dims):
        out[k] = reshape(out[k], concat([reshape(cast(n, np.int64), [1]), d], 0))
    return out


def _probe(apply, leaves, specs):
    """The result shapes, from ``fn`` traced once in a throwaway context on placeholders
    of the slices' avals (a TensorArray loop variable needs its element shape before the
    loop; no slice is read, so a static size-0 ``elems`` works too). A result of unknown
    rank keeps shape ``None``."""
    with enter("map_fn_probe") as ctx:
        slices = [_symbolic(ctx.new_input(Aval(None if x.shape is None else x.shape[1:],
                                                x.dtype))) for x in leaves]
        values = apply([weak.mark(s) if weak.is_weak(x) else s
                        for s, x in zip(slices, leaves)])
    return [(dtype, _merge(shape, v.shape)) for (dtype, shape), v in zip(specs, values)]


def _merge(spec_shape, probed):
    """The signature's shape, its unknown dims (or rank) taken from ``probed``."""
    if spec_shape is None:
        return None if probed is None else tuple(probed)
    if probed is None:
        return tuple(spec_shape)
    return tuple(s if s is not None else d for s, d in zip(spec_shape, probed))
