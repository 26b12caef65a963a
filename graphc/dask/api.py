"""Calling a ``gc.Function`` on Dask arrays: trace, split, build Dask arrays.

1. Dask arguments are unified as Dask's elementwise ops do (right-aligned dims share a
   grid axis; chunks are made to agree, rechunking where they differ); a NumPy argument
   that broadcasts with them joins them as one chunk, others stay unchunked operands.
2. The function is traced with the *block signature*: a dim split into several chunks
   is ``None`` (its size differs per block), the others keep their size. Code reading
   such a dim's size gets ``None`` rather than a block's size, so no block size can be
   baked into the graph.
3. :mod:`graphc.dask.split` walks the optimized graph with the ops' block rules and
   :mod:`graphc.dask.stages` builds one Dask array per output.
"""

from __future__ import annotations

import numpy as np

from graphc import nest
from graphc.core.tensor import Tensor
from graphc.dask import per_block
from graphc.dask.split import BlockSplitError, Split
from graphc.dask.stages import Stages
from graphc.functions.concrete import _TENSOR, _is_tensor_leaf
from graphc.functions.function import Function, function
from graphc.functions.signature import TensorSpec, structure_key


def is_dask_array(x) -> bool:
    t = type(x)
    return t.__name__ == "Array" and t.__module__.startswith("dask.array")


def map_blocks(fn, *args, **kwargs):
    """``fn`` run on each block of the Dask arrays in ``args``, as ``dask.array.map_blocks``:
    each block is a whole array to ``fn`` (``x - gnp.max(x)`` subtracts each block's
    maximum). Returns a Dask array, or ``fn``'s output structure holding one per tensor.

    ``fn``: a ``gc.function`` or a Python function (wrapped in ``gc.function``). Dask
    arguments' blocks line up as in Dask (``align_arrays``); NumPy arguments reach every
    block whole. Dask's keywords (``chunks=``, ``drop_axis=``, ``new_axis=``, ``dtype=``,
    ``meta=``, ``name=``...) mean what they mean there (one output only); any other
    keyword goes to ``fn``. A function returning blocks of another rank needs ``chunks=``
    (and ``drop_axis=``/``new_axis=``), as in Dask.

    Calling a ``gc.function`` with Dask arrays instead keeps the *whole-array* meaning
    (reductions combine across blocks; see docs/dask.md).

    >>> x = da.from_array(np.arange(16.0).reshape(4, 4), chunks=(2, 2))
    >>> gc.dask.map_blocks(lambda t: t - gnp.max(t), x).compute()[0]   # doctest: +SKIP
    array([-5., -4., -1.,  0.])
    """
    fn = fn if isinstance(fn, Function) else function(fn)
    return per_block.map_blocks(fn, args, dict(kwargs))


def dask_call(function, args):
    """The hook of ``Function.__call__`` (``args`` in parameter order): Dask arrays out,
    or ``NotImplemented`` when no argument holds a Dask array."""
    flat = [nest.flatten(a) for a in args]
    leaves = [x for ls, _ in flat for x in ls]
    if not any(is_dask_array(x) for x in leaves):
        return NotImplemented
    arrays, places, grid = _unify(leaves)
    spec_args = []
    for (ls, td) in flat:
        spec_args.append(nest.unflatten(td, [_spec(arrays.get(id(x)), places.get(id(x)), x)
                                             for x in ls]))
    key = tuple(structure_key(a) for a in spec_args)
    try:
        concrete = function._lookup(key, spec_args)
    except TypeError as e:
        if function._input_signature is None or "input_signature" not in str(e):
            raise
        raise TypeError(
            f"{e} (with Dask arguments, a dim split into several chunks is traced as "
            "None, since its size differs from block to block: give None for it in the "
            "input_signature, or rechunk it to one chunk)") from None
    graph = concrete.optimized_graph
    tensors = [x for x in leaves if _is_tensor_leaf(x) or is_dask_array(x)]
    if len(tensors) != len(graph.inputs):
        raise BlockSplitError(f"{function.__name__}: gc.Variable arguments cannot be "
                              "mapped over Dask blocks")
    inputs, input_places = {}, []
    for v, x in zip(graph.inputs, tensors):
        inputs[v.id] = arrays.get(id(x)) if id(x) in arrays else _whole_dask(x)
        input_places.append(places.get(id(x), (None,) * len(v.aval.shape or ())))
    split = Split(graph, input_places, function.__name__)
    stages = Stages(graph, split, inputs, grid, function.__name__,
                    compiled=function._backend != "numpy")
    out = list(concrete._out_template)
    for slot, arr in zip(concrete._tensor_slots, stages.values(graph.outputs)):
        out[slot] = arr
    assert all(x is not _TENSOR for x in out)
    return nest.unflatten(concrete._out_treedef, out)


def _no_empty_chunks(x):
    """``x`` without chunks of size 0 (slicing leaves them): a block of no elements has
    no ``max`` or ``min`` to combine, though the array has. An empty axis keeps one."""
    chunks = tuple(tuple(c for c in cs if c) or (0,) for cs in x.chunks)
    return x if chunks == x.chunks else x.rechunk(chunks)


def _unify(leaves):
    """``({id(leaf): unified Dask array}, {id(leaf): place}, {label: size})``."""
    import dask.array as da  # deferred: Dask is optional, imported for Dask arguments only
    from dask.array.core import unify_chunks  # deferred: Dask is optional

    chunked = [x for x in leaves if is_dask_array(x)]
    for x in chunked:
        if any(np.isnan(c) for cs in x.chunks for c in cs):
            raise ValueError(f"a Dask array argument of shape {x.shape} has unknown chunk "
                             "sizes (after boolean indexing, say): call "
                             "x.compute_chunk_sizes() first")
    rank = max(x.ndim for x in chunked)
    shape = np.broadcast_shapes(*[x.shape for x in chunked])
    joined = list(chunked)
    for x in leaves:  # NumPy operands broadcasting with the arrays are chunked alike
        a = _as_numpy(x)
        if a is not None and a.ndim and _broadcasts(a.shape, shape):
            joined.append(x)
    pairs = []
    for x in joined:
        arr = _no_empty_chunks(x) if is_dask_array(x) else da.from_array(
            _as_numpy(x), chunks=-1)
        pairs += [arr, tuple(f"d{rank - x.ndim + i}" for i in range(x.ndim))]
    chunkss, unified = unify_chunks(*pairs)
    arrays, places = {}, {}
    for x, arr in zip(joined, unified):
        arrays[id(x)] = arr
        places[id(x)] = tuple(
            f"d{rank - arr.ndim + i}" if arr.numblocks[i] > 1 else None
            for i in range(arr.ndim))
    grid = {label: sum(chunks) for label, chunks in chunkss.items()}
    return arrays, places, grid


def _broadcasts(a, b) -> bool:
    try:
        return np.broadcast_shapes(a, b) == tuple(b)
    except ValueError:
        return False


def _as_numpy(x):
    if type(x) is np.ndarray:
        return x
    if isinstance(x, Tensor) and x._np is not None:
        return x._np
    return None


def _spec(arr, place, leaf):
    """What the trace sees for one leaf: a spec with ``None`` for chunked dims."""
    if arr is None:
        return leaf
    shape = [None if label is not None else d for d, label in zip(arr.shape, place)]
    return TensorSpec(shape, arr.dtype)


def _whole_dask(x):
    import dask.array as da  # deferred: Dask is optional, imported for Dask arguments only

    a = _as_numpy(x)
    return da.from_array(np.asarray(x) if a is None else a, chunks=-1)
