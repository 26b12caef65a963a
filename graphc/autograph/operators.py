"""What converted code calls at run time: the ``ag__`` namespace.

Every operator dispatches on its condition's value, so converted code behaves exactly
like the original on Python values (the as-if rule): a Python condition just runs
``body() if cond else orelse()`` or the Python loop. A *symbolic* tensor condition
stages the statement as a graph ``cond`` or ``while_loop`` (``graphc.ops.control.flow``).
Statements live in ``conditionals.py`` and ``loops.py``; calls of builtins, casts and
asserts here. ``api.py`` builds the namespace converted code sees from these and
``call``.
"""

from __future__ import annotations

import builtins

import numpy as np

from graphc.autograph import builtin_calls
from graphc.autograph.conditionals import (
    and_,
    as_bool,
    compare_chain,
    here,
    if_exp,
    if_stmt,
    not_,
    or_,
)
from graphc.autograph.loops import for_stmt, while_stmt
from graphc.errors import AutographError
from graphc.ops.control.staged_lists import outer_construct
from graphc.ops.control.values import Undefined, UndefinedReturnValue, is_symbolic
from graphc.ops.creation import arange
from graphc.ops.effects import Assert, print_
from graphc.ops.shape import shape as shape_op

__all__ = ["Undefined", "UndefinedReturnValue", "if_stmt", "while_stmt", "for_stmt", "and_",
           "or_", "not_", "compare_chain", "if_exp", "call_builtin", "assert_stmt", "ld", "ldu",
           "ldc", "defined", "retval"]


def ld(value, name: str, free: bool = False):
    """A read of variable ``name``: its value, or Python's error if it was never assigned
    (it still holds AutoGraph's ``Undefined`` placeholder): ``UnboundLocalError``, or
    ``NameError`` for a ``free`` read (from a lambda)."""
    if type(value) is Undefined:
        if free:
            raise NameError(f"cannot access free variable '{name}' where it is not "
                            "associated with a value in enclosing scope")
        raise UnboundLocalError(
            f"cannot access local variable '{name}' where it is not associated with a value")
    return value


def ldu(load, name: str):
    """The value of a variable that may not be assigned yet, else ``Undefined(name)``."""
    try:
        return load()
    except NameError:
        return Undefined(name)


def ldc(load, name: str):
    """The value of a composite name (``d['a']``, ``obj.x``), or ``Undefined(name)`` if
    it does not exist (yet)."""
    try:
        return load()
    except (NameError, AttributeError, LookupError):
        return Undefined(name)


def defined(value) -> bool:
    return type(value) is not Undefined


def retval(value, returned=True, name=None):
    """A converted function's result: ``None`` if no ``return`` ran. ``returned`` is the
    flag of a function that can fall off its end: a tensor there means that whether it
    returns a value or ``None`` depends on a tensor, which a graph cannot express."""
    if is_symbolic(returned):
        raise AutographError(
            f"{name}() at {here()} returns a value on some paths but ends without a "
            "`return` (returning None) on others, and which one runs depends on a "
            "tensor; in a graph every path must return a value: add a `return` to the "
            "branch or the end of the function that has none")
    if isinstance(value, UndefinedReturnValue) or not returned:
        return None
    return value


# --------------------------------------------------------------------------- calls
def call_builtin(func, args, kwargs):
    """``func(*args, **kwargs)`` when ``func`` is a builtin that converted code treats
    specially, else ``NotImplemented`` (``ag__.call``, in ``api.py``, then converts a user
    function and calls it): ``bool``, ``len`` and ``range`` of symbolic tensors become
    graph ops, as do ``max``, ``min``, ``sum``, ``round``, ``int`` and ``float``
    (``builtin_calls.py``), and ``print`` of one becomes ``gc.print`` (it
    prints each time the graph runs, as TensorFlow's AutoGraph turns ``print`` into
    ``tf.print``); a list method changing a list a staged construct must not change
    raises."""
    if type(func) is _BUILTIN_METHOD and type(getattr(func, "__self__", None)) is list \
            and func.__name__ in _LIST_MUTATORS:
        construct = outer_construct(func.__self__)
        if construct is not None:
            raise AutographError(_list_mutation_message(func.__name__, construct))
    staged = builtin_calls.call(func, args, kwargs)
    if staged is not NotImplemented:
        return staged
    if args and is_symbolic(args[0]) and len(args) == 1 and not kwargs:
        if func is builtins.bool:
            return as_bool(args[0])
        if func is builtins.len:
            return _len(args[0])
    if func is builtins.range and any(is_symbolic(a) for a in args):
        return arange(*args)
    if func is builtins.print and any(is_symbolic(a) for a in args):
        # a traced tensor has no value to print now: print it when the graph runs

        kwargs.pop("flush", None)
        return print_(*args, **kwargs)
    return NotImplemented


_BUILTIN_METHOD = type([].append)
_LIST_MUTATORS = frozenset(["append", "extend", "insert", "pop", "remove", "clear"])


def _list_mutation_message(method: str, construct: str) -> str:
    """Why ``list.<method>()`` on a list made outside a staged loop or branch is refused,
    and what to write instead."""
    where = here()
    loop = "`if`" not in construct and "cond" not in construct
    if loop:
        when = ("the loop body is traced once to build one graph loop, so the list would "
                "change once, when the loop is traced, not once per iteration")
    else:
        when = ("both branches are traced to build one graph cond, so the list would "
                "change in both, whichever branch runs")
    grows = method in ("append", "extend", "insert")
    if grows:
        fix = ("collect the values in a gc.TensorArray instead: `ta = gc.TensorArray("
               "dtype, size=0, dynamic_size=True)` before the statement, `ta = "
               "ta.write(i, x)` inside it, and `ta.stack()` after it")
    else:
        fix = ("keep the values in a gc.TensorArray (or a tensor) and read them by index "
               "(`ta.read(i)`, `x[i]`)")
    if not loop:
        fix = ("assign the new value to a variable in both branches instead, or " + fix
               if grows else fix)
    kind = "loop" if loop else "cond"
    return (f"list.{method}() at {where} changes a Python list made outside {construct}, "
            f"which depends on a tensor and is staged as one graph {kind}: {when}. "
            f"To {'build' if grows else 'consume'} a sequence there, {fix}; or make the "
            "condition a Python value (e.g. loop over range(n) with a Python int) so that "
            "the statement runs as Python")


def _len(t):
    shape = t.shape
    if shape is None or not shape:
        raise TypeError(f"len() of a tensor of shape {shape} (a scalar) is undefined")
    if shape[0] is not None:
        return shape[0]

    return shape_op(t, out_type=np.int64)[0]


def assert_stmt(test, msg=None):
    """``assert test, msg()``; a symbolic ``test`` becomes a graph assertion."""
    if not __debug__:
        return
    if is_symbolic(test):
        text = msg() if msg is not None else f"assertion failed at {here()}"
        Assert(as_bool(test), [text])
        return
    if not test:
        raise AssertionError(msg()) if msg is not None else AssertionError()
