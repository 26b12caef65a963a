"""The Numba backend agrees with the reference interpreter (graphc.runtime.cpu.numba_cpu).

Numba compiles cost 0.3-2 s each on this machine, so each test packs many ops into one
graph with many outputs: the whole file compiles about ten programs. Ints, bools, shape
ops and most float arithmetic must match the interpreter exactly; transcendental
functions may differ by a few ULP (Numba calls the C library, NumPy its own SIMD code)
and float matmul by BLAS rounding.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from graphc.core import registry
from graphc.core.interpreter import run_graph
from graphc.core.trace import TraceContext, freeze
from graphc.errors import InvalidArgumentError
from graphc.ir.graph import Aval
from graphc.runtime.cpu import numba_cpu

F32, F64, I32, I64, U8, B = (np.dtype(t) for t in (
    np.float32, np.float64, np.int32, np.int64, np.uint8, np.bool_))
RNG = np.random.default_rng(0)

# Ops whose float results may differ from NumPy's by a few ULP (libm vs NumPy SIMD).
TRANSCENDENTAL = {"exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos",
                  "tan", "arcsin", "arccos", "arctan", "arctan2", "sinh", "cosh", "tanh",
                  "arcsinh", "arccosh", "arctanh", "sigmoid", "power", "cbrt", "hypot"}
ULP_TOL = 4




pytestmark = pytest.mark.usefixtures("eager_compile")


class G:
    """Builds a graph op by op: ``g.add(x, y)`` appends an ``add`` node."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.ops = []  # op name of each output, for its tolerance

    def __getattr__(self, name):
        op = registry.get(name)

        def emit(*values, **attrs):
            values = [v if not isinstance(v, np.ndarray | np.generic | int | float)
                      else self.ctx.constant(np.asarray(v)) for v in values]
            attrs = {k: freeze(v) for k, v in attrs.items()}
            avals = op.infer(*[v.aval for v in values], **attrs)
            avals = (avals,) if isinstance(avals, Aval) else tuple(avals)
            outs = self.ctx.add_node(op, values, attrs, avals)
            return outs[0] if len(outs) == 1 else outs

        return emit


def build(name, in_avals, body):
    """A graph of ``body(g, *inputs)``; body returns ``[(label, value), ...]``."""
    with TraceContext(name) as ctx:
        xs = [ctx.new_input(Aval(shape, dtype)) for shape, dtype in in_avals]
        pairs = body(G(ctx), *xs)
        graph = ctx.finish([v for _, v in pairs])
    return graph, [label for label, _ in pairs]


def ulp_diff(a, b):
    """Elementwise distance in units in the last place (NaN==NaN counts as 0)."""
    itype = {4: np.int32, 8: np.int64}[a.dtype.itemsize]
    ia, ib = (np.asarray(x).view(itype).astype(np.int64) for x in (a, b))
    # map the sign-magnitude bit patterns to a monotonic integer line
    ia = np.where(ia < 0, np.iinfo(itype).min - ia, ia)
    ib = np.where(ib < 0, np.iinfo(itype).min - ib, ib)
    d = np.abs(ia - ib)
    both_nan = np.isnan(a) & np.isnan(b)
    return np.where(both_nan, 0, d)


