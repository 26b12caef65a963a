"""Tracing the subgraphs of functional control flow: ``cond`` branches and loop bodies.

A branch or body is traced in a nested ``TraceContext``. Symbolic values of enclosing
traces that it reads are *captured* (``ctx.captures``); ``close`` turns several such
contexts into graphs that take the same explicit inputs (placeholders first, then the
union of their captures), so one node can pass the same operands to any of them.

``stage_branches`` builds a ``cond``/``switch_case`` node from Python branch functions,
``stage_loop`` a ``while_loop`` node from a loop condition and body; both unify what the
Python code returns (Python numbers are *weak*: they take the dtype of the tensor they
meet) and raise errors that name the branch or variable, the dtypes and the shapes.
"""

from __future__ import annotations

import weakref

import numpy as np

from graphc import nest, source_info
from graphc.core import hooks, mutation, trace, weak
from graphc.core.registry import bind
from graphc.core.tensor import Tensor, _symbolic
from graphc.dtypes import numpy_literal
from graphc.errors import AutographError, AutographStructureError
from graphc.ir import graph as ir
from graphc.ir.printer import has_effects
from graphc.ops import elementwise as ew
from graphc.ops.control.branch_outputs import unify_leaf
from graphc.ops.control.staged_lists import staged
from graphc.ops.control.values import (
    UndefinedReturnValue,
    _is_number,
    _is_tensorish,
    _join_all,
    _shape_text,
    describe,
)
from graphc.ops.shape import reshape
from graphc.ops.tensor_array.array import shape_branch_results

_SLOT = object()  # marks an output leaf that the node produces
MAX_RELAX = 32  # retraces of a loop body while its shapes relax (a bug guard, never hit)


# --------------------------------------------------------------------------- subgraphs
def enter(name: str) -> trace.TraceContext:
    """A child trace context of the current one (enter it with ``with``)."""
    return trace.TraceContext(name)


def to_value(ctx: trace.TraceContext, x, dtype=None) -> ir.Value:
    """``x`` (tensor, array or Python number) as a value of ``ctx``, cast to ``dtype``."""
    if dtype is not None and isinstance(x, Tensor) and x.dtype != dtype:
        x = bind(ew.CAST, x, dtype=dtype)  # only while probing: else dtypes already agree
    if dtype is not None and not _is_tensorish(x):
        try:
            arr = np.asarray(x, dtype=dtype)
        except OverflowError:
            raise AutographError(f"Python number {x!r} does not fit dtype {dtype}"
                                 f"{source_info.where()}") from None
        return ctx.constant(arr)
    if isinstance(x, Tensor):
        return ctx.value_of(x)
    return ctx.constant(numpy_literal(x))


def close(ctxs, n_args: int, outputs):
    """Graphs for traced contexts, all taking ``n_args`` placeholders then the union of
    their captures; returns ``(graphs, capture_operands)`` (operands of the parent)."""
    order: dict[int, ir.Value] = {}
    for ctx in ctxs:
        for key, (outer, _inner) in ctx.captures.items():
            order.setdefault(key, outer)
    graphs = []
    for ctx, outs in zip(ctxs, outputs):
        extra = []
        for key, outer in order.items():
            hit = ctx.captures.get(key)
            extra.append(hit[1] if hit is not None else ir.Value(outer.aval))
        graphs.append(ir.Graph(ctx.inputs[:n_args] + extra, ctx.nodes, outs, name=ctx.name,
                               token_in=ctx.token_in, token_out=ctx.token))
        notes = ctx.__dict__.get(NOTES)
        if notes:
            CLOSED_NOTES[graphs[-1]] = (notes, {k: inner.id for k, (_, inner)
                                                in ctx.captures.items()})
    return graphs, list(order.values())


