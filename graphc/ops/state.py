"""Variable ops: a graph reaches a ``gc.Variable`` through a *resource* value.

A resource value (aval ``RESOURCE``, printed ``resource``) names a variable, not its data.
It comes from one of two places:

* a variable passed as an argument of a ``gc.function`` is a graph input, so one trace
  serves every variable of the same dtype and shape (the trace key is ``(dtype, shape)``);
* a variable the function closes over (or creates on its first trace) comes from a
  ``variable`` node that holds it by reference in its attrs.

Reads and writes are effects (stateful ops, threaded by the effect token), so they run in
program order and are never folded, merged or pruned::

    %1:f32[3], !t1 = read_variable %0 !t0 dtype=float32 shape=(3,)
    !t2 = assign_variable %0 %2 !t1 dtype=float32 mode='add' shape=(3,)

At run time a resource value is the variable's *handle*: a 0-d ``object`` array holding
the ``Variable``, so runtimes pass it around like any other array. ``assign_variable``
with ``mode='init'`` writes only if the variable is still uninitialized: it is how a
variable created inside a ``gc.function`` from a traced value gets that value once.
"""

from __future__ import annotations

import numpy as np

from graphc.core import trace
from graphc.core.attr_types import (
    DTYPE,
    SHAPE,
    STR,
    VARIABLE,
    VariableRef,  # noqa: F401 (the ref of a variable: an attr kind)
)
from graphc.core.registry import NOT_DIFFERENTIABLE, OpDef, bind, register
from graphc.core.tensor import _symbolic
from graphc.ir.graph import Aval


class _ResourceAval(Aval):
    """The aval of a resource value: no data of its own, an object handle at run time."""

    __slots__ = ()

    def __init__(self):
        super().__init__((), np.dtype(object))

    @property
    def is_resource(self) -> bool:
        return True

    def __str__(self):
        return "resource"

    __repr__ = __str__


RESOURCE = _ResourceAval()


def is_resource(aval) -> bool:
    """True for the aval of a variable handle (plain avals have no ``is_resource``)."""
    return getattr(aval, "is_resource", False)


# --------------------------------------------------------------------------- ops
def _handle_ref(ref):
    return ref.deref()._graphc_handle


def _read_infer(handle, *, shape, dtype):
    return Aval(shape, dtype)


def _read_ref(handle, *, shape, dtype):
    return handle[()]._current()


def _assign_infer(handle, value, *, mode, shape, dtype):
    check_static(value.shape, value.dtype, shape, dtype, mode)
    return ()


def _assign_ref(handle, value, *, mode, shape, dtype):
    handle[()]._write(value, mode)
    return ()


# the handle of a variable the function closes over (held in attrs)
VARIABLE = register(OpDef(
    name="variable", attrs={"ref": VARIABLE}, infer=lambda *, ref: RESOURCE, ref=_handle_ref,
    # Pure: two nodes naming one variable may merge and an unused one may go; folding
    # would be harmless (the handle is a reference) but gains nothing.
    extra={"no_fold": True},
))
READ_VARIABLE = register(OpDef(
    name="read_variable",
    attrs={"shape": SHAPE, "dtype": DTYPE},
    infer=_read_infer, ref=_read_ref, stateful=True,
))
# mode: 'assign', 'add', 'sub', or 'init' (writes only if uninitialized)
ASSIGN_VARIABLE = register(OpDef(
    name="assign_variable",
    attrs={"mode": STR, "shape": SHAPE, "dtype": DTYPE},
    infer=_assign_infer, ref=_assign_ref, stateful=True,
    multiple_results=True,
))


# --------------------------------------------------------------------------- static checks
def shape_fits(declared, shape, mode) -> bool:
    """Whether a value of ``shape`` may be written with ``mode`` into a variable declared
    ``declared`` (``None`` dims match anything; ``add``/``sub`` values may broadcast)."""
    if declared is None or shape is None:
        return True
    if mode in ("add", "sub"):
        if len(shape) > len(declared):
            return False
        pairs = zip(reversed(declared), reversed(shape))
        return all(a is None or b is None or b == 1 or a == b for a, b in pairs)
    if len(shape) != len(declared):
        return False
    return all(a is None or b is None or a == b for a, b in zip(declared, shape))


def dtype_fits(src, dst) -> bool:
    """Values cast into a variable's dtype within their kind (float64 -> float32), never
    across kinds (a float into an int variable): NumPy's ``same_kind`` rule."""
    return np.can_cast(src, dst, "same_kind")


def check_static(shape, dtype, declared, var_dtype, mode, name="variable") -> None:
    """Raise the user-facing error for a write that can never fit, at trace time."""
    if not dtype_fits(dtype, var_dtype):
        raise TypeError(
            f"gc.Variable {name!r} holds {var_dtype.name}; cannot write a {dtype.name} value "
            f"into it (cast it first, e.g. gc.cast(value, gc.{var_dtype.name}))")
    if not shape_fits(declared, shape, "init" if mode == "init" else mode):
        raise ValueError(shape_message(name, declared, shape, mode))


