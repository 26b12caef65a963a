"""Arithmetic simplification: one golden per rule, exactness, and rules that must not fire."""

import numpy as np
import pytest
from pass_helpers import (
    BOOL,
    F32,
    F64,
    I32,
    I64,
    Aval,
    assert_same_results,
    build,
    const,
    emit,
    run_pass,
    text,
)

from graphc.passes.simplify import RULES

X = Aval((2, 3), F32)
XI = Aval((2, 3), I32)
B3 = Aval((3,), BOOL)
NEG0 = np.float32(-0.0)


ROW0 = (("slice", 0, 1, None),)


def _write_twice(key1, key2, v2=None):
    """``x[key1] = 2; x[key2] = v2`` (default: the same constant value as the first)."""
    def body(c, x):
        v = const(c, 2.0)
        first = emit(c, "setitem", x, v, key=key1)
        return emit(c, "setitem", first, v if v2 is None else const(c, v2), key=key2)
    return body


def _chain(inner, outer, **kw):
    return lambda c, x: emit(c, outer, emit(c, inner, x, **kw.get("i", {})), **kw.get("o", {}))


# rule name -> (graph body, input avals, the graph after the pass)
CASES = {
    "mul(x, 1) -> x": (
        lambda c, x: emit(c, "multiply", x, const(c, 1.0)), [X],
        "%1:f32[] = const 1.\n  return %0"),
    "mul(1, x) -> x": (
        lambda c, x: emit(c, "multiply", const(c, [1, 1, 1], I32), x), [XI],
        "%1:i32[3] = const [1, 1, 1]\n  return %0"),
    "add(x, 0) -> x  (floats: only x + -0.0)": (
        lambda c, x: emit(c, "add", x, const(c, NEG0)), [X],
        "%1:f32[] = const -0.\n  return %0"),
    "add(0, x) -> x  (floats: only -0.0 + x)": (
        lambda c, x: emit(c, "add", const(c, 0, I32), x), [XI],
        "%1:i32[] = const 0\n  return %0"),
    "sub(x, 0) -> x": (
        lambda c, x: emit(c, "subtract", x, const(c, 0.0)), [X],
        "%1:f32[] = const 0.\n  return %0"),
    "div(x, 1) -> x": (
        lambda c, x: emit(c, "true_divide", x, const(c, 1.0)), [X],
        "%1:f32[] = const 1.\n  return %0"),
    "floordiv(x, 1) -> x  (integers)": (
        lambda c, x: emit(c, "floor_divide", x, const(c, 1, I32)), [XI],
        "%1:i32[] = const 1\n  return %0"),
    "pow(x, 1) -> x": (
        lambda c, x: emit(c, "power", x, const(c, 1.0)), [X],
        "%1:f32[] = const 1.\n  return %0"),
    "pow(x, 2) -> mul(x, x)": (
        lambda c, x: emit(c, "power", x, const(c, 2, I32)), [XI],
        "%1:i32[] = const 2\n  %2:i32[2,3] = multiply %0 %0\n  return %2"),
    "neg(neg(x)) -> x": (
        _chain("negative", "negative"), [X],
        "%1:f32[2,3] = negative %0\n  return %0"),
    "not(not(x)) -> x  (bool)": (
        _chain("logical_not", "logical_not"), [B3],
        "%1:bool[3] = logical_not %0\n  return %0"),
    "invert(invert(x)) -> x": (
        _chain("invert", "invert"), [XI],
        "%1:i32[2,3] = invert %0\n  return %0"),
    "abs(abs(x)) -> abs(x)": (
        _chain("absolute", "absolute"), [X],
        "%1:f32[2,3] = absolute %0\n  return %1"),
    "pos(x) -> x": (lambda c, x: emit(c, "positive", x), [X], "return %0"),
    "identity(x) -> x": (lambda c, x: emit(c, "identity", x), [X], "return %0"),
    "add(x, neg(y)) -> sub(x, y)": (
        lambda c, x, y: emit(c, "add", x, emit(c, "negative", y)), [X, X],
        "%2:f32[2,3] = negative %1\n  %3:f32[2,3] = subtract %0 %1\n  return %3"),
    "sub(x, neg(y)) -> add(x, y)": (
        lambda c, x, y: emit(c, "subtract", x, emit(c, "negative", y)), [X, X],
        "%2:f32[2,3] = negative %1\n  %3:f32[2,3] = add %0 %1\n  return %3"),
    "max(x, x) -> x": (lambda c, x: emit(c, "maximum", x, x), [X], "return %0"),
    "min(x, x) -> x": (lambda c, x: emit(c, "minimum", x, x), [X], "return %0"),
    "and(x, x) -> x": (lambda c, x: emit(c, "logical_and", x, x), [B3], "return %0"),
    "or(x, x) -> x": (lambda c, x: emit(c, "logical_or", x, x), [B3], "return %0"),
    "where(c, x, x) -> x": (
        lambda c, p, x: emit(c, "where", p, x, x), [B3, Aval((3,), F32)], "return %1"),
    "transpose(transpose(x, p), q) -> transpose(x, p[q])": (
        _chain("transpose", "transpose", i={"axes": (1, 2, 0)}, o={"axes": (1, 2, 0)}),
        [Aval((2, 3, 4), F32)],
        "%1:f32[3,4,2] = transpose %0 axes=(1, 2, 0)\n"
        "  %2:f32[4,2,3] = transpose %0 axes=(2, 0, 1)\n  return %2"),
    "transpose(x, identity) -> x": (
        lambda c, x: emit(c, "transpose", x, axes=(0, 1)), [X], "return %0"),
    "reshape(reshape(x, s), t) -> reshape(x, t)": (
        _chain("reshape", "reshape", i={"shape": (6,), "order": "C"},
               o={"shape": (3, -1), "order": "C"}), [X],
        "%1:f32[6] = reshape %0 order='C' shape=(6,)\n"
        "  %2:f32[3,2] = reshape %0 order='C' shape=(3, -1)\n  return %2"),
    "reshape(x, x.shape) -> x": (
        lambda c, x: emit(c, "reshape", x, shape=(2, 3), order="C"), [X], "return %0"),
    "broadcast_to(x, x.shape) -> x": (
        lambda c, x: emit(c, "broadcast_to", x, shape=(2, 3)), [X], "return %0"),
    "squeeze(expand_dims(x, a), a) -> x": (
        _chain("expand_dims", "squeeze", i={"axis": (1,)}, o={"axis": (-2,)}), [X],
        "%1:f32[2,1,3] = expand_dims %0 axis=(1,)\n  return %0"),
    "cast(x, x.dtype) -> x": (lambda c, x: emit(c, "cast", x, dtype=F32), [X], "return %0"),
    "setitem(setitem(x, v, k), v, k) -> setitem(x, v, k)": (
        _write_twice(ROW0, ROW0), [X],
        "%1:f32[] = const 2.\n  %2:f32[2,3] = setitem %0 %1 key=(('slice', 0, 1, None),)\n"
        "  return %2"),
    "outer(a, b) -> mul(reshape(a, (-1, 1)), reshape(b, (1, -1)))": (
        lambda c, a, b: emit(c, "outer", a, b), [XI, Aval((4,), I32)],
        "%2:i32[6,1] = reshape %0 order='C' shape=(6, 1)\n"
        "  %3:i32[1,4] = reshape %1 order='C' shape=(1, 4)\n"
        "  %4:i32[6,4] = multiply %2 %3\n  return %4"),
    "setitem(x, v, [:]) -> v  (v of x's shape and dtype, not elementwise)": (
        lambda c, x, v: emit(c, "setitem", x, emit(c, "transpose", v, axes=(1, 0)),
                             key=(("slice", None, None, None),)),
        [X, Aval((3, 2), F32)], "%2:f32[2,3] = transpose %1 axes=(1, 0)\n  return %2"),
    "cast(cast(x, wider), x.dtype) -> x": (
        _chain("cast", "cast", i={"dtype": F64}, o={"dtype": I32}), [XI],
        "%1:f64[2,3] = cast %0 dtype=float64\n  return %0"),
}


