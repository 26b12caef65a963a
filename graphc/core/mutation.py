"""Writes into traced tensors: functionalization and the alias bookkeeping of views.

Eagerly a tensor holds a NumPy array and a view holds a NumPy view of it (``t[1:3]``,
``t.T``, ``t.reshape(...)`` run NumPy's own functions), so a write is a NumPy write and
NumPy's own aliasing is the whole story.

While tracing, a graph is SSA: nothing is ever written. A write into a tensor ``t`` is
*functionalized*: an update op (``setitem``, or the out-of-place op of ``t += u``)
computes the new value and :func:`assign` makes ``t`` — the Python object the user's
names refer to — stand for it (``t._sym`` is rebound). ``b = a; b += 1`` therefore
changes ``a``, as in NumPy.

Views. An op whose NumPy version returns a view of its first operand declares it with
the op (``OpDef.view``: whether these operands and attrs give a view always, never, or
depending on memory layout; ``OpDef.unview``: the base after a write through the view,
or ``None`` where NumPy's view is read-only). Each view
traced is recorded in its trace (:func:`record_view`) as its *root* (the tensor that is
no view) and the *path* of view ops from the root. Then:

* a write into a view computes the root's new value by applying the path's ``unview``
  rules backwards (``a[1:3][0] = 5`` becomes ``a = setitem(a, 1:3, setitem(a[1:3], 0,
  5))``), rebinds the root, and re-derives the root's other views;
* a write into a root re-derives its live views from the new value (views nobody reads
  again are pruned from the graph as dead code);
* a view with a step whose aliasing depends on memory layout (a ``reshape``: NumPy's is
  a view or a copy by the strides, which graphc does not model) cannot be written
  (:class:`AliasError`), and a write into its root makes it *stale*: using it afterwards
  raises :class:`AliasError` naming both lines, rather than giving a value that NumPy
  might not give. A read-only view (``broadcast_to``) follows its root but cannot be
  written.

A write inside a staged loop body or branch into a tensor of an enclosing trace raises
:class:`OuterWrite`; the loop (``ops/control/loop.stage_loop``) or the branches
(``ops/control/trace.stage_branches``) catch it and trace again with that tensor (or
the tensor it is a view of) carried by object: bound to the body's value while the body
is traced, its views adopted (:func:`adopt_views`), and written with the result after
the node.
"""

from __future__ import annotations

import weakref

from graphc import source_info
from graphc.core import hooks
from graphc.core.registry import bind
from graphc.core.tensor import _symbolic
from graphc.errors import AliasError
from graphc.ir import graph as ir


class _Step:
    """One view op applied to the previous value of a view path."""

    __slots__ = ("op", "inputs", "attrs", "where", "certain")

    def __init__(self, op, inputs, attrs, where, certain):
        self.op, self.inputs, self.attrs, self.where = op, tuple(inputs), attrs, where
        self.certain = certain  # False: NumPy gives a view or a copy, by memory layout

    def apply(self, base):
        return bind(self.op, base, *self.inputs, **dict(self.attrs))

    def unapply(self, base, new):
        return self.op.unview(base, new, *self.inputs, **dict(self.attrs))


class _View:
    __slots__ = ("view", "root", "path")

    def __init__(self, view, root, path):
        self.view, self.root, self.path = view, root, path

    def writable(self) -> bool:
        return all(s.certain and s.op.unview is not None for s in self.path)

    def derivable(self) -> bool:
        return all(s.certain for s in self.path)

    def blocker(self):
        """The first step a write cannot go through."""
        return next(s for s in self.path if not s.certain or s.op.unview is None)


class Stale(ir.Value):
    """The value of a view made stale by a write into its root: using it raises."""

    def __init__(self, aval, message):
        super().__init__(aval)
        self.message = message


def _table(ctx):
    table = getattr(ctx, "views", None)
    if table is None:
        table = ctx.views = {"views": {}, "children": {}}
    return table