def check(graph, labels, arrays, tol=None):
    """Compile ``graph``; assert it runs compiled and agrees with the interpreter."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", numba_cpu.FallbackWarning)
        ex = numba_cpu.executor_for(graph)
    assert ex.backend == "numba", ex.explain()
    compare(ex(list(arrays)), run_graph(graph, list(arrays)), labels, tol)
    return ex


def compare(got, want, labels, tol=None):
    """Same dtypes and shapes; exact values except the documented float tolerances."""
    assert len(got) == len(want)
    for label, g, w in zip(labels, got, want):
        assert type(g) is np.ndarray, label
        assert g.dtype == w.dtype and g.shape == w.shape, (label, g.dtype, g.shape, w.dtype,
                                                           w.shape)
        if g.dtype.kind in "fc":
            allowed = (tol or {}).get(label, ULP_TOL if label.split(":")[0] in TRANSCENDENTAL
                                      else 0)
            d = ulp_diff(g, w)
            assert d.max(initial=0) <= allowed, (
                f"{label}: {d.max()} ULP apart (allowed {allowed}) at "
                f"{np.unravel_index(d.argmax(), d.shape)}: {g.flat[d.argmax()]!r} vs "
                f"{w.flat[d.argmax()]!r}")
        else:
            np.testing.assert_array_equal(g, w, err_msg=label)


def floats(shape, dtype, special=True):
    a = (RNG.standard_normal(shape) * 3).astype(dtype)
    if special and a.size >= 8:
        flat = a.reshape(-1)
        flat[:8] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e30, 88.5]
    return a


UNARY_F = ["negative", "positive", "absolute", "sign", "exp", "expm1", "log", "log2", "log10",
           "log1p", "sqrt", "square", "reciprocal", "sin", "cos", "tan", "arcsin", "arccos",
           "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "floor", "ceil",
           "rint", "trunc", "isnan", "isinf", "isfinite", "sigmoid", "exp2", "cbrt",
           "logical_not"]
BINARY_F = ["add", "subtract", "multiply", "true_divide", "floor_divide", "remainder", "power",
            "maximum", "minimum", "fmax", "fmin", "arctan2", "hypot", "equal", "not_equal",
            "less", "less_equal", "greater", "greater_equal", "logical_and", "logical_or",
            "logical_xor"]


@pytest.mark.parametrize("dtype", [F32, F64])
def test_float_elementwise(dtype):
    """Every float unary/binary op, with a broadcast operand, inf/nan/zeros/denormals."""
    def body(g, x, y):
        out = [(f"{name}:u", getattr(g, name)(x)) for name in UNARY_F]
        out += [(f"{name}:b", getattr(g, name)(x, y)) for name in BINARY_F]
        out += [("add:scalar", g.add(x, np.asarray(1.5, dtype))),
                ("where", g.where(g.less(x, y), x, y)),
                ("clip", g.clip(x, np.asarray(-1.0, dtype), np.asarray(2.0, dtype))),
                ("round:2", g.round(x, decimals=2)),
                ("cast:i32", g.cast(y, dtype=I32)),
                ("cast:bool", g.cast(x, dtype=B))]
        return out

    graph, labels = build(f"ew_{dtype.name}", [((6, 5), dtype), ((5,), dtype)], body)
    x = floats((6, 5), dtype)
    y = floats((5,), dtype, special=False)
    y[0] = 0.0
    with np.errstate(all="ignore"):
        check(graph, labels, [x, y], tol={"round:2": 1})


def test_int_elementwise_and_promotion():
    """Integer wraparound, division by zero, bool ops, mixed-dtype promotion."""
    def body(g, a, b, u, f):
        out = [(name, getattr(g, name)(a, b)) for name in
               ("add", "subtract", "multiply", "floor_divide", "remainder", "maximum",
                "minimum", "bitwise_and", "bitwise_or", "bitwise_xor", "equal", "less",
                "true_divide", "logical_and", "logical_xor")]
        out += [("power", g.power(a, g.absolute(g.remainder(b, np.asarray(5, I32))))),
                ("negative", g.negative(a)), ("absolute", g.absolute(a)),
                ("sign", g.sign(a)), ("invert", g.invert(a)), ("square", g.square(a)),
                ("invert_bool", g.invert(g.less(a, b))),
                ("u8_add", g.add(u, u)), ("u8_neg", g.negative(u)),
                ("i32+f32", g.add(a, f)), ("i32+u8", g.add(a, u)),
                ("i32*f64const", g.multiply(a, np.asarray(0.5))),
                ("f32->i32", g.cast(f, dtype=I32)), ("i32->u8", g.cast(a, dtype=U8))]
        return out

    graph, labels = build("ints", [((4, 6), I32), ((6,), I32), ((4, 6), U8), ((4, 6), F32)],
                          body)
    a = RNG.integers(-2**31, 2**31 - 1, (4, 6), dtype=np.int32)
    a[0, :3] = [np.iinfo(np.int32).min, -7, 7]
    b = RNG.integers(-9, 9, 6, dtype=np.int32)
    b[:2] = 0
    u = RNG.integers(0, 255, (4, 6), dtype=np.uint8)
    f = (RNG.standard_normal((4, 6)) * 100).astype(np.float32)
    with np.errstate(all="ignore"):
        check(graph, labels, [a, b, u, f])


def test_reductions():
    """Every reduction over every axis form; float sums match NumPy's pairwise order."""
    def body(g, x, i):
        # every axis form for sum (its float order is the delicate one), fewer for the
        # others (each reduction node costs ~0.5 s of compile time)
        out = [(f"sum{axis}", g.sum(x, axis=axis)) for axis in
               (None, 0, 1, 2, (0, 1), (1, 2), (0, 2))]
        out.append(("sum:keep", g.sum(x, axis=(0, 2), keepdims=True)))
        for name in ("prod", "mean", "max", "min", "any", "all"):
            for axis in (None, 1, (0, 2)):
                out.append((f"{name}{axis}", getattr(g, name)(x, axis=axis)))
        out += [("isum", g.sum(i, axis=None)), ("isum1", g.sum(i, axis=1)),
                ("imean", g.mean(i, axis=0)), ("imax", g.max(i, axis=2)),
                ("isum_i32", g.sum(i, axis=1, dtype=I32)),
                ("fsum_f64", g.sum(x, axis=2, dtype=F64)),
                # a narrower accumulator: NumPy adds in float32, not in float64
                ("dsum_f32", g.sum(g.multiply(x, np.asarray(1.1, F64)), axis=2, dtype=F32)),
                ("isum_f32", g.sum(g.multiply(i, i), axis=2, dtype=F32))]
        return out

    graph, labels = build("reduce", [((7, 30, 300), F32), ((7, 30, 300), I32)], body)
    x = RNG.standard_normal((7, 30, 300)).astype(np.float32)
    x[0, 0, 0] = np.nan
    i = RNG.integers(-1000, 1000, (7, 30, 300), dtype=np.int32)
    check(graph, labels, [x, i])


