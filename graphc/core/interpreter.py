"""The reference executor: runs a graph node by node with each op's NumPy ``ref``.

It is the ``backend="numpy"`` runtime and the ground truth the compiled backends are
tested against. Each graph is turned once into a *plan* (slot numbers instead of values,
the free list of every step) cached per graph, so a call is one tight loop over tuples.
Slots are numbered exactly like ``str(graph)`` numbers data values (inputs, then node
outputs, tokens skipped), so ``%7`` in an error is ``%7`` in the printed graph.

Effect tokens carry no data and are never materialized: a node that takes one gets its
other inputs only, which is correct because nodes already run in program order.
Control-flow ops get their branch/body graphs in attrs and call :func:`run_graph` again;
nothing here is global per call, so that reentry is safe.

Kept cheap for the first tier (SPEC section 14: at most 2x NumPy on small graphs):
constants sit in the frame from the plan (no step per call), a fused group's ops are
steps of the caller's plan (no nested call), and NumPy's error state is set once per
top-level graph through its context variable (``fp_errors.enter``), not per nested graph.
"""

from __future__ import annotations

import threading
import weakref
from typing import NamedTuple

import numpy as np

from graphc.core import fp_errors, plan_code
from graphc.core.op_errors import kernel_error
from graphc.ir.graph import Graph
from graphc.ir.printer import node_signature

_ndarray = np.ndarray
_asarray = np.asarray


def _accepts_out_ellipsis() -> bool:
    try:  # NumPy 2.3+: ``out=...`` asks a ufunc for an array even from 0-d operands
        return type(np.add(np.zeros(()), np.zeros(()), out=...)) is np.ndarray
    except TypeError:
        return False


_UFUNC_OUT_ELLIPSIS = _accepts_out_ellipsis()


class Step(NamedTuple):
    """One node as the plan runs it (one line of its function, ``plan_code.py``)."""

    array_out: bool  # a ufunc with a 0-d result, called with out=... (_array_out)
    ref: object      # the op's NumPy reference
    ins: tuple       # input slots (tokens left out)
    attrs: dict | None
    outs: tuple      # output slots
    free: tuple      # slots last read here, cleared after it
    multiple: bool   # ref returns a sequence of results
    graph: Graph | None  # a fused group's subgraph for its inlined ops, else None
    node: object


class Plan(NamedTuple):
    """A graph compiled for the interpreter.

    ``steps`` holds a :class:`Step` per node (``graph``: the fused group's subgraph for
    its inlined ops, None for the plan's own graph, which the plan must not hold);
    ``attrs`` is None when the op has none (so the call skips ``**``); ``free`` lists the
    slots whose last use is this step (and its own unused outputs), cleared right after
    it so big intermediates do not live to the end of the call.
    ``preset`` holds ``(slot, array)`` for the constants, placed before the first step.
    """

    n_inputs: int
    steps: tuple
    out_slots: tuple
    preset: tuple
    run: object  # the steps as one Python function (plan_code.generate)


class _Running(threading.local):
    """Per thread: 1 while :func:`run_graph` runs a graph. Nested graphs (loop bodies,
    branches, fused groups, run by their node's ``ref``) then skip setting up NumPy's
    error state again: ``np.geterrcall`` and ``np.errstate`` cost ~5 us per graph, more
    than a small loop body's own work."""

    depth = 0


_running = _Running()

# id(graph) -> (weakref to graph, plan). A plain dict keyed by id with a weakref callback
# to drop dead entries is faster on the hot path than a WeakKeyDictionary lookup, and the
# identity check guards against a reused id.
_plans: dict[int, tuple] = {}


def run_graph(graph: Graph, args) -> list:
    """Execute ``graph`` on a list of NumPy arrays (one per input); return its outputs.
    NumPy's floating-point warnings name the op and the user's line that traced it
    (:mod:`fp_errors`).

    >>> run_graph(g, [np.ones(4, np.float32)])   # doctest: +SKIP
    [array([2., 2., 2., 2.], dtype=float32)]
    """
    if _running.depth:  # a nested graph (a loop body, a fused group): already set up
        return execute(graph, args)
    _running.depth = 1
    token = fp_errors.enter()
    try:
        return execute(graph, args)
    finally:
        fp_errors.leave(token)
        _running.depth = 0


