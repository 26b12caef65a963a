"""Run-time ``while`` and ``for`` (``ag__.while_stmt`` / ``ag__.for_stmt``).

A Python test or iterable runs the Python loop (unrolled into the graph while tracing,
with a warning past ``UNROLL_WARNING_ITERATIONS``); a symbolic test, tensor or tensor
range stages one graph ``while_loop`` over the loop variables.
"""

from __future__ import annotations

import numpy as np

from graphc import config, errors, nest
from graphc.autograph.conditionals import as_bool, here, if_stmt, own_leaves, state_site
from graphc.core import mutation, trace, weak
from graphc.core.tensor import Tensor, _symbolic
from graphc.errors import AutographError
from graphc.ops.control import flow as control
from graphc.ops.control.loop import stage_loop
from graphc.ops.control.trace import Later, Restage
from graphc.ops.control.values import Undefined, UndefinedReturnValue, is_symbolic
from graphc.ops.shape import shape as shape_op
from graphc.ops.tensor_array.array import unshaped_to_shaped
from graphc.tf_api import logical_and, where

UNROLL_WARNING_ITERATIONS = 100  # a Python loop unrolled into a graph beyond this warns
_warned_unroll: set = set()


def _warn_unrolled(n: int) -> None:
    if n != UNROLL_WARNING_ITERATIONS + 1 or not trace.active():
        return
    where = here()
    if where in _warned_unroll:
        return
    _warned_unroll.add(where)
    errors.warn(
        f"AutoGraph is unrolling a Python loop of more than {UNROLL_WARNING_ITERATIONS} "
        f"iterations into the graph at {where}: the graph grows with every iteration. "
        "Loop over gc.range(n) or over a tensor to make it one graph loop.", UserWarning)


def while_stmt(test, body, get_state, set_state, names, nouts=None):
    """``while test(): body()``; once ``test()`` is symbolic the rest is a graph loop.

    ``names`` are the state the body rebinds: the first ``nouts`` (default: all) are
    the loop variables; the rest are read by closures made in the body, and get their
    entry values back after a graph loop (the body's traced values must not escape).
    """
    n = 0
    while True:
        value = test()
        if is_symbolic(value):
            _stage_while(test, body, *_loop_state(get_state, set_state, names, nouts),
                         "while")
            return
        if not value:
            return
        body()
        n += 1
        _warn_unrolled(n)


def for_stmt(iterable, extra_test, body, get_state, set_state, names, nouts=None,
             stageable=False):
    """``for x in iterable: body(x)`` while ``extra_test()`` holds (break/return flags).

    A symbolic tensor (rows) or ``gc.range``/``range`` of tensors becomes a graph loop,
    and so does a Python ``range`` longer than the unroll limit whose body has no Python
    side effects (``stageable``, from the converter; :func:`_unroll_limit`); other
    iterables run in Python (unrolled into the graph while tracing). ``names`` and
    ``nouts`` as for :func:`while_stmt`.
    """
    if is_symbolic(iterable):
        _stage_for(iterable, extra_test, body,
                   *_loop_state(get_state, set_state, names, nouts))
        return
    if stageable and type(iterable) is range and trace.active():
        if len(iterable) > _unroll_limit():
            if _stage_python_range(iterable, extra_test, body, get_state, set_state,
                                   names, nouts):
                return
        elif len(iterable) > 1 and extra_test is None and _op_budget() is not None:
            iterable = _peel(iterable, body, get_state, set_state, names, nouts)
            if iterable is None:
                return
    n = 0
    for item in iterable:
        if extra_test is not None:
            ok = extra_test()
            if is_symbolic(ok):
                # a tensor break/return inside a Python loop: each later iteration runs
                # under a graph cond on the flag
                if_stmt(ok, lambda item=item: body(item), lambda: None, get_state,
                        set_state, names, nouts)
                n += 1
                _warn_unrolled(n)
                continue
            if not ok:
                return
        body(item)
        n += 1
        _warn_unrolled(n)


