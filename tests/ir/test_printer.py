"""Golden tests for the graph text form (graphc.ir.printer)."""

import numpy as np

from graphc.core.registry import OpDef
from graphc.core.trace import TraceContext, freeze
from graphc.ir.graph import Aval, ConstArray
from graphc.ir.printer import format_graph, node_signature
from graphc.ops import elementwise as ew

F32 = np.dtype(np.float32)


def emit(ctx, op, *values, src="", **attrs):
    """Append ``op(*values, **attrs)`` to ``ctx`` with avals from ``op.infer``; ``src``
    (default: none, so golden texts carry no ``# file.py:N`` comment) is its line."""
    attrs = {k: freeze(v) for k, v in attrs.items()}
    avals = op.infer(*[v.aval for v in values], **attrs)
    avals = (avals,) if isinstance(avals, Aval) else tuple(avals)
    return ctx.add_node(op, values, attrs, avals, src=src)


def _sum_infer(x, axis, keepdims):
    shape = tuple(1 if i in axis else d for i, d in enumerate(x.shape) if keepdims or i not in axis)
    return Aval(shape, x.dtype)


SUM = OpDef("sum", infer=_sum_infer, ref=lambda x, axis, keepdims: np.sum(x, axis, None, None,
                                                                          keepdims))
CONST = OpDef("const", infer=lambda value: Aval(value.array.shape, value.array.dtype),
              ref=lambda value: value.array)
DIVMOD = OpDef("divmod", infer=lambda x, y: (x, x), ref=np.divmod, multiple_results=True)
RECORD = OpDef("record", infer=lambda x, **kw: (), ref=lambda x, **kw: [], stateful=True,
               multiple_results=True)
CAST = ew.CAST


def cond_infer(pred, *xs, true_fn, false_fn):
    return tuple(v.aval for v in true_fn.outputs)


COND = OpDef("cond", infer=cond_infer, ref=None, multiple_results=True)


def add_sum_graph():
    with TraceContext("f") as ctx:
        x = ctx.new_input(Aval((4,), F32))
        y = ctx.new_input(Aval((4,), F32))
        (s,) = emit(ctx, ew.ADD, x, y, src="/home/u/model.py:41")
        (t,) = emit(ctx, SUM, s, axis=(0,), keepdims=False, src="/home/u/model.py:42")
        return ctx.finish([t])


def test_basic_golden():
    # str(graph) ends each node's line with the user's line it was traced at
    assert str(add_sum_graph()) == (
        "f(%0:f32[4], %1:f32[4]) {\n"
        "  %2:f32[4] = add %0 %1  # model.py:41\n"
        "  %3:f32[] = sum %2 axis=(0,) keepdims=False  # model.py:42\n"
        "  return %3\n"
        "}"
    )
    assert format_graph(add_sum_graph()) == (  # the golden-text form: no comments
        "f(%0:f32[4], %1:f32[4]) {\n"
        "  %2:f32[4] = add %0 %1\n"
        "  %3:f32[] = sum %2 axis=(0,) keepdims=False\n"
        "  return %3\n"
        "}"
    )


def test_show_src_appends_basename_comment():
    lines = format_graph(add_sum_graph(), show_src=True).splitlines()
    assert lines[1] == "  %2:f32[4] = add %0 %1  # model.py:41"
    assert lines[2].endswith("keepdims=False  # model.py:42")
    assert "/home/u" not in format_graph(add_sum_graph(), show_src=True)


def test_source_comment_once_per_run_of_the_same_line():
    with TraceContext("r") as ctx:
        x = ctx.new_input(Aval((4,), F32))
        (a,) = emit(ctx, ew.NEGATIVE, x, src="/p/m.py:7")
        (b,) = emit(ctx, ew.NEGATIVE, a, src="/p/m.py:7")
        (c,) = emit(ctx, ew.ADD, a, b, src="/p/m.py:9")
        (d,) = emit(ctx, ew.NEGATIVE, c)  # no known line: no comment
        (e,) = emit(ctx, ew.NEGATIVE, d, src="/p/m.py:7")  # line 7 again, after others
        g = ctx.finish([e])
    assert str(g).splitlines()[1:6] == [
        "  %1:f32[4] = negative %0  # m.py:7",
        "  %2:f32[4] = negative %1",
        "  %3:f32[4] = add %1 %2  # m.py:9",
        "  %4:f32[4] = negative %3",
        "  %5:f32[4] = negative %4  # m.py:7",
    ]


