"""``gc.gradients(ys, xs)``: TF1-style gradients of a graph being traced, with no tape.

Inside a ``gc.function`` trace the ops between ``xs`` and ``ys`` are already nodes of
the graph (``TraceContext.nodes``). This module turns the nodes that depend on ``xs``
into tape-like records (tokens dropped; every IR value stands for one tensor object, so
the walk's identity-keyed cotangents line up) and hands them to the same reverse walk a
``GradientTape`` uses (:func:`graphc.transforms.autodiff.backward`). A
``@gc.custom_gradient`` call traced into the graph notes its one record on the trace
(:func:`note_record`); it joins the walk just after the body's nodes, so it takes the
results' cotangents before the body's own ops could.
"""

from __future__ import annotations

from graphc import nest
from graphc.core import trace
from graphc.core.tensor import Tensor, _symbolic
from graphc.ops import state
from graphc.ops.control.trace import NOTES
from graphc.ops.creation import zeros_like
from graphc.transforms import autodiff, recording
from graphc.transforms.graph_vjp import variables_read
from graphc.variables import Variable

_NOTES = NOTES   # TraceContext attribute: [(node position, record, first)]


class _NodeRecord:
    """A graph node seen as a tape record."""

    __slots__ = ("op", "args", "outputs", "attrs", "where")

    def __init__(self, op, args, outputs, attrs, where):
        self.op, self.args, self.outputs, self.attrs = op, args, outputs, attrs
        self.where = where


class _GraphTape:
    """What :func:`autodiff.backward` reads from a tape: records and variable reads."""

    def __init__(self, records, variables, inner_reads):
        self._records = records
        self._variables = variables
        self._inner_reads = inner_reads   # value id in a subgraph -> variable read there


def note_record(record, first) -> None:
    """Remember a custom-gradient ``record`` made while tracing, at the current node.
    The nodes from position ``first`` on (the identities giving the call its own result
    values) are the record's: the walk leaves them out, so their outputs have one
    producer."""
    ctx = trace.current()
    ctx.__dict__.setdefault(_NOTES, []).append((len(ctx.nodes), record, first))


def gradients(ys, xs, grad_ys=None, name=None, gate_gradients=False,
              aggregation_method=None, stop_gradients=None, unconnected_gradients="none"):
    """The gradients of ``sum(ys)`` with respect to each of ``xs``, built in the graph
    being traced (``tf.compat.v1.gradients``); a list with one entry per ``x``.

    Only inside a ``gc.function`` (eagerly there is no graph to walk: use
    ``gc.GradientTape``). ``ys`` and ``xs`` are tensors, ``gc.Variable``s (in ``xs``)
    or lists of them; an ``x`` may be an eager tensor the function captured (every
    use of it in the graph counts). ``grad_ys`` gives the cotangent of each ``y`` (ones
    by default). ``stop_gradients`` (tensors of this graph) are held constant: no
    gradient flows back through them, though one of them in ``xs`` still gets its own.
    An ``x`` that ``ys`` do not depend on gets ``None`` (zeros with
    ``unconnected_gradients="zero"``). ``gate_gradients`` and ``aggregation_method`` are
    accepted for TensorFlow's signature and change nothing.

    >>> @gc.function
    ... def f(x):
    ...     y = x * x + 3.0 * x
    ...     return gc.gradients(y, x)[0]
    >>> float(f(gc.constant(2.0)))
    7.0
    """
    if not trace.active():
        raise RuntimeError(
            "gc.gradients builds gradients in a graph being traced, so it works only inside "
            "a gc.function; eagerly, record the computation with gc.GradientTape and call "
            "tape.gradient(target, sources)")
    if unconnected_gradients not in ("none", "zero"):
        raise ValueError(f"unconnected_gradients must be 'none' or 'zero', got "
                         f"{unconnected_gradients!r}")
    y_leaves = _as_list(ys)
    x_leaves = _as_list(xs)
    seeds = None if grad_ys is None else _as_list(grad_ys)
    if seeds is not None and len(seeds) != len(y_leaves):
        raise ValueError(f"grad_ys has {len(seeds)} entries for {len(y_leaves)} ys; give one "
                         "per y (None for ones)")
    walk = _Walk(trace.current())
    targets = [walk.tensor(y) for y in y_leaves]   # first: a variable's read is a use
    groups = [walk.source(x) for x in x_leaves]    # per x: the tensors standing for it
    walk.stop([walk.tensor(s) for s in _as_list(stop_gradients)])
    graph_tape = _GraphTape(walk.records(), walk.variables, walk.inner_reads)
    flat = [t for group in groups for t in group]
    # a None seed stands for ones (the walk's default)
    grads = iter(autodiff.backward(graph_tape, targets, flat, seeds, "none"))
    out = []
    for x, group in zip(x_leaves, groups):
        g = None
        for part in [next(grads) for _ in group]:
            g = part if g is None else g if part is None else g + part
        if g is None and unconnected_gradients == "zero" and autodiff.differentiable(x):
            with recording.unrecorded():
                g = zeros_like(x.read_value() if isinstance(x, Variable) else x)
        out.append(g)
    return out