def test_matmul_and_shape_ops():
    """BLAS matmul for floats, exact integer loops, and the shape/creation ops."""
    def body(g, a, b, v, i, j):
        t = g.transpose(a, axes=(1, 0))
        return [
            ("matmul:ff", g.matmul(a, b)), ("matmul:fv", g.matmul(a, v)),
            ("matmul:vf", g.matmul(v, t)), ("dot:vv", g.dot(v, v)),
            ("matmul:ii", g.matmul(i, j)), ("matmul:if", g.matmul(i, g.cast(j, dtype=F64))),
            ("matmul:t", g.matmul(t, a)),
            ("transpose", t), ("transpose3", g.transpose(g.reshape(a, shape=(2, 3, 8)),
                                                          axes=(2, 0, 1))),
            ("t+1", g.add(t, np.asarray(1.0, F32))),
            ("reshape", g.reshape(t, shape=(4, -1))), ("expand", g.expand_dims(v, axis=(0,))),
            ("squeeze", g.squeeze(g.reshape(v, shape=(1, 8, 1)), axis=(0, 2))),
            ("bcast", g.broadcast_to(v, shape=(3, 8))),
            ("concat", g.concatenate(a, a, axis=1)), ("stack", g.stack(v, v, axis=1)),
            ("const", g.add(a, RNG.standard_normal((6, 8)).astype(np.float32))),
            ("eye", g.eye(N=4, M=None, k=1, dtype=I32)),
            ("full", g.full(value=2.5, shape=(2, 3), dtype=F64)),
            ("identity", g.identity(i)),
            ("sum_t", g.sum(t, axis=1)),
        ]

    graph, labels = build("shapes", [((6, 8), F32), ((8, 5), F32), ((8,), F32),
                                     ((10, 10), I32), ((10, 10), I32)], body)
    a, b, v = (RNG.standard_normal(s).astype(np.float32) for s in ((6, 8), (8, 5), (8,)))
    i, j = (RNG.integers(-2**20, 2**20, (10, 10), dtype=np.int32) for _ in range(2))
    # float matmul: Numba's BLAS (SciPy's) and NumPy's may round differently
    tol = {k: 64 for k in ("matmul:ff", "matmul:fv", "matmul:vf", "dot:vv", "matmul:t")}
    check(graph, labels, [a, b, v, i, j], tol=tol)


def test_batched_matmul():
    """A product per batch element: equal batch dims, or a shared 2-D operand."""
    def body(g, a, b, c, i, j):
        return [("bmm:ff", g.matmul(a, b)), ("bmm:shared", g.matmul(a, c)),
                ("bmm:shared_left", g.matmul(g.transpose(c), g.transpose(a, axes=(0, 1, 3, 2)))),
                ("bmm:ii", g.matmul(i, j)), ("bmm:if", g.matmul(i, g.cast(j, dtype=F64)))]

    graph, labels = build("bmm", [((2, 3, 4, 5), F32), ((2, 3, 5, 6), F32), ((5, 2), F32),
                                  ((3, 4, 4), I32), ((3, 4, 4), I32)], body)
    a, b, c = (RNG.standard_normal(s).astype(np.float32) for s in ((2, 3, 4, 5), (2, 3, 5, 6),
                                                                  (5, 2)))
    i, j = (RNG.integers(-2**20, 2**20, (3, 4, 4), dtype=np.int32) for _ in range(2))
    ex = check(graph, labels, [a, b, c, i, j], tol={k: 64 for k in labels if ":f" in k
                                                     or "shared" in k})
    assert "H.int_matmul" in ex.program.source and "H.dot_into(" in ex.program.source


