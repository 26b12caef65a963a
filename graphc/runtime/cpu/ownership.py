"""Which buffers a generated program may write in place (``docs/runtime.md``, "In place").

Traced writes are functionalized (``docs/mutation.md``): ``A[1:-1] = e`` is a ``setitem``
node whose result is a *new* value, so the plain lowering copies ``A`` and writes the
copy. This analysis finds where the copy is not needed, so the Numba program writes
into ``A``'s buffer itself:

* every value gets the set of *buffers* (roots) it may share memory with: a fresh
  result (an elementwise loop, a copy) has its own root, an op the analysis does not
  know returns something that may alias every array operand (views, reshapes: always
  safe), constants and the program's arguments are buffers graphc does not own;
* a ``setitem`` writes in place when every root of its target is owned by the program
  and no value that shares a root with the target and exists before the write is read
  after it: the old contents are unobservable. NumPy reads the right-hand side first,
  so a value that shares a root with the target (``p[-1, :] = p[-2, :]``) is copied
  before the write: a copy of the region, not of the whole buffer
  (``copy_value``); a ``tensor_array_write`` of such a value is not in place;
* the elementwise loop that computes the written value stores straight into the region
  (no temporary array) when that loop's result feeds only the write, has the region's
  shape and dtype, reads nothing sharing the target's buffer but that region itself
  (``x[1:] -= e``: each element is read before it is written) and views at most half
  its size, which the loop copies first (``snapshots``: Floyd-Warshall's
  ``path[:] = minimum(path, add.outer(path[:, k], path[k, :]))`` copies a row and a
  column, not the whole matrix), and no node between the loop and the write reads the
  target;
* the elementwise loop that computes a part of a ``concatenate`` of static shape stores
  straight into its slab of the result when the concatenation is that loop result's
  only reader: the result is allocated before the loop and the other parts are copied
  in (a stencil's ``concatenate([u[:1], f(u), u[-1:]])`` then makes one array per step,
  not two, and copies two elements instead of all of them);
* a ``while_loop``'s carried array owns its buffer in the body when each iteration's
  result for it is owned and shares no buffer with another carried value; the loop
  copies the initial value once, on entry, unless the loop is that value's last reader
  (then it takes the buffer over). A stencil ``B[1:-1] = f(A); A[1:-1] = g(B)`` in a
  loop then allocates nothing per iteration.
* a branch (``cond``/``switch_case``) operand that the branch is the last reader of is
  owned inside the branch.
"""

from __future__ import annotations

import math

from graphc.core.shapes import normalize_axis
from graphc.runtime.cpu.kernels import EMITTERS
from graphc.runtime.cpu.tiny import TINY_MAX

_UNOWNED = "unowned"   # a constant, a captured value, an argument: never written


def is_array(v) -> bool:
    aval = v.aval
    return not aval.is_token and aval.shape is not None and len(aval.shape) > 0 \
        and getattr(aval, "dtype", None) is not None


def region_shape(shape, key):
    """The shape ``x[key]`` has for a static basic key of ints, literal slices and
    ``...`` over a static ``shape``; None when it is not known statically."""
    if shape is None or None in shape:
        return None
    used = sum(1 for e in key if e[0] in ("int", "slice"))
    out, axis = [], 0
    for tag, *rest in key:
        if tag == "int":
            axis += 1
        elif tag == "slice":
            if any(isinstance(p, tuple) for p in rest):
                return None
            out.append(len(range(*slice(*rest).indices(shape[axis]))))
            axis += 1
        elif tag == "ellipsis":
            take = len(shape) - used
            out.extend(shape[axis:axis + take])
            axis += take
        else:
            return None
    return tuple(out) + tuple(shape[axis:])


