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
  ``finish`` ends it.
* :class:`AlongAxis`: exact per block while its ``axis`` is not chunked (scans).
* :class:`Loop`, :class:`Branch`: control flow whose subgraphs run per block; the trip
  count or branch must not depend on chunked data.

Nothing here imports Dask.
"""

from __future__ import annotations

from graphc.ops.shapes import normalize_axes, normalize_axis


class Elementwise:
    def place(self, node, places, walk):
        return walk.broadcast(node, places)

    def __repr__(self):
        return "ELEMENTWISE"


ELEMENTWISE = Elementwise()


class Reduction:
    """``partial``: the op each block runs (name; default the op itself) with its attrs,
    ``axis`` and ``keepdims=True``; ``combine``: the op that reduces concatenated
    partials; ``finish(total, count, dtype)``: graphc ops ending the result (``count``:
    elements reduced into each result element), or None.
    ``partial_dtype``: give the partial the node's output dtype (a mean's sum)."""

    def __init__(self, combine, partial=None, finish=None, partial_dtype=False):
        self.combine, self.partial = combine, partial
        self.finish, self.partial_dtype = finish, partial_dtype

    def place(self, node, places, walk):
        rank = len(places[0])
        axes = normalize_axes(node.attrs.get("axis"), rank)
        return walk.reduce(node, places[0], tuple(sorted(axes)), self)

    def partial_op(self, node, axes):
        """``(op name, attrs)`` of the per-block partial reduction."""
        attrs = {k: v for k, v in node.attrs.items() if k not in ("axis", "keepdims")}
        if self.partial_dtype:
            attrs["dtype"] = node.outputs[0].aval.dtype
        return self.partial or node.op.name, dict(attrs, axis=axes, keepdims=True)


def _mean_finish(total, count, dtype):
    return (total / count).astype(dtype)


SUM = Reduction("sum")
PROD = Reduction("prod")
MAX = Reduction("max")
MIN = Reduction("min")
ANY = Reduction("any")
ALL = Reduction("all")
MEAN = Reduction("sum", partial="sum", finish=_mean_finish, partial_dtype=True)


class AlongAxis:
    """An op that works along one ``axis`` attr (a scan): blockwise while that axis is
    not chunked; ``axis=None`` (flatten first) is refused."""

    def place(self, node, places, walk):
        p = places[0]
        axis = node.attrs.get("axis")
        if axis is None:
            walk.refuse(node, "with axis=None it runs over the flattened array, across "
                              "every chunk")
        axis = normalize_axis(axis, len(p))
        if p[axis] is not None:
            walk.refuse(node, f"it runs along axis {axis}, which is split into chunks "
                              "(a cumulative op across chunks); rechunk that axis to one "
                              f"chunk first (x.rechunk({{{axis}: -1}}))")
        return [p]


ALONG_AXIS = AlongAxis()


class Loop:
    """``while_loop``: the loop runs inside each block; the condition may read only
    unchunked values, so every block runs the same iterations as the whole array."""

    def place(self, node, places, walk):
        body, cond = node.attrs["body"], node.attrs["cond"]
        n = len(body.outputs)
        state, consts = list(places[:n]), list(places[n:])
        for _ in range(n + 2):  # labels only ever get added: a fixed point soon
            out = walk.subgraph(body, state + consts)
            new = [walk.join(a, b, node) for a, b in zip(state, out)]
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
        for other in outs[1:]:
            joined = [walk.join(a, b, node) for a, b in zip(joined, other)]
        return joined


LOOP = Loop()
BRANCH = Branch()