def test_batched_matmul_with_unknown_batch_dims_is_reported():
    def body(g, a, b):
        return [("unknown_batch", g.matmul(a, b))]

    graph, _labels = build("bmm_unknown", [((None, 4, 5), F32), ((5, 6), F32)], body)
    with pytest.warns(numba_cpu.FallbackWarning, match="unknown batch dims"):
        ex = numba_cpu.executor_for(graph)
    a, b = (RNG.standard_normal(s).astype(np.float32) for s in ((3, 4, 5), (5, 6)))
    np.testing.assert_array_equal(ex([a, b])[0], np.matmul(a, b))


def test_batched_matmul_broadcasting_batch_dims_compiles():
    def body(g, a, b):
        return [("bcast:f", g.matmul(a, b))]

    graph, labels = build("bmm_bcast2", [((1, 4, 5), F32), ((2, 3, 5, 6), F32)], body)
    a, b = (RNG.standard_normal(s).astype(np.float32) for s in ((1, 4, 5), (2, 3, 5, 6)))
    ex = check(graph, labels, [a, b], tol={"bcast:f": 64})
    assert "np.broadcast_to(" in ex.program.source


def test_unknown_dims_broadcast_at_run_time():
    """Shapes with unknown dims: the flat loop when shapes match, else the N-d loop."""
    def body(g, x, y):
        s = g.add(g.multiply(x, y), np.asarray(1.0, F64))
        return [("s", s), ("tanh", g.tanh(s)), ("sum", g.sum(s, axis=0))]

    graph, labels = build("dyn", [((None, 4), F64), ((None, 4), F64)], body)
    ex = check(graph, labels, [floats((3, 4), F64), floats((3, 4), F64)])
    args = [np.ones((1, 4)), np.arange(20.0).reshape(5, 4)]
    compare(ex(args), run_graph(graph, args), labels)
    # a run-time error is re-raised by the interpreter, naming the node and its line
    with pytest.raises(InvalidArgumentError, match=r"multiply.*test_numba_backend.py"):
        ex([np.ones((2, 4)), np.ones((3, 4))])


def test_scalar_graph_and_noncontiguous_inputs():
    """0-d inputs and results are scalars inside; outputs come back as 0-d arrays."""
    def body(g, x, m):
        y = g.add(x, np.asarray(1.0, F32))
        return [("y", y), ("m*y", g.multiply(m, y)), ("x", x), ("sum", g.sum(m))]

    graph, labels = build("scalar", [((), F32), ((3, 4), F32)], body)
    m = RNG.uniform(0.5, 1.0, (4, 3)).astype(np.float32).T  # not C-contiguous
    # NumPy sums a non-contiguous array in memory order, the program in C order: with
    # positive terms (no cancellation) the two differ by a few ULP at most
    ex = check(graph, labels, [np.asarray(2.0, np.float32), m], tol={"sum": 8})
    out = ex([np.asarray(2.0, np.float32), m])
    assert out[0].shape == () and out[0].dtype == np.float32 and out[0] == 3.0


@pytest.mark.parametrize("outputs", [1, 2])
def test_runners_check_what_the_entry_point_trusts(outputs):
    """Both runners (one output and nothing else passed; several outputs and a constant
    passed after the inputs) call the compiled entry point only for C-contiguous arrays
    of the compiled ranks; anything else goes through Numba's dispatcher or the
    interpreter, so the result is always run_graph's (value or error)."""
    w = RNG.standard_normal((4, 2)).astype(np.float32)

    def body(g, m):  # BLAS reads the input: a strided one taken for C would be wrong
        prod = g.matmul(m, g.transpose(m))
        if outputs == 1:
            return [("prod", prod)]
        return [("prod", prod), ("by w", g.matmul(m, w))]

    graph, labels = build("outs", [((3, 4), F32)], body)
    m = RNG.standard_normal((3, 4)).astype(np.float32)
    ex = check(graph, labels, [m])
    assert bool(ex.program.consts) == (outputs > 1)  # the second runner: constants passed
    cases = [m, RNG.standard_normal((4, 3)).astype(np.float32).T,  # not C-contiguous
             m.reshape(12), m.reshape(1, 3, 4), m.astype(np.float64)]  # rank, dtype
    for arg in cases:
        try:
            want = run_graph(graph, [arg])
        except Exception as e:  # noqa: BLE001 - then the runner must raise the same
            with pytest.raises(type(e)):
                ex([arg])
            continue
        got = ex([arg])
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-6)
            assert g.dtype == w.dtype and g.shape == w.shape


