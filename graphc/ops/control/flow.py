"""Functional control flow: the ``cond``, ``while_loop`` and ``switch_case`` ops and their
public forms ``gc.cond``, ``gc.while_loop`` and ``gc.switch_case``.

Like JAX's ``cond_p``/``while_p``, each op holds closed subgraphs in its attrs (captured
values are explicit extra operands) and its ``ref`` runs only the subgraph it needs with
the reference interpreter, so an untaken branch never executes. A node whose subgraphs
have effects takes and returns the effect token (``trace.add_control_node``); the
interpreter never materializes tokens, so ``ref`` sees data operands only.

In eager mode, and for Python (non-symbolic) predicates, the public forms run the Python
functions directly, as TensorFlow does. The gradient rules (``grad.py``) and batching
rules (``batch.py``) attach themselves to these ops.
"""

from __future__ import annotations

import numpy as np

from graphc import nest, source_info
from graphc.core import hooks, trace
from graphc.core.attr_types import GRAPH, GRAPHS
from graphc.core.interpreter import run_graph
from graphc.core.registry import OpDef, bind, register
from graphc.core.tensor import Tensor
from graphc.errors import AutographError
from graphc.ir import graph as ir
from graphc.ops.blocks import BRANCH, LOOP
from graphc.ops.control.loop import stage_loop
from graphc.ops.control.trace import Site, scalar_bool, stage_branches
from graphc.ops.control.values import is_symbolic, join_shapes
from graphc.ops.elementwise import STOP_GRADIENT
from graphc.ops.tensor_array.array import unshaped_to_shaped
from graphc.ops.tf_elementwise import logical_and


# --------------------------------------------------------------------------- the ops
def _joined(graphs) -> tuple:
    first = graphs[0].outputs
    avals = []
    for j, v in enumerate(first):
        shape = v.aval.shape
        for g in graphs[1:]:
            shape = join_shapes(shape, g.outputs[j].aval.shape)
        avals.append(ir.Aval(shape, v.aval.dtype))
    return tuple(avals)


def _cond_infer(pred, *operands, true_fn, false_fn):
    return _joined([true_fn, false_fn])


def _cond_ref(pred, *operands, true_fn, false_fn):
    return run_graph(true_fn if pred else false_fn, list(operands))


# true_fn(*operands) if pred else false_fn(*operands); only one branch runs
COND = register(OpDef(
    name="cond",
    attrs={"true_fn": GRAPH, "false_fn": GRAPH},
    infer=_cond_infer, ref=_cond_ref, multiple_results=True, blocks=BRANCH,
))


def _switch_infer(index, *operands, branches):
    return _joined(list(branches))


def _switch_ref(index, *operands, branches):
    i = int(index)
    if not 0 <= i < len(branches):
        i = len(branches) - 1  # TensorFlow: an out-of-range index runs the last branch
    return run_graph(branches[i], list(operands))


# branches[index](*operands); an out-of-range index runs the last branch
SWITCH_CASE = register(OpDef(
    name="switch_case",
    attrs={"branches": GRAPHS},
    infer=_switch_infer, ref=_switch_ref, multiple_results=True, blocks=BRANCH,
))


def _while_infer(*operands, cond, body):
    return tuple(v.aval for v in body.inputs[:len(body.outputs)])


def _while_ref(*operands, cond, body):
    n = len(body.outputs)
    state, consts = list(operands[:n]), list(operands[n:])
    count, finish = 0, None
    while run_graph(cond, state + consts)[0]:
        state = run_graph(body, state + consts)
        count += 1
        if finish is not None:  # a long loop: continue compiled once the program is ready
            done = finish(state + consts)
            if done is not None:
                return list(done)
        elif count == HANDOVER_AFTER and hooks.loop_handover is not None:
            finish = hooks.loop_handover(cond, body)
    return state


# iterations the interpreter runs a loop before it asks for the loop compiled on its own
# (runtime/cpu/loop_handover.py: on-stack replacement)
HANDOVER_AFTER = 64


# while cond(*vars, *consts): vars = body(*vars, *consts)
WHILE_LOOP = register(OpDef(
    name="while_loop",
    attrs={"cond": GRAPH, "body": GRAPH},
    infer=_while_infer, ref=_while_ref, multiple_results=True, blocks=LOOP,
))


