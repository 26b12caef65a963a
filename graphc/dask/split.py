"""The walk that splits a traced graph by blocks: each value's *place*, the cuts.

A place is a tuple with one entry per dim: the label of the grid axis that dim is
chunked along, or ``None`` when the dim is whole in every block. Graph inputs get their
places from the Dask arrays; each node's come from its op's block rule
(``OpDef.blocks``, :mod:`graphc.ops.blocks`); nodes whose inputs are all whole need none.
A reduction over a chunked axis is a *cut*: its value is computed by a tree reduction
of per-block partials, and later blocks read it as an input.

Nothing here imports Dask; :mod:`graphc.dask.stages` builds the Dask arrays.
"""

from __future__ import annotations

from graphc.ops.blocks import ELEMENTWISE


class BlockSplitError(ValueError):
    """A graph (or one op of it) cannot run block by block without a wrong value."""


class Split:
    """The walk's result: ``places`` (value id -> place) and ``cuts`` (reduction nodes
    over chunked axes: node -> (axes, rule)), in graph order."""

    def __init__(self, graph, input_places, name):
        self.graph, self.name = graph, name
        self.places: dict = {}
        self.cuts: dict = {}
        self._depth = 0  # > 0 inside a loop body or branch
        self._walk(graph, input_places)

    # ------------------------------------------------------------------ the walk
    def _walk(self, graph, input_places) -> list:
        for v, p in zip(graph.inputs, input_places):
            self.places[v.id] = p
        for node in graph.nodes:
            if node.op.stateful:
                self.refuse(node, "it has side effects (a variable read or write, a print, a "
                                  "random draw, a callback), which would run once per block",
                            advice="Call the function on NumPy arrays, or keep the op out of "
                                   "the function you call on Dask arrays")
            ins = [self.places[v.id] for v in node.inputs if not v.aval.is_token]
            if all(self.is_whole(p) for p in ins):  # runs whole where needed
                for v in node.outputs:
                    self.places[v.id] = _whole(v)
                continue
            else:
                rule = node.op.blocks or (ELEMENTWISE if node.op.elementwise else None)
                if rule is None:
                    self.refuse(node, "it has no block rule: it is not elementwise, a "
                                      "reduction, a scan or control flow, so its result on "
                                      "one block is not its result's block (a contraction "
                                      "or an op mixing elements across chunks)")
                outs = rule.place(node, ins, self)
            for v, p in zip(node.outputs, outs):
                self._check_shape(node, v, p)
                self.places[v.id] = p
        return [self.places[v.id] for v in graph.outputs]

    def _check_shape(self, node, v, place) -> None:
        """Every dim of a value is chunked, or whole of a size known while tracing
        (the sizes of each block's results are known before anything runs)."""
        if v.aval.shape is None or place is None:
            self.refuse(node, "its result has a rank that depends on data")
        for d, label in zip(v.aval.shape, place):
            if d is None and label is None:
                self.refuse(node, "its result has a shape that depends on data (each "
                                  "block's size would be unknown)")

    # ------------------------------------------------------------------ for the rules
    @staticmethod
    def is_whole(place) -> bool:
        return place is not None and all(label is None for label in place)

    def refuse(self, node, why, advice=None):
        if node is None:
            raise BlockSplitError(f"{self.name}: cannot run block by block: {why}")
        where = f" (traced at {node.src})" if node.src else ""
        advice = advice or ("Call the function on NumPy arrays, or rechunk so the op's "
                            "axes are whole")
        raise BlockSplitError(
            f"{self.name}: op {node.op.name!r}{where} cannot run block by block: {why}. "
            f"{advice}")

    def broadcast(self, node, places) -> list:
        """Places of an elementwise node's outputs (NumPy broadcasting, right-aligned)."""
        ins = [v for v in node.inputs if not v.aval.is_token]
        outs = []
        for o in node.outputs:
            rank = len(o.aval.shape or ())
            labels = []
            for j in range(rank):
                found, whole = set(), None
                for v, p in zip(ins, places):
                    k = j - (rank - len(p))
                    if k < 0:
                        continue
                    if p[k] is not None:
                        found.add(p[k])
                    elif v.aval.shape[k] != 1:
                        whole = v.aval.shape[k]
                if len(found) > 1:
                    self.refuse(node, "it combines dims chunked along different axes")
                if found and whole is not None:
                    self.refuse(node, f"it broadcasts an unchunked operand (a dim of size "
                                      f"{whole}) against a chunked axis; pass that operand "
                                      "as a Dask array too, so it is chunked the same way")
                labels.append(found.pop() if found else None)
            outs.append(tuple(labels))
        return outs

    def reduce(self, node, place, axes, rule) -> list:
        keep = node.attrs.get("keepdims", False)
        if keep:
            out = tuple(None if i in axes else label for i, label in enumerate(place))
        else:
            out = tuple(label for i, label in enumerate(place) if i not in axes)
        if any(place[a] is not None for a in axes):
            if self._depth:
                self.refuse(node, "it reduces over a chunked axis inside a loop or "
                                  "branch, which runs within one block")
            self.cuts[node] = (axes, rule)
        return [out]

    def subgraph(self, graph, places) -> list:
        self._depth += 1
        try:
            return self._walk(graph, places)
        finally:
            self._depth -= 1

    def join(self, a, b, node, avals):
        """The place of a loop variable (initial, body result) or of a branch result
        (two branches): chunked where either is. A dim whole on one side must have size
        1 there (it broadcasts in each block); a whole dim of the array's full size would
        be a block's wrong-sized value."""
        if a is None or b is None or len(a) != len(b):
            self.refuse(node, "a loop variable or branch result changes rank")
        out = []
        for d, (x, y) in enumerate(zip(a, b)):
            if x is not None and y is not None and x != y:
                self.refuse(node, "a loop variable or branch result is chunked along "
                                  "different axes")
            for label, aval in ((x, avals[0]), (y, avals[1])):
                size = aval.shape[d] if aval.shape is not None else None
                if label is None and (x or y) is not None and size != 1:
                    self.refuse(node, f"a loop variable or branch result is whole (size "
                                      f"{size}) on one side and chunked on the other; "
                                      "build it from the chunked input (gc.zeros_like(x))")
            out.append(x if x is not None else y)
        return tuple(out)


def _whole(v):
    return None if v.aval.shape is None else (None,) * len(v.aval.shape)


def slice_graph(graph, targets, stop):
    """The nodes of ``graph`` computing ``targets`` from the values whose ids are in
    ``stop`` (graph inputs and cut results): ``(inputs, nodes)``, both in graph order."""
    needed = {v.id for v in targets if v.id not in stop}
    chosen = []
    for node in reversed(graph.nodes):
        if any(v.id in needed for v in node.outputs):
            chosen.append(node)
            needed.update(v.id for v in node.inputs if v.id not in stop)
    chosen.reverse()
    produced = {v.id for n in chosen for v in n.outputs}
    inputs, seen = [], set()
    for v in [v for n in chosen for v in n.inputs] + list(targets):
        if v.id not in produced and v.id not in seen:
            seen.add(v.id)
            inputs.append(v)
    return inputs, chosen
