"""Where control-flow nodes keep their parts: the one pass module that knows their layouts.

Every pass treats a node with Graph-valued attrs generically (``graphs.map_subgraphs``);
only folding a constant predicate and dropping dead outputs or carried values need to
know which input is the predicate and how branch signatures line up with the node's.
Layouts (see ``graphc/ops/control/flow.py``):

* ``cond``: inputs ``(pred, *operands[, token])``; attrs ``true_fn`` / ``false_fn``, each
  taking the operands and returning the node's data outputs;
* ``switch_case``: inputs ``(index, *operands[, token])``; attr ``branches`` (a tuple);
  an index outside the range runs the last branch, as in TensorFlow;
* ``while_loop``: inputs ``(*carried, *consts[, token])``; attrs ``cond`` and ``body``,
  both taking ``(*carried, *consts)``; outputs ``(*carried[, token])``.

A node threads the effect token (last input and last output) when a branch has effects.
"""

from __future__ import annotations

from dataclasses import dataclass

from graphc.ir.graph import Graph
from graphc.passes.graphs import has_token


@dataclass(frozen=True)
class CondLayout:
    """A branching op: which attrs hold the branches and how the selector picks one."""

    attrs: tuple  # names of Graph attrs, or one name of a tuple-of-Graphs attr
    tuple_attr: bool = False

    def branches(self, node) -> list:
        """``[(label, Graph), ...]`` in selector order."""
        if self.tuple_attr:
            name = self.attrs[0]
            return [(f"{name}[{i}]", g) for i, g in enumerate(node.attrs[name])]
        return [(name, node.attrs[name]) for name in self.attrs]

    def taken(self, node, value):
        """The branch a constant selector ``value`` runs: ``(label, Graph)``."""
        branches = self.branches(node)
        if not self.tuple_attr:
            return branches[0] if bool(value) else branches[1]
        index = int(value)
        return branches[index] if 0 <= index < len(branches) else branches[-1]

    def with_branches(self, node, graphs) -> dict:
        """New attrs for ``node`` holding ``graphs`` (in ``branches`` order)."""
        attrs = dict(node.attrs)
        if self.tuple_attr:
            attrs[self.attrs[0]] = tuple(graphs)
        else:
            attrs.update(zip(self.attrs, graphs))
        return attrs


CONDS = {
    "cond": CondLayout(("true_fn", "false_fn")),
    "switch_case": CondLayout(("branches",), tuple_attr=True),
}


class LoopLayout:
    """``while_loop``: inputs ``(*carried, *consts[, token])``; attrs ``cond`` (returns the
    predicate) and ``body`` (returns the new carried values), both taking
    ``(*carried, *consts)``; outputs ``(*carried[, token])``."""

    def count(self, node) -> int:
        return len(node.attrs["body"].outputs)

    def carried(self, node) -> tuple:
        return node.inputs[:self.count(node)]

    def consts(self, node) -> tuple:
        end = len(node.inputs) - 1 if takes_token(node) else len(node.inputs)
        return node.inputs[self.count(node):end]

    def live_carried(self, node, live: set) -> list:
        """Indices of the carried values something needs: an output read after the loop,
        the condition, the body's effects, or (transitively) another needed one."""
        n = self.count(node)
        body = output_dependencies(node.attrs["body"])
        cond = output_dependencies(node.attrs["cond"])
        need = {i for i, v in enumerate(data_outputs(node)) if v.id in live}
        roots = cond[0] | cond[-1] | body[-1]
        need.update(i for i in range(n) if roots >> i & 1)
        todo = list(need)
        while todo:
            mask = body[todo.pop()]
            for j in range(n):
                if mask >> j & 1 and j not in need:
                    need.add(j)
                    todo.append(j)
        return sorted(need)


LOOPS = {"while_loop": LoopLayout()}


def takes_token(node) -> bool:
    return has_token(node)


def data_outputs(node) -> tuple:
    """The node's outputs without its trailing token."""
    return node.outputs[:-1] if takes_token(node) else node.outputs


def operands(node) -> tuple:
    """A cond's branch operands: its inputs without the selector and the token."""
    end = len(node.inputs) - 1 if takes_token(node) else len(node.inputs)
    return node.inputs[1:end]


# --------------------------------------------------------------------------- signatures
def select_outputs(graph: Graph, keep) -> Graph:
    """``graph`` returning only ``outputs[i]`` for ``i`` in ``keep``."""
    keep = list(keep)
    if keep == list(range(len(graph.outputs))):
        return graph
    return Graph(graph.inputs, graph.nodes, [graph.outputs[i] for i in keep], name=graph.name,
                 token_in=graph.token_in, token_out=graph.token_out)


def select_inputs(graph: Graph, keep) -> Graph:
    """``graph`` taking only ``inputs[i]`` for ``i`` in ``keep`` (the others must be unused)."""
    keep = list(keep)
    if keep == list(range(len(graph.inputs))):
        return graph
    return Graph([graph.inputs[i] for i in keep], graph.nodes, graph.outputs, name=graph.name,
                 token_in=graph.token_in, token_out=graph.token_out)


def used_inputs(graph: Graph) -> set:
    """Indices of the inputs that some node or output of ``graph`` reads."""
    read = {v.id for node in graph.nodes for v in node.inputs}
    read.update(v.id for v in graph.outputs)
    return {i for i, v in enumerate(graph.inputs) if v.id in read}


def output_dependencies(graph: Graph) -> list:
    """For each output, a bit mask of the inputs it depends on; plus, last, the mask the
    final token depends on (effects must keep their inputs). One forward sweep."""
    masks = {v.id: 1 << i for i, v in enumerate(graph.inputs)}
    for node in graph.nodes:
        m = 0
        for v in node.inputs:
            m |= masks.get(v.id, 0)
        for v in node.outputs:
            masks[v.id] = m
    token = 0 if graph.token_out is None else masks.get(graph.token_out.id, 0)
    return [masks.get(v.id, 0) for v in graph.outputs] + [token]
