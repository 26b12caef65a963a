"""Python lists that a staged loop body or branch must not change.

A tensor loop's body and both branches of a tensor ``if`` are *traced*: their Python code
runs once (or a few times, while shapes settle), not once per iteration or only when the
branch is taken. A Python list that existed before the staged statement and is changed
while its body is traced (``out.append(x)``, ``stack.pop()``) would change at trace time
only, and ends up holding traced values of the body. AutoGraph refuses that
(``graphc.autograph.operators.call_builtin``); lists made inside the body stay free to use.

``staged(construct)`` marks the tracing of one body or branch (a per-thread stack, as
trace contexts are per thread) and records the lists that exist outside it: those
reachable from the locals and globals of the user's frames running the statement, a few
containers and object attributes deep. ``outer_construct(lst)`` says which statement
``lst`` is outside of, if any.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import types

_DEPTH = 3  # containers / attributes followed from a frame's locals
_MAX_OBJECTS = 20000  # objects visited per snapshot (a bound on its cost)
_MAX_FRAMES = 64
_SKIP = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType,
         types.MethodType, types.CodeType, types.FrameType)


class _Scope:
    __slots__ = ("construct", "lists")

    def __init__(self, construct, lists):
        self.construct = construct
        self.lists = lists  # id -> list, holding them so that no id is reused meanwhile


class _Scopes(threading.local):
    def __init__(self):
        self.stack: list[_Scope] = []


_scopes = _Scopes()


@contextlib.contextmanager
def staged(construct: str):
    """While tracing a body or branch of ``construct`` (e.g. "the `for` at f.py:7")."""
    stack = _scopes.stack
    stack.append(_Scope(construct, _outer_lists(sys._getframe(2))))
    try:
        yield
    finally:
        stack.pop()


def outer_construct(lst) -> str | None:
    """The staged statement being traced that ``lst`` existed before, else ``None``."""
    stack = _scopes.stack
    if stack and id(lst) in stack[-1].lists:
        return stack[-1].construct
    return None


def _outer_lists(frame) -> dict:
    """Lists reachable from the user frames above ``frame``, up to the ``gc.function``
    being traced (graphc's own frames are skipped: their state is the user's too)."""
    found: dict = {}
    seen: set = set()
    budget = [_MAX_OBJECTS]
    for _ in range(_MAX_FRAMES):
        if frame is None:
            break
        module = frame.f_globals.get("__name__", "")
        if module == "graphc.functions.concrete":  # the gc.function boundary
            break
        if not (module == "graphc" or module.startswith("graphc.")):
            for value in frame.f_locals.values():
                _collect(value, _DEPTH, found, seen, budget)
            for value in frame.f_globals.values():
                _collect(value, 1, found, seen, budget)
        frame = frame.f_back
    return found


def _collect(value, depth, found, seen, budget) -> None:
    if budget[0] <= 0 or id(value) in seen:
        return
    budget[0] -= 1
    t = type(value)
    if t is list:
        seen.add(id(value))
        found[id(value)] = value
        items = value
    elif t is tuple or t is set or t is frozenset:
        seen.add(id(value))
        items = value
    elif t is dict:
        seen.add(id(value))
        items = value.values()
    elif depth > 0 and not isinstance(value, _SKIP) and hasattr(value, "__dict__") \
            and not t.__module__.startswith("graphc"):
        seen.add(id(value))
        try:
            items = vars(value).values()
        except TypeError:
            return
    else:
        return
    if depth > 0:
        for item in list(items)[:1000]:
            _collect(item, depth - 1, found, seen, budget)
