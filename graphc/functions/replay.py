"""Run a traced graph again through the front end: each node bound anew.

A ``ConcreteFunction`` normally runs its graph as one program. Two callers need its ops
one by one instead, so that what watches ops sees them:

* a call inside another trace (a loaded function, or ``f.get_concrete_function()``,
  called from a ``gc.function``): the graph is inlined into the trace being built, where
  ``gc.gradients``, tapes, the passes and the compiler see its nodes as their own;
* an eager call while a ``gc.GradientTape`` of this thread records: each op runs eagerly
  and is recorded, so the tape differentiates through the call (TensorFlow records a
  function call as one op with a gradient function; here the call's ops are the record).

Most nodes are ``bind(op, *inputs, **attrs)`` again. Ops whose front end does more than
``bind`` (variables: reads a tape must see as reads of the variable; control flow: the
branches and bodies run by replaying their graphs, so reads inside them are seen too) go
through their public API, listed in :data:`FRONT_ENDS`.
"""

from __future__ import annotations

from graphc.core.registry import bind
from graphc.ops import state
from graphc.ops.control import flow as control


def replay(graph, inputs) -> list:
    """``graph``'s outputs for ``inputs`` (tensors, or ``gc.Variable``s for resource
    inputs), computed by binding its nodes in order."""
    env = {v.id: x for v, x in zip(graph.inputs, inputs)}
    for node in graph.nodes:
        args = [env[v.id] for v in node.inputs if not v.aval.is_token]
        front = FRONT_ENDS.get(id(node.op))
        out = front(node, args) if front is not None else bind(node.op, *args, **node.attrs)
        results = out if node.op.multiple_results else (out,)
        data = [v for v in node.outputs if not v.aval.is_token]
        for v, r in zip(data, results, strict=True):
            env[v.id] = r
    return [env[v.id] for v in graph.outputs]


def _variable(node, args):
    return node.attrs["ref"].deref()


def _read(node, args):
    return args[0].read_value()


def _assign(node, args):
    args[0]._update(args[1], node.attrs["mode"], False)
    return ()


def _cond(node, args):
    pred, operands = args[0], args[1:]
    a, b = node.attrs["true_fn"], node.attrs["false_fn"]
    return control.cond(pred, lambda: tuple(replay(a, operands)),
                        lambda: tuple(replay(b, operands)))


def _switch_case(node, args):
    index, operands = args[0], args[1:]
    return control.switch_case(index, [_branch(g, operands) for g in
                                       node.attrs["branches"]])


def _branch(graph, operands):
    return lambda: tuple(replay(graph, operands))


def _while_loop(node, args):
    cond, body = node.attrs["cond"], node.attrs["body"]
    n = len(body.outputs)
    loop_vars, consts = args[:n], args[n:]
    out = control.while_loop(lambda *vs: replay(cond, [*vs, *consts])[0],
                             lambda *vs: tuple(replay(body, [*vs, *consts])),
                             tuple(loop_vars))
    return tuple(out)


FRONT_ENDS = {id(op): fn for op, fn in (
    (state.VARIABLE, _variable), (state.READ_VARIABLE, _read),
    (state.ASSIGN_VARIABLE, _assign), (control.COND, _cond),
    (control.SWITCH_CASE, _switch_case), (control.WHILE_LOOP, _while_loop))}