def test_every_rule_has_a_golden():
    assert set(CASES) == {r.name for r in RULES}


def _sample(aval, rng):
    if aval.dtype.kind == "b":
        return rng.random(aval.shape) < 0.5
    if aval.dtype.kind in "iu":
        info = np.iinfo(aval.dtype)
        x = rng.integers(-50, 50, aval.shape).astype(aval.dtype)
        x.flat[0] = info.min  # wraparound: -INT_MIN == INT_MIN
        return x
    x = rng.standard_normal(aval.shape).astype(aval.dtype)
    x.flat[:4] = [-0.0, np.nan, np.inf, -np.inf][: x.size]
    return x


@pytest.mark.parametrize("name", sorted(CASES))
def test_rule_golden_and_exact(name):
    body, avals, after = CASES[name]
    g = build(body, *avals)
    out, changes = run_pass(g, "arithmetic_simplification")
    params = ", ".join(f"%{i}:{a}" for i, a in enumerate(avals))
    assert text(out) == f"f({params}) {{\n  {after}\n}}"
    assert len(changes) == 1 and changes[0].endswith(f"by rule {name}")
    rng = np.random.default_rng(0)
    for _ in range(3):
        assert_same_results(g, out, [_sample(a, rng) for a in avals])


NOT_EXACT = {
    # -0.0 + 0.0 == +0.0: x + 0.0 is not x for floats
    "x + 0.0 (float)": (lambda c, x: emit(c, "add", x, const(c, 0.0)), X),
    "x - -0.0 (float)": (lambda c, x: emit(c, "subtract", x, const(c, NEG0)), X),
    # an int 0 promoted to float64 is +0.0
    "f64 x + int 0": (lambda c, x: emit(c, "add", x, const(c, 0, I32)), Aval((3,), F64)),
    # the result is bigger than x, or of another dtype
    "x + zeros(bigger)": (lambda c, x: emit(c, "add", x, const(c, np.zeros((4, 2, 3)), I32)), XI),
    "x * ones(bigger)": (lambda c, x: emit(c, "multiply", x, const(c, np.ones((2, 2, 3)))), X),
    "int32 x * 1.0": (lambda c, x: emit(c, "multiply", x, const(c, 1.0)), XI),
    # (inf+0j) * (1+0j) has a NaN imaginary part
    "complex x * 1": (lambda c, x: emit(c, "multiply", x, const(c, 1.0, np.complex64)),
                      Aval((3,), np.dtype(np.complex64))),
    # NumPy's SIMD pow with an exponent *array* is off by an ulp for some floats
    "x ** full(2.0)": (lambda c, x: emit(c, "power", x, const(c, np.full((2, 3), 2.0))), X),
    "x ** [1.0]": (lambda c, x: emit(c, "power", x, const(c, [1.0])), X),
    "float x // 1": (lambda c, x: emit(c, "floor_divide", x, const(c, 1.0)), X),
    # the inner reshape could fail at run time on an unknown shape
    "reshape(reshape(x[?]))": (
        _chain("reshape", "reshape", i={"shape": (2, -1), "order": "C"},
               o={"shape": (-1,), "order": "C"}), Aval((None,), F32)),
    # f64 -> f32 -> f64 rounds; i64 -> f64 -> i64 loses above 2**53
    "cast(cast(f64, f32), f64)": (_chain("cast", "cast", i={"dtype": F32}, o={"dtype": F64}),
                                  Aval((3,), F64)),
    "cast(cast(i64, f64), i64)": (_chain("cast", "cast", i={"dtype": F64}, o={"dtype": I64}),
                                  Aval((3,), I64)),
    "cast(cast(f32, i32), f32)": (_chain("cast", "cast", i={"dtype": I32}, o={"dtype": F32}),
                                  X),
    # outer of complex values (multiply's NaN rule), or of an unknown size
    "outer(complex)": (lambda c, x: emit(c, "outer", x, x), Aval((3,), np.dtype(np.complex64))),
    "outer(x[?])": (lambda c, x: emit(c, "outer", x, x), Aval((None,), F32)),
    # x[:] = v where v broadcasts, or is cast, or covers only part of x
    "x[:] = row": (lambda c, x: emit(c, "setitem", x, const(c, [1.0, 2.0, 3.0], F32),
                                     key=(("slice", None, None, None),)), X),
    "x[:] = int": (lambda c, x: emit(c, "setitem", x, const(c, np.ones((2, 3)), I32),
                                     key=(("slice", None, None, None),)), X),
    # x[:] = an elementwise value: written into x's buffer in place by the compiled loop
    "x[:] = x * 2": (lambda c, x: emit(c, "setitem", x, emit(c, "multiply", x, const(c, 2.0)),
                                       key=(("slice", None, None, None),)), X),
    "x[1:] = v": (lambda c, x: emit(c, "setitem", x, const(c, np.ones((1, 3)), F32),
                                    key=(("slice", 1, None, None),)), X),
    # the same value written to two places, or two values to one place
    "x[0:1] = v; x[1:2] = v": (_write_twice(ROW0, (("slice", 1, 2, None),)), X),
    "x[0:1] = 2; x[0:1] = 3": (_write_twice(ROW0, ROW0, 3.0), X),
}