def _as_list(x) -> list:
    if isinstance(x, list | tuple):
        return list(nest.flatten(x)[0])
    return [x]


class _Walk:
    """The records of the nodes that depend on the sources: those of ``ctx`` and of the
    traces enclosing it (a subgraph's function, such as ``vectorized_map``'s ``fn``, may
    take gradients with respect to a value of the enclosing ``gc.function``, as
    TensorFlow's ``FuncGraph`` captures allow). A captured value's input stands for the
    enclosing value it captured; the gradient ops for the enclosing nodes are built in
    ``ctx``, reading the enclosing values as captures."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.chain = []   # the enclosing contexts, outermost first, then ctx
        while ctx is not None:
            self.chain.insert(0, ctx)
            ctx = ctx.parent
        # a captured value's input id -> the enclosing value it stands for
        self.up = {inner.id: outer for c in self.chain for outer, inner in c.captures.values()}
        self.by_value: dict[int, Tensor] = {}   # IR value id -> the one tensor for it
        self.live: set[int] = set()             # value ids the sources reach
        self.variables: dict[int, tuple] = {}   # id(variable) -> (variable, [reads])
        self.inner_reads: dict[int, object] = {}  # value id in a subgraph -> variable
        self.stopped: set[int] = set()          # value ids held constant

    def tensor(self, t):
        """The walk's tensor for ``t`` (its value's canonical tensor object)."""
        if isinstance(t, Variable):
            t = t.read_value()
        if not isinstance(t, Tensor) or t._sym is None:
            return t
        v = self.ctx.value_of(t)   # may capture t: its input stands for t's value
        self.up.update((inner.id, outer) for outer, inner in self.ctx.captures.values())
        v = self._canonical(v)
        return self.by_value.setdefault(v.id, t if t._sym is v else _symbolic(v))

    def source(self, x) -> list:
        """The tensors of the walk whose gradients add up to ``x``'s."""
        if isinstance(x, Variable):
            handle = state.handle(x)._sym
            reads = [self.of(n.outputs[0]) for n in self.ctx.nodes
                     if state.read_handle(n) is handle]
            # reads that ``state.read_once`` turned into one value (vectorized_map's fn)
            reads += [self.of(v) for v in state.read_once_values(self.ctx, x)]
            self.variables[id(x)] = (x, reads)
            self.live.update(r._sym.id for r in reads)
            for node in self.ctx.nodes:
                self._reads_inside(node, {handle.id}, x)
            return [x]
        if not isinstance(x, Tensor):
            raise TypeError(f"gc.gradients: xs must be tensors or gc.Variables, got "
                            f"{type(x).__name__}")
        if x._np is not None:   # captured: each use is a constant node of its snapshot
            uses = [self.of(v) for v in self._captured_uses(x)]
            self.live.update(t._sym.id for t in uses)
            return [x, *uses]   # x itself: when it is one of the ys
        t = self.tensor(x)
        self.live.add(t._sym.id)
        return [t]

    def _captured_uses(self, x) -> list:
        hit = self.chain[0].__dict__.get("snapshots", {}).get(id(x))
        if hit is None or hit[0] is not x:
            return []
        uses = []
        for ctx in self.chain:
            made = ctx.constants_of.get(id(hit[1]))  # the constants of its snapshot
            uses += list(made[1]) if made is not None and made[0] is hit[1] else []
        return uses

    def _canonical(self, value):
        """The value of the context that made ``value`` (a captured input's source)."""
        while value.id in self.up:
            value = self.up[value.id]
        return value

    def stop(self, tensors) -> None:
        """Hold ``tensors`` constant: their producers get no cotangent for them."""
        self.stopped = {self._canonical(t._sym).id for t in tensors if isinstance(t, Tensor)
                        and t._sym is not None and self.ctx.knows(t._sym)}

    def _reads_inside(self, node, handles, variable) -> None:
        """Note the reads of ``variable`` in ``node``'s subgraphs (nested ones too): a
        subgraph reads it through an input standing for a ``handles`` value of the
        enclosing graph (a captured handle: the subgraph's inputs are the node's last
        inputs, in order) or through a handle node of its own. A control-flow rule
        returns their cotangents (``autodiff.inner_reads``), as for a tape."""
        data = [v for v in node.inputs if not v.aval.is_token]  # a token comes last
        for g in node.subgraphs():
            skip = len(data) - len(g.inputs)
            inner = {v.id for v, outer in zip(g.inputs, data[skip:])
                     if outer.id in handles} if skip >= 0 else set()
            for n in g.nodes:
                read = state.read_handle(n)
                if state.is_handle_of(n, variable):
                    inner.add(n.outputs[0].id)
                elif read is not None and read.id in inner:
                    self.inner_reads[n.outputs[0].id] = variable
                self._reads_inside(n, inner, variable)

    def _produced(self, value):
        """A record's output: the walk's tensor, or for a stopped value a tensor of its
        own, which no cotangent reaches (``stop_gradients``)."""
        value = self._canonical(value)
        return _symbolic(value) if value.id in self.stopped else self.of(value)

    def of(self, value):
        value = self._canonical(value)
        t = self.by_value.get(value.id)
        if t is None:
            t = self.by_value[value.id] = _symbolic(value)
        return t

    def records(self) -> list:
        out = []
        for ctx in self.chain:   # an enclosing trace's nodes all come before ctx's
            out += self._records_of(ctx)
        return out

    def _records_of(self, ctx) -> list:
        notes = list(ctx.__dict__.get(_NOTES, ()))
        nodes = list(ctx.nodes)   # the rules add nodes: walk the ones there now
        owned = {i for at, _, first in notes for i in range(first, at)}
        out = []
        at = 0
        for i, node in enumerate(nodes + [None]):
            while at < len(notes) and notes[at][0] <= i:
                self._add_custom(notes[at][1], out)
                at += 1
            if node is not None and i not in owned:
                self._add_node(node, out)
        return out

    def _add_node(self, node, out) -> None:
        ins = [v for v in node.inputs if not v.aval.is_token]
        if not any(self._canonical(v).id in self.live for v in ins) and not (
                self.inner_reads and variables_read(node.subgraphs(), self.inner_reads)):
            return
        outs = [v for v in node.outputs if not v.aval.is_token]
        where = f" (traced at {node.src})" if node.src else ""
        out.append(_NodeRecord(node.op, tuple(self.of(v) for v in ins),
                               tuple(self._produced(v) for v in outs), node.attrs, where))
        self.live.update(v.id for v in outs)

    def _add_custom(self, record, out) -> None:
        args = tuple(self._canon(a) for a in record.args)
        if not any(isinstance(a, Tensor) and a._sym is not None and a._sym.id in self.live
                   for a in args):
            return
        outputs = tuple(self._produced(o._sym) if isinstance(o, Tensor) and o._sym is not None
                        and self.ctx.knows(o._sym) else o for o in record.outputs)
        out.append(_NodeRecord(record.op, args, outputs, record.attrs, ""))
        self.live.update(o._sym.id for o in outputs if o._sym is not None)

    def _canon(self, t):
        if not isinstance(t, Tensor) or t._sym is None or not self.ctx.knows(t._sym):
            return t
        return self.of(t._sym)
