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
from graphc.transforms import autodiff
from graphc.transforms.graph_vjp import variables_read
from graphc.variables import Variable

_NOTES = "_custom_gradient_records"   # TraceContext attribute: [(node position, record)]


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


def note_record(record) -> None:
    """Remember a custom-gradient ``record`` made while tracing, at the current node."""
    ctx = trace.current()
    ctx.__dict__.setdefault(_NOTES, []).append((len(ctx.nodes), record))


def gradients(ys, xs, grad_ys=None, name=None, unconnected_gradients="none"):
    """The gradients of ``sum(ys)`` with respect to each of ``xs``, built in the graph
    being traced (``tf.compat.v1.gradients``); a list with one entry per ``x``.

    Only inside a ``gc.function`` (eagerly there is no graph to walk: use
    ``gc.GradientTape``). ``ys`` and ``xs`` are tensors, ``gc.Variable``s (in ``xs``)
    or lists of them; ``grad_ys`` gives the cotangent of each ``y`` (ones by default).
    An ``x`` that ``ys`` do not depend on gets ``None`` (zeros with
    ``unconnected_gradients="zero"``).

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
    sources = [walk.source(x) for x in x_leaves]
    targets = [walk.tensor(y) for y in y_leaves]
    graph_tape = _GraphTape(walk.records(), walk.variables, walk.inner_reads)
    # a None seed stands for ones (the walk's default)
    return list(autodiff.backward(graph_tape, targets, sources, seeds, unconnected_gradients))


def _as_list(x) -> list:
    if isinstance(x, list | tuple):
        return list(nest.flatten(x)[0])
    return [x]


class _Walk:
    """The records of the nodes of ``ctx`` that depend on the sources."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.by_value: dict[int, Tensor] = {}   # IR value id -> the one tensor for it
        self.live: set[int] = set()             # value ids the sources reach
        self.variables: dict[int, tuple] = {}   # id(variable) -> (variable, [reads])
        self.inner_reads: dict[int, object] = {}  # value id in a subgraph -> variable

    def tensor(self, t):
        """The walk's tensor for ``t`` (its value's canonical tensor object)."""
        if isinstance(t, Variable):
            t = t.read_value()
        if not isinstance(t, Tensor) or t._sym is None:
            return t
        v = self.ctx.value_of(t)
        return self.by_value.setdefault(v.id, t if t._sym is v else _symbolic(v))

    def source(self, x):
        if isinstance(x, Variable):
            handle = state.handle(x)._sym
            reads = [self.of(n.outputs[0]) for n in self.ctx.nodes
                     if state.read_handle(n) is handle]
            self.variables[id(x)] = (x, reads)
            self.live.update(r._sym.id for r in reads)
            for node in self.ctx.nodes:
                self._reads_inside(node, {handle.id}, x)
            return x
        if not isinstance(x, Tensor):
            raise TypeError(f"gc.gradients: xs must be tensors or gc.Variables, got "
                            f"{type(x).__name__}")
        t = self.tensor(x)
        if t._sym is not None:
            self.live.add(t._sym.id)
        return t

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

    def of(self, value):
        t = self.by_value.get(value.id)
        if t is None:
            t = self.by_value[value.id] = _symbolic(value)
        return t

    def records(self) -> list:
        notes = list(self.ctx.__dict__.get(_NOTES, ()))
        nodes = list(self.ctx.nodes)   # the rules add nodes: walk the ones there now
        out = []
        at = 0
        for i, node in enumerate(nodes + [None]):
            while at < len(notes) and notes[at][0] <= i:
                self._add_custom(notes[at][1], out)
                at += 1
            if node is not None:
                self._add_node(node, out)
        return out

    def _add_node(self, node, out) -> None:
        ins = [v for v in node.inputs if not v.aval.is_token]
        if not any(v.id in self.live for v in ins) and not (
                self.inner_reads and variables_read(node.subgraphs(), self.inner_reads)):
            return
        outs = [v for v in node.outputs if not v.aval.is_token]
        where = f" (traced at {node.src})" if node.src else ""
        out.append(_NodeRecord(node.op, tuple(self.of(v) for v in ins),
                               tuple(self.of(v) for v in outs), node.attrs, where))
        self.live.update(v.id for v in outs)

    def _add_custom(self, record, out) -> None:
        args = tuple(self._canon(a) for a in record.args)
        if not any(isinstance(a, Tensor) and a._sym is not None and a._sym.id in self.live
                   for a in args):
            return
        outputs = tuple(self._canon(o) for o in record.outputs)
        out.append(_NodeRecord(record.op, args, outputs, record.attrs, ""))
        self.live.update(o._sym.id for o in outputs if o._sym is not None)

    def _canon(self, t):
        if not isinstance(t, Tensor) or t._sym is None or not self.ctx.knows(t._sym):
            return t
        return self.of(t._sym)
