"""Tests for the reference interpreter (graphc.core.interpreter)."""

import gc
import weakref

import numpy as np
import pytest

from graphc.core import interpreter
from graphc.core.interpreter import get_plan, run_graph
from graphc.core.registry import OpDef
from graphc.core.trace import TraceContext, freeze
from graphc.errors import InvalidArgumentError
from graphc.ir.graph import Aval
from graphc.ops import elementwise as ew

F32 = np.dtype(np.float32)
F64 = np.dtype(np.float64)


def emit(ctx, op, *values, src=None, **attrs):
    """Append ``op(*values, **attrs)`` to ``ctx`` with avals from ``op.infer``."""
    attrs = {k: freeze(v) for k, v in attrs.items()}
    avals = op.infer(*[v.aval for v in values], **attrs)
    avals = (avals,) if isinstance(avals, Aval) else tuple(avals)
    return ctx.add_node(op, values, attrs, avals, src=src)


def same(x):
    return x


CONST = OpDef("const", infer=lambda value: Aval(value.array.shape, value.array.dtype),
              ref=lambda value: value.array)
DIVMOD = OpDef("divmod", infer=lambda x, y: (x, x), ref=np.divmod, multiple_results=True)
SUM = OpDef("sum", infer=lambda x: Aval((), x.dtype), ref=np.sum)


def cond_ref(pred, *xs, true_fn, false_fn):
    return run_graph(true_fn if pred else false_fn, list(xs))


COND = OpDef("cond", infer=lambda p, *xs, true_fn, false_fn: tuple(
    v.aval for v in true_fn.outputs), ref=cond_ref, multiple_results=True)


def test_matches_numpy():
    with TraceContext("f") as ctx:
        x = ctx.new_input(Aval((5,), F64))
        y = ctx.new_input(Aval((3, 1), F64))
        (a,) = emit(ctx, ew.MULTIPLY, x, y)
        (b,) = emit(ctx, ew.SIN, a)
        (c,) = emit(ctx, CONST, value=np.array(2.0))
        (d,) = emit(ctx, ew.POWER, b, c)
        (e,) = emit(ctx, SUM, d)
        q, r = emit(ctx, DIVMOD, a, c)
        g = ctx.finish([e, q, r, d])
    rng = np.random.default_rng(0)
    xv, yv = rng.standard_normal(5), rng.standard_normal((3, 1))
    e_, q_, r_, d_ = run_graph(g, [xv, yv])
    np.testing.assert_allclose(d_, np.sin(xv * yv) ** 2)
    np.testing.assert_allclose(e_, np.sum(np.sin(xv * yv) ** 2))
    np.testing.assert_array_equal(q_, np.floor_divide(xv * yv, 2.0))
    np.testing.assert_array_equal(r_, np.remainder(xv * yv, 2.0))
    # 0-d results come back as arrays, not NumPy scalars
    assert type(e_) is np.ndarray and e_.shape == ()


def test_outputs_may_be_inputs_or_repeated():
    with TraceContext("f") as ctx:
        x = ctx.new_input(Aval((2,), F32))
        (n,) = emit(ctx, ew.NEGATIVE, x)
        g = ctx.finish([x, n, n])
    xv = np.array([1, 2], np.float32)
    out = run_graph(g, [xv])
    assert out[0] is xv and out[1] is out[2]
    np.testing.assert_array_equal(out[1], -xv)


def test_wrong_number_of_inputs():
    with TraceContext("f") as ctx:
        x = ctx.new_input(Aval((), F32))
        g = ctx.finish([x])
    with pytest.raises(TypeError, match="takes 1 inputs, got 2"):
        run_graph(g, [1, 2])


def test_stateful_ops_run_in_order_without_token():
    seen = []

    def record(x, tag):
        seen.append((tag, x.copy()))

    rec = OpDef("record", infer=lambda x, tag: (), ref=record, stateful=True)
    with TraceContext("fx") as ctx:
        x = ctx.new_input(Aval((2,), F32))
        emit(ctx, rec, x, tag="before")
        (y,) = emit(ctx, ew.NEGATIVE, x)
        emit(ctx, rec, y, tag="after")
        g = ctx.finish([y])
    (out,) = run_graph(g, [np.ones(2, np.float32)])
    assert [t for t, _ in seen] == ["before", "after"]
    np.testing.assert_array_equal(seen[1][1], out)


def branch(name, op=None):
    with TraceContext(name) as ctx:
        a = ctx.new_input(Aval((), F64))
        out = emit(ctx, op, a)[0] if op else a
        return ctx.finish([out])


def test_control_flow_reenters_run_graph():
    inner_then = branch("then", ew.NEGATIVE)
    with TraceContext("inner") as ctx:  # a cond whose branch holds another cond
        p = ctx.new_input(Aval((), np.bool_))
        a = ctx.new_input(Aval((), F64))
        (b,) = emit(ctx, COND, p, a, true_fn=inner_then, false_fn=branch("else"))
        (c,) = emit(ctx, ew.ADD, b, a)
        nested = ctx.finish([c])
    with TraceContext("outer") as ctx:
        p = ctx.new_input(Aval((), np.bool_))
        x = ctx.new_input(Aval((), F64))
        (y,) = emit(ctx, COND, p, p, x, true_fn=nested, false_fn=nested)
        g = ctx.finish([y])
    assert run_graph(g, [np.array(True), np.array(3.0)])[0] == 0.0
    assert run_graph(g, [np.array(False), np.array(3.0)])[0] == 6.0


