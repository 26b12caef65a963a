"""Dask arrays for the values of a split graph: blockwise stages and tree reductions.

Every value that is needed is built from the *stop* values (graph inputs and cut
results) it depends on: one ``da.blockwise`` whose task calls a :class:`GraphProgram`
holding the slice of the graph that computes it (outputs chunked alike share one such
stage, returning a tuple per block). A cut (a reduction over a chunked
axis) is a blockwise partial (the slice plus the rule's partial reduction, kept dims)
followed by ``da.reduction`` with a combine graph and an aggregate graph (the combine
plus the rule's ``finish``). Output ``meta``, dtypes and chunks come from the graph's
avals and the block places, never from calling a program on dummy blocks.
"""

from __future__ import annotations

import itertools
import math
import operator

import numpy as np

from graphc.core import registry
from graphc.core.spec import TensorSpec
from graphc.dask.programs import GraphProgram
from graphc.dask.split import slice_graph
from graphc.functions.function import function
from graphc.ir import graph as ir


def _identity(x, axis=None, keepdims=None, **_kw):
    return x


class Stages:
    """Builds Dask arrays for values of ``graph`` split by ``split``.

    ``inputs``: graph input id -> Dask array (chunks unified); ``grid``: label -> total
    size of that grid axis; ``compiled``: the function's backend is Numba."""

    def __init__(self, graph, split, inputs: dict, grid: dict, name: str, compiled=True):
        self.graph, self.split, self.grid, self.name = graph, split, grid, name
        self.compiled = compiled  # False: block programs on the interpreter too
        self.memo = dict(inputs)
        self.cut_of = {node.outputs[0].id: node for node in split.cuts}
        self.stop = set(inputs) | set(self.cut_of)
        self._fresh = itertools.count()

    def values(self, vs) -> list:
        """The Dask arrays of several values; those computed block by block along the
        same chunked axes share one stage, so work they have in common runs once."""
        groups: dict = {}
        for v in vs:
            if v.id in self.memo or v.id in self.cut_of:
                continue
            labels = tuple(label for label in self.split.places[v.id] if label is not None)
            if labels and all(v is not u for u in groups.get(labels, ())):
                groups.setdefault(labels, []).append(v)
        for labels, group in groups.items():
            if len(group) > 1:
                self._shared(group, labels)
        return [self.value(v) for v in vs]

    def value(self, v):
        """The Dask array of graph value ``v``."""
        arr = self.memo.get(v.id)
        if arr is None:
            node = self.cut_of.get(v.id)
            arr = self._reduction(node) if node is not None else self._blockwise(v)
            self.memo[v.id] = arr
        return arr

    # ------------------------------------------------------------------ blockwise
    def _blockwise(self, v, partial=None):
        """The stage computing ``v``; with ``partial`` (a :class:`_Partial`), the stage
        computing that partial reduction of ``v`` instead."""
        import dask.array as da  # deferred: Dask is optional, imported for Dask arguments only

        inputs, nodes = slice_graph(self.graph, [v], self.stop)
        out, place, adjust = v, self.split.places[v.id], None
        if partial is not None:
            out, extra = partial.inline(v, nodes)
            inputs += [c for c in extra if all(c is not u for u in inputs)]
            adjust = {place[a]: _ones for a in partial.axes if place[a] is not None}
        graph = ir.Graph(inputs, nodes, [out], name=f"{self.name}_block")
        if not inputs:  # whole and input-free (constants): one task holding the result
            result = GraphProgram(graph, compiled=False)()
            return da.from_array(np.asarray(result), chunks=-1)
        out_ind, new_axes = self._out_index(v, place, out.aval.shape)
        aval, program = out.aval, GraphProgram(graph, compiled=self.compiled)
        return da.blockwise(
            program, out_ind, *self._args(inputs), new_axes=new_axes or None,
            adjust_chunks=adjust, concatenate=True, align_arrays=False,
            dtype=aval.dtype, meta=np.empty((0,) * len(aval.shape), aval.dtype),
            token=f"graphc-{self.name}" + ("" if partial is None else "-partial"))

    def _shared(self, group, labels):
        """One stage computing every value of ``group`` (all chunked along ``labels``):
        a tuple per block, then one array per value picking its item."""
        import dask.array as da  # deferred: Dask is optional, imported for Dask arguments only

        inputs, nodes = slice_graph(self.graph, group, self.stop)
        graph = ir.Graph(inputs, nodes, group, name=f"{self.name}_block")
        tuples = da.blockwise(
            GraphProgram(graph, self.compiled, single=False), labels, *self._args(inputs),
            concatenate=True, align_arrays=False, meta=np.empty((0,) * len(labels), object),
            token=f"graphc-{self.name}-shared")
        for k, v in enumerate(group):
            out_ind, new_axes = self._out_index(v, self.split.places[v.id], v.aval.shape)
            self.memo[v.id] = da.blockwise(
                operator.itemgetter(k), out_ind, tuples, labels, new_axes=new_axes or None,
                concatenate=True, align_arrays=False, dtype=v.aval.dtype,
                meta=np.empty((0,) * len(v.aval.shape), v.aval.dtype),
                token=f"graphc-{self.name}-item")

    def _args(self, inputs) -> list:
        args = []
        for u in inputs:
            args += [self.value(u), self._index(self.split.places[u.id])]
        return args

    def _out_index(self, v, place, shape):
        out_ind, new_axes = [], {}
        for label, size in zip(place, shape):
            if label is None and size is None:
                self.split.refuse(self._producer(v), "its result has a shape that "
                                  "depends on data, but a Dask array needs its shape first")
            if label is None:
                label = f"_w{next(self._fresh)}"
                new_axes[label] = size
            out_ind.append(label)
        return tuple(out_ind), new_axes

    def _producer(self, v):
        return next((n for n in self.graph.nodes if any(o is v for o in n.outputs)), None)

    def _index(self, place):
        return tuple(label if label is not None else f"_w{next(self._fresh)}"
                     for label in place)

    # ------------------------------------------------------------------ reductions
    def _reduction(self, node):
        axes, rule = self.split.cuts[node]
        result = self._tree(node.inputs[0], axes, rule, node, node.outputs[0].aval.dtype,
                            node.op.name)
        if not node.attrs.get("keepdims", False):
            result = result.squeeze(axis=axes)
        return result

    def _tree(self, x, axes, rule, node, dtype, what):
        """``rule``'s reduction of ``x`` over ``axes`` (kept dims): per-block partials,
        then Dask's tree reduction with the combine and aggregate graphs."""
        import dask.array as da  # deferred: Dask is optional, imported for Dask arguments only

        centers = []
        if rule.center is not None:  # a first pass every block's partial reads
            centers.append(self._center(x, axes, rule.center, node, dtype, what))
        partial = self._blockwise(x, _Partial(rule, centers, axes, node, dtype))
        count = math.prod(self._size(x, a) for a in axes)
        combine = _tiny_graph(rule.combine, partial.dtype, partial.ndim, axes)
        aggregate = _tiny_graph(rule.combine, partial.dtype, partial.ndim, axes,
                                rule.finish, count, node.attrs, dtype)
        for g in (combine, aggregate):  # errors name the user's line, not this call's
            for n in g.nodes:
                n.src = node.src
        return da.reduction(
            partial, _identity, GraphProgram(aggregate, compiled=False),
            combine=GraphProgram(combine, compiled=False), axis=axes, keepdims=True,
            dtype=dtype, concatenate=True, meta=np.empty((0,) * partial.ndim, dtype),
            name=f"graphc-{self.name}-{what}")

    def _center(self, x, axes, rule, node, dtype, what):
        """A new stop value: ``rule``'s reduction of ``x`` with kept dims (a mean)."""
        place = tuple(None if i in axes else label
                      for i, label in enumerate(self.split.places[x.id]))
        shape = tuple(1 if i in axes else d for i, d in enumerate(x.aval.shape))
        c = ir.Value(ir.Aval(shape, np.dtype(dtype)))
        self.split.places[c.id] = place
        self.memo[c.id] = self._tree(x, axes, rule, node, dtype, f"{what}-center")
        self.stop.add(c.id)
        return c

    def _size(self, v, axis):
        d = v.aval.shape[axis]
        return d if d is not None else self.grid[self.split.places[v.id][axis]]