def _unroll_limit() -> float:
    """Iterations up to which a Python ``range`` loop unrolls: the traced function's
    ``unroll`` (``gc.function(unroll=...)``), else ``gc.config``'s limit."""
    ctx = trace.current()
    while ctx.parent is not None:
        ctx = ctx.parent
    unroll = getattr(getattr(ctx, "function", None), "unroll", None)
    if unroll is None:
        return config.state.unroll_limit
    if isinstance(unroll, bool):
        return float("inf") if unroll else 0
    return unroll


def _op_budget():
    """The most ops a short Python ``range`` loop may add unrolled (``gc.config``), or
    None when the traced function chose its own unrolling (``gc.function(unroll=...)``)."""
    ctx = trace.current()
    while ctx.parent is not None:
        ctx = ctx.parent
    if getattr(getattr(ctx, "function", None), "unroll", None) is not None:
        return None
    return config.state.unroll_ops


def _peel(rng, body, get_state, set_state, names, nouts):
    """Run the first iteration of ``rng`` unrolled and count the ops it added; when all
    of ``rng`` unrolled would pass the op budget, stage the other iterations as one graph
    loop and return None, else return the range still to unroll.

    The count is kept by loop (the body's code) for the whole trace: where the same loop
    runs again (nested in another loop that unrolls or is staged) and its body is known
    too big, all of ``rng`` is staged at once. Peeling a first iteration at every level
    of a nest doubled the graph per level (NPBench's scattering self-energies, 8 nested
    loops: 2471 ops, 354 with the count kept)."""
    ctx = trace.current()
    root = ctx
    while root.parent is not None:
        root = root.parent
    site = getattr(body, "__code__", None)
    known = root.loop_body_ops.get(site) if site is not None else None
    if known is not None and known * len(rng) > _op_budget() and _stage_python_range(
            rng, None, body, get_state, set_state, names, nouts):
        return None
    before = len(ctx.nodes)
    body(rng[0])
    rest = rng[1:]
    per_iteration = sum(_count_ops(node) for node in ctx.nodes[before:])
    if site is not None:
        root.loop_body_ops[site] = per_iteration
    if len(rng) > 2 and per_iteration * len(rng) > _op_budget() and _stage_python_range(
            rest, None, body, get_state, set_state, names, nouts):
        return None
    return rest


def _count_ops(node) -> int:
    return 1 + sum(_count_ops(n) for g in node.subgraphs() for n in g.nodes)


def _stage_python_range(rng, extra_test, body, get_state, set_state, names, nouts):
    """Stage ``for i in range(...)`` (Python ints) as a graph loop whose index is a weak
    integer (a Python int to NumPy's promotion). False, with the state as it was, when
    the body cannot be traced with a traced index (it indexes a Python list with it, or
    needs it as a shape): the loop then unrolls as before."""
    start, stop, step = rng.start, rng.stop, rng.step
    init = tuple(get_state())

    def cond(i):
        return i < stop if step > 0 else i > stop

    counter = (start, cond, lambda i: i, lambda i: i + step)
    try:
        _stage_while(extra_test, body, *_loop_state(get_state, set_state, names, nouts),
                     "for", counter)
    except (errors.SymbolicTensorError, TypeError, AutographError):
        set_state(init)
        return False
    return True


def _loop_state(get_state, set_state, names, nouts):
    """``(get, set, names)`` of the loop variables alone: the other state keeps the value
    it had when the loop was staged."""
    if nouts is None or nouts == len(names):
        return get_state, set_state, names
    rest = tuple(get_state())[nouts:]

    def get_loop_vars():
        return tuple(get_state())[:nouts]

    def set_loop_vars(values):
        set_state(tuple(values) + rest)

    return get_loop_vars, set_loop_vars, names[:nouts]