# --------------------------------------------------------------------------- public API
def _where_text() -> str:
    loc = source_info.user_frame(3)
    return f" at {loc[0]}:{loc[1]}" if loc else ""


def cond(pred, true_fn=None, false_fn=None, name=None):
    """``true_fn()`` if ``pred`` else ``false_fn()``, as a graph ``cond`` when ``pred`` is
    symbolic (``tf.cond``). Both functions must return the same structure; Python
    numbers take the dtype of the other branch's tensor; a ``gc.Variable`` is read.

    >>> gc.cond(x > 0, lambda: x, lambda: 0)          # doctest: +SKIP
    """
    if not callable(true_fn) or not callable(false_fn):
        raise TypeError("gc.cond: true_fn and false_fn must be callables taking no "
                        f"arguments, got {true_fn!r} and {false_fn!r}")
    if not is_symbolic(pred):
        return true_fn() if _truth(pred) else false_fn()
    site = Site(f"gc.cond{_where_text()}", ["true_fn", "false_fn"])
    pv = scalar_bool(trace.current(), pred, "gc.cond: pred")
    return stage_branches(COND, pv, [_reading(true_fn), _reading(false_fn)],
                          lambda g: {"true_fn": g[0], "false_fn": g[1]}, site)


def switch_case(branch_index, branch_fns, default=None, name=None):
    """Run ``branch_fns[branch_index]()`` (``tf.switch_case``); an index out of range runs
    ``default`` if given, else the last branch. ``branch_fns`` is a list of callables or a
    dict / list of pairs ``{int: callable}`` with keys ``0..n-1``.

    >>> gc.switch_case(i, [lambda: x, lambda: 2 * x])   # doctest: +SKIP
    """
    fns = _branch_list(branch_fns)
    if default is not None:
        fns.append(default)
    if not is_symbolic(branch_index):
        i = int(branch_index)
        return fns[i if 0 <= i < len(fns) else -1]()
    if branch_index.shape != () or branch_index.dtype.kind not in "iu":
        raise TypeError(f"gc.switch_case: branch_index must be an integer scalar, got "
                        f"{branch_index.aval}{source_info.where()}")
    site = Site(f"gc.switch_case{_where_text()}", [f"branch {k}" for k in range(len(fns))])
    iv = trace.current().value_of(branch_index)
    return stage_branches(SWITCH_CASE, iv, [_reading(f) for f in fns],
                          lambda g: {"branches": tuple(g)}, site)


def _reading(fn):
    """``fn`` whose results' ``gc.Variable`` leaves are read, as a traced TensorFlow
    branch returns a variable's value (a branch returning a variable was an error)."""
    def branch():
        return nest.map_structure(_read_variable, fn())
    return branch


def _read_variable(x):
    as_tensor = getattr(x, "_graphc_tensor_", None)
    return x if as_tensor is None or isinstance(x, Tensor) else as_tensor()


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10,
               back_prop=True, swap_memory=False, maximum_iterations=None, name=None):
    """Repeat ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)`` (``tf.while_loop``).

    ``loop_vars`` is a list/tuple (unpacked into the calls) or a single value or nest.
    While tracing it is one ``while_loop`` node: loop variables keep their dtype, dims
    that change are relaxed to ``None``. ``maximum_iterations`` bounds the trip count.
    A ``gc.TensorArray`` loop variable without an element shape gets its buffer from the
    body's first write. ``back_prop=False`` stops gradients at the results, as in
    TensorFlow.

    >>> gc.while_loop(lambda i, s: i < 10, lambda i, s: (i + 1, s + i), [0, 0])  # doctest: +SKIP
    """
    seq = isinstance(loop_vars, list | tuple) and not hasattr(type(loop_vars), "_fields")
    packed = list(loop_vars) if seq else [loop_vars]

    def step(vals):
        out = body(*vals)
        if not seq:
            return [out]
        if len(packed) == 1 and not isinstance(out, list | tuple):
            return [out]
        return list(out)

    def repack(vals):
        if not back_prop:
            vals = [nest.map_structure(_stopped, v) for v in vals]
        return type(loop_vars)(vals) if seq else vals[0]

    if not trace.active():
        vals, i = packed, 0
        treedef = nest.flatten(packed)[1]
        while (maximum_iterations is None or i < maximum_iterations) and _truth(cond(*vals)):
            vals, i = step(vals), i + 1
            if nest.flatten(vals)[1] != treedef:
                makers = _buffer_makers(packed, vals)
                packed = [makers[j]() if j in makers else v for j, v in enumerate(packed)]
                treedef = nest.flatten(packed)[1]
            if nest.flatten(vals)[1] != treedef:  # as traced (ValueError, as TensorFlow)
                raise AutographError(
                    f"gc.while_loop{_where_text()}: body returned {vals!r:.80}, whose "
                    f"structure differs from loop_vars {packed!r:.80}")
        return repack(vals)
    while True:
        try:
            return repack(_stage_while(cond, step, packed, maximum_iterations))
        except _Unshaped as unshaped:  # made before the loop, in the enclosing trace
            packed = [unshaped.makers[j]() if j in unshaped.makers else v
                      for j, v in enumerate(packed)]