class Ownership:
    """The in-place plan for one graph whose inputs ``owned`` (indices) are buffers the
    program owns exclusively (a loop's carried arrays, a branch's handed-over operands)."""

    def __init__(self, graph, owned=()):
        self.graph = graph
        self.in_place: set = set()       # setitem nodes that write into their target
        self.copy_value: set = set()     # those of them whose value is a view of it
        self.into_region: dict = {}      # elementwise node -> the setitem it stores for
        self.region_reads: dict = {}     # those of them that read the region they write
                                         # -> ids of the operands that are the region
        self.snapshots: dict = {}        # those of them -> ids of the operands they copy
                                         # first (other views of the written buffer)
        self.into_part: dict = {}        # elementwise node -> (the concatenate whose
                                         # result it stores into, that part's key)
        self.loops: dict = {}            # while_loop node -> (owned slots, slots copied
                                         # on entry); the body's inputs ``owned``
        self.branches: dict = {}         # cond/switch_case node -> owned operands (their
                                         # index among the branch graphs' inputs)
        self.written: set = set()        # roots some write here (or below) goes into
        self._owned_roots: set = set()
        self._roots: dict = {}
        self._pos: dict = {}
        self._last: dict = {}
        for i, v in enumerate(graph.inputs):
            if is_array(v):
                root = ("in", i) if i in owned else _UNOWNED
                self._roots[v.id] = frozenset([root])
                if i in owned:
                    self._owned_roots.add(root)
        self._run()

    # -- queries
    def roots(self, v) -> frozenset:
        return self._roots.get(v.id, frozenset())

    def writes_operand(self, node) -> bool:
        """Whether ``node`` writes into a buffer one of its operands holds (so every
        read of the old contents must be emitted before it)."""
        if node in self.in_place or self.branches.get(node):
            return True
        slots = self.loops.get(node)
        return slots is not None and bool(slots[0] - slots[1])

    def input_written(self, i) -> bool:
        """Whether a write here goes into graph input ``i``'s buffer."""
        return ("in", i) in self.written

    # -- the walk
    def _run(self) -> None:
        nodes = self.graph.nodes
        end = len(nodes)
        for p, node in enumerate(nodes):
            for v in node.outputs:
                self._pos[v.id] = p
            for v in node.inputs:
                self._last[v.id] = p
        for v in self.graph.outputs:
            self._last[v.id] = end
        for p, node in enumerate(nodes):
            name = node.op.name
            if name in WRITES:
                self._write(p, node, *WRITES[name])
            elif name == "while_loop":
                self._while_loop(p, node)
            elif name in ("cond", "switch_case"):
                self._branch(p, node)
            else:
                self._plain(p, node)
                if name == "concatenate":
                    self._parts_into(p, node)

    def _fresh(self, p, k) -> frozenset:
        root = ("node", p, k)
        self._owned_roots.add(root)
        return frozenset([root])

    def _operand_roots(self, node) -> frozenset:
        out = frozenset()
        for v in node.inputs:
            out |= self.roots(v)
        return out

    def _plain(self, p, node) -> None:
        if node.op.name == "const":  # passed in on every call: never written
            fresh = False
            known = frozenset([_UNOWNED])
        else:
            fresh = allocates(node.op)
            known = self._operand_roots(node) | {_UNOWNED}  # a view, or who knows
        for k, v in enumerate(node.outputs):
            if is_array(v):
                self._roots[v.id] = self._fresh(p, k) if fresh else known

    def _owned(self, roots) -> bool:
        return bool(roots) and roots <= self._owned_roots

    def _dead_after(self, p, roots) -> bool:
        """No value made before node ``p`` that shares one of ``roots`` is read after it."""
        for vid, r in self._roots.items():
            if r & roots and self._pos.get(vid, -1) < p and self._last.get(vid, -1) > p:
                return False
        return True

    def _handed_over(self, p, node, i) -> bool:
        """Whether operand ``i`` of node ``p`` can give its buffer to the node: owned,
        shared with no other operand, and not read after the node."""
        roots = self.roots(node.inputs[i])
        if not self._owned(roots):
            return False
        if any(self.roots(w) & roots for j, w in enumerate(node.inputs) if j != i):
            return False
        return self._dead_after(p, roots)

    def _write(self, p, node, t, value, grows, copies) -> None:
        """A write op: operand ``t`` the target, operand ``value`` the written value;
        ``grows``: the lowering may still allocate (a TensorArray out of room), so the
        result is the target's buffer or a fresh one, owned either way; ``copies``: the
        lowering copies a value that shares the target's buffer before writing it."""
        x = node.inputs[t]
        target = self.roots(x)
        out = node.outputs[0]
        for k, v in enumerate(node.outputs[1:], 1):
            if is_array(v):
                self._roots[v.id] = self._fresh(p, k)
        shared = bool(self.roots(node.inputs[value]) & target)
        if (self._owned(target) and (not shared or copies)
                and self._dead_after(p, target)):
            self.in_place.add(node)
            self.written |= target
            self._roots[out.id] = target | self._fresh(p, 0) if grows else target
            if shared:  # x[-1] = x[-2]: the value is copied first (region-sized)
                self.copy_value.add(node)
            elif node.op.name == "setitem":
                self._store_into_region(p, node, target)
        else:
            self._roots[out.id] = self._fresh(p, 0)

    def _only_loop_of(self, value, p, node):
        """The node making ``value`` when it is an elementwise loop the generator writes
        (``loops.Loops.elementwise``), with that one result, read once, by node ``p``
        (``node``) alone; else None."""
        f = self._pos.get(value.id)
        if f is None or self._last.get(value.id) != p:
            return None
        maker = self.graph.nodes[f]
        op = maker.op
        if not (op.name == "fused_elementwise" or (op.elementwise and op.name not in EMITTERS)):
            return None
        if len(maker.outputs) != 1 or sum(v is value for v in node.inputs) != 1:
            return None
        if sum(1 for n in self.graph.nodes for v in n.inputs if v is value) != 1:
            return None  # read twice (or by a reduction fused into the loop)
        return maker

    def _parts_into(self, p, node) -> None:
        """A ``concatenate`` of static shape: each part that is an elementwise loop read
        by it alone stores straight into its slab of the result, which is allocated
        before the first such loop (``into_part``); the other parts are copied in."""
        out = node.outputs[0]
        if not is_array(out) or None in out.aval.shape \
                or math.prod(out.aval.shape) <= TINY_MAX:
            return  # a tiny result: kept as scalars (tiny.py)
        keys = slabs(node)
        for v, key in zip(node.inputs, keys or ()):
            maker = self._only_loop_of(v, p, node)
            if maker is not None and v.aval.dtype == out.aval.dtype:
                self.into_part[maker] = (node, key)

    def _store_into_region(self, p, node, target) -> None:
        if len(node.inputs) != 2:
            return  # run-time index parts: the region's shape is not static
        value, x = node.inputs[1], node.inputs[0]
        maker = self._only_loop_of(value, p, node)
        if maker is None:
            return
        f = self._pos[value.id]
        shape = region_shape(x.aval.shape, node.attrs["key"])
        if not shape or tuple(value.aval.shape) != shape \
                or value.aval.dtype != out_dtype(node):
            return
        if self._pos.get(x.id, -1) >= f:
            return
        key = node.attrs["key"]
        reads = [v for v in maker.inputs if self.roots(v) & target]
        others = [v for v in reads if not self._is_region(v, x, key)]
        # read elsewhere than element for element: copied first, if that is smaller
        if any(None in v.aval.shape for v in others) \
                or 2 * sum(math.prod(v.aval.shape) for v in others) > math.prod(shape):
            return
        for n in self.graph.nodes[f + 1:p]:
            if self._operand_roots(n) & target:
                return
        self.into_region[maker] = node
        if others:
            self.snapshots[maker] = frozenset(v.id for v in others)
        if len(reads) > len(others):
            self.region_reads[maker] = frozenset(v.id for v in reads if v not in others)

    def _is_region(self, v, x, key) -> bool:
        """Whether ``v`` is ``x[key]`` itself (a static basic key): a loop storing into
        that region reads each element before it writes it, as NumPy's ``x[key] op= e``."""
        p = self._pos.get(v.id)
        if p is None:
            return False
        n = self.graph.nodes[p]
        return n.op.name == "getitem" and len(n.inputs) == 1 and n.inputs[0] is x \
            and n.attrs["key"] == key

    def _while_loop(self, p, node) -> None:
        body = node.attrs["body"]
        n = len(body.outputs)
        slots = {k for k in range(n) if is_array(node.outputs[k])}
        while True:  # shrinks until stable: the carried arrays the body writes in place
            plan = Ownership(body, slots)
            outs = [plan.roots(v) for v in body.outputs]
            keep = {k for k in slots if plan._owned(outs[k]) and not any(
                outs[k] & outs[j] for j in range(n) if j != k)}
            need = {k for k in keep if plan.input_written(k)}
            grow = need
            while grow:  # a buffer written in place may arrive through another slot
                came = {r[1] for k in grow for r in outs[k] if r[0] == "in"} & keep
                grow, need = came - need, need | came
            if need == slots:
                break
            slots = need
        copy = frozenset(k for k in slots if not self._handed_over(p, node, k))
        self.loops[node] = (frozenset(slots), copy)
        taken = frozenset().union(*(self.roots(node.inputs[k]) for k in slots - copy))
        self.written |= taken
        everything = self._operand_roots(node)
        for k, v in enumerate(node.outputs):
            if is_array(v):
                self._roots[v.id] = (taken if k in slots else everything | {_UNOWNED}) \
                    | self._fresh(p, k)

    def _branch(self, p, node) -> None:
        graphs = [node.attrs["true_fn"], node.attrs["false_fn"]] if node.op.name == "cond" \
            else list(node.attrs["branches"])
        operands = node.inputs[1:]
        owned = {i for i, v in enumerate(operands)
                 if is_array(v) and self._handed_over(p, node, i + 1)}
        self.branches[node] = frozenset(owned)
        results = [frozenset()] * len(node.outputs)
        for graph in graphs:
            plan = Ownership(graph, owned)
            for i in owned:
                if plan.input_written(i):
                    self.written |= self.roots(operands[i])
            for k, v in enumerate(graph.outputs):  # in the parent's terms
                for r in plan.roots(v):
                    results[k] = results[k] | (
                        self.roots(operands[r[1]]) if r[0] == "in"
                        else self._fresh(p, k) if r[0] == "node" else {_UNOWNED})
        for k, v in enumerate(node.outputs):
            if is_array(v):
                self._roots[v.id] = results[k] or frozenset([_UNOWNED])