def shape_message(name, declared, shape, mode) -> str:
    how = "add to / subtract from" if mode in ("add", "sub") else "assign to"
    declared, shape = tuple(declared), tuple(shape)
    text = (f"cannot {how} gc.Variable {name!r} of shape {declared} a value of shape "
            f"{shape}; ")
    if mode in ("add", "sub"):
        return text + "the value must broadcast to the variable's shape"
    if len(declared) != len(shape):
        return text + "a variable's rank never changes"
    dims = ", ".join("None" for _ in declared) + ("," if len(declared) == 1 else "")
    return text + (f"a variable keeps its shape unless it was created with unknown dims, "
                   f"e.g. gc.Variable(initial_value, shape=({dims}))")


# --------------------------------------------------------------------------- tracing
_HANDLES = "_graphc_variables"  # TraceContext attribute: id(variable) -> (variable, Value)


def _table(ctx) -> dict:
    table = ctx.__dict__.get(_HANDLES)
    if table is None:
        table = ctx.__dict__[_HANDLES] = {}
    return table


def argument_input(ctx, variable):
    """Make ``variable`` (an argument of the function being traced) a resource input of
    ``ctx``'s graph; reads and writes of it in the body go through that input."""
    value = ctx.new_input(RESOURCE)
    _table(ctx).setdefault(id(variable), (variable, value))
    return value


def handle(variable):
    """The symbolic handle of ``variable`` in the graph being traced.

    An argument's input if it is one, else a ``variable`` node made once per graph.
    A handle from an enclosing graph (a branch reading an outer argument) is captured
    as the inner graph's input by ``TraceContext``, like any outer value.
    """
    ctx = trace.current()
    key = id(variable)
    scope = ctx
    while scope is not None:
        hit = scope.__dict__.get(_HANDLES, {}).get(key)
        if hit is not None:
            return _symbolic(hit[1])
        # a context re-entered while on top of the stack is its own parent: stop there
        scope = scope.parent if scope.parent is not scope else None
    (value,) = ctx.add_node(VARIABLE, (), {"ref": variable.ref()}, (RESOURCE,))
    _table(ctx)[key] = (variable, value)
    return _symbolic(value)


def writes_variables(nodes) -> bool:
    """Whether any of ``nodes`` (or a node of their branches and loop bodies) writes a
    variable."""
    return any(n.op is ASSIGN_VARIABLE or writes_variables(
        [m for g in n.subgraphs() for m in g.nodes]) for n in nodes)


def read(variable):
    """Record a read of ``variable`` in the current trace; return the symbolic value."""
    once = _read_once_value(variable)
    if once is not None:
        return once
    return bind(READ_VARIABLE, handle(variable), shape=variable.shape, dtype=variable.dtype)


# TraceContext attribute: id(variable) -> (variable, input value standing for its value)
_READ_ONCE = "_graphc_read_once"


def read_once(ctx) -> dict:
    """Make ``ctx`` read each variable once: a read while ``ctx`` or a branch or loop
    body inside it is traced gives an input of ``ctx`` standing for the variable's value
    (no read node, no effect), the same for every read. Returns ``{id(variable):
    (variable, input value)}``, filled as the trace reads; the caller feeds the inputs
    (``gc.vectorized_map``: each variable read once, unbatched). A nested
    ``gc.function``'s reads stay reads."""
    return ctx.__dict__.setdefault(_READ_ONCE, {})


def _read_once_value(variable):
    ctx = trace.current()
    while ctx is not None:
        table = ctx.__dict__.get(_READ_ONCE)
        if table is not None:
            hit = table.get(id(variable))
            if hit is None:
                aval = _read_infer(None, shape=variable.shape, dtype=variable.dtype)
                hit = table[id(variable)] = (variable, ctx.new_input(aval))
            return _symbolic(hit[1])  # a tensor per read, as a read node gives
        if hasattr(ctx, "function") or ctx.parent is ctx:
            return None
        ctx = ctx.parent
    return None


def read_once_values(ctx, variable) -> list:
    """The inputs standing for ``variable``'s value in ``ctx`` and the contexts it is
    nested in (``read_once``)."""
    out = []
    while ctx is not None:
        hit = ctx.__dict__.get(_READ_ONCE, {}).get(id(variable))
        if hit is not None and hit[0] is variable:
            out.append(hit[1])
        ctx = ctx.parent if ctx.parent is not ctx else None
    return out


def write(variable, value, mode: str) -> None:
    """Record a write of ``value`` (a tensor) into ``variable`` in the current trace."""
    bind(ASSIGN_VARIABLE, handle(variable), value, mode=mode, shape=variable.shape,
         dtype=variable.dtype)


# --------------------------------------------------------------------------- gradients
# Handles and writes carry no values to differentiate; a read's gradient reaches its
# variable through the tape's variable hooks (graphc/transforms/tape.py), not this op.
VARIABLE.grad = READ_VARIABLE.grad = ASSIGN_VARIABLE.grad = NOT_DIFFERENTIABLE


# --------------------------------------------------------------------------- graph queries
def read_handle(node):
    """The handle value a ``read_variable`` node reads, else None (transforms use this
    instead of testing op names)."""
    return node.inputs[0] if node.op is READ_VARIABLE else None


def is_handle_of(node, variable) -> bool:
    """Whether ``node`` is a ``variable`` node holding ``variable`` by reference."""
    return node.op is VARIABLE and node.attrs.get("ref") == variable.ref()
