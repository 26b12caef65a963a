"""``gc.dask.map_blocks``: a function run on each block of Dask arrays, as Dask's own.

This is ``dask.array.map_blocks`` with a graphc function: ``fn`` sees every block as a
whole array, so ``x - gnp.max(x)`` subtracts each *block's* maximum, and any graph runs
(reductions, loops, anything the backends run). Calling a ``gc.function`` directly on
Dask arrays (:mod:`graphc.dask.api`) keeps the whole-array meaning instead.

``fn`` is traced once with the *block signature* (a dim split into several chunks is
``None``), and that one graph is shipped to the tasks as a :class:`GraphProgram` (wire
JSON, compiled once per block shape per process). Output dtypes, ranks and ``meta`` come
from the traced graph, never from calling ``fn`` on dummy blocks.
"""

from __future__ import annotations

import operator

import numpy as np

from graphc import nest
from graphc.dask.programs import GraphProgram
from graphc.functions.concrete import _TENSOR, _is_tensor_leaf
from graphc.functions.signature import TensorSpec, structure_key

INSTALL = ('pip install "graphc[dask]" (from a clone of graphc\'s repository: '
           'pip install -e ".[dask]")')


def dask_array():
    """The ``dask.array`` module, or an ImportError saying which extra installs Dask."""
    try:
        import dask.array as da  # deferred: Dask is optional, imported for Dask arguments only
    except ImportError as e:
        raise ImportError(f"gc.dask needs Dask, which is not installed: {INSTALL} "
                          f"[{type(e).__name__}: {e}]") from e
    return da


# The keywords dask.array.map_blocks keeps for itself; any other keyword goes to fn.
DASK_KEYWORDS = ("name", "token", "dtype", "chunks", "drop_axis", "new_axis",
                 "enforce_ndim", "meta", "align_arrays")


def map_blocks(function, args: tuple, kwargs: dict):
    """Dask arrays for ``function`` (a ``gc.Function``) run on each block of ``args``."""
    from graphc.dask.api import is_dask_array  # deferred: api imports this module

    da = dask_array()

    dask_kw = {k: kwargs.pop(k) for k in DASK_KEYWORDS if k in kwargs}
    bound = function._bind(args, kwargs)
    flat = [nest.flatten(a) for a in bound]
    leaves = [x for ls, _ in flat for x in ls]
    if not any(is_dask_array(x) for x in leaves):
        raise TypeError("gc.dask.map_blocks needs at least one dask.array argument")
    spec_args = [nest.unflatten(td, [_block_spec(x) if is_dask_array(x) else x for x in ls])
                 for ls, td in flat]
    concrete = function._lookup(tuple(structure_key(a) for a in spec_args), spec_args)
    graph = concrete.optimized_graph
    operands = [x for x in leaves if is_dask_array(x) or _is_tensor_leaf(x)]
    if len(operands) != len(graph.inputs):
        raise TypeError(f"{function.__name__}: gc.Variable arguments cannot be mapped over "
                        "Dask blocks")
    operands = [x if is_dask_array(x) else np.asarray(x) for x in operands]
    rank = max(x.ndim for x in operands if is_dask_array(x))
    outs = graph.outputs
    for v in outs:
        if len(v.aval.shape) != rank and not ({"chunks", "drop_axis", "new_axis"} & set(
                dask_kw)):
            raise ValueError(
                f"gc.dask.map_blocks: {function.__name__} returns rank-{len(v.aval.shape)} "
                f"blocks from rank-{rank} blocks: give chunks= (and drop_axis=/new_axis=) "
                "as for dask.array.map_blocks")
    if len(outs) != 1 and dask_kw:
        raise ValueError("gc.dask.map_blocks: chunks=, dtype= and the other Dask keywords "
                         f"need a function returning one array; {function.__name__} "
                         f"returns {len(outs)}")
    program = GraphProgram(graph, compiled=function._backend != "numpy",
                           single=len(outs) == 1)
    if len(outs) == 1:
        arrays = [da.map_blocks(program, *operands, **{"meta": _meta(outs[0]), **dask_kw})]
    else:  # one task per block computes every output; each output picks its item
        tuples = da.map_blocks(program, *operands, meta=np.empty((0,) * rank, object))
        arrays = [tuples.map_blocks(operator.itemgetter(i), meta=_meta(v))
                  for i, v in enumerate(outs)]
    out = list(concrete._out_template)
    for slot, arr in zip(concrete._tensor_slots, arrays):
        out[slot] = arr
    assert all(x is not _TENSOR for x in out)
    return nest.unflatten(concrete._out_treedef, out)


def _block_spec(x) -> TensorSpec:
    """What a block of Dask array ``x`` looks like to the trace: ``None`` for every dim
    split into several chunks (blocks differ there)."""
    if any(np.isnan(c) for cs in x.chunks for c in cs):
        raise ValueError(f"a Dask array argument of shape {x.shape} has unknown chunk "
                         "sizes (after boolean indexing, say): call "
                         "x.compute_chunk_sizes() first")
    return TensorSpec([cs[0] if len(cs) == 1 else None for cs in x.chunks], x.dtype)


def _meta(v):
    return np.empty((0,) * len(v.aval.shape), v.aval.dtype)
