"""Block rules: how an op runs on the blocks of a chunked array (``OpDef.blocks``).

``graphc.dask`` splits a traced graph over the blocks of Dask arrays by walking it with
these rules (the walk is :mod:`graphc.dask.split`). A value's *place* is one label per
dim: the grid axis the dim is chunked along, or ``None`` (the dim is whole in every
block). A rule's ``place(node, places, walk)`` returns its outputs' places, asking the
walk for the shared steps, or refuses (``walk.refuse``) with the reason the op cannot be
split. Ops whose inputs are all whole need no rule: they run whole wherever needed.

* :data:`ELEMENTWISE` (also the rule of every ``OpDef.elementwise`` op): each block's
  result is the op on the blocks, broadcasting against unchunked operands.
* :class:`Reduction`: a reduction over only unchunked axes is blockwise; over a chunked
  axis each block reduces to a partial (kept dims), partials are combined as a tree and
  ``finish`` ends it; :class:`Deviation` (``var``/``std``) first reduces the mean.
* :class:`AlongAxis`: exact per block while its ``axis`` is not chunked (scans), and
  :class:`ArgReduction` (``argmax``/``argmin``) likewise; :class:`NewAxes`
  (``expand_dims``, ``squeeze``) inserts or drops whole size-1 dims; :class:`Transpose`
  permutes the places; :class:`BasicIndex` (``getitem``: ints and slices of whole dims,
  ``:``, ``None``, ``...``); :class:`ShapeOf`
  refuses ``gc.shape`` of chunked data with the reason.
* :class:`Loop`, :class:`Branch`: control flow whose subgraphs run per block; the trip
  count or branch must not depend on chunked data.
* :class:`Matmul`: a product whose contracted dim is whole (rows or columns chunked).

Nothing here imports Dask.
"""

from __future__ import annotations

from graphc.core import registry
from graphc.core.shapes import normalize_axes, normalize_axis
from graphc.ops.index_keys import _FULL, _expand


class Elementwise:
    def place(self, node, places, walk):
        return walk.broadcast(node, places)

    def __repr__(self):
        return "ELEMENTWISE"


ELEMENTWISE = Elementwise()


class Reduction:
    """A reduction over chunked axes as a tree: each block reduces to a partial (kept
    dims), partials are combined as a tree by the ``combine`` op (a name), and
    ``finish(total, count, attrs, dtype)`` ends the result (``count``: elements reduced
    into each result element; None: nothing to do). ``partial(x, center, axes, attrs,
    dtype)`` builds a block's partial with graphc ops (default: the op itself with its
    attrs); ``center``, when set, is a rule whose result (kept dims) every block's
    partial reads: a first pass (the mean, for a variance)."""

    center = None

    def __init__(self, combine, finish=None, partial_op=None, partial_dtype=False):
        self.combine, self.finish = combine, finish
        self._op, self._dtype = partial_op, partial_dtype

    def place(self, node, places, walk):
        rank = len(places[0])
        axes = normalize_axes(node.attrs.get("axis"), rank)
        return walk.reduce(node, places[0], tuple(sorted(axes)), self)

    def partial(self, x, center, axes, node, dtype):
        op = registry.get(self._op) if self._op else node.op
        attrs = {k: v for k, v in node.attrs.items() if k in (op.attrs or {})
                 and k not in ("axis", "keepdims")}
        if self._dtype:
            attrs["dtype"] = dtype
        return registry.bind(op, x, axis=axes, keepdims=True, **attrs)


def _mean_finish(total, count, attrs, dtype):
    return (total / count).astype(dtype)


class Deviation(Reduction):
    """``var``/``std`` in two passes, as NumPy computes them: the mean (a tree reduction,
    kept dims), then each block's sum of squared deviations from it (another tree);
    ``finish`` divides by ``count - ddof`` (and takes the root for ``std``)."""

    center = None  # set below: the mean

    def __init__(self, root):
        super().__init__("sum", finish=self._finish)
        self.root = root

    def partial(self, x, center, axes, node, dtype):
        d = registry.bind(registry.get("absolute"), x.astype(dtype) - center)
        return registry.bind(registry.get("sum"), d * d, axis=axes, keepdims=True, dtype=None)

    def _finish(self, total, count, attrs, dtype):
        out = total / max(count - attrs.get("ddof", 0), 0)
        sqrt = registry.get("sqrt")
        return (registry.bind(sqrt, out) if self.root else out).astype(dtype)


