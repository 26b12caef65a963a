"""Staging a tensor loop as one ``while_loop`` node: loop-variable typing and relaxation.

Each loop variable is one of:

* a *tensor* variable: its dtype is fixed; dims that change across iterations are relaxed
  to ``None`` and the body is traced again until the shapes stop changing;
* a *weak* Python number: a weakly typed tensor (``graphc.core.weak``) of the
  number's default dtype, that stays weak while the body gives it Python numbers or weak
  values (``i += 1``: next to an int32 tensor it acts as int32) and takes the dtype of a
  tensor the body gives it (``i = i + t32`` makes ``i`` an int32 tensor);
* the *auto* return value of a converted function (``UndefinedReturnValue``): it takes
  the dtype and shape the body gives it and starts as zeros;
* a *constant* Python value the body must leave alone, or an *undefined* variable the
  body must not define (else it would be used after the loop without a value).
"""

from __future__ import annotations

import warnings

import numpy as np

from graphc.core import mutation, trace, weak
from graphc.core.tensor import _symbolic
from graphc.dtypes import numpy_literal
from graphc.errors import AutographDtypeError, AutographError
from graphc.ir import graph as ir
from graphc.ops.control.staged_lists import staged
from graphc.ops.control.trace import (
    MAX_RELAX,
    add_control_node,
    close,
    enter,
    scalar_bool,
    to_value,
)
from graphc.ops.control.values import (
    Undefined,
    UndefinedReturnValue,
    _is_number,
    _is_tensorish,
    _shape_text,
    aval_of,
    describe,
    join_shapes,
    provisional,
)
from graphc.ops.effects import Assert


def stage_loop(op, cond_fn, body_fn, init, site) -> list:
    """Add a ``while_loop`` node running ``body_fn`` while ``cond_fn`` holds.

    ``cond_fn(*vars)`` returns a scalar predicate, ``body_fn(*vars)`` the new values as a
    list as long as ``init``. Returns the loop variables after the loop (symbolic tensors,
    or the Python values of constant / undefined variables).

    Tensors of the enclosing trace that the body writes into (``A[i] = v``, ``A += u``:
    ``core/mutation.OuterWrite``) become hidden loop variables, found by tracing again:
    the same Python objects stand for the loop's values inside the body, and are written
    with the loop's results afterwards (NumPy semantics: other names and views of them
    see the writes).
    """
    carried: list = []
    while True:
        try:
            results = _stage(op, *_carrying(cond_fn, body_fn, carried),
                             list(init) + carried, site)
            break
        except mutation.OuterWrite as write:
            if any(write.root is c for c in carried):
                raise
            carried.append(write.root)
    if carried:
        outer = trace.current()
        for t, value in zip(carried, results[len(results) - len(carried):]):
            mutation.assign(outer, t, value)
        results = results[:len(results) - len(carried)]
    return results


def _carrying(cond_fn, body_fn, carried):
    """``cond_fn``/``body_fn`` with the ``carried`` tensors as extra trailing variables:
    while each is traced, every carried tensor stands for its placeholder (and its views
    follow it); the body returns their values at its end."""
    n = len(carried)
    if not n:
        return cond_fn, body_fn

    def bound(values, fn, tail):
        ctx = trace.current()
        saved = [(t, t._sym) for t in carried]
        try:
            for t, v in zip(carried, values[-n:]):
                t._sym = v._sym
            for t in carried:
                saved += mutation.adopt_views(ctx, t)
            out = fn(*values[:-n])
            return [*out, *[_symbolic(t._sym) for t in carried]] if tail else out
        finally:
            for t, sym in reversed(saved):
                t._sym = sym

    return (lambda *v: bound(v, cond_fn, False)), (lambda *v: bound(v, body_fn, True))


