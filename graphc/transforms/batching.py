"""``gc.vectorized_map``: the batching transform over a traced graph.

``fn`` is traced once, on the avals of one example (``elems``' leaves less dimension 0),
into a graph of its own (a child ``TraceContext``: symbolic values of an enclosing
``gc.function`` that it reads become captures, eager tensors constants). The walk then
goes over that graph's nodes in order, holding for each value a tensor over the whole
batch and the position of its batch axis (``None``: the same for every example, such
as a constant or a captured value). A node whose operands are all unbatched is bound as
it is; otherwise its op's ``OpDef.batch`` rule binds the batched computation. Everything
goes through ``bind``, so the walk runs eagerly or adds nodes to the current trace.

A node with no rule (or a case its rule returns ``NotImplemented`` for), and any node
with effects (prints, random draws: they must happen once per example, in order), runs
in a loop over the batch (``gc.map_fn``: one ``while_loop`` node in a
traced program). One ``VectorizationWarning`` per call names them all;
``fallback_to_while_loop=False`` raises ``ValueError`` instead. A variable read is
the same for every example unless ``fn`` writes a variable: it is read once, unbatched
(through the variable, so a ``GradientTape`` around the call sees the read), as
TensorFlow's pfor reads it, also inside a loop body or branch of ``fn`` (``fn`` is
traced with ``state.read_once``; one that writes a variable is traced again without it,
its reads and writes then running example by example, in order).
"""

from __future__ import annotations

from graphc import errors, nest, source_info
from graphc.autograph.api import converted
from graphc.core.placement import scope_for
from graphc.core.registry import bind
from graphc.core.spec import TensorSpec
from graphc.core.tensor import _symbolic
from graphc.errors import VectorizationWarning
from graphc.ir.graph import Aval
from graphc.ops import batch_util as bu
from graphc.ops import state
from graphc.ops.control.trace import enter, to_value
from graphc.transforms.chunking import chunked
from graphc.transforms.map_fn import leaves_of, map_fn

__all__ = ["vectorized_map"]


def vectorized_map(fn, elems, fallback_to_while_loop=True, warn=True, chunk_size=None):
    """``fn`` applied to every slice of ``elems`` along dimension 0, as one computation
    over the whole batch (``tf.vectorized_map``).

    ``elems`` is a tensor or a nest of tensors sharing dimension 0 (a dimension 0 of 1
    is broadcast to the others' size, as in TensorFlow); ``fn`` takes one
    slice (the same nest) and returns a nest of tensors; the results are stacked along a
    new dimension 0, exactly as ``gc.stack([fn(x) for x in elems])`` would give them.
    ``fn`` is traced once and each op of it is rewritten by its batching rule: an
    elementwise op broadcasts, a reduction shifts its axes, ``matmul`` becomes a batched
    matmul. Tensors ``fn`` reads from outside (closures) stay unbatched. Ops with no rule
    run in a loop over the batch; one ``gc.errors.VectorizationWarning`` lists them
    (``fallback_to_while_loop=False``: ``ValueError`` instead). Works eagerly and inside
    ``gc.function``. ``chunk_size=k`` runs the batch ``k`` examples at a time (the last
    chunk smaller), bounding the memory of per-example intermediates.

    >>> w = gc.constant(np.ones((3, 2), np.float32))
    >>> x = gc.constant(np.arange(12, dtype=np.float32).reshape(4, 3))
    >>> gc.vectorized_map(lambda row: gnp.tanh(row @ w).sum(), x).shape  # (4,)
    """
    leaves, treedef, size = leaves_of(elems, "gc.vectorized_map", broadcast_ones=True)
    graph, captured = _trace_example(fn, leaves, treedef)
    looped: list[str] = []

    def run(chunk, n):
        return _batched(graph, captured, chunk, n, looped)

    if chunk_size is None:
        outs = run(leaves, size)
    else:
        outs = chunked(run, leaves, size, chunk_size, graph.outputs)
    if looped:
        names = ", ".join(dict.fromkeys(looped))
        if not fallback_to_while_loop:
            raise BatchingRefused(
                f"gc.vectorized_map{source_info.where()}: no batching rule for op(s) {names}; "
                "pass fallback_to_while_loop=True to run them in a loop over the batch",
                tuple(dict.fromkeys(looped)))
        if warn:
            errors.warn(
                f"gc.vectorized_map{source_info.where()}: op(s) {names} have no batching "
                "rule here and run in a loop over the batch", VectorizationWarning)
    return nest.unflatten(graph.treedef, outs)


def _batched(graph, captured, leaves, size, looped) -> list:
    """The walk over ``graph`` for the batch ``leaves`` (of ``size`` examples): the
    outputs, each with its batch axis at 0."""
    env = {v.id: (x, 0) for v, x in zip(graph.inputs, leaves)}
    for inner, outer in captured:
        env[inner.id] = (outer, None)
    with scope_for(leaves):  # a batch on a GPU: the walk's constants are made there
        for variable, value in graph.variables:
            env[value.id] = (variable.read_value(), None)
        for node in graph.nodes:
            _walk_node(node, env, size, leaves, looped)
        return [bu.with_batch(*env[v.id], size) for v in graph.outputs]


class BatchingRefused(ValueError):
    """``fallback_to_while_loop=False`` and some ops have no batching rule (``ops``)."""

    def __init__(self, message, ops):
        super().__init__(message)
        self.ops = ops