def test_str_of_a_traced_function_names_the_users_lines():
    import graphc as gc

    def double(x):
        return x * 2.0  # marker: double

    @gc.function(backend="numpy")
    def f(x):
        return double(x) + 1.0  # marker: f

    text = str(f.get_concrete_function(np.ones(2, np.float32)).graph)
    src = open(__file__).read().splitlines()
    at = {m: next(i for i, s in enumerate(src, 1) if s.endswith(f"# marker: {m}"))
          for m in ("double", "f")}
    assert text.splitlines()[1:5] == [
        f"  %1:f32[] = const 2.  # test_printer.py:{at['double']}",
        "  %2:f32[2] = multiply %0 %1",
        f"  %3:f32[] = const 1.  # test_printer.py:{at['f']}",
        "  %4:f32[2] = add %2 %3"]


def test_numbering_does_not_depend_on_global_ids():
    assert str(add_sum_graph()) == str(add_sum_graph())


def test_const_multi_output_unknown_dims_and_dtype_attr():
    with TraceContext("g") as ctx:
        x = ctx.new_input(Aval((None, 3), np.float64))
        n = ctx.new_input(Aval(None, np.int64))
        (c,) = emit(ctx, CONST, value=np.array([1.5, 2.0]))
        q, r = emit(ctx, DIVMOD, x, x)
        (k,) = emit(ctx, CAST, r, dtype=np.dtype(np.int32))
        g = ctx.finish([q, k, n, c])
    assert str(g) == (
        "g(%0:f64[?,3], %1:i64[*]) {\n"
        "  %2:f64[2] = const [1.5, 2. ]\n"
        "  %3:f64[?,3], %4:f64[?,3] = divmod %0 %0\n"
        "  %5:i32[?,3] = cast %4 dtype=int32\n"
        "  return %3, %5, %1, %2\n"
        "}"
    )


def test_tokens_only_in_graphs_with_effects():
    with TraceContext("fx") as ctx:
        x = ctx.new_input(Aval((), F32))
        emit(ctx, RECORD, x, tag="a")
        (y,) = emit(ctx, ew.NEGATIVE, x)
        emit(ctx, RECORD, y, tag="b")
        g = ctx.finish([y])
    assert str(g) == (
        "fx(%0:f32[], !t0) {\n"
        "  !t1 = record %0 !t0 tag='a'\n"
        "  %1:f32[] = negative %0\n"
        "  !t2 = record %1 !t1 tag='b'\n"
        "  return %1, !t2\n"
        "}"
    )
    assert "!t" not in str(add_sum_graph())


def branch(name, op=None):
    with TraceContext(name) as ctx:
        a = ctx.new_input(Aval((), F32))
        out = emit(ctx, op, a)[0] if op else a
        return ctx.finish([out])


def test_nested_subgraphs_print_as_blocks_with_own_numbering():
    with TraceContext("outer") as ctx:
        p = ctx.new_input(Aval((), np.bool_))
        x = ctx.new_input(Aval((), F32))
        (y,) = emit(ctx, COND, p, x, true_fn=branch("then", ew.NEGATIVE),
                    false_fn=branch("else"))
        g = ctx.finish([y])
    assert str(g) == (
        "outer(%0:bool[], %1:f32[]) {\n"
        "  %2:f32[] = cond %0 %1\n"
        "    false_fn = else(%0:f32[]) {\n"
        "      return %0\n"
        "    }\n"
        "    true_fn = then(%0:f32[]) {\n"
        "      %1:f32[] = negative %0\n"
        "      return %1\n"
        "    }\n"
        "  return %2\n"
        "}"
    )


def test_attr_values_have_no_addresses():
    class Opaque:
        pass

    def my_func(a):
        return a

    with TraceContext("h") as ctx:
        x = ctx.new_input(Aval((2,), F32))
        emit(ctx, RECORD, x, func=my_func, obj=Opaque(), none=None, dt=np.float32,
             nested=[1, (2.5, "s")], arr=np.arange(3))
        g = ctx.finish([])
    line = str(g).splitlines()[1]
    assert " at 0x" not in line
    assert "func=<fn test_attr_values_have_no_addresses.<locals>.my_func>" in line
    assert "dt=float32" in line and "none=None" in line and "nested=(1, (2.5, 's'))" in line
    assert "arr=[0, 1, 2]" in line
    assert str(g).splitlines()[-2] == "  return !t1"


def test_node_signature_for_errors():
    g = add_sum_graph()
    assert node_signature(g, g.nodes[1]) == "%3 = sum %2 axis=(0,) keepdims=False"


def test_foreign_value_prints_instead_of_crashing():
    g = add_sum_graph()
    other = add_sum_graph()
    g.nodes[1] = other.nodes[1]  # reads a value of another graph
    assert "sum %?" in str(g)


def test_large_const_is_summarized():
    with TraceContext("k") as ctx:
        (c,) = emit(ctx, CONST, value=ConstArray(np.zeros((10, 10), np.float32)))
        g = ctx.finish([c])
    assert "const <float32[10, 10] array>" in str(g)