@pytest.mark.parametrize("name", sorted(NOT_EXACT))
def test_inexact_rewrites_do_not_fire(name):
    body, aval = NOT_EXACT[name]
    g = build(body, aval)
    out, changes = run_pass(g, "arithmetic_simplification")
    assert out is g and changes == []


def test_rules_chain_in_one_pass():
    def body(c, x):
        y = emit(c, "negative", emit(c, "negative", emit(c, "negative", emit(c, "negative", x))))
        y = emit(c, "multiply", emit(c, "identity", y), const(c, 1.0))
        return emit(c, "transpose", emit(c, "transpose", y, axes=(1, 0)), axes=(1, 0))

    out, changes = run_pass(build(body, X), "arithmetic_simplification")
    assert out.outputs[0] is out.inputs[0]
    assert len(changes) == 5


@pytest.mark.parametrize("dtype, bits", [(np.float16, np.uint16), (np.float32, np.uint32),
                                         (np.float64, np.uint64)])
def test_numpy_scalar_exponent_is_exact(dtype, bits):
    """The pow rules rely on NumPy computing ``x ** c`` for a 0-d ``c`` of 1 / 2 as ``x`` /
    ``x * x`` bit for bit (if this fails after a NumPy upgrade, restrict the rules)."""
    rng = np.random.default_rng(1)
    x = rng.integers(0, np.iinfo(bits).max, 200_000, dtype=bits, endpoint=True).view(dtype)
    with np.errstate(all="ignore"):
        for shaped in (x, x[:1], x[::3]):
            assert np.array_equal(np.power(shaped, np.asarray(1, dtype)), shaped,
                                  equal_nan=True)
            assert np.array_equal(np.power(shaped, np.asarray(2, dtype)), shaped * shaped,
                                  equal_nan=True)
        for v in x[:200]:
            a = np.asarray(v)
            assert np.array_equal(np.power(a, np.asarray(2, dtype)), a * a, equal_nan=True)