def _stage_while(test, body, get_state, set_state, names, construct, counter=None):
    """Stage the loop; ``counter = (init, cond(i), item(i), step(i))`` for ``for``."""
    init = tuple(get_state())
    while True:
        try:
            return _stage_once(init, test, body, get_state, set_state, names, construct,
                               counter)
        except Restage as again:  # the unset return value is a nest: give it that shape
            init = tuple(_value(again.values[k]) if k in again.values else v
                         for k, v in enumerate(init))


def _value(v):
    return v.make() if isinstance(v, Later) else v


def _stage_once(init, test, body, get_state, set_state, names, construct, counter):
    site = state_site(construct, names, [])
    own_leaves(site, names, init)
    per_var = [nest.flatten(v) for v in init]
    flat = [leaf for leaves, _ in per_var for leaf in leaves]
    extra = 1 if counter else 0
    same = [False] * len(flat)  # per leaf: the body left it the same object (body_fn)

    def state_of(leaves):
        out, k = [], 0
        for vleaves, td in per_var:
            out.append(nest.unflatten(td, leaves[k:k + len(vleaves)]))
            k += len(vleaves)
        return tuple(out)

    def cond_fn(*leaves):
        set_state(state_of(leaves[extra:]))
        if counter is None:
            return test()
        go = counter[1](leaves[0])
        more = test() if test is not None else True
        if is_symbolic(more) or not isinstance(more, bool | np.bool_):
            return logical_and(go, as_bool(more))
        return go if more else False

    def body_fn(*leaves):
        set_state(state_of(leaves[extra:]))
        start = [getattr(p, "_sym", None) for p in leaves[extra:]]
        for p in leaves[extra:]:
            if isinstance(p, Tensor):
                mutation.mark_placeholder(p)
        body(counter[2](leaves[0])) if counter else body()
        out, out_vars = [], []
        for name, value, (vleaves, td) in zip(names, get_state(), per_var):
            oleaves, otd = nest.flatten(value)
            if otd != td or len(oleaves) != len(vleaves):
                make = unshaped_to_shaped(init[len(out_vars)], value)
                if make is not None:  # a TensorArray given its first element: a buffer
                    raise Restage({len(out_vars): Later(make)})
                if td is None and isinstance(vleaves[0], UndefinedReturnValue):
                    unset = nest.map_structure(lambda _: UndefinedReturnValue(), value)
                    raise Restage({len(out_vars): unset})
                if td is None and isinstance(vleaves[0], Undefined):
                    # first defined in the loop as a nest: one created variable a leaf
                    unset = nest.map_structure(lambda _, n=name: Undefined(n), value)
                    raise Restage({len(out_vars): unset})
                else:
                    raise AutographError(
                        f"{site.construct}: variable '{name}' changes structure inside "
                        f"the loop (from {_nest_text(vleaves, td)} to "
                        f"{_nest_text(oleaves, otd)}); a tensor loop must keep it")
            out.extend(oleaves)
            out_vars.append(name)
        # a variable still naming its placeholder object was written in place (or left
        # alone): the loop's result goes into the object it named before the loop
        same[:] = [o is p for o, p in zip(out, leaves[extra:])]
        _check_rebound_writes(site, names, per_var, leaves[extra:], start, out, flat)
        return [counter[3](leaves[0]), *out] if counter else out

    if counter:
        site.owner = [("<loop counter>", 0, 1), *site.owner]
    final = stage_loop(control.WHILE_LOOP, cond_fn, body_fn,
                       [counter[0], *flat] if counter else flat, site)
    set_state(state_of(_in_place(flat, list(final[extra:]), same)))