class _Example:
    """``fn``'s graph on one example: ``inputs`` (one per leaf of ``elems``), ``nodes``,
    ``outputs``, the ``treedef`` of what ``fn`` returned and ``variables`` ((variable,
    the value standing for its reads): each read once; empty when ``fn`` writes)."""

    def __init__(self, inputs, nodes, outputs, treedef, variables):
        self.inputs, self.nodes, self.outputs, self.treedef = inputs, nodes, outputs, treedef
        self.variables = variables


def _trace_example(fn, leaves, treedef):
    ctx, outputs, out_td = _trace(fn, leaves, treedef, read_once=True)
    if state.writes_variables(ctx.nodes):  # reads and writes example by example, in order
        ctx, outputs, out_td = _trace(fn, leaves, treedef, read_once=False)
    captured = [(inner, _symbolic(outer)) for outer, inner in ctx.captures.values()]
    # an eager tensor fn read became constants of its snapshot: the walk uses the tensor
    # itself, so a GradientTape around the call sees its uses
    live = _eager_constants(ctx)
    captured += list(live.items())
    # the nodes that made those values (recorded in ctx.constants_of) are not walked
    nodes = [n for n in ctx.nodes if not any(v in live for v in n.outputs)]
    variables = list(state.read_once(ctx).values())
    return _Example(ctx.inputs[:len(leaves)], nodes, outputs, out_td, variables), captured


def _trace(fn, leaves, treedef, read_once):
    """``fn`` traced on one example: ``(context, output values, output treedef)``."""
    ctx = enter("vectorized_map")
    ctx.hoists_constants = True  # an eager tensor read in a loop body: a use the walk sees
    if read_once:
        state.read_once(ctx)
    with ctx:
        args = [_symbolic(ctx.new_input(Aval(_example_shape(x), x.dtype))) for x in leaves]
        out = converted(fn)(nest.unflatten(treedef, args))
        flat, out_td = nest.flatten(out)
        outputs = [to_value(ctx, leaf) for leaf in flat]
    return ctx, outputs, out_td


def _example_shape(x):
    """The shape of one slice of ``x`` (``None``: unknown rank, as ``x``'s)."""
    return None if x.shape is None else x.shape[1:]


def _eager_constants(ctx) -> dict:
    """The const values of ``ctx`` made from eager tensors' snapshots -> those tensors."""
    root = ctx
    while root.parent is not None:
        root = root.parent
    tensors = {id(snap): t for t, snap in root.__dict__.get("snapshots", {}).values()}
    return {v: tensors[key] for key, (snap, values) in ctx.constants_of.items()
            if key in tensors for v in values}


def _walk_node(node, env, size, leaves, looped) -> None:
    op = node.op
    data_out = [o for o in node.outputs if not o.aval.is_token]
    effectful = any(v.aval.is_token for v in node.inputs)
    ins = [env[v.id] for v in node.inputs if not v.aval.is_token]
    args = [x for x, _ in ins]
    dims = [d for _, d in ins]
    attrs = dict(node.attrs)
    if not effectful and all(d is None for d in dims):
        out = bind(op, *args, **attrs)
        outs = list(out) if op.multiple_results else [out]
        for o, t in zip(data_out, outs):
            env[o.id] = (t, None)
        return
    result = NotImplemented
    if op.batch is not None and not effectful:
        _WALKS.append((size, leaves, looped))  # for rules that walk subgraphs
        try:
            result = op.batch(args, dims, **attrs)
        finally:
            _WALKS.pop()
    if result is NotImplemented:
        looped.append(op.name)
        outs = _loop(node, args, dims, attrs, leaves, data_out)
        out_dims = [0] * len(outs)
    else:
        outs, out_dims = result
        if not op.multiple_results:
            outs, out_dims = [outs], [out_dims]
    for o, t, d in zip(data_out, outs, out_dims):
        env[o.id] = (t, d)


def _loop(node, args, dims, attrs, leaves, data_out) -> list:
    """``node``'s op applied example by example (``gc.map_fn``): batched operands are
    sliced, unbatched ones passed whole; an op with no batched operand (an effect) still
    runs once per example, the loop then going over ``elems``' first leaf."""
    op = node.op
    batched = [i for i, d in enumerate(dims) if d is not None]
    over = [bu.to_front(args[i], dims[i]) for i in batched] or [leaves[0]]

    def one(slices):
        full = list(args)
        for i, s in zip(batched, slices):
            full[i] = s
        out = bind(op, *full, **attrs)
        return list(out) if op.multiple_results else [out]

    signature = [TensorSpec(_known(o.aval.shape), o.aval.dtype) for o in data_out]
    return map_fn(one, over, fn_output_signature=signature)


def _known(shape):
    return None if shape is None else list(shape)


_WALKS: list = []  # (size, leaves, looped) of the walks whose rules are running


def walk_graph(graph, args, dims, size=None) -> list:
    """A subgraph (a ``cond`` branch, a loop body) batched by the same walk, for a rule
    running under it: ``args`` with batch axes ``dims`` bound to ``graph.inputs``; returns
    each output's ``(tensor, batch axis)``. Its fallbacks join the enclosing call's
    warning."""
    if _WALKS:
        size, leaves, looped = _WALKS[-1]
    else:  # a rule called directly (the registry walk): fallbacks are not reported
        size = bu.batch_size(args, dims) if size is None else size
        leaves, looped = [bu.to_front(a, d) for a, d in zip(args, dims) if d is not None], []
    env = {v.id: (a, d) for v, a, d in zip(graph.inputs, args, dims)}
    for node in graph.nodes:
        _walk_node(node, env, size, leaves, looped)
    return [env[v.id] for v in graph.outputs]
