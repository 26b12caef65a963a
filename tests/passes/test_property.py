"""Property: random graphs give bit-identical results with every pass on and all off."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pass_helpers import F32, F64, I32, Aval, assert_same_results, emit

from graphc.core.trace import TraceContext
from graphc.ir.verify import verify
from graphc.passes import optimize

DTYPES = [F32, F64, I32]
SHAPES = [(), (3,), (2, 3)]
UNARY = ["negative", "absolute", "exp", "sin", "sqrt", "square", "identity", "positive"]
BINARY = ["add", "subtract", "multiply", "maximum", "minimum", "true_divide"]
CONSTS = [0.0, -0.0, 1.0, 2.0, 0.5, -3.0]
ALL_OFF = {"constant_folding": False, "arithmetic_simplification": False, "cse": False,
           "pruning": False, "fusion": False}


def _step(c, draw, values):
    """Append one random node; return the new value (or None when nothing fit)."""
    kind = draw(st.sampled_from(["unary", "binary", "const", "constexpr", "reduce", "shape",
                                 "pow", "cast", "repeat"]))
    pick = st.sampled_from(values)
    if kind == "unary":
        return emit(c, draw(st.sampled_from(UNARY)), draw(pick))
    if kind == "binary":
        return emit(c, draw(st.sampled_from(BINARY)), draw(pick), draw(pick))
    if kind in ("const", "constexpr"):
        k = c.constant(np.asarray(draw(st.sampled_from(CONSTS)), draw(st.sampled_from(DTYPES))))
        other = draw(pick) if kind == "const" else c.constant(np.asarray(2.0, F32))
        args = [other, k] if draw(st.booleans()) else [k, other]
        return emit(c, draw(st.sampled_from(BINARY)), *args)
    if kind == "pow":
        exponent = c.constant(np.asarray(draw(st.sampled_from([1, 2])), F32))
        return emit(c, "power", draw(pick), exponent)
    if kind == "cast":
        return emit(c, "cast", draw(pick), dtype=draw(st.sampled_from(DTYPES)))
    x = draw(pick)
    ndim = len(x.aval.shape)
    if kind == "reduce":
        axis = draw(st.sampled_from([None] + list(range(ndim))))
        return emit(c, draw(st.sampled_from(["sum", "max"])), x, axis=axis,
                    keepdims=draw(st.booleans()))
    if kind == "shape":
        if ndim == 2:
            t = emit(c, "transpose", x, axes=(1, 0))
            return emit(c, "transpose", t, axes=(1, 0)) if draw(st.booleans()) else t
        if x.aval.shape == (3,):
            return emit(c, "reshape", emit(c, "expand_dims", x, axis=(0,)), shape=(3,),
                        order="C")
        return None
    # repeat: the same op on the same inputs again (a CSE candidate)
    node = c.nodes[draw(st.integers(0, len(c.nodes) - 1))] if c.nodes else None
    if node is None or node.op.name == "const":
        return None
    return emit(c, node.op, *node.inputs, **dict(node.attrs))


@st.composite
def graphs(draw):
    avals = [Aval(draw(st.sampled_from(SHAPES)), draw(st.sampled_from(DTYPES)))
             for _ in range(2)]
    with TraceContext("g") as c:
        values = [c.new_input(a) for a in avals]
        for _ in range(draw(st.integers(1, 12))):
            try:
                v = _step(c, draw, values)
            except (ValueError, TypeError):  # shapes that do not broadcast: skip the step
                v = None
            if v is not None:
                values.append(v)
        outs = draw(st.lists(st.sampled_from(values), min_size=1, max_size=3))
        graph = verify(c.finish(outs))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    args = []
    for a in avals:
        x = rng.standard_normal(a.shape) * 4
        args.append(np.asarray(x.astype(a.dtype)))
    return graph, args


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs())
def test_all_passes_on_equals_all_off(case):
    graph, args = case
    plain, _ = optimize(graph, ALL_OFF)
    assert plain is graph
    optimized, report = optimize(graph)
    assert_same_results(graph, optimized, args)
