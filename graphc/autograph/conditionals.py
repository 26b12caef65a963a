"""Run-time ``if``, conditional expressions and ``and``/``or``/``not`` (``ag__.if_stmt``...).

A Python condition runs the Python statement; a symbolic tensor stages a graph ``cond``
that reads and writes the statement's state variables through ``get_state`` /
``set_state``.
"""

from __future__ import annotations

import operator

import numpy as np

from graphc import nest, source_info
from graphc.core import trace, weak
from graphc.core.tensor import Tensor
from graphc.ops.control import flow as control
from graphc.ops.control.trace import Site, scalar_bool, stage_branches
from graphc.ops.control.values import is_symbolic
from graphc.tf_api import logical_and, logical_not


def here() -> str:
    loc = source_info.user_frame(2)
    return f"{loc[0]}:{loc[1]}" if loc else "<unknown>"


def state_site(construct: str, names, labels) -> Site:
    """Errors name state variables: leaf ``i`` of the flattened state is variable ..."""
    site = Site(f"the `{construct}` at {here()}", labels)
    site.owner = []

    def leaf_name(i):
        owner = site.owner
        if i < len(owner):
            name, k, n = owner[i]
            return f"variable '{name}'" + (f" (item {k})" if n > 1 else "")
        return f"state value {i}"

    site.leaf_name = leaf_name
    return site


def own_leaves(site, names, state):
    site.owner = []
    for name, value in zip(names, state):
        leaves, _ = nest.flatten(value)
        site.owner += [(name, k, len(leaves)) for k in range(len(leaves))]


# --------------------------------------------------------------------------- if
def if_stmt(cond, body, orelse, get_state, set_state, names, nouts=None):
    """``if cond: body() else: orelse()``; a symbolic ``cond`` stages a graph ``cond``.

    ``names`` are every variable either branch rebinds; the first ``nouts`` (default:
    all) are live afterwards and become the ``cond``'s outputs. Each branch is traced
    from the entry values of *all* of them, and the rest get their entry values back
    afterwards, so nothing one traced branch assigns is seen by the other.
    """
    if not is_symbolic(cond):
        body() if cond else orelse()
        return
    nouts = len(names) if nouts is None else nouts
    site = state_site("if", names[:nouts], ["true branch", "false branch"])
    init = tuple(get_state())
    own_leaves(site, names[:nouts], init[:nouts])
    pred = scalar_bool(trace.current(), cond, f"the condition of {site.construct}")

    kept = [True] * nouts  # per name: every branch left it the same object

    def branch(fn):
        def run():
            set_state(init)
            fn()
            values = tuple(get_state())[:nouts]
            for k, v in enumerate(values):
                kept[k] = kept[k] and v is init[k]
            return values
        return run

    try:
        outs = stage_branches(control.COND, pred, [branch(body), branch(orelse)],
                              lambda g: {"true_fn": g[0], "false_fn": g[1]}, site)
    except BaseException:
        set_state(init)  # no traced branch's values may outlive a failed staging
        raise
    # a tensor both branches kept (written in place or left alone) stays the same object:
    # the staging wrote the branch's value into it (NumPy: other names see the write)
    outs = tuple(init[k] if kept[k] and _array_object(init[k]) else v
                 for k, v in enumerate(outs))
    set_state(tuple(outs) + init[nouts:])


def _array_object(v) -> bool:
    """A traced tensor with NumPy's object identity: not a 0-d scalar or a weak number."""
    return (isinstance(v, Tensor) and v._np is None and v.shape != ()
            and not weak.is_weak(v))


def if_exp(cond, true_value, false_value):
    """``true_value() if cond else false_value()``; staged for a symbolic ``cond``."""
    if not is_symbolic(cond):
        return true_value() if cond else false_value()
    return _stage_cond(cond, true_value, false_value, "x if c else y")


def _stage_cond(cond, true_fn, false_fn, construct):
    site = Site(f"the `{construct}` at {here()}", ["true branch", "false branch"])
    pred = scalar_bool(trace.current(), cond, f"the condition of {site.construct}")
    return stage_branches(control.COND, pred, [true_fn, false_fn],
                          lambda g: {"true_fn": g[0], "false_fn": g[1]}, site)


# --------------------------------------------------------------------------- logic
def as_bool(x):
    if isinstance(x, Tensor):
        return x if x.dtype == np.bool_ else x != 0
    return bool(x)


def and_(first, *rest):
    """``first and rest[0]() and ...``: lazy; a symbolic operand stages a ``cond``."""
    value = first
    for k, thunk in enumerate(rest):
        if is_symbolic(value):
            return _stage_cond(value, lambda: as_bool(and_(rest[k](), *rest[k + 1:])),
                               lambda: False, "and")
        if not value:
            return value
        value = thunk()
    return value


def or_(first, *rest):
    """``first or rest[0]() or ...``: lazy; a symbolic operand stages a ``cond``."""
    value = first
    for k, thunk in enumerate(rest):
        if is_symbolic(value):
            return _stage_cond(value, lambda: True,
                               lambda: as_bool(or_(rest[k](), *rest[k + 1:])), "or")
        if value:
            return value
        value = thunk()
    return value


_COMPARE = {"Lt": operator.lt, "LtE": operator.le, "Gt": operator.gt, "GtE": operator.ge,
            "Eq": operator.eq, "NotEq": operator.ne, "Is": operator.is_,
            "IsNot": operator.is_not, "In": lambda a, b: a in b,
            "NotIn": lambda a, b: a not in b}


def compare_chain(left, *steps):
    """``left op1 b op2 c ...`` with ``steps = (op1, lambda: b, op2, lambda: c, ...)``.

    Each operand is evaluated once, left to right. On Python values this is Python's
    chain (it stops at the first false comparison and returns it); once a comparison
    gives a tensor, the chain means ``(left op1 b) & (b op2 c) ...``: the remaining
    comparisons are evaluated too and joined elementwise with ``logical_and``.
    """
    joined = None
    for k in range(0, len(steps), 2):
        right = steps[k + 1]()
        result = _COMPARE[steps[k]](left, right)
        if isinstance(result, Tensor):
            joined = result if joined is None else logical_and(joined, result)
        elif joined is not None:
            joined = logical_and(joined, bool(result))
        elif not result:
            return result
        left = right
    return result if joined is None else joined


def not_(value):
    """``not value``; elementwise ``logical_not`` for a symbolic tensor."""
    if is_symbolic(value):
        return logical_not(as_bool(value))
    return not value