SUM = Reduction("sum")
PROD = Reduction("prod")
MAX = Reduction("max")
MIN = Reduction("min")
ANY = Reduction("any")
ALL = Reduction("all")
MEAN = Reduction("sum", finish=_mean_finish, partial_op="sum", partial_dtype=True)
VAR, STD = Deviation(root=False), Deviation(root=True)
Deviation.center = MEAN


class AlongAxis:
    """An op that works along one ``axis`` attr (a scan): blockwise while that axis is
    not chunked; ``axis=None`` (flatten first) is refused."""

    what = "runs along", "a cumulative op across chunks"
    flat = "it runs over the flattened array, across every chunk"

    def place(self, node, places, walk):
        p = places[0]
        axis = node.attrs.get("axis")
        if axis is None:
            walk.refuse(node, f"with axis=None {self.flat}")
        axis = normalize_axis(axis, len(p))
        if p[axis] is not None:
            walk.refuse(node, f"it {self.what[0]} axis {axis}, which is split into chunks "
                              f"({self.what[1]}); rechunk that axis to one chunk first "
                              f"(x.rechunk({{{axis}: -1}}))")
        return [self.result(p, axis, node)]

    def result(self, place, axis, node):
        return place


class ArgReduction(AlongAxis):
    """``argmax``/``argmin``: blockwise while their ``axis`` is not chunked (each block
    holds whole lines); the axis is dropped (kept, whole, with ``keepdims``)."""

    what = "searches along", "an index search across chunks"
    flat = "it gives an index into the flattened array, across every chunk"

    def result(self, place, axis, node):
        kept = (None,) if node.attrs.get("keepdims") else ()
        return place[:axis] + kept + place[axis + 1:]


ALONG_AXIS = AlongAxis()


class NewAxes:
    """``expand_dims`` and ``squeeze``: dims of size 1 inserted or removed; the others
    keep their places."""

    def place(self, node, places, walk):
        p = places[0]
        out_rank = len(node.outputs[0].aval.shape)
        axis = node.attrs.get("axis")
        if node.op.name == "expand_dims":
            axes = normalize_axes(axis, out_rank)
            rest = iter(p)
            return [tuple(None if i in axes else next(rest) for i in range(out_rank))]
        if axis is None:  # squeeze every size-1 dim (whole: one chunk of one element)
            return [tuple(label for label, d in zip(p, node.inputs[0].aval.shape) if d != 1)]
        axes = normalize_axes(axis, len(p))
        return [tuple(label for i, label in enumerate(p) if i not in axes)]


class Transpose:
    """``transpose``: each block's transpose is a block of the transpose; the dims keep
    their chunks, permuted."""

    def place(self, node, places, walk):
        p = places[0]
        axes = node.attrs.get("axes")
        axes = (range(len(p) - 1, -1, -1) if axes is None
                else [normalize_axis(a, len(p)) for a in axes])  # in order, not sorted
        return [tuple(p[a] for a in axes)]


class BasicIndex:
    """``getitem`` with basic indexing: ints and slices on unchunked dims, whole slices
    (``:``) on chunked ones, ``None`` (new axes) and ``...``. Array and mask indices, and
    an int or a partial slice on a chunked dim, are refused."""

    def place(self, node, places, walk):
        p = places[0]
        if any(not walk.is_whole(q) for q in places[1:]):
            walk.refuse(node, "its index is chunked data")
        key, advanced = _expand(node.attrs["key"], [v.aval for v in node.inputs[1:]], len(p))
        if advanced or any(e[0] == "array" for e in key):
            walk.refuse(node, "it indexes with an array or a mask (which elements each "
                              "block needs is data)")
        out, dim = [], 0
        for e in key:
            if e[0] == "newaxis":
                out.append(None)
            elif e[0] in ("slice", "int"):
                if p[dim] is not None and e != _FULL:
                    walk.refuse(node, f"it takes part of axis {dim}, which is split into "
                                      "chunks (only ':' keeps each block's part); rechunk "
                                      f"that axis to one chunk first (x.rechunk({{{dim}: -1}}))")
                if e[0] == "slice":
                    out.append(p[dim])
                dim += 1
        return [tuple(out)]


