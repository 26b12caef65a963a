"""Elementwise fusion: maximal groups of elementwise ops become one ``fused_elementwise``.

A node is fusible when its op is ``elementwise``, pure, single-output, and its result has
a known rank; a group's members all have the same result shape, so a compiled
backend runs a group as one loop over that shape and no member is computed more often
than before (inputs of smaller shapes, like scalars and bias vectors, are read with
broadcasting). Where that shape has unknown dims (``x[:i] * a + b`` in a staged loop),
two members of shape ``(?,)`` may differ at run time, so such a group must have one
result, its last member's: the loop's shape, the broadcast of every input of the group,
is then that result's shape, and the members before it are only read inside the loop
(each at the loop's index, with its own inputs broadcast, which gives the same values;
a member that turns out smaller than the loop, ``(1,)`` beside ``(n,)``, is then
computed once per element of the loop). Other groups with unknown dims stay unfused.

Each node belongs to at most one group, so no work is duplicated: a member's value that
anything outside the group reads (or the graph returns) becomes an output of the fused
node. Groups of one op stay as they are.

Groups are grown in one forward sweep: a node joins the groups of its fusible producers
unless that would make a cycle, i.e. unless some node outside the group both depends on
the group and feeds it. That check looks only at nodes after the group's first member
(earlier ones cannot depend on it) and gives up, refusing the merge, after ``BUDGET``
nodes, so the pass stays linear however the graph looks. The fused graph is then put in a
topological order that follows the original one.
"""

from __future__ import annotations

from graphc.ir.graph import FrozenAttrs, Graph, Node, Value
from graphc.ops.fused import FUSED_ELEMENTWISE
from graphc.passes.context import PassContext
from graphc.passes.graphs import has_token, map_subgraphs, replace_graph

MIN_GROUP = 2  # ops per fused node
BUDGET = 128  # nodes one cycle check may visit before it refuses the merge
EXT_SCAN = 64  # external inputs of a group one cycle check may look at


def fusible(node) -> bool:
    """Whether ``node`` may join a fused group."""
    op = node.op
    if not op.elementwise or op.stateful or op.multiple_results or len(node.outputs) != 1:
        return False
    if has_token(node) or node.subgraphs():
        return False
    aval = node.outputs[0].aval
    return aval.shape is not None and aval.dtype is not None and aval.dtype.kind != "O"


class _Groups:
    """Union-find over node positions, with what the cycle check needs per group."""

    def __init__(self, nodes):
        self.nodes = nodes
        self.producer = {v.id: i for i, n in enumerate(nodes) for v in n.outputs}
        get = self.producer.get
        # producer positions of each node's inputs, computed once (the cycle check walks them)
        self.preds = [[p for p in map(get, (v.id for v in n.inputs)) if p is not None]
                      for n in nodes]
        self.group = [-1] * len(nodes)
        self.parent, self.members, self.ext = [], [], []
        self.lo, self.hi, self.max_ext, self.shape = [], [], [], []

    def find(self, g: int) -> int:
        root = g
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[g] != root:
            self.parent[g], g = root, self.parent[g]
        return root

    def of(self, i: int) -> int:
        g = self.group[i]
        return -1 if g < 0 else self.find(g)

    def new(self, i: int) -> int:
        g = len(self.parent)
        ext = list(dict.fromkeys(self.preds[i]))
        self.parent.append(g)
        self.members.append([i])
        self.ext.append(ext)
        self.lo.append(i)
        self.hi.append(i)
        self.max_ext.append(max(ext, default=-1))
        self.shape.append(self.nodes[i].outputs[0].aval.shape)
        self.group[i] = g
        return g

    def depends_on(self, start: int, g: int) -> bool:
        """Whether node ``start`` (transitively) reads group ``g``; True if unsure.

        Another group on the way counts as one unit (it will be one fused node): from any
        of its members the walk continues from the inputs of all of them, so a path
        ``g -> member of h ... other member of h -> start`` is found too."""
        lo, seen, stack = self.lo[g], {start}, [start]
        group, find, preds = self.group, self.find, self.preds
        units = set()
        while stack:
            k = stack.pop()
            if group[k] >= 0:
                h = find(group[k])
                if h == g:
                    return True
                if h not in units:
                    units.add(h)
                    for p in self.ext[h]:
                        if p >= lo and p not in seen:
                            seen.add(p)
                            stack.append(p)
            if len(seen) > BUDGET:
                return True
            for p in preds[k]:
                if p >= lo and p not in seen:
                    seen.add(p)
                    stack.append(p)
        return False

    def can_merge(self, a: int, b: int) -> bool:
        for x, y in ((a, b), (b, a)):
            # a path x -> (outside node) -> y: an outside input of y that depends on x
            if self.max_ext[y] < self.lo[x]:
                continue
            if len(self.ext[y]) > EXT_SCAN:
                return False
            for m in self.ext[y]:
                if m >= self.lo[x] and self.of(m) not in (x, y) and self.depends_on(m, x):
                    return False
        return True

    def union(self, a: int, b: int) -> int:
        if len(self.members[a]) + len(self.ext[a]) < len(self.members[b]) + len(self.ext[b]):
            a, b = b, a
        self.parent[b] = a
        self.members[a].extend(self.members[b])
        self.ext[a].extend(self.ext[b])
        self.members[b] = self.ext[b] = None
        self.lo[a] = min(self.lo[a], self.lo[b])
        self.hi[a] = max(self.hi[a], self.hi[b])
        self.max_ext[a] = max(self.max_ext[a], self.max_ext[b])
        return a