def execute(graph: Graph, args) -> list:
    """:func:`run_graph` under the caller's NumPy error state."""
    entry = _plans.get(id(graph))
    if entry is None or entry[0]() is not graph:
        plan = get_plan(graph)
    else:
        plan = entry[1]
    if len(args) != plan.n_inputs:
        raise TypeError(f"graph {graph.name!r} takes {plan.n_inputs} inputs, got {len(args)}")
    try:
        return plan.run(args)
    except Exception as e:  # noqa: BLE001 - re-raised with the node and the user's line
        failed = plan_code.failed_step(plan.run, e)
        if failed is None:
            raise
        step, inputs = failed
        wrapped = _node_error(step.graph or graph, step.node, inputs, e)
        if wrapped is e:
            raise
        raise wrapped from None


def get_plan(graph: Graph) -> Plan:
    """The cached :class:`Plan` for ``graph``, building it on first use.

    Graphs are immutable once built (passes make new ones), so the plan never goes stale.
    """
    entry = _plans.get(id(graph))
    if entry is not None and entry[0]() is graph:
        return entry[1]
    plan = _build_plan(graph)
    key = id(graph)
    _plans[key] = (weakref.ref(graph, lambda _r, key=key: _drop(key, _r)), plan)
    return plan


def _drop(key: int, dead_ref) -> None:
    entry = _plans.get(key)
    if entry is not None and entry[0] is dead_ref:
        del _plans[key]


# A const node's value, or any other input-less pure node up to this size, is computed
# once when the plan is built and placed in the frame before every call (read-only).
PRESET_MAX_BYTES = 1 << 20


def _preset(node):
    """``node``'s results computed once for the plan, or None to run it on each call."""
    op = node.op
    if (node.inputs or op.stateful or op.extra.get("runs_user_code")
            or op.extra.get("no_fold") or op.multiple_results or len(node.outputs) != 1):
        return None
    aval = node.outputs[0].aval
    if aval.shape is None or None in aval.shape or aval.dtype is None:
        return None
    if int(np.prod(aval.shape)) * aval.dtype.itemsize > PRESET_MAX_BYTES:
        return None
    value = _asarray(op.ref(**(node.attrs or {})))
    if value.flags.writeable:
        value = value.copy()
        value.flags.writeable = False
    return value


def _inlinable(node):
    """The subgraph ``node`` runs exactly (ops declaring ``extra["runs_subgraph"]``), when
    its steps can join the caller's plan: each output a distinct value computed inside."""
    attr = node.op.extra.get("runs_subgraph")
    if attr is None:
        return None
    sub = node.attrs[attr]
    inner_inputs = {v.id for v in sub.inputs}
    out_ids = [v.id for v in sub.outputs]
    if len(set(out_ids)) != len(out_ids) or inner_inputs & set(out_ids):
        return None
    if any(v.aval.is_token for v in sub.inputs) or len(sub.inputs) != len(node.inputs):
        return None
    return sub


def _static_reshape(node):
    """For an op whose result is its operand's data in a new shape (``extra["reshapes"]``:
    ``reshape``, ``expand_dims``, ``squeeze``) between static shapes: a ref that is one
    ``reshape`` to the output's shape (tracing checked the shapes; the op's own ref
    spends microseconds on axis arithmetic per call). None otherwise."""
    if not node.op.extra.get("reshapes") or len(node.inputs) != 1:
        return None
    if (node.attrs or {}).get("order", "C") != "C":
        return None
    x, out = node.inputs[0].aval.shape, node.outputs[0].aval.shape
    if x is None or out is None or None in x or None in out:
        return None
    return lambda a, _shape=out: a.reshape(_shape)


def _array_out(node, ins, attrs) -> bool:
    """Whether the step is a NumPy ufunc whose one result is 0-d: called with ``out=...``
    it returns an array, not a NumPy scalar to convert (~0.5 us less per loop counter)."""
    ref = node.op.ref
    return (_UFUNC_OUT_ELLIPSIS and attrs is None and isinstance(ref, np.ufunc)
            and ref.nout == 1 and ref.nin == len(ins) and len(node.outputs) == 1
            and node.outputs[0].aval.shape == ())