def record_view(ctx, base, result, op, inputs, attrs, certain) -> None:
    """``result`` (a traced tensor) is ``op(base, *inputs, **attrs)``, a view of ``base``
    (``certain``: always; else a view or a copy by memory layout, as NumPy's reshape)."""
    table = _table(ctx)
    step = _Step(op, inputs, attrs, source_info.where(), certain)
    parent = _lookup(table, base)
    if parent is None:
        root, path = base, (step,)
    else:
        root, path = parent.root, parent.path + (step,)
    _insert(table, result, root, path)


def _insert(table, result, root, path) -> None:
    key, root_key = id(result), id(root)
    views, children = table["views"], table["children"]

    def forget(_ref, key=key, root_key=root_key):
        views.pop(key, None)
        kids = children.get(root_key)
        if kids is not None:
            kids.discard(key)

    # the view keeps its root alive (as a NumPy view keeps its base): a write into one
    # view must reach the root's other views even when no name holds the root any more
    views[key] = _View(weakref.ref(result, forget), root, path)
    children.setdefault(root_key, set()).add(key)


def _lookup(table, t):
    entry = table["views"].get(id(t))
    if entry is None or entry.view() is not t:
        return None
    return entry


class OuterWrite(AliasError):
    """A write inside a staged body into a tensor of an enclosing trace. A staged loop
    catches it and traces again carrying ``root`` (the written tensor, or the tensor it
    is a view of) as a loop variable; uncaught, it is the user's ``AliasError``."""

    def __init__(self, root, where):
        super().__init__(
            f"a write{where} into a tensor made outside the body being staged (a body "
            "traced on its own, such as gc.map_fn's or gc.vectorized_map's function) is "
            "not supported: return the new value from the body instead")
        self.root = root


def assign(ctx, t, new) -> None:
    """Make the traced tensor ``t`` stand for ``new`` (a traced tensor of ``t``'s shape
    and dtype): a write into ``t`` as NumPy would do it, views included."""
    if t._sym.id not in ctx.owned:
        raise OuterWrite(_outer_root(ctx, t), source_info.where())
    table = getattr(ctx, "views", None)
    entry = None if table is None else _lookup(table, t)
    if entry is None:  # a root
        _rebind(ctx, t, new)
        if table is not None:
            _rederive(ctx, table, t, skip=None)
        return
    root = entry.root
    if root._sym.id not in ctx.owned:  # a view, made here, of a tensor from outside
        raise OuterWrite(_outer_root(ctx, root), source_info.where())
    if not entry.writable():
        step = entry.blocker()
        why = (f"whether NumPy's {step.op.name} returns a view or a copy there depends on "
               "memory layout, which graphc does not model" if not step.certain else
               f"NumPy's {step.op.name} is a read-only view")
        raise AliasError(
            f"cannot write through this tensor{source_info.where()}: it is a "
            f"{step.op.name} of another tensor (made{step.where}), and {why}. Write into "
            "a .copy() of it, or into the original tensor")
    values = [root]
    for step in entry.path[:-1]:
        values.append(step.apply(values[-1]))
    value = new
    for step, base in zip(reversed(entry.path), reversed(values)):
        value = step.unapply(base, value)
    _rebind(ctx, root, value)
    _rebind(ctx, t, new)
    _rederive(ctx, table, root, skip=t)


# Tensor objects that stand for a value from outside their trace (a function's argument,
# a loop body's variable): a write into one may be seen by the caller or the enclosing
# loop. Keyed by id; the weak value tells a live entry from a reused id.
_PLACEHOLDERS: "weakref.WeakValueDictionary" = weakref.WeakValueDictionary()


def mark_placeholder(t) -> None:
    """``t`` stands for an argument or a loop variable (see :func:`observable`)."""
    _PLACEHOLDERS[id(t)] = t


def observable(ctx, t) -> bool:
    """Whether a write into ``t`` may be seen other than through the names bound to
    ``t`` itself: ``t`` is eager (outside every trace), an argument or loop variable,
    a view, or the root of views, in ``ctx`` or an enclosing trace."""
    if t._np is not None or _PLACEHOLDERS.get(id(t)) is t:
        return True
    while ctx is not None:
        table = getattr(ctx, "views", None)
        if table is not None and (_lookup(table, t) is not None
                                  or table["children"].get(id(t))):
            return True
        ctx = ctx.parent
    return False