# The custom-gradient records a trace context noted (TraceContext attribute NOTES:
# transforms/graph_gradients.note_record) outlive it with the graph closed from it:
# graph -> (notes, {captured outer value id: its input's id}), so the gradient of a
# branch or loop body applies them (transforms/graph_vjp.vjp).
NOTES = "_custom_gradient_records"
CLOSED_NOTES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def add_control_node(op, inputs, attrs, avals, graphs):
    """Add a control-flow node to the current trace; it threads the effect token when any
    of its subgraphs has effects. Returns the symbolic outputs."""
    ctx = trace.current()
    effectful = any(has_effects(g) for g in graphs)
    outs = ctx.add_node(op, inputs, attrs, avals, effectful=effectful)
    symbols = [_symbolic(v) for v in outs]
    if hooks.tapes:  # a GradientTape may watch an operand: it records the node
        hooks.record_node(op, inputs, symbols, attrs)
    return symbols


# --------------------------------------------------------------------------- branches
class Site:
    """How errors name things: the construct, its branches and each output leaf."""

    def __init__(self, construct: str, labels, leaf_name=None):
        self.construct = construct
        self.labels = labels
        self.leaf_name = leaf_name or (lambda i: f"output {i}")


def stage_branches(op, index_value, fns, make_attrs, site: Site):
    """Trace each of ``fns`` (no arguments) as a branch; add one ``op`` node selecting
    among them by ``index_value`` (attrs from ``make_attrs(graphs)``); return the result
    nest, its tensors symbolic. Leaves that every branch gives as the same Python value
    stay Python (so a flag set to ``True`` on both sides is still ``True``).

    Tensors of the enclosing trace that a branch writes into (``core/mutation.
    OuterWrite``) become hidden branch results, found by tracing again: inside each
    branch the same Python objects stand for branch-local values, and after the node
    they are written with the selected branch's values (NumPy semantics)."""
    carried: list = []
    while True:
        try:
            out = _stage_branches(op, index_value, [_carrying(fn, carried) for fn in fns],
                                  make_attrs, site)
            break
        except mutation.OuterWrite as write:
            if any(write.root is c for c in carried):
                raise
            carried.append(write.root)
    if not carried:
        return out
    result, values = out
    outer = trace.current()
    for t, value in zip(carried, values):
        mutation.assign(outer, t, value)
    return result


def _carrying(fn, carried):
    """``fn`` returning ``(result, values of carried)``: while it is traced each carried
    tensor stands for its value captured into the branch (its views follow it), and the
    result names a carried tensor by its value at the branch's end."""
    if not carried:
        return fn

    def branch():
        ctx = trace.current()
        saved = [(t, t._sym) for t in carried]
        try:
            for t in carried:
                t._sym = ctx.value_of(_symbolic(t._sym))
            for t in carried:
                saved += mutation.adopt_views(ctx, t)
            result = fn()
            ends = {id(t): _symbolic(t._sym) for t in carried}
            result = nest.map_structure(lambda x: ends.get(id(x), x), result)
            return result, tuple(ends[id(t)] for t in carried)
        finally:
            for t, sym in reversed(saved):
                t._sym = sym

    return branch


def _stage_branches(op, index_value, fns, make_attrs, site: Site):
    ctxs, results = [], []
    for k, fn in enumerate(fns):
        ctx = enter(site.labels[k].replace(" ", "_"))
        with ctx, staged(site.construct):
            results.append(fn())
        ctxs.append(ctx)
    results = shape_branch_results(ctxs, results)  # gc.TensorArray first written in one
    flat, treedef = _flatten_results(_shape_undefined_returns(results), site)
    outs_per_branch = [[] for _ in fns]
    avals, template, weak_slots = [], [], []
    for i in range(len(flat[0])):
        leaves = [f[i] for f in flat]
        kind = unify_leaf(leaves, i, site)
        if kind is None:
            template.append(leaves[0])
            continue
        aval = kind
        weak_slots.append(all(_is_weak_leaf(v) for v in leaves))
        template.append(_SLOT)
        avals.append(aval)
        for ctx, leaf, outs in zip(ctxs, leaves, outs_per_branch):
            with ctx:
                if isinstance(leaf, UndefinedReturnValue):
                    shape = tuple(0 if d is None else d for d in aval.shape)
                    outs.append(ctx.constant(np.zeros(shape, aval.dtype)))
                else:
                    outs.append(to_value(ctx, leaf, aval.dtype))
    graphs, operands = close(ctxs, 0, outs_per_branch)
    avals = [ir.Aval(_join_all([g.outputs[j].aval.shape for g in graphs]), a.dtype)
             for j, a in enumerate(avals)]
    if avals or any(has_effects(g) for g in graphs):
        symbols = add_control_node(op, [index_value, *operands], make_attrs(graphs),
                                   avals, graphs)
        for t, is_weak in zip(symbols, weak_slots):
            if is_weak:  # only Python numbers (or weak values) on every side
                weak.mark(t)
        symbols = iter(symbols)
        template = [next(symbols) if t is _SLOT else t for t in template]
    return nest.unflatten(treedef, template)