class _Unshaped(Exception):
    """The body gave loop variables ``makers`` (TensorArrays without a buffer before the
    loop) their first elements: stage again with buffers made by ``makers[j]()``."""

    def __init__(self, makers):
        super().__init__()
        self.makers = makers


def _buffer_makers(before, after) -> dict:
    makers = {}
    for j, (b, a) in enumerate(zip(before, after)):
        make = unshaped_to_shaped(b, a)
        if make is not None:
            makers[j] = make
    return makers


def _stopped(x):
    return bind(STOP_GRADIENT, x) if isinstance(x, Tensor) else x


def _stage_while(cond, step, packed, maximum_iterations) -> list:
    """The traced form of ``while_loop``: one ``while_loop`` node; returns the loop
    variables after it, as a list like ``packed``."""
    leaves, treedef = nest.flatten(packed)
    counted = maximum_iterations is not None

    def cond_fn(*flat):
        vals = nest.unflatten(treedef, flat[1:] if counted else flat)
        c = cond(*vals)
        if counted:
            return logical_and(flat[0] < maximum_iterations, c)
        return c

    def body_fn(*flat):
        out = step(nest.unflatten(treedef, flat[1:] if counted else flat))
        out_leaves, out_td = nest.flatten(out)
        if out_td != treedef:
            makers = _buffer_makers(packed, out)
            if makers:
                raise _Unshaped(makers)
            raise AutographError(
                f"gc.while_loop{_where_text()}: body returned {out!r:.80}, whose structure "
                f"differs from loop_vars {packed!r:.80}")
        return [flat[0] + 1, *out_leaves] if counted else out_leaves

    site = Site(f"gc.while_loop{_where_text()}", [], lambda i: f"loop variable {i}")
    init = [np.asarray(0, np.int64), *leaves] if counted else leaves
    if counted:
        site.leaf_name = lambda i: "the iteration counter" if i == 0 else f"loop variable {i-1}"
    final = stage_loop(WHILE_LOOP, cond_fn, body_fn, init, site)
    return nest.unflatten(treedef, final[1:] if counted else final)


def _truth(pred) -> bool:
    return bool(pred)


def _branch_list(branch_fns) -> list:
    if isinstance(branch_fns, dict):
        pairs = sorted(branch_fns.items())
    elif branch_fns and all(isinstance(b, tuple) and len(b) == 2 for b in branch_fns):
        pairs = sorted(branch_fns)
    else:
        fns = list(branch_fns)
        if not fns or not all(callable(f) for f in fns):
            raise TypeError("gc.switch_case: branch_fns must be a non-empty list of "
                            "callables or a dict {int: callable}")
        return fns
    keys = [k for k, _ in pairs]
    if keys != list(range(len(keys))):
        raise ValueError(f"gc.switch_case: branch keys must be 0..{len(keys) - 1}, got {keys}")
    return [f for _, f in pairs]


# gradients: graphc/ops/control/grad.py; batching (gc.vectorized_map):
# graphc/ops/control/batch.py; each attaches its rules to these ops.