def reshape_in_place(ctx, t, new) -> None:
    """``t.shape = s`` while tracing: the object ``t`` stands for ``new`` (the traced
    ``reshape(t, s)``). A view stays a view of its root, with the reshape as the last
    step of its path (a layout-dependent one: writes through it raise); a root with
    views, an argument and a loop variable raise (their other names would keep the
    old shape in graphc but not in NumPy, where they are the same object)."""
    if t._sym.id not in ctx.owned or _PLACEHOLDERS.get(id(t)) is t:
        raise AliasError(
            f"setting .shape{source_info.where()} of a tensor from outside this trace or "
            "loop body (an argument, a loop variable or a captured tensor) is not "
            "supported: use t = t.reshape(...) instead")
    table = _table(ctx)
    entry, moved = _lookup(table, t), _lookup(table, new)
    if entry is None and table["children"].get(id(t), set()) - {id(new)}:
        raise AliasError(
            f"setting .shape{source_info.where()} of a tensor that has views is not "
            "supported (its views would keep the old shape's meaning): use "
            "t = t.reshape(...) instead")
    _rebind(ctx, t, new)
    if entry is not None and moved is not None:
        _insert(table, t, moved.root, moved.path)


def _outer_root(ctx, t):
    """The tensor of an enclosing trace a write into ``t`` must reach: ``t``, or the
    root the trace that owns ``t`` recorded it a view of."""
    owner = ctx.parent
    while owner is not None and t._sym.id not in owner.owned:
        owner = owner.parent
    table = None if owner is None else getattr(owner, "views", None)
    entry = None if table is None else _lookup(table, t)
    return t if entry is None else entry.root


def adopt_views(ctx, root) -> list:
    """Inside a staged body that carries ``root`` (just rebound to the body's value): the
    views of ``root`` that enclosing traces recorded follow it here too (taken again
    from it, and recorded in ``ctx``, so writes through them reach it). Returns
    ``[(view, its value before)]`` for the caller to restore after the body."""
    saved, outer = [], ctx.parent
    while outer is not None:
        table = getattr(outer, "views", None)
        for key in list(table["children"].get(id(root), ())) if table else ():
            entry = table["views"].get(key)
            view = None if entry is None else entry.view()
            if view is None or entry.root is not root:
                continue
            saved.append((view, view._sym))
            if entry.derivable():
                value = root
                for step in entry.path:
                    value = step.apply(value)
                view._sym = ctx.value_of(value)
                _insert(_table(ctx), view, root, entry.path)
            else:
                step = next(s for s in entry.path if not s.certain)
                view._sym = Stale(view._sym.aval, (
                    f"this tensor, a {step.op.name} of another tensor (made{step.where}), "
                    "is used inside a loop that writes that tensor: whether NumPy's "
                    f"{step.op.name} is a view there depends on memory layout, which "
                    "graphc does not model. Take it again inside the loop"))
        outer = outer.parent
    return saved


def _rebind(ctx, t, new) -> None:
    """``t`` stands for ``new``'s value from now on; recording tapes name a snapshot of
    ``t``'s old value where they named ``t``, and ``t`` where they named ``new``."""
    if hooks.tapes:
        hooks.rename_on_tapes(t, _symbolic(t._sym))
        hooks.rename_on_tapes(new, t)
    t._sym = ctx.value_of(new)


def _rederive(ctx, table, root, skip) -> None:
    """After a write into ``root``: its views see the new value (or become stale)."""
    kids = table["children"].get(id(root))
    if not kids:
        return
    where = source_info.where()
    for key in list(kids):
        entry = table["views"].get(key)
        view = None if entry is None else entry.view()
        if view is None or view is skip or entry.root is not root:
            continue
        if entry.derivable():
            value = root
            for step in entry.path:
                value = step.apply(value)
            _rebind(ctx, view, value)
        else:
            step = next(s for s in entry.path if not s.certain)
            view._sym = Stale(view._sym.aval, (
                f"this tensor, a {step.op.name} of another tensor (made{step.where}), was "
                f"made stale by a write into that tensor{where}: whether NumPy's "
                f"{step.op.name} is a view there depends on memory layout, which graphc "
                f"does not model. Take the {step.op.name} again after the write, or "
                "take a .copy() of it before"))
