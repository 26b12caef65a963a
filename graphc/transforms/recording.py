"""What a recording ``GradientTape`` sees: the tapes each thread has open and the records
they keep, fed by ``bind`` (through ``hooks.record_bind``), by control-flow nodes staged
by hand (``hooks.record_node``) and by ``gc.Variable`` reads (``hooks.on_variable_read``).

The tape itself, which walks its records backwards, is ``tape.py``; this module sits
below it and below the backward walk (``autodiff.py``), which both use it.
"""

from __future__ import annotations

import threading

from graphc import source_info
from graphc.core import hooks

# Non-empty while any thread has a recording tape: ``bind`` tests its truth (as cheap as
# the test of an empty list) before looking at the thread's own tapes.
recording = hooks.tapes  # the list itself lives in the core, for bind
lock = threading.Lock()


class _Local(threading.local):
    def __init__(self):
        self.tapes: list = []  # GradientTapes, innermost last


local = _Local()


class Record:
    """One recorded op; ``where`` (the user's line) is kept for ops with no gradient
    rule, whose error must name it."""

    __slots__ = ("op", "args", "outputs", "attrs", "where")

    def __init__(self, op, args, outputs, attrs):
        self.op, self.args, self.outputs, self.attrs = op, args, outputs, attrs
        self.where = source_info.where() if op.grad is None else ""


class Paused:
    def __init__(self, tape):
        self.tape = tape

    def __enter__(self):
        tapes = local.tapes
        self.at = tapes.index(self.tape) if self.tape in tapes else None
        if self.at is not None:
            tapes.pop(self.at)
        return self

    def __exit__(self, *exc):
        if self.at is not None:
            local.tapes.insert(self.at, self.tape)
        return False


class unrecorded:
    """A context in which no tape of this thread records: for values whose derivative
    is zero by construction (the ``ones`` seeding a gradient, the ``zeros`` standing
    for a missing cotangent), so an outer tape does not keep them."""

    def __enter__(self):
        self.saved = local.tapes
        local.tapes = []
        return self

    def __exit__(self, *exc):
        local.tapes = self.saved
        return False


# ---------------------------------------------------------------------- hooks
def record_bind(bind_now, op, args, attrs):
    """``bind`` while some tape records: run the op, then record it on this thread's
    tapes (a variable operand is read first, so the read is what the tape sees)."""
    tapes = local.tapes
    if not tapes:
        return bind_now(op, args, attrs)
    args = tuple(a._graphc_tensor_() if hasattr(a, "_graphc_tensor_") else a for a in args)
    out = bind_now(op, args, attrs)
    outputs = tuple(out) if isinstance(out, list | tuple) else (out,)
    for tape in tapes:
        tape._record(op, args, outputs, attrs)
    return out


def record_node(op, inputs, outputs, attrs) -> None:
    """Called for a node staged without ``bind`` (``cond``, ``switch_case``,
    ``while_loop``: ``ops/control/trace.add_control_node``) while some tape records;
    ``inputs`` are the node's graph values, ``outputs`` its symbolic tensors."""
    for tape in local.tapes:
        tape._record_staged(op, inputs, outputs, attrs)


def on_variable_read(variable, tensor) -> None:
    """Called by ``gc.Variable`` for each read while some tape records."""
    for tape in local.tapes:
        tape._on_variable_read(variable, tensor)


def rename(before, after, allowed=None) -> None:
    """Every recording tape of this thread names ``after`` where it named ``before``
    (an in-place write: ``graphc/ops/inplace.py``). With ``allowed`` (a snapshot taken
    before the write), a tape refuses when another tensor it recorded, not in
    ``allowed``, shares memory with an eager ``before``."""
    for tape in local.tapes:
        tape._rename(before, after, allowed)


def view_family(t):
    """What this thread's tapes recorded about the eager ``t`` as a view, for a write
    into it: ``(root, path, views)``. ``root`` is the tensor ``t`` is (a view of a view
    of ...) a view of, ``t`` itself when it is none; ``path``: the links from ``t`` up to
    the root; ``views``: the links of every live recorded view of the root, parents before
    children (``t`` and ``path``'s tensors among them). A link is ``(view, base, op,
    other args, attrs)``, read before the write renames anything."""
    def link(x):
        for tape in local.tapes:
            found = tape._view_base(x)
            if found is not None:
                base, r = found
                return (x, base, r.op, r.args[1:], dict(r.attrs))
        return None

    path, x = [], t
    while (up := link(x)) is not None and len(path) < 64:
        path.append(up)
        x = up[1]
    root, views, seen, todo = x, [], {id(x)}, [x]
    while todo:
        node = todo.pop(0)
        for tape in local.tapes:
            for v, r in tape._views_of(node):
                if id(v) not in seen:
                    seen.add(id(v))
                    views.append((v, node, r.op, r.args[1:], dict(r.attrs)))
                    todo.append(v)
    return root, path, views