def _stage(op, cond_fn, body_fn, init, site) -> list:
    init = list(init)
    kinds = [_classify(v) for v in init]
    created = []
    if any(k[0] in ("auto", "undef") for k in kinds):
        kinds, init, created = _resolve_probes(cond_fn, body_fn, init, kinds, site)
    if created:
        cond_fn, body_fn = _count_iterations(cond_fn, body_fn, init, kinds)
    for _ in range(MAX_RELAX):
        traced = _trace(cond_fn, body_fn, init, kinds, site)
        new_kinds = _check(traced[3], init, kinds, site)
        if new_kinds == kinds:
            break
        kinds = new_kinds
    else:  # pragma: no cover - relaxing only removes dims, so it always converges
        raise RuntimeError(f"{site.construct}: loop shapes did not converge")
    ctx_c, pred, ctx_b, outs = traced
    tensor_at = [i for i, k in enumerate(kinds) if k[0] == "tensor"]
    with ctx_b:
        body_outs = [to_value(ctx_b, outs[i], kinds[i][1].dtype) for i in tensor_at]
    graphs, operands = close([ctx_c, ctx_b], len(tensor_at), [[pred], body_outs])
    outer = trace.current()
    inputs = [to_value(outer, init[i], kinds[i][1].dtype) for i in tensor_at]
    avals = [kinds[i][1] for i in tensor_at]
    symbols = iter(add_control_node(op, inputs + operands,
                                    {"cond": graphs[0], "body": graphs[1]}, avals, graphs))
    results = [next(symbols) if k[0] == "tensor" else v for v, k in zip(init, kinds)]
    for r, k in zip(results, kinds):
        if _is_weak_kind(k):
            weak.mark(r)
    if created:
        _assert_iterated(results.pop(), [site.leaf_name(i) for i in created], site)
    return results


def _count_iterations(cond_fn, body_fn, init, kinds):
    """Add a hidden last loop variable: false before the loop, true after the body ran
    (a variable the loop creates has a value afterwards only if it ran)."""
    init.append(np.asarray(False))
    kinds.append(("tensor", ir.Aval((), np.dtype(np.bool_))))

    def cond(*values):
        return cond_fn(*values[:-1])

    def body(*values):
        return [*body_fn(*values[:-1]), True]

    return cond, body


def _assert_iterated(flag, names, site) -> None:
    Assert(flag, [f"{site.construct}: the loop must iterate at least once to initialize "
                  f"{', '.join(names)}, which it creates (it ran zero times); give "
                  "it a value before the loop"])


def _classify(v):
    if _is_tensorish(v):
        return ("tensor", aval_of(v))
    if _is_number(v):
        return ("tensor", ir.Aval((), numpy_literal(v).dtype), "weak")
    if isinstance(v, UndefinedReturnValue):
        return ("auto",)
    if isinstance(v, Undefined):
        return ("undef",)
    return ("const",)


def _trace(cond_fn, body_fn, init, kinds, site):
    """Trace the condition and the body with placeholders for the tensor variables."""
    def placeholder(ctx, k):
        t = _symbolic(ctx.new_input(k[1]))
        return weak.mark(t) if _is_weak_kind(k) else t

    def arguments(ctx):
        return [placeholder(ctx, k) if k[0] == "tensor" else v for v, k in zip(init, kinds)]

    ctx_c = enter("cond")
    with ctx_c, staged(site.construct):
        pred = scalar_bool(ctx_c, cond_fn(*arguments(ctx_c)),
                           f"the condition of {site.construct}")
    ctx_b = enter("body")
    with ctx_b, staged(site.construct):
        outs = list(body_fn(*arguments(ctx_b)))
    if len(outs) != len(init):
        raise AutographError(f"{site.construct}: the body returned {len(outs)} loop "
                             f"variables, expected {len(init)}")
    return ctx_c, pred, ctx_b, outs


def _is_weak_kind(k) -> bool:
    return len(k) > 2 and k[2] == "weak"


def _resolve_probes(cond_fn, body_fn, init, kinds, site):
    """Give the auto return value and the variables the loop creates the dtype and
    shape the body gives them (one trace in which they are held as they are)."""
    before = kinds
    kinds, init = _resolve(cond_fn, body_fn, init, kinds, site)
    created = [i for i, (a, b) in enumerate(zip(before, kinds))
               if a[0] == "undef" and b[0] == "tensor"]
    return kinds, init, created