class ShapeOf:
    """``gc.shape``: refused on a chunked array (each block would read its own size)."""

    def place(self, node, places, walk):
        walk.refuse(node, "it reads the shape of an array with a dim split into chunks, and "
                          "each block would read its own size, not the array's; read only "
                          "whole dims (x.shape, where a chunked dim is None)")


ARG_REDUCTION = ArgReduction()
NEW_AXES = NewAxes()
SHAPE_OF = ShapeOf()
BASIC_INDEX = BasicIndex()
TRANSPOSE = Transpose()


class Loop:
    """``while_loop``: the loop runs inside each block; the condition may read only
    unchunked values, so every block runs the same iterations as the whole array."""

    def place(self, node, places, walk):
        body, cond = node.attrs["body"], node.attrs["cond"]
        n = len(body.outputs)
        state, consts = list(places[:n]), list(places[n:])
        for _ in range(n + 2):  # labels only ever get added: a fixed point soon
            out = walk.subgraph(body, state + consts)
            new = [walk.join(a, b, node, (v.aval, w.aval)) for a, b, v, w
                   in zip(state, out, node.inputs, body.outputs)]
            if new == state:
                break
            state = new
        if not walk.is_whole(walk.subgraph(cond, state + consts)[0]):
            walk.refuse(node, "its condition reads chunked data, so each block would run "
                              "its own number of iterations; make the trip count depend "
                              "on unchunked values only (a counter)")
        return state


class Branch:
    """``cond``/``switch_case``: the branch taken must not depend on chunked data."""

    def place(self, node, places, walk):
        if not walk.is_whole(places[0]):
            walk.refuse(node, "its predicate reads chunked data, so blocks could take "
                              "different branches; use gc.where for a per-element choice")
        graphs = node.attrs.get("branches") or (node.attrs["true_fn"],
                                                node.attrs["false_fn"])
        outs = [walk.subgraph(g, list(places[1:])) for g in graphs]
        joined = outs[0]
        for g, other in zip(graphs[1:], outs[1:]):
            joined = [walk.join(a, b, node, (v.aval, w.aval)) for a, b, v, w
                      in zip(joined, other, graphs[0].outputs, g.outputs)]
        return joined


class Matmul:
    """``matmul``: blockwise while the contracted dim (``a``'s last, ``b``'s first of its
    last two) is whole: a block of ``a``'s rows times a block of ``b``'s columns is a
    block of the product. Stacked (batch) dims may be chunked on one operand only."""

    def place(self, node, places, walk):
        pa, pb = places
        if pa[-1] is not None or pb[-2 if len(pb) > 1 else 0] is not None:
            walk.refuse(node, "it contracts an axis that is split into chunks (a "
                              "contraction across chunks); rechunk that axis to one chunk")
        batch_a, batch_b = pa[:-2], pb[:-2]
        if any(label is not None for label in batch_a) and any(
                label is not None for label in batch_b):
            walk.refuse(node, "both operands' stacked dims are chunked")
        shape_a, shape_b = (v.aval.shape[:-2] for v in node.inputs)
        for labels, other in ((batch_a, shape_b), (batch_b, shape_a)):
            for k in range(1, min(len(labels), len(other)) + 1):  # aligned from the right
                if labels[-k] is not None and other[-k] != 1:
                    walk.refuse(node, "a chunked stacked dim meets a whole one of size "
                                      f"{other[-k]}")
        batch = max(batch_a, batch_b, key=lambda p: (any(p), len(p)))
        rows = (pa[-2],) if len(pa) > 1 else ()
        cols = (pb[-1],) if len(pb) > 1 else ()
        rank = len(node.outputs[0].aval.shape)
        batch = (None,) * (rank - len(rows) - len(cols) - len(batch)) + batch
        return [batch + rows + cols]


LOOP = Loop()
BRANCH = Branch()
MATMUL = Matmul()