def bad_graph(op, src="model.py:42"):
    with TraceContext("f") as ctx:
        x = ctx.new_input(Aval((3,), F32))
        y = ctx.new_input(Aval((), np.int64))
        (n,) = emit(ctx, ew.NEGATIVE, x)
        (t,) = emit(ctx, op, n, y, src=src)
        return ctx.finish([t])


def raising(exc):
    def ref(x, i):
        raise exc

    return OpDef("take", infer=lambda x, i: Aval((), x.dtype), ref=ref)


def test_value_error_becomes_invalid_argument_with_node_and_src():
    g = bad_graph(raising(ValueError("index 5 is out of bounds")))
    with pytest.raises(InvalidArgumentError) as info:
        run_graph(g, [np.zeros(3, np.float32), np.array(5)])
    msg = str(info.value)
    assert msg.startswith("take(float32[3], int64[]): index 5 is out of bounds")
    assert msg.endswith("(while executing %3 = take %2 %1, traced at model.py:42)")


def test_type_error_stays_type_error_and_no_src():
    g = bad_graph(raising(TypeError("bad dtype")))
    g.nodes[1].src = None  # e.g. a node a pass created with no user line
    with pytest.raises(TypeError, match=r"bad dtype \(while executing %3 = take %2 %1\)$"):
        run_graph(g, [np.zeros(3, np.float32), np.array(5)])


def test_other_errors_keep_their_type_and_get_a_note():
    class UserError(Exception):
        pass

    g = bad_graph(raising(UserError("from numpy_function")))
    with pytest.raises(UserError, match="from numpy_function") as info:
        run_graph(g, [np.zeros(3, np.float32), np.array(5)])
    assert info.value.__notes__ == ["while executing %3 = take %2 %1, traced at model.py:42"]


def test_error_in_nested_graph_names_both_levels():
    with TraceContext("then") as ctx:
        a = ctx.new_input(Aval((), F64))
        (b,) = emit(ctx, raising(IndexError("out of range")), a, a, src="model.py:7")
        then = ctx.finish([b])
    with TraceContext("outer") as ctx:
        p = ctx.new_input(Aval((), np.bool_))
        x = ctx.new_input(Aval((), F64))
        (y,) = emit(ctx, COND, p, x, true_fn=then, false_fn=then, src="model.py:9")
        g = ctx.finish([y])
    with pytest.raises(InvalidArgumentError, match="traced at model.py:7") as info:
        run_graph(g, [np.array(True), np.array(1.0)])
    assert info.value.__notes__ == ["while executing %2 = cond %0 %1, traced at model.py:9"]


def test_plan_frees_values_after_last_use():
    with TraceContext("f") as ctx:
        x = ctx.new_input(Aval((4,), F64))
        (a,) = emit(ctx, ew.EXP, x)            # %1: last used by step 1
        (b,) = emit(ctx, ew.NEGATIVE, a)       # %2: last used by step 3
        q, r = emit(ctx, DIVMOD, x, x)         # %3 unused -> freed at once; %4 is returned
        (c,) = emit(ctx, ew.ADD, b, x)         # %5: last used by step 4
        (d,) = emit(ctx, ew.SQRT, c)           # %6: returned
        g = ctx.finish([d, r])
    frees = [step.free for step in get_plan(g).steps]
    assert frees == [(), (1,), (3,), (0, 2), (5,)]


def test_intermediates_are_released_during_the_run():
    refs = []

    def make(x):
        out = x + 1.0
        refs.append(weakref.ref(out))
        return out

    def check(x):
        assert refs[0]() is None, "the first intermediate should be freed by now"
        return x * 2.0

    mk = OpDef("make", infer=lambda x: x, ref=make)
    ck = OpDef("check", infer=lambda x: x, ref=check)
    with TraceContext("f") as ctx:
        x = ctx.new_input(Aval((1000,), F64))
        (a,) = emit(ctx, mk, x)
        (b,) = emit(ctx, ew.NEGATIVE, a)
        (c,) = emit(ctx, ck, b)
        g = ctx.finish([c])
    run_graph(g, [np.zeros(1000)])


def test_plan_is_cached_and_dropped_with_the_graph():
    with TraceContext("f") as ctx:
        x = ctx.new_input(Aval((), F64))
        (n,) = emit(ctx, ew.NEGATIVE, x)
        g = ctx.finish([n])
    plan = get_plan(g)
    run_graph(g, [np.array(1.0)])
    assert get_plan(g) is plan
    key = id(g)
    assert key in interpreter._plans
    del g
    gc.collect()
    assert key not in interpreter._plans


def test_result_of_node_without_data_outputs_is_ignored():
    calls = []
    rec = OpDef("record", infer=lambda x: (), ref=lambda x: calls.append(x),
                stateful=True, multiple_results=True)  # returns None, not []
    with TraceContext("fx") as ctx:
        x = ctx.new_input(Aval((), F64))
        emit(ctx, rec, x)
        g = ctx.finish([])
    assert run_graph(g, [np.array(1.0)]) == []
    assert calls == [1.0]