def _in_place(before, after, same) -> list:
    """The loop variables' values after the loop: where the body kept a tensor variable's
    object (it wrote into it: ``x += 1``, ``x[i] = v``), the object from before the
    loop, written with the loop's result (NumPy semantics: other names and views of it,
    and a caller's array passed in, see the writes); else the loop's result. A 0-d or
    weakly typed variable stands for a scalar, which NumPy rebinds: its result as is."""
    outer = trace.current()
    out = []
    for b, a, kept in zip(before, after, same):
        if (kept and isinstance(b, Tensor) and b._np is None and isinstance(a, Tensor)
                and b.shape != () and not weak.is_weak(b) and b is not a):
            mutation.assign(outer, b, a)
            a = b
        out.append(a)
    return out


def _check_rebound_writes(site, names, per_var, placeholders, start, out, before) -> None:
    """Refuse a loop variable written in place and then rebound in the same body
    (``A[0] += 1; A = B``) when its array from before the loop can be seen by others
    (``mutation.observable``: an argument, a view, an enclosing loop's variable): each
    iteration's writes go to whichever array the name held when it began, which a staged
    loop cannot follow (the writes would be silently dropped). A fresh local array
    rebound this way is fine: nobody else sees the writes (a second plain Python name
    for it is the one case not detected; ``docs/mutation.md``)."""
    k = 0
    for name, (vleaves, _td) in zip(names, per_var):
        for j in range(k, k + len(vleaves)):
            p = placeholders[j]
            if (isinstance(p, Tensor) and p.shape != () and not weak.is_weak(p)
                    and p._sym is not start[j] and out[j] is not p
                    and (not isinstance(before[j], Tensor)
                         or mutation.observable(trace.current().parent, before[j]))):
                raise errors.AliasError(
                    f"{site.construct}: variable '{name}' is written in place inside the "
                    "loop and then rebound to another array, so each iteration would write "
                    "a different array (the caller's or another variable's on some "
                    "iterations); graphc cannot stage that. Write into a copy "
                    f"('{name} = {name}.copy()' before the writes) or do not rebind "
                    f"'{name}' in the loop")
        k += len(vleaves)


def _nest_text(leaves, td) -> str:
    if td is None:
        return "a single value"
    kind = td[1] if td[0] == "registered" else td[0]  # e.g. a gc.TensorArray
    return f"a {kind.__name__ if isinstance(kind, type) else kind} of {len(leaves)}"


def _stage_for(iterable, extra_test, body, get_state, set_state, names):
    rng = _range_of(iterable)
    if rng is not None:
        start, stop, step = rng
        if isinstance(step, Tensor):
            def cond(i):
                return where(step > 0, i < stop, i > stop)
        else:
            def cond(i):
                return i < stop if step > 0 else i > stop
        counter = (start, cond, lambda i: i, lambda i: i + step)
    else:
        shape = iterable.shape
        if shape is None or len(shape) == 0:
            raise AutographError(f"the `for` at {here()}: cannot iterate over a tensor of "
                                 f"shape {shape}; it has no leading dimension")
        if shape[0] is not None:
            n = shape[0]
        else:
            n = shape_op(iterable, out_type=np.int64)[0]
        counter = (np.asarray(0, np.int64), lambda i: i < n, lambda i: iterable[i],
                   lambda i: i + 1)
    _stage_while(extra_test, body, get_state, set_state, names, "for", counter)


def _range_of(t):
    """``(start, stop, step)`` if ``t`` was made by ``gc.range``/``gnp.arange`` of ints
    (then the loop counts instead of materializing and indexing the range)."""
    ctx = trace.current()
    while ctx is not None:
        for node in reversed(ctx.nodes):
            if node.outputs and node.outputs[0] is t._sym:
                if node.op.name == "arange" and node.attrs["dtype"].kind in "iu":
                    a = node.attrs
                    dt = a["dtype"]
                    return np.asarray(a["start"], dt), dt.type(a["stop"]), dt.type(a["step"])
                if node.op.name == "range" and node.attrs["dtype"].kind in "iu":
                    return tuple(_symbolic(v) for v in node.inputs[:3])
                return None
        ctx = ctx.parent
    return None