@pytest.mark.parametrize("compiled_part", [False, True])
def test_fallback_is_reported_once_with_reasons(compiled_part):
    """Ops without a Numba kernel run on the interpreter, and say why, once: the whole
    graph when nothing else would be compiled, else between compiled segments."""
    def body(g, x, z):
        y = g.add(x, np.asarray(1.0, F32)) if compiled_part else x
        return [("h", g.cast(y, dtype=np.dtype(np.float16))),
                ("c", g.sign(z))]  # complex sign: no template

    graph, labels = build("fb", [((5,), F32), ((5,), np.complex64)], body)
    with pytest.warns(numba_cpu.FallbackWarning) as record:
        ex = numba_cpu.executor_for(graph)
    assert len(record) == 1
    msg = str(record[0].message)
    assert "'fb'" in msg and "dtype float16" in msg and "complex64" in msg
    assert "test_numba_backend.py" in msg  # the user's source line of the node
    assert ex.backend == ("segments" if compiled_part else "numpy") and len(ex.reasons) == 2
    x = RNG.standard_normal(5).astype(np.float32)
    z = (x + 2j * x[::-1]).astype(np.complex64)
    for g_, w in zip(ex([x, z]), run_graph(graph, [x, z])):
        np.testing.assert_array_equal(g_, w)
    assert "dtype float16" in ex.explain()
    if compiled_part:
        assert "1 compiled segment(s), 2 node(s) run in Python" in ex.explain()
    with pytest.raises(numba_cpu.FallbackError, match="float16"):
        numba_cpu.executor_for(graph, strict=True)


def test_fused_nodes_from_the_pass_pipeline():
    """``fused_elementwise`` nodes (the fusion pass) become one loop each, broadcasting."""
    import graphc as gc

    def f(x, b):
        y = 1.0 / (1.0 + gc.exp(-(x * 2.0 + b)))
        return y, gc.reduce_sum(y * y, axis=1)

    x = RNG.standard_normal((64, 33)).astype(np.float32)
    b = RNG.standard_normal(33).astype(np.float32)
    graph = gc.function(f).get_concrete_function(gc.constant(x), gc.constant(b)).optimized_graph
    assert "fused_elementwise" in {n.op.name for n in graph.nodes}, str(graph)
    check(graph, ["sigmoid:y", "sum"], [x, b], tol={"sum": 4})


def _policy_graph():
    def body(g, x):
        return [("y", g.multiply(g.add(x, np.asarray(1.0, F32)), x))]

    return build("policy", [((4,), F32)], body)[0]


@pytest.mark.parametrize("background", [False, True])
def test_lazy_policy_runs_the_interpreter_until_hot(monkeypatch, background):
    monkeypatch.setattr(numba_cpu.settings, "mode", "lazy")
    monkeypatch.setattr(numba_cpu.settings, "compile_after", 2)
    monkeypatch.setattr(numba_cpu.settings, "background", background)
    numba_cpu.cache.clear(disk=False)  # a program compiled in memory would be used at once
    graph = _policy_graph()
    x = np.arange(4, dtype=np.float32)
    swapped = []
    ex = numba_cpu.executor_for(graph, on_compiled=swapped.append)
    if not numba_cpu._on_disk(ex.key):  # first run of this test file: nothing cached yet
        ex([x])
        assert ex.backend == "numpy" and ex.calls == 1 and "cold" in ex.explain()
    for _ in range(2):
        np.testing.assert_array_equal(ex([x])[0], (x + 1) * x)
    assert ex.wait(timeout=120)
    assert ex.backend == "numba" and len(swapped) == 1
    np.testing.assert_array_equal(swapped[0]([x])[0], (x + 1) * x)


def test_off_mode_and_lazy_import(monkeypatch):
    monkeypatch.setattr(numba_cpu.settings, "mode", "off")
    ex = numba_cpu.executor_for(_policy_graph())
    assert ex.backend == "numpy" and not ex.reasons and ex.program is None
    code = ("import sys, graphc\n"
            "from graphc.runtime.cpu import numba_cpu, codegen\n"
            "import graphc as gc, numpy as np\n"
            "f = gc.function(lambda x: x * 2 + 1)\n"
            "g = f.get_concrete_function(gc.constant(np.ones(3, np.float32))).optimized_graph\n"
            "assert codegen.generate(g).ok\n"
            "assert 'numba' not in sys.modules, 'graphc imported numba'\n")
    import subprocess
    import sys

    subprocess.run([sys.executable, "-c", code], check=True)