def _build_plan(graph: Graph) -> Plan:
    slots: dict[int, int] = {}
    for v in graph.inputs:
        slots.setdefault(v.id, len(slots))
    for node in graph.nodes:
        for v in node.outputs:
            if not v.aval.is_token:
                slots[v.id] = len(slots)

    def slot(v, node=None) -> int:
        try:
            return slots[v.id]
        except KeyError:
            at = f" in {node.op.name}" if node is not None else " as an output"
            raise ValueError(f"graph {graph.name!r} uses a value{at} that it never defines; "
                             "run graphc.ir.verify.verify(graph) for details") from None

    # Flatten: (owner graph, node, input slots, output slots) per step. A node that runs
    # a subgraph exactly (a fused group) contributes that subgraph's steps instead, its
    # inner values on slots after the graph's own; str(graph)'s numbering is unchanged.
    preset: dict[int, np.ndarray] = {}
    flat = []
    fresh = len(slots)  # the next slot for a value inside a fused group (each its own)
    for node in graph.nodes:
        ins = tuple(slot(v, node) for v in node.inputs if not v.aval.is_token)
        outs = tuple(slots[v.id] for v in node.outputs if not v.aval.is_token)
        value = _preset(node)
        if value is not None:
            preset[outs[0]] = value
            continue
        sub = _inlinable(node)
        if sub is None:
            flat.append((None, node, ins, outs))  # None: the plan's own graph
            continue
        inner = {v.id: s for v, s in zip(sub.inputs, ins)}
        inner.update({v.id: s for v, s in zip(sub.outputs, outs)})
        for n in sub.nodes:
            for v in n.outputs:
                if v.id not in inner:
                    inner[v.id], fresh = fresh, fresh + 1
            flat.append((sub, n, tuple(inner[v.id] for v in n.inputs),
                         tuple(inner[v.id] for v in n.outputs)))

    # The last step that reads each slot; outputs are read after the last step.
    last_use: dict[int, int] = {}
    for i, (_g, _n, ins, _o) in enumerate(flat):
        for s in ins:
            last_use[s] = i
    out_slots = tuple(slot(v) for v in graph.outputs)
    keep = set(out_slots) | set(preset)
    free_at: list[list[int]] = [[] for _ in flat]
    for s, i in last_use.items():
        if s not in keep:
            free_at[i].append(s)

    steps = []
    for i, (owner, node, ins, outs) in enumerate(flat):
        for s in outs:
            if s not in last_use and s not in keep:
                free_at[i].append(s)  # a dead output (e.g. an unused second result)
        attrs = dict(node.attrs) if node.attrs else None
        ref = _static_reshape(node)
        if ref is None:
            ref = node.op.ref
        else:
            attrs = None
        steps.append(Step(_array_out(node, ins, attrs), ref, ins, attrs, outs,
                          tuple(sorted(free_at[i])), bool(node.op.multiple_results), owner,
                          node))
    steps, preset = tuple(steps), tuple(preset.items())
    run = plan_code.generate(steps, len(graph.inputs), preset, out_slots)
    return Plan(len(graph.inputs), steps, out_slots, preset, run)


def _node_error(graph: Graph, node, inputs, error: Exception) -> Exception:
    """The user-facing error for ``error`` raised by ``node`` of ``graph`` on ``inputs``."""
    where = f" (while executing {node_signature(graph, node)}"
    where += f", traced at {node.src})" if node.src else ")"
    wrapped = kernel_error(node.op, error, inputs, where)
    if wrapped is error and not node.op.extra.get("named_by_body"):
        # Not rewrapped (e.g. a user exception from numpy_function, or an error from a
        # nested graph): keep its type and message, say where in this graph it happened.
        # A node that only groups user ops (fused_elementwise) adds nothing: the error
        # from its body already names the user's op and line.
        error.add_note(where.strip()[1:-1])
    return wrapped


