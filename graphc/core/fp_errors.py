"""NumPy's floating-point warnings (overflow, invalid value, divide by zero) raised while
the interpreter runs a graph, reported at the user's line that traced the op.

NumPy warns at the Python line that called the ufunc, which for a graph is the
interpreter's generated plan function (``graphc/core/plan_code.py``), never the user's
code. While
a graph runs, :func:`user_errstate` has NumPy call :func:`_report` instead of warning,
for exactly the error kinds the user's NumPy settings would warn about (``np.seterr``:
``ignore``, ``raise``, ``print`` and ``log`` stay as they are). ``_report`` finds the node
being run (from the line of the innermost plan frame) and warns once at the line
that traced it, naming the op: ``RuntimeWarning: overflow encountered in exp``. NumPy's
error state is per thread (a context variable), so other threads are unaffected.
Compiled programs do not repeat NumPy's warnings (docs/runtime.md).
"""

from __future__ import annotations

import contextlib
import sys

import numpy as np

from graphc import errors


def user_errstate():
    """A context in which NumPy's floating-point warnings go to :func:`_report`; a no-op
    inside one already (a loop body's graph, run by the interpreter's own step)."""
    if np.geterrcall() is _report:
        return contextlib.nullcontext()
    return np.errstate(call=_report, **_reporting(np.geterr()))


def _reporting(settings: dict) -> dict:
    return {kind: ("call" if settings[kind] == "warn" else settings[kind])
            for kind in ("divide", "over", "under", "invalid")}


try:  # NumPy 2's error state is one context variable holding an immutable object
    from numpy._core.umath import _extobj_contextvar, _get_extobj_dict, _make_extobj
except ImportError:  # pragma: no cover - another NumPy layout: the public (slower) path
    _extobj_contextvar = None

# the caller's error state -> ours (both kept alive, so identity is a safe key); small
_derived: dict[int, tuple] = {}


def enter():
    """Start reporting (what :func:`user_errstate` does), cheaply: ~0.3 us instead of
    ~9 us for ``np.geterr`` + ``np.errstate``, which a small graph's call cannot afford.
    Returns the token for :func:`leave`."""
    if _extobj_contextvar is None:
        ctx = user_errstate()
        ctx.__enter__()
        return ctx
    current = _extobj_contextvar.get()
    entry = _derived.get(id(current))
    if entry is None or entry[0] is not current:
        if len(_derived) > 32:
            _derived.clear()
        settings = _get_extobj_dict()
        ours = (current if settings["call"] is _report else
                _make_extobj(call=_report, bufsize=settings["bufsize"], **_reporting(settings)))
        entry = _derived[id(current)] = (current, ours)
    return _extobj_contextvar.set(entry[1])


def leave(token) -> None:
    """End what :func:`enter` started."""
    if _extobj_contextvar is None:
        token.__exit__(None, None, None)
    else:
        _extobj_contextvar.reset(token)


def _report(kind: str, _flag: int) -> None:
    """Called by NumPy for one floating-point error kind of one ufunc call."""
    frame = sys._getframe(1)
    node = None
    while frame is not None:
        step_at = frame.f_globals.get("__graphc_step_at__")  # an interpreter plan's frame
        if step_at is not None:
            step = step_at(frame.f_lineno)
            node = step.node if step is not None else None
            break
        frame = frame.f_back
    name = node.op.name if node is not None else "an op"
    at = None
    if node is not None and node.src and ":" in node.src:
        filename, _, line = node.src.rpartition(":")
        if line.isdigit():
            at = (filename, int(line))
    errors.warn(f"{kind} encountered in {name}", RuntimeWarning, at=at)