class _Partial:
    """A block's partial reduction of ``node``'s input: ``rule.partial`` traced on its
    aval (and the centers'), the nodes inlined after the slice computing the input."""

    def __init__(self, rule, centers, axes, node, dtype):
        self.rule, self.centers, self.axes = rule, centers, axes
        self.node, self.dtype = node, dtype

    def inline(self, v, nodes):
        """``(partial value, extra stop inputs)``; appends the partial's nodes."""
        def partial(xb, *centers):
            return self.rule.partial(xb, centers[0] if centers else None, self.axes,
                                     self.node, self.dtype)

        specs = [TensorSpec(u.aval.shape, u.aval.dtype) for u in [v, *self.centers]]
        g = function(partial, autograph=False).get_concrete_function(*specs).graph
        env = {a.id: b for a, b in zip(g.inputs, [v, *self.centers])}
        for n in g.nodes:
            nodes.append(ir.Node(n.op, [env.get(u.id, u) for u in n.inputs], n.attrs,
                                 n.outputs, self.node.src))  # errors name the user's line
        return env.get(g.outputs[0].id, g.outputs[0]), self.centers


def _ones(chunk):
    return 1


def _tiny_graph(op_name, dtype, rank, axes, finish=None, count=None, attrs=None,
                out_dtype=None):
    """The combine (or, with ``finish``, aggregate) graph of a tree reduction: the
    combine op over ``axes`` of concatenated partials, kept dims, then ``finish``."""
    op = registry.get(op_name)
    extra = {"dtype": None} if "dtype" in (op.attrs or ()) else {}

    def combine(p):
        total = registry.bind(op, p, axis=axes, keepdims=True, **extra)
        if finish is not None:
            return finish(total, count, attrs, out_dtype)
        # NumPy widens a sum or product of small ints: keep the partials' (and the
        # result's) dtype, as the op's own dtype= asked
        return total.astype(out_dtype or dtype)

    spec = TensorSpec([None] * rank, dtype)
    fn = function(combine, autograph=False)
    return fn.get_concrete_function(spec).graph