def _resolve(cond_fn, body_fn, init, kinds, site):
    probe = [("const",) if k[0] in ("auto", "undef") else k for k in kinds]
    with np.errstate(all="ignore"), warnings.catch_warnings(), provisional():
        warnings.simplefilter("ignore")
        outs = _trace(cond_fn, body_fn, init, probe, site)[3]
    new_kinds, new_init = [], []
    for v, k, o in zip(init, kinds, outs):
        if k[0] in ("auto", "undef"):
            # the return value, or a variable the loop creates: it takes what the body
            # gives it (a Python number becomes a tensor), starting from zeros
            if _is_tensorish(o) or _is_number(o):
                a = aval_of(o) if _is_tensorish(o) else aval_of(numpy_literal(o))
                v = np.zeros(tuple(0 if d is None else d for d in a.shape or ()), a.dtype)
                k = ("tensor", aval_of(v) if a.shape is not None else a)  # rank unknown
            elif k[0] == "auto":
                k = ("const",)
        new_kinds.append(k)
        new_init.append(v)
    return new_kinds, new_init


def _check(outs, init, kinds, site):
    """The kinds after one traced iteration: relaxed shapes; errors for changes."""
    new = []
    for i, (v, k, o) in enumerate(zip(init, kinds, outs)):
        name = site.leaf_name(i)
        if k[0] == "tensor":
            a = k[1]
            stays_weak = _is_weak_kind(k) and (_is_number(o) or weak.is_weak(o))
            if _is_number(o):
                b = ir.Aval((), np.result_type(a.dtype, o))
            elif _is_tensorish(o):
                b = aval_of(o)
            else:
                raise AutographError(
                    f"{site.construct}: {name} is {describe(v)} before the loop but "
                    f"{describe(o)} after one iteration; a loop variable must stay a tensor")
            if _is_weak_kind(k):  # a Python number takes the dtype the body gives it
                shape = join_shapes(a.shape, b.shape)
                new.append(("tensor", ir.Aval(a.shape if shape is None else shape,
                                              b.dtype), *(("weak",) if stays_weak else ())))
                if shape is None:
                    raise AutographError(
                        f"{site.construct}: {name} is a Python number before the loop but "
                        f"has shape {_shape_text(b.shape)} after one iteration; a loop "
                        "variable must keep its rank")
                continue
            if b.dtype != a.dtype:
                raise AutographDtypeError(
                    f"{site.construct}: {name} has dtype {a.dtype.name} before the loop but "
                    f"{b.dtype.name} after one iteration; a loop variable must keep its "
                    "dtype: cast its initial value or its new value with gc.cast")
            shape = join_shapes(a.shape, b.shape)
            if a.shape is None:  # a variable of unknown rank takes any shape
                new.append(k)
                continue
            if shape is None:
                raise AutographError(
                    f"{site.construct}: {name} has shape {_shape_text(a.shape)} before the "
                    f"loop but {_shape_text(b.shape)} after one iteration; a loop variable "
                    "must keep its rank (its dims may change)")
            new.append(("tensor", ir.Aval(shape, a.dtype)))
        elif k[0] == "undef":
            if not isinstance(o, Undefined):
                raise AutographError(
                    f"{site.construct}: {name} is first defined inside the loop and used "
                    f"after it (or in a later iteration); a tensor loop may run zero times, "
                    f"so give it a value before the loop (e.g. `{_bare(name)} = 0`)")
            new.append(k)
        else:
            if o is not v:
                raise AutographError(
                    f"{site.construct}: {name} is {describe(v)} before the loop and "
                    f"{describe(o)} after one iteration; only tensors and numbers can "
                    "change inside a tensor loop")
            new.append(k)
    return new


def _bare(name: str) -> str:
    """``x`` from ``variable 'x'`` (for the suggested fix in a message)."""
    return name.split("'")[1] if name.count("'") >= 2 else "var"