def _grow(groups: _Groups) -> None:
    for i, node in enumerate(groups.nodes):
        if not fusible(node):
            continue
        g = groups.new(i)
        shape = groups.shape[g]
        cands = {groups.of(p) for p in groups.preds[i]} - {-1}
        # latest groups first: merging them first never hides a path to an older one
        for c in sorted((c for c in cands if groups.shape[c] == shape),
                        key=lambda c: -groups.hi[c]):
            c = groups.find(c)
            if c != g and groups.can_merge(c, g):
                g = groups.union(c, g)


def _fused_node(nodes, members, escapes) -> tuple[Node, list]:
    """The ``fused_elementwise`` node for ``members`` (positions, in order)."""
    inside = {v.id for i in members for v in nodes[i].outputs}
    env, sub_inputs, inputs = {}, [], []
    for i in members:
        for v in nodes[i].inputs:
            if v.id not in inside and v.id not in env:
                env[v.id] = Value(v.aval)
                sub_inputs.append(env[v.id])
                inputs.append(v)
    sub_nodes, outputs = [], []
    for i in members:
        n = nodes[i]
        outs = tuple(Value(v.aval) for v in n.outputs)
        env.update((old.id, new) for old, new in zip(n.outputs, outs))
        sub_nodes.append(Node(n.op, tuple(env[v.id] for v in n.inputs), n.attrs, outs, n.src))
        outputs.extend(v for v in n.outputs if v.id in escapes)
    sub = Graph(sub_inputs, sub_nodes, [env[v.id] for v in outputs], name="fused")
    node = Node(FUSED_ELEMENTWISE, tuple(inputs), FrozenAttrs({"subgraph": sub}),
                tuple(outputs), nodes[members[-1]].src)
    return node, [nodes[i] for i in members]


def run(graph, ctx: PassContext):
    """The ``fusion`` pass."""
    nodes = [map_subgraphs(n, run, ctx) for n in graph.nodes]
    groups = _Groups(nodes)
    _grow(groups)
    unit = [i for i in range(len(nodes))]  # node position -> its unit's first position
    fused = {}
    for g, members in enumerate(groups.members):
        if members is not None and groups.parent[g] == g and len(members) >= MIN_GROUP:
            members.sort()
            for i in members:
                unit[i] = members[0]
            fused[members[0]] = members
    escapes = _escaping(graph, nodes, groups.producer, unit) if fused else set()
    for first, members in list(fused.items()):
        if not _one_loop_shape(nodes, members, escapes):
            del fused[first]
            for i in members:
                unit[i] = i
    if not fused:
        return graph if all(a is b for a, b in zip(nodes, graph.nodes)) else replace_graph(
            graph, nodes)
    built = {}
    for first, members in fused.items():
        node, old = _fused_node(nodes, members, escapes)
        built[first] = node
        ops = ", ".join(n.op.name for n in old)
        ctx.note(f"fused {len(old)} ops ({ops}) into {ctx.describe(node)}")
    return replace_graph(graph, _order(nodes, groups.producer, unit, built))


def _one_loop_shape(nodes, members, escapes) -> bool:
    """Whether the group's loop shape is each of its results' (module doc): always for
    known shapes; with unknown dims only when the last member's value is its one result."""
    if None not in nodes[members[0]].outputs[0].aval.shape:
        return True
    results = [v.id for i in members for v in nodes[i].outputs if v.id in escapes]
    return results == [nodes[members[-1]].outputs[0].id]


def _escaping(graph, nodes, producer, unit) -> set:
    """Ids of values read outside the unit that produces them (or returned)."""
    out = {v.id for v in graph.outputs}
    for j, n in enumerate(nodes):
        for v in n.inputs:
            p = producer.get(v.id)
            if p is not None and unit[p] != unit[j]:
                out.add(v.id)
    return out


def _order(nodes, producer, unit, built) -> list:
    """Units in a topological order that follows the original order (iterative DFS)."""
    deps: dict[int, list] = {}
    for j, n in enumerate(nodes):
        lst = deps.setdefault(unit[j], [])
        for v in n.inputs:
            p = producer.get(v.id)
            if p is not None and unit[p] != unit[j]:
                lst.append(unit[p])
    done, out = set(), []
    for start in range(len(nodes)):
        if unit[start] != start or start in done:
            continue
        stack = [(start, iter(deps[start]))]
        done.add(start)
        while stack:
            u, it = stack[-1]
            for d in it:
                if d not in done:
                    done.add(d)
                    stack.append((d, iter(deps[d])))
                    break
            else:
                stack.pop()
                out.append(built.get(u, nodes[u]))
    return out
