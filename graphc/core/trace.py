"""The trace-context stack: while a context is active, ops append nodes to its graph.

``TraceContext`` builds one ``Graph``. Eager tensors and arrays used inside become
``const`` nodes; symbolic tensors of an enclosing context (a ``cond`` branch reading a
value of the outer function) are *captured*: they become explicit inputs of the inner
graph, recorded in ``captures`` so the caller can pass them in.

The stack is per thread: a thread traces into its own contexts only, and a thread that
opened none runs ops eagerly while others trace. ``open_contexts`` counts the contexts
open in all threads together, so the hot eager paths (``registry.bind`` and the
operators) test one plain list first and read the thread-local stack only while some
thread traces: ``if open_contexts and local.stack``.
"""

from __future__ import annotations

import numpy as np

from graphc import source_info
from graphc.core import mutation

# the per-thread stack of open contexts (``local.stack``), the list of contexts open in any
# thread, and their two questions: kept in contexts.py, below Tensor, which asks them too
from graphc.core.contexts import active, current, local, open_contexts  # noqa: F401
from graphc.core.registry import get
from graphc.core.tensor import Tensor, _symbolic
from graphc.errors import AliasError, InvalidArgumentError, SymbolicTensorError
from graphc.ir import graph as ir


class TraceContext:
    """Collects the nodes of one graph being traced."""

    # True: an eager tensor read in a branch or loop body traced inside this context
    # becomes a constant of this one, captured (``gc.vectorized_map``: its walk binds
    # the tensor itself for that constant, so a tape around the call sees every use)
    hoists_constants = False

    def __init__(self, name: str = "graph"):
        self.name = name
        self.inputs: list[ir.Value] = []
        self.nodes: list[ir.Node] = []
        self.owned: set[int] = set()
        self.captures: dict[int, tuple[ir.Value, ir.Value]] = {}  # outer id -> (outer, inner)
        self.token_in = ir.Value(ir.TOKEN)
        self.token = self.token_in
        self.owned.add(self.token_in.id)
        self.parent: TraceContext | None = None
        self.input_names: dict[int, str] = {}  # input value id -> argument name
        # id(array) -> (array, [const values made of it here]): a captured tensor's uses
        self.constants_of: dict[int, tuple[np.ndarray, list]] = {}
        # value id of a closed subgraph -> the tensor its replay here made for it
        # (transforms/graph_vjp.Replay): a custom gradient's grad_fn, called in a
        # gradient graph, may use the tensors its forward call made
        self.aliases: dict[int, Tensor] = {}
        # ops one iteration of a short Python ``range`` loop's body added, by the body's
        # code, measured where the loop first ran (``autograph.loops._peel``)
        self.loop_body_ops: dict = {}

    # -- context management
    def __enter__(self):
        stack = local.stack
        # Re-entering the context already on top (a helper that wraps code in the current
        # trace) must not make it its own parent.
        if not stack or stack[-1] is not self:
            self.parent = stack[-1] if stack else None
        stack.append(self)
        open_contexts.append(None)
        return self

    def __exit__(self, *exc):
        open_contexts.pop()
        popped = local.stack.pop()
        assert popped is self, "trace contexts exited out of order"
        return False

    # -- values
    def new_input(self, aval: ir.Aval) -> ir.Value:
        v = ir.Value(aval)
        self.inputs.append(v)
        self.owned.add(v.id)
        return v

    def value_of(self, operand) -> ir.Value:
        """The graph value for an operand: symbolic tensor, eager tensor or ndarray."""
        if isinstance(operand, Tensor):
            if operand._np is not None:
                return self._array(self.capture(operand))
            return self._own(operand._sym)
        if isinstance(operand, np.ndarray):
            return self._array(operand)
        raise TypeError(f"cannot use {type(operand).__name__} as a graph value")

    def _array(self, array: np.ndarray) -> ir.Value:
        """A constant of ``array``; for an eager tensor's snapshot (``capture``) one of
        the enclosing context that ``hoists_constants`` (not past a function's trace),
        captured here."""
        home = self
        while not home.hoists_constants:
            if home.parent is None or home.parent is home or "function" in home.__dict__:
                return self.constant(array)
            home = home.parent
        root = home
        while root.parent is not None:
            root = root.parent
        if home is self or not any(s is array for _, s in root.__dict__.get(
                "snapshots", {}).values()):
            return self.constant(array)
        return self._own(home.constant(array))

    def _own(self, v: ir.Value) -> ir.Value:
        if v.id in self.owned:
            return v
        if type(v) is mutation.Stale:
            raise AliasError(f"{v.message}. It was used{source_info.where()}")
        hit = self.captures.get(v.id)
        if hit is not None:
            return hit[1]
        if self.parent is None or not self.parent.knows(v):
            alias = self._alias(v)
            if alias is not None:
                return self.value_of(alias)
            raise SymbolicTensorError(
                "a tensor traced in another gc.function (or a finished trace) was used "
                f"here{source_info.where()}; pass it in as an argument or return it instead "
                "of keeping it in a Python variable"
            )
        outer = self.parent._own(v)
        inner = ir.Value(v.aval)
        self.owned.add(inner.id)
        self.captures[v.id] = (outer, inner)
        return inner

    def capture(self, t) -> np.ndarray:
        """An eager tensor used while tracing becomes a constant of its contents now: a
        copy (tensors are mutable), one per tensor and trace. A ``gc.function``'s trace
        lists it (``captured``: tensor, contents), so a call after a write into it refuses
        rather than use the old contents (``ConcreteFunction._check_captures``)."""
        root = self
        while root.parent is not None:
            root = root.parent
        snapshots = root.__dict__.setdefault("snapshots", {})
        hit = snapshots.get(id(t))
        if hit is not None and hit[0] is t:
            return hit[1]
        snapshot = t._np.copy()
        snapshots[id(t)] = (t, snapshot)  # holds t: its id stays its own
        captured = getattr(root, "captured", None)
        if captured is not None:
            captured.append((t, snapshot))
        return snapshot

    def _alias(self, v: ir.Value):
        ctx = self
        while ctx is not None:
            hit = ctx.aliases.get(v.id)
            if hit is not None:
                return hit
            ctx = ctx.parent
        return None

    def knows(self, v: ir.Value) -> bool:
        ctx = self
        while ctx is not None:
            if v.id in ctx.owned or v.id in ctx.captures:
                return True
            ctx = ctx.parent
        return False

    def constant(self, array: np.ndarray) -> ir.Value:
        (v,) = self.add_node(get("const"), (), {"value": ir.ConstArray(array)},
                             (ir.Aval(array.shape, array.dtype),))
        made = self.constants_of.get(id(array))
        if made is None or made[0] is not array:  # the array is held: its id stays its own
            self.constants_of[id(array)] = made = (array, [])
        made[1].append(v)
        return v

    def source_arguments(self, v: ir.Value) -> list[str]:
        """Names of the function arguments that value ``v`` was computed from."""
        names = getattr(self, "input_names", {})
        producer = {o.id: n for n in self.nodes for o in n.outputs}
        seen, stack, found = set(), [v], []
        while stack:
            cur = stack.pop()
            if cur.id in seen:
                continue
            seen.add(cur.id)
            if cur.id in names and names[cur.id] not in found:
                found.append(names[cur.id])
            node = producer.get(cur.id)
            if node is not None:
                stack.extend(node.inputs)
        return found

    # -- nodes
    def add_node(self, op, inputs, attrs, avals, src=None, effectful=None) -> tuple:
        """Append a node; ``effectful`` overrides ``op.stateful`` (a ``cond`` or
        ``while_loop`` threads the effect token only when its subgraphs have effects)."""
        outs = tuple(ir.Value(a) for a in avals)
        stateful = op.stateful if effectful is None else effectful
        if stateful:
            inputs = tuple(inputs) + (self.token,)
            self.token = ir.Value(ir.TOKEN)
            outs = outs + (self.token,)
        node = ir.Node(op, inputs, ir.FrozenAttrs(attrs), outs,
                       src if src is not None else source_info.user_location())
        self.nodes.append(node)
        for o in outs:
            self.owned.add(o.id)
        return outs[:-1] if stateful else outs

    def bind(self, op, operands, attrs):
        """Record ``op(*operands, **attrs)``; return symbolic tensor(s)."""
        values = [self.value_of(o) for o in operands]
        attrs = {k: freeze(v) for k, v in attrs.items()}
        try:
            avals = op.infer(*[v.aval for v in values], **attrs)
        except (ValueError, IndexError, TypeError) as e:
            shapes = ", ".join(str(v.aval) for v in values)
            kind = TypeError if isinstance(e, TypeError) else InvalidArgumentError
            raise kind(f"{op.name}({shapes}): {e}{source_info.where()}") from None
        single = isinstance(avals, ir.Aval)
        outs = self.add_node(op, values, attrs, (avals,) if single else tuple(avals))
        if single and not op.multiple_results:
            out = _symbolic(outs[0])
            base = operands[0] if operands else None
            if op.view is not None and type(base) is Tensor and base._np is None:
                kind = op.view(*[v.aval for v in values], **attrs)
                if kind:
                    mutation.record_view(self, base, out, op, operands[1:], attrs,
                                         certain=kind is True)
            return out
        return [_symbolic(o) for o in outs]

    def finish(self, outputs) -> ir.Graph:
        return ir.Graph(self.inputs, self.nodes, outputs, name=self.name,
                        token_in=self.token_in, token_out=self.token)


def freeze(value):
    """Make an attr value hashable: lists become tuples, dtypes stay dtypes."""
    if isinstance(value, list | tuple):
        return tuple(freeze(v) for v in value)
    if isinstance(value, np.ndarray):
        return ir.ConstArray(value)
    if isinstance(value, dict):
        return ir.FrozenAttrs({k: freeze(v) for k, v in value.items()})
    return value


def executing_eagerly() -> bool:
    """False while this thread traces a ``gc.function`` (code runs to build a graph),
    True otherwise, also under ``run_functions_eagerly(True)`` (``tf.executing_eagerly``).

    >>> gc.executing_eagerly()
    True
    """
    return not active()
