"""Arithmetic simplification: algebraic rules, one line each, run by the rewrite driver.

Every rule here is exact: the result is bit-for-bit what the traced op computes, for every
input, on the dtypes the rule fires on. That excludes most of school algebra on floats:
``x + 0.0`` is not ``x`` (``-0.0 + 0.0`` is ``+0.0``), ``x * 0`` is not ``0`` (NaN, inf,
-0.0), ``x - x`` is not ``0``, and nothing is reassociated. Shapes and dtypes are kept
exactly too: the driver accepts a replacement only when its aval equals the replaced
output's, so ``x + zeros(bigger shape)`` or ``int32 x * 1.0`` (a float result) are never
rewritten to ``x``. No rule here is inexact; a future inexact rule must be off by default
and listed in docs/passes.md.

Each ``Rule`` names its algebra (that text appears in the pass report) and a function
``fn(node, rw) -> Value | None``; ``rw`` is the driver (``rw.const(v)`` is ``v``'s array if
it is a constant, ``rw.producer(v)`` its node, ``rw.add(node)`` adds a node).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from graphc.core.registry import get
from graphc.core.shapes import normalize_axes
from graphc.passes.context import PassContext
from graphc.passes.graphs import make_node
from graphc.passes.rewrite import rewrite

NUMERIC = "biuf"  # complex is excluded: (inf+0j) * (1+0j) has a NaN imaginary part


@dataclass(frozen=True)
class Rule:
    op: str
    name: str
    fn: Callable


# --------------------------------------------------------------------------- constants
def _numeric(v) -> bool:
    return v.aval.dtype is not None and v.aval.dtype.kind in NUMERIC


def _const_is(rw, v, test) -> bool:
    a = rw.const(v)
    return a is not None and a.dtype.kind in NUMERIC and bool(test(a))


def _one(a):  # 1 in any real dtype converts to exactly 1 in any other
    return np.all(a == 1)


def _zero(a):
    return not np.any(a)


def _neg_zero(a):  # x + -0.0 == x for every float x, -0.0 included
    return a.dtype.kind == "f" and np.all((a == 0) & np.signbit(a))


def _pos_zero(a):  # x - +0.0 == x for every float x, -0.0 included
    return not np.any(a) and not np.any(np.signbit(a))


def _add_identity(x, a):
    return _neg_zero(a) if x.aval.dtype.kind == "f" else a.dtype.kind in "biu" and _zero(a)


def _sub_identity(x, a):
    return _pos_zero(a) if x.aval.dtype.kind == "f" else a.dtype.kind in "biu" and _zero(a)


# --------------------------------------------------------------------------- rule bodies
def _drop_const(x_at, c_at, test):
    """``op(x, c) -> x`` when ``c`` is a constant passing ``test(x, array)``."""
    def fn(n, rw):
        x, c = n.inputs[x_at], n.inputs[c_at]
        if _numeric(x) and _const_is(rw, c, lambda a: test(x, a)):
            return x
    return fn


def _scalar_exponent(rw, n, value):
    """NumPy computes ``x ** c`` for a 0-d ``c`` of 1 or 2 as ``x`` / ``x * x`` exactly; an
    exponent *array* goes through SIMD ``pow``, which is off by an ulp for some floats
    (pinned by tests/passes/test_simplify.py), so floats need a 0-d exponent."""
    x, c = n.inputs
    a = rw.const(c)
    if a is None or not np.all(a == value) or x.aval != n.outputs[0].aval:
        return None
    if x.aval.dtype.kind == "c" or a.dtype.kind == "c":
        # NumPy's complex power returns ``x`` itself for 1 and ``x * x`` (its scalar
        # multiply) for 2; its SIMD multiply may differ by an ulp of |x|**2
        return x if a.ndim == 0 else None
    if a.dtype.kind not in NUMERIC or not _numeric(x):
        return None
    return x if x.aval.dtype.kind != "f" or a.ndim == 0 else None


def _pow_one(n, rw):
    return _scalar_exponent(rw, n, 1)


def _pow_two(n, rw):
    x = _scalar_exponent(rw, n, 2)
    if x is not None and x.aval == n.outputs[0].aval:
        return rw.add(make_node(get("multiply"), (x, x), {}, n.src))[0]


def _involution(inner):
    """``f(f(x)) -> x`` for an ``f`` that is its own inverse."""
    def fn(n, rw):
        p = rw.producer(n.inputs[0])
        if p is not None and p.op.name == inner:
            return p.inputs[0]
    return fn


def _idempotent(n, rw):  # f(f(x)) -> f(x)
    p = rw.producer(n.inputs[0])
    if p is not None and p.op.name == n.op.name and not p.attrs and not n.attrs:
        return p.outputs[0]


def _same_args(n, rw):  # f(x, x) -> x
    a, b = n.inputs[-2:]
    return a if a is b else None


def _same_args_static(n, rw):  # where(c, x, x) -> x, only where c cannot broadcast x
    shape = n.outputs[0].aval.shape
    if shape is None or None in shape or n.inputs[1].aval.shape != shape:
        return None
    return _same_args(n, rw)


def _perm(axes, ndim):
    return tuple(range(ndim))[::-1] if axes is None else tuple(a % ndim for a in axes)


def _transpose_transpose(n, rw):
    p = rw.producer(n.inputs[0])
    if p is None or p.op.name != "transpose" or p.inputs[0].aval.shape is None:
        return None
    x = p.inputs[0]
    ndim = len(x.aval.shape)
    inner, outer = _perm(p.attrs.get("axes"), ndim), _perm(n.attrs.get("axes"), ndim)
    combined = tuple(inner[i] for i in outer)  # out[i] = mid[outer[i]] = x[inner[outer[i]]]
    if combined == tuple(range(ndim)):
        return x
    return rw.add(make_node(n.op, (x,), {"axes": combined}, n.src))[0]


def _transpose_identity(n, rw):
    x = n.inputs[0]
    if x.aval.shape is not None and _perm(n.attrs.get("axes"), len(x.aval.shape)) == tuple(
            range(len(x.aval.shape))):
        return x


def _known(v) -> bool:
    return v.aval.shape is not None and None not in v.aval.shape


def _reshape_reshape(n, rw):
    # Only for a fully known input shape: then neither reshape can fail at run time, so
    # skipping the inner one cannot turn an error into a result.
    p = rw.producer(n.inputs[0])
    if p is None or p.op.name != "reshape" or not _known(p.inputs[0]):
        return None
    if p.attrs.get("order", "C") != "C" or n.attrs.get("order", "C") != "C":
        return None
    x = p.inputs[0]
    if x.aval == n.outputs[0].aval:
        return x
    return rw.add(make_node(n.op, (x,), dict(n.attrs), n.src))[0]


def _same_shape(n, rw):  # reshape / broadcast_to to the shape x already has
    x = n.inputs[0]
    return x if _known(x) and x.aval == n.outputs[0].aval else None


def _cast_same(n, rw):
    return n.inputs[0] if n.attrs.get("dtype") == n.inputs[0].aval.dtype else None


def _lossless(src: np.dtype, mid: np.dtype) -> bool:
    """Whether every ``src`` value survives ``src -> mid -> src`` casts unchanged."""
    if src == mid or src.kind == "b" and mid.kind in "biuf":
        return True
    if src.kind in "iu" and mid.kind in "iu":
        s, m = np.iinfo(src), np.iinfo(mid)
        return m.min <= s.min and m.max >= s.max
    if src.kind in "iu" and mid.kind == "f":
        return np.finfo(mid).nmant + 1 >= np.iinfo(src).bits - (src.kind == "i")
    if src.kind == "f" and mid.kind == "f":
        return mid.itemsize >= src.itemsize
    return False


def _cast_roundtrip(n, rw):
    p = rw.producer(n.inputs[0])
    if p is None or p.op.name != "cast":
        return None
    x = p.inputs[0]
    if x.aval.dtype == n.attrs.get("dtype") and _lossless(x.aval.dtype, p.attrs["dtype"]):
        return x


def _squeeze_expand(n, rw):
    p = rw.producer(n.inputs[0])
    if p is None or p.op.name != "expand_dims" or n.attrs.get("axis") is None:
        return None
    if n.inputs[0].aval.shape is None:
        return None
    ndim = len(n.inputs[0].aval.shape)
    if normalize_axes(n.attrs["axis"], ndim) == normalize_axes(p.attrs["axis"], ndim):
        return p.inputs[0]


def _swap_neg(new_op):
    """``add(x, neg(y)) -> sub(x, y)`` and ``sub(x, neg(y)) -> add(x, y)``."""
    def fn(n, rw):
        x, y = n.inputs
        p = rw.producer(y)
        # same dtypes only: int8 + -(uint8 1) promotes to int16 255, but int8 - uint8 is -1
        if (p is not None and p.op.name == "negative" and _numeric(x) and _numeric(y)
                and x.aval.dtype == p.inputs[0].aval.dtype == n.outputs[0].aval.dtype):
            return rw.add(make_node(get(new_op), (x, p.inputs[0]), {}, n.src))[0]
    return fn


def _write_twice(n, rw):
    """``setitem(setitem(x, v, key), v, key)``: the same values written to the same place
    again (``x[i, :j] *= 2`` writes the view's new values back after ``*=`` wrote them)."""
    p = rw.producer(n.inputs[0])
    if (p is not None and p.op.name == "setitem" and p.attrs == n.attrs
            and [v.id for v in p.inputs[1:]] == [v.id for v in n.inputs[1:]]):
        return n.inputs[0]


def _write_whole(n, rw):
    """``x[:] = v`` (every part of the key a full slice) with ``v`` of x's shape and
    dtype: the result is ``v`` itself, no copy of ``x`` to overwrite (doitgen's
    ``A[:] = reshape(A @ C4)``). Not when ``v`` is made elementwise (or is an input):
    the compiled loop then writes into x's buffer in place, with no new one
    (floyd-warshall's ``path[:] = minimum(path[:], ...)``, ``runtime/cpu/ownership.py``)."""
    x, v = n.inputs[:2]
    full = ("slice", None, None, None)
    p = rw.producer(v)
    if (len(n.inputs) == 2 and _known(x) and v.aval == x.aval and p is not None
            and not p.op.elementwise and p.op.name != "fused_elementwise"
            and all(e == full for e in n.attrs["key"])):
        return v


def _outer_multiply(n, rw):
    """NumPy's outer is ``multiply(a.ravel()[:, None], b.ravel()[None, :])``: the same
    products as a broadcasting multiply, which fusion then puts into the loop reading it
    (gemver's ``A + outer(u1, v1) + outer(u2, v2)``: one pass, no N x N temporaries)."""
    a, b = n.inputs
    if not all(_numeric(x) and _known(x) for x in (a, b)):
        return None
    col, row = ((int(np.prod(x.aval.shape, dtype=np.int64)),) for x in (a, b))
    reshape = get("reshape")
    ra = rw.add(make_node(reshape, (a,), {"shape": col + (1,), "order": "C"}, n.src))[0]
    rb = rw.add(make_node(reshape, (b,), {"shape": (1,) + row, "order": "C"}, n.src))[0]
    return rw.add(make_node(get("multiply"), (ra, rb), {}, n.src))[0]


# --------------------------------------------------------------------------- the rules
RULES = [
    Rule("setitem", "setitem(setitem(x, v, k), v, k) -> setitem(x, v, k)", _write_twice),
    Rule("setitem", "setitem(x, v, [:]) -> v  (v of x's shape and dtype, not elementwise)",
         _write_whole),
    # x * 1 == x exactly for ints, bools and floats (even -0.0, inf, NaN)
    Rule("multiply", "mul(x, 1) -> x", _drop_const(0, 1, lambda x, a: _one(a))),
    Rule("multiply", "mul(1, x) -> x", _drop_const(1, 0, lambda x, a: _one(a))),
    # floats: only -0.0 is the additive identity (x + 0.0 maps -0.0 to +0.0)
    Rule("add", "add(x, 0) -> x  (floats: only x + -0.0)", _drop_const(0, 1, _add_identity)),
    Rule("add", "add(0, x) -> x  (floats: only -0.0 + x)", _drop_const(1, 0, _add_identity)),
    # x - (+0.0) == x for every float; x - (-0.0) is not (-0.0 - -0.0 == +0.0)
    Rule("subtract", "sub(x, 0) -> x", _drop_const(0, 1, _sub_identity)),
    Rule("true_divide", "div(x, 1) -> x", _drop_const(0, 1, lambda x, a: _one(a))),
    Rule("floor_divide", "floordiv(x, 1) -> x  (integers)",
         _drop_const(0, 1, lambda x, a: x.aval.dtype.kind in "iu" and _one(a))),
    Rule("power", "pow(x, 1) -> x", _pow_one),
    Rule("power", "pow(x, 2) -> mul(x, x)", _pow_two),
    # -(-x) == x: floats flip the sign bit twice; ints wrap (-INT_MIN == INT_MIN) twice
    Rule("negative", "neg(neg(x)) -> x", _involution("negative")),
    Rule("logical_not", "not(not(x)) -> x  (bool)", _involution("logical_not")),
    Rule("invert", "invert(invert(x)) -> x", _involution("invert")),
    Rule("absolute", "abs(abs(x)) -> abs(x)", _idempotent),
    Rule("positive", "pos(x) -> x", lambda n, rw: n.inputs[0]),
    Rule("identity", "identity(x) -> x", lambda n, rw: n.inputs[0]),
    Rule("add", "add(x, neg(y)) -> sub(x, y)", _swap_neg("subtract")),
    Rule("subtract", "sub(x, neg(y)) -> add(x, y)", _swap_neg("add")),
    # max(x, x) == x even for NaN; where(c, x, x) == x when c does not broadcast x
    Rule("maximum", "max(x, x) -> x", _same_args),
    Rule("minimum", "min(x, x) -> x", _same_args),
    Rule("logical_and", "and(x, x) -> x", _same_args),
    Rule("logical_or", "or(x, x) -> x", _same_args),
    Rule("where", "where(c, x, x) -> x", _same_args_static),
    # data movement only: exact for every dtype
    Rule("transpose", "transpose(transpose(x, p), q) -> transpose(x, p[q])",
         _transpose_transpose),
    Rule("transpose", "transpose(x, identity) -> x", _transpose_identity),
    Rule("reshape", "reshape(reshape(x, s), t) -> reshape(x, t)", _reshape_reshape),
    Rule("reshape", "reshape(x, x.shape) -> x", _same_shape),
    Rule("broadcast_to", "broadcast_to(x, x.shape) -> x", _same_shape),
    Rule("squeeze", "squeeze(expand_dims(x, a), a) -> x", _squeeze_expand),
    Rule("cast", "cast(x, x.dtype) -> x", _cast_same),
    # int32 -> float64 -> int32 and f32 -> f64 -> f32 lose nothing; f64 -> f32 -> f64 does
    Rule("cast", "cast(cast(x, wider), x.dtype) -> x", _cast_roundtrip),
    Rule("outer", "outer(a, b) -> mul(reshape(a, (-1, 1)), reshape(b, (1, -1)))",
         _outer_multiply),
]


def _index(rules) -> dict:
    table: dict[str, list[Rule]] = {}
    for r in rules:
        table.setdefault(r.op, []).append(r)
    return table


_BY_OP = _index(RULES)


def simplify_rule(node, rw):
    """The driver's rule: the first matching ``Rule`` for the node's op, if any."""
    rules = _BY_OP.get(node.op.name)
    if not rules or len(node.outputs) != 1:
        return None
    for rule in rules:
        value = rule.fn(node, rw)
        if value is not None and value.aval == node.outputs[0].aval:
            return [value], f"simplified {{node}} by rule {rule.name}"
    return None


def run(graph, ctx: PassContext):
    """The ``arithmetic_simplification`` pass."""
    return rewrite(graph, ctx, simplify_rule, subgraph_pass=run)