def slabs(node) -> list | None:
    """The static basic key of each part's slab in the result of ``concatenate``
    ``node``; None when a part's width along the axis is unknown."""
    nd = len(node.outputs[0].aval.shape)
    axis = normalize_axis(node.attrs.get("axis", 0), nd)
    keys, start = [], 0
    for v in node.inputs:
        width = v.aval.shape[axis] if v.aval.shape is not None else None
        if width is None:
            return None
        keys.append((("slice", None, None, None),) * axis
                    + (("slice", start, start + width, None),))
        start += width
    return keys


def allocates(op) -> bool:
    """Whether the Numba lowering of ``op`` always returns a new array: an elementwise
    loop, or one of the allocating emitters."""
    if op.name == "fused_elementwise" or op.name in ALLOCATING_EMITTERS:
        return True
    return op.elementwise and not op.multiple_results and op.name not in EMITTERS


# emitters whose array result is always made by np.full / np.zeros / np.concatenate
ALLOCATING_EMITTERS = frozenset({"full", "full_like", "eye", "concatenate", "stack",
                                 "tensor_array_zeros"})

# ops that write into an operand: op -> (target operand, value operand, may allocate,
# copies a value that is a view of the target first); their emitters check ``in_place``
# and ``copy_value`` (kernels_setitem, kernels_tensor_array)
WRITES = {"setitem": (0, 1, False, True), "tensor_array_write": (0, 3, True, False)}


def out_dtype(node):
    return node.outputs[0].aval.dtype