def _is_weak_leaf(v) -> bool:
    return _is_number(v) or weak.is_weak(v) or isinstance(v, UndefinedReturnValue)


def _shape_undefined_returns(results):
    """An unset return value takes the structure the other branches return (a branch
    returning ``(i, x)`` next to one that does not return yet)."""
    if not all(isinstance(r, tuple) for r in results) or len({len(r) for r in results}) > 1:
        return results
    out = [list(r) for r in results]
    for j in range(len(out[0])):
        nests = [r[j] for r in out if nest.flatten(r[j])[1] is not None]
        if nests:
            for r in out:
                if isinstance(r[j], UndefinedReturnValue):
                    r[j] = nest.map_structure(lambda _: UndefinedReturnValue(), nests[0])
    return [type(r)(o) if not hasattr(type(r), "_fields") else type(r)(*o)
            for r, o in zip(results, out)]


class Restage(Exception):
    """Raised while tracing a loop body to restart staging with new initial values
    (an unset return value turned out to be a tuple); ``values`` maps index -> value,
    or to a ``Later`` whose ``make()`` builds the value in the loop's own trace context
    (a ``gc.TensorArray`` that the body gave its first element: its buffer)."""

    def __init__(self, values: dict):
        super().__init__("restage")
        self.values = values


class Later:
    """A value to build once the staging that raised ``Restage`` has unwound."""

    def __init__(self, make):
        self.make = make


def _flatten_results(results, site):
    flat, treedefs = zip(*(nest.flatten(r) for r in results))
    for k in range(1, len(results)):
        if treedefs[k] != treedefs[0] or len(flat[k]) != len(flat[0]):
            raise AutographStructureError(
                f"{site.construct}: the {site.labels[0]} returns "
                f"{_structure(results[0])} but the {site.labels[k]} returns "
                f"{_structure(results[k])}; every branch must return the same structure"
                f"{source_info.where()}")
    return flat, treedefs[0]


def _structure(x) -> str:
    if isinstance(x, list | tuple):
        return f"a {type(x).__name__} of {len(x)} {_outline(x)}"
    if isinstance(x, dict):
        return f"a dict with keys {sorted(x, key=repr)}"
    return describe(x)


def _outline(x) -> str:
    """A nest's shape in brackets, its leaves as ``t`` (a tensor) or a type name:
    ``((t,), t)``."""
    if isinstance(x, list | tuple):
        inner = ", ".join(_outline(e) for e in x) + ("," if len(x) == 1 else "")
        return f"[{inner}]" if isinstance(x, list) else f"({inner})"
    if isinstance(x, dict):
        return "{" + ", ".join(f"{k!r}: {_outline(v)}" for k, v in x.items()) + "}"
    return "t" if _is_tensorish(x) else type(x).__name__


def scalar_bool(ctx, x, what: str) -> ir.Value:
    """A predicate as a scalar bool value of ``ctx`` (truthiness for numbers); ``ctx``
    must be the active trace context. A predicate of one element (shape ``(1, 1)``) is
    taken as its element, as TensorFlow and NumPy's truthiness take it."""
    if not isinstance(x, Tensor):
        return ctx.constant(np.asarray(bool(x)))
    shape = x.shape
    if shape is not None and len(shape) and all(d == 1 for d in shape):
        x, shape = reshape(x, ()), ()
    if shape is None or len(shape) != 0:
        raise AutographError(
            f"{what} must be a scalar (shape ()), got shape {_shape_text(shape)}"
            f"{source_info.where()}; reduce it first, e.g. with gnp.any / gnp.all")
    if x.dtype != np.bool_:
        x = bind(ew.NOT_EQUAL, x, 0)
    return to_value(ctx, x)
