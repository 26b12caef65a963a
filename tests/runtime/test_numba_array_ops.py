"""Numba kernels of the array and linalg ops (kernels_array.py, kernels_linalg.py) agree
with the interpreter: std/var, arange/range/linspace, sort/argsort, pad, tile, repeat,
split, einsum, tensordot, inner, vdot, trace.

Each test packs many nodes into one graph (a compile costs ~0.5-1 s) and runs it on a
few input sets, including empty, non-contiguous and special-valued (NaN, -0.0, ties)
arrays and inputs with unknown dims. Exact agreement everywhere except float
contractions (einsum, tensordot, inner, vdot: another summation order or BLAS), which
get a relative tolerance.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_numba_backend import build, check, compare

from graphc.core.interpreter import run_graph
from graphc.errors import InvalidArgumentError

F32, F64, I32, I64, U8, B = (np.dtype(t) for t in (
    np.float32, np.float64, np.int32, np.int64, np.uint8, np.bool_))
RNG = np.random.default_rng(7)


pytestmark = pytest.mark.usefixtures("eager_compile")


def data(shape, dtype, special=False):
    """Small values with ties; ``special`` floats get NaN, inf, -0.0 and 0.0 too."""
    if dtype == B:
        return RNG.random(shape) < 0.5
    a = RNG.integers(-4, 5, shape).astype(dtype)
    if dtype.kind == "f":
        a = (a + RNG.integers(0, 2, shape) * 0.25).astype(dtype)
        if special and a.size >= 6:
            flat = a.reshape(-1)
            flat[:6] = [np.nan, -0.0, np.inf, 0.0, np.nan, -np.inf]
            RNG.shuffle(flat)
    return a


def run_variants(ex, graph, labels, variants, tol=None, bitwise=False):
    """Compare on more inputs; ``bitwise``: also the bytes (``compare`` takes -0.0 and
    0.0 as equal)."""
    for arrays in variants:
        with np.errstate(all="ignore"):
            want = run_graph(graph, list(arrays))
            got = ex(list(arrays))
        compare(got, want, labels, tol)
        if bitwise:
            for label, g_, w in zip(labels, got, want):
                assert g_.tobytes() == np.asarray(w).tobytes(), label


# --------------------------------------------------------------------------- std / var
@pytest.mark.filterwarnings("ignore:Degrees of freedom:RuntimeWarning")
def test_std_var():
    """NumPy's _var step by step: exact on C-contiguous inputs (a transposed input is
    summed in another order by NumPy, so it is checked within a few ULP)."""
    def body(g, x, i, b, s, d):
        return [
            ("var:all", g.var(x, axis=None, keepdims=False, dtype=None, ddof=0)),
            ("std:ax1", g.std(x, axis=1, keepdims=True, dtype=None, ddof=1)),
            ("var:ax02", g.var(x, axis=(0, -1), keepdims=False, dtype=F64, ddof=0)),
            ("std:int", g.std(i, axis=0, keepdims=False, dtype=None, ddof=0)),
            ("var:int-f32", g.var(i, axis=None, keepdims=True, dtype=F32, ddof=1)),
            ("std:bool", g.std(b, axis=-1, keepdims=False, dtype=None, ddof=0)),
            ("var:0d", g.var(s, axis=None, keepdims=False, dtype=None, ddof=0)),
            ("std:dyn", g.std(d, axis=0, keepdims=False, dtype=None, ddof=2)),
            ("var:T", g.var(g.transpose(x, axes=(2, 0, 1)), axis=1, keepdims=False,
                            dtype=None, ddof=0)),
        ]

    graph, labels = build("stdvar", [((3, 4, 5), F32), ((6, 3), I32), ((2, 7), B),
                                     ((), F64), ((None, 3), F64)], body)
    big = (RNG.standard_normal((3, 4, 5)) * 1e3 + 7).astype(F32)
    # var:T reads a transposed view: NumPy sums it in memory order, we in C order
    tol = {"var:T": 4}
    ex = check(graph, labels, [big, data((6, 3), I32), data((2, 7), B), np.asarray(1.5),
                               data((5, 3), F64)], tol)
    run_variants(ex, graph, labels, tol=tol, variants=[
        # NaN/inf, one row (ddof=2 > n: inf/nan), nothing at all (0/0)
        [data((3, 4, 5), F32, special=True), data((6, 3), I32), data((2, 7), B),
         np.asarray(-2.0), data((1, 3), F64)],
        [big, data((6, 3), I32), data((2, 7), B), np.asarray(0.0), np.zeros((0, 3))],
    ])
    noncontig = [data((5, 4, 3), F32).transpose(2, 1, 0), data((3, 6), I32).T,
                 data((7, 2), B).T, np.asarray(3.0), data((3, 4), F64).T[:, ::-1].T]
    run_variants(ex, graph, labels, [noncontig], tol=dict.fromkeys(labels, 4))


# --------------------------------------------------------------------------- ranges
RANGE_DTYPES = [I32] * 3 + [I64] * 3 + [F32] * 3 + [F64] * 3


def _bounds(*values):
    return [np.asarray(v, t) for v, t in zip(values, RANGE_DTYPES)]


def test_ranges():
    def body(g, a, b, c, p, q, r, f, h, k, x, y, z):
        return [
            ("arange:i", g.arange(start=0, stop=5, step=1, dtype=I64)),
            ("arange:f32", g.arange(start=0.5, stop=2.0, step=0.1, dtype=F32)),
            ("arange:f64", g.arange(start=1.0, stop=2.0, step=0.3, dtype=F64)),
            ("arange:down", g.arange(start=5, stop=-3, step=-2, dtype=I32)),
            ("arange:empty", g.arange(start=3, stop=0, step=1, dtype=F64)),
            ("linspace:f64", g.linspace(start=0, stop=1, num=7, endpoint=True, dtype=F64)),
            ("linspace:f32", g.linspace(start=-1, stop=1, num=4, endpoint=False, dtype=F32)),
            ("linspace:int", g.linspace(start=0, stop=10, num=6, endpoint=True, dtype=I32)),
            ("linspace:1", g.linspace(start=2, stop=3, num=1, endpoint=True, dtype=I64)),
            ("range:i32", g.range(a, b, c, dtype=I32)),
            ("range:i64", g.range(p, q, r, dtype=I64)),
            ("range:f32", g.range(f, h, k, dtype=F32)),
            ("range:f64", g.range(x, y, z, dtype=F64)),
        ]

    graph, labels = build("ranges", [((), t) for t in RANGE_DTYPES], body)
    ex = check(graph, labels, _bounds(0, 5, 1, 5, 0, -2, 0.5, 2.0, 0.1, 1.0, 2.0, 0.3))
    for values in ((2, 17, 3, -7, 7, 4, -0.0, 3.3, 0.7, 10.0, -10.0, -1.7),
                   (5, 5, 1, 3, -10, -3, 1.0, 1.0, 0.5, 0.0, 1e-3, 1e-5),
                   (0, 9, 4, 1, 0, 1, 3.0, -1.0, 0.25, -0.0, 0.1, 0.1)):
        run_variants(ex, graph, labels, [_bounds(*values)])
    # step 0, NaN bounds: the interpreter's error
    for values in ((0, 5, 0, 0, 1, 1, 0, 1, 1, 0, 1, 1), (0, 5, 1, 0, 1, 1, 0, np.nan, 1, 0, 1, 1)):
        with pytest.raises(InvalidArgumentError), np.errstate(all="ignore"):
            ex(_bounds(*values))


# --------------------------------------------------------------------------- sorting
def test_sort_and_argsort():
    """Stable (ties in input order, -0.0 before or after 0.0 as given), NaNs last."""
    def body(g, x, i, b, d, e):
        # one helper serves both ops (argsort: want_index), so the variants are shared
        return [("sort:last", g.sort(x, axis=-1)), ("argsort:first", g.argsort(x, axis=0)),
                ("sort:flat", g.sort(x, axis=None)), ("argsort:flat", g.argsort(x, axis=None)),
                ("argsort:i32", g.argsort(i, axis=-2)), ("sort:i32", g.sort(i, axis=1)),
                ("sort:bool", g.sort(b, axis=0)), ("argsort:bool", g.argsort(b, axis=0)),
                ("sort:dyn", g.sort(d, axis=0)), ("argsort:dyn", g.argsort(d, axis=0)),
                ("argsort:empty", g.argsort(e, axis=1)),
                ("argsort:T", g.argsort(g.transpose(x, axes=None), axis=-1))]

    graph, labels = build("sort", [((4, 9), F32), ((40, 3), I32), ((20,), B),
                                   ((None,), F64), ((2, 0), I64)], body)
    arrays = [data((4, 9), F32, special=True), data((40, 3), I32), data((20,), B),
              data((50,), F64, special=True), np.zeros((2, 0), I64)]
    ex = check(graph, labels, arrays)
    run_variants(ex, graph, labels, bitwise=True, variants=[arrays,
        [data((9, 4), F32, special=True).T, data((3, 40), I32).T, data((40,), B)[::2],
         np.zeros(0), np.zeros((2, 0), I64)],
        [data((4, 9), F32), data((40, 3), I32), data((20,), B),
         data((1000,), F64, special=True), np.zeros((2, 0), I64)],
    ])


# --------------------------------------------------------------------------- reshuffles
def test_pad_tile_repeat_split():
    def body(g, x, v, s, d, b):
        pw = ((1, 2), (3, 0))
        out = [(f"pad:{m}", g.pad(x, pad_width=pw, mode=m, constant_values=0))
               for m in ("edge", "reflect", "symmetric", "wrap")]
        out += [
            ("pad:const", g.pad(x, pad_width=pw, mode="constant", constant_values=7.5)),
            ("pad:big", g.pad(v, pad_width=((5, 7),), mode="reflect", constant_values=0)),
            ("pad:dyn", g.pad(d, pad_width=((2, 1), (0, 1)), mode="wrap", constant_values=0)),
            ("pad:bool", g.pad(b, pad_width=((1, 1),), mode="constant", constant_values=1)),
            ("tile:1", g.tile(x, reps=(2,))), ("tile:2", g.tile(v, reps=(2, 3))),
            ("tile:0d", g.tile(s, reps=(3,))), ("tile:dyn", g.tile(d, reps=(1, 2, 2))),
            ("tile:zero", g.tile(x, reps=(0, 1))),
            ("repeat:flat", g.repeat(x, repeats=2, axis=None)),
            ("repeat:counts", g.repeat(v, repeats=(1, 0, 2, 3, 1), axis=0)),
            ("repeat:ax1", g.repeat(x, repeats=3, axis=1)),
            ("repeat:neg", g.repeat(x, repeats=(2, 1, 0), axis=-2)),
            ("repeat:dyn", g.repeat(d, repeats=2, axis=0)),
            ("repeat:0d", g.repeat(s, repeats=4, axis=None)),
            ("repeat:bool", g.repeat(b, repeats=(2,), axis=0)),
        ]
        out += [(f"split:sec{k}", p) for k, p in enumerate(
            g.split(x, indices_or_sections=2, axis=-1))]
        out += [(f"split:idx{k}", p) for k, p in enumerate(
            g.split(v, indices_or_sections=(1, 3, -1, 10), axis=0))]
        out += [(f"split:dyn{k}", p) for k, p in enumerate(
            g.split(d, indices_or_sections=2, axis=0))]
        xt = g.transpose(x, axes=None)
        out += [("pad:T", g.pad(xt, pad_width=((0, 1), (2, 2)), mode="symmetric",
                                constant_values=0)),
                ("tile:T", g.tile(xt, reps=(2, 1))),
                ("repeat:T", g.repeat(xt, repeats=(1, 2, 0, 1), axis=0)),
                ("split:T", g.split(xt, indices_or_sections=(1,), axis=1)[1])]
        return out

    graph, labels = build("reshuffle", [((3, 4), F32), ((5,), I32), ((), F64),
                                        ((None, 2), I64), ((4,), B)], body)
    arrays = [data((3, 4), F32, special=True), data((5,), I32), np.asarray(2.5),
              data((4, 2), I64), data((4,), B)]
    ex = check(graph, labels, arrays)
    run_variants(ex, graph, labels, bitwise=True, variants=[arrays,
        [data((4, 3), F32).T, data((10,), I32)[::2], np.asarray(-1.0), data((2, 2), I64)[:, ::-1],
         data((4,), B)],
    ])
    # run-time errors are the interpreter's: an unknown dim that does not split evenly,
    # an empty axis padded by 'wrap'
    with pytest.raises(InvalidArgumentError, match="split"):
        ex([arrays[0], arrays[1], arrays[2], data((3, 2), I64), arrays[4]])
    with pytest.raises(InvalidArgumentError, match="pad"):
        ex([arrays[0], arrays[1], arrays[2], np.zeros((0, 2), I64), arrays[4]])


@pytest.mark.parametrize("case", ["repeat", "einsum_dims", "split_sections"])
def test_run_time_shape_errors_are_the_interpreters(case):
    """A shape that only turns out wrong at run time raises inside the program; the
    executor reruns the interpreter, which raises the user-facing error."""
    def body(g, x, y):
        if case == "repeat":
            return [("r", g.repeat(x, repeats=(1, 2), axis=0))]
        if case == "einsum_dims":
            return [("e", g.einsum(x, y, subscripts="i,i->i"))]
        return [("s", g.split(x, indices_or_sections=2, axis=0)[0])]

    graph, labels = build(case, [((None,), F32), ((None,), F32)], body)
    n = 2 if case == "repeat" else 4
    ex = check(graph, labels, [data((n,), F32), data((n,), F32)])
    with pytest.raises(InvalidArgumentError):
        ex([data((3,), F32), data((5,), F32)])


# --------------------------------------------------------------------------- linalg
def close(got, want, labels):
    """Float contractions: another summation order (or BLAS) than NumPy's."""
    for label, g_, w in zip(labels, got, want):
        assert g_.dtype == w.dtype and g_.shape == w.shape, label
        if w.dtype.kind == "f":
            rtol = 1e-5 if w.dtype == F32 else 1e-12
            np.testing.assert_allclose(g_, w, rtol=rtol, atol=rtol * 10, err_msg=label)
        else:
            np.testing.assert_array_equal(g_, w, err_msg=label)


def test_contractions():
    """Small-integer-valued floats make every summation order exact, so the indexing is
    checked bit for bit; random normal values then within a relative tolerance."""
    def body(g, a, b, c, i, j, d, s, m, w):
        at = g.transpose(a, axes=None)  # a non-contiguous operand inside the program
        return [
            ("einsum:mm", g.einsum(a, b, subscripts="ij,jk->ik")),
            ("einsum:diag", g.einsum(c, subscripts="ii->i")),
            ("einsum:T", g.einsum(a, subscripts="ij->ji")),
            ("einsum:dot", g.einsum(i, i, subscripts="i,i")),
            ("einsum:3", g.einsum(a, b, b, subscripts="ij,jk,jl->ikl")),
            ("einsum:sum", g.einsum(c, subscripts="ij->")),
            ("einsum:int", g.einsum(j, j, subscripts="ij,kj->ik")),
            ("einsum:dyn", g.einsum(d, a, subscripts="ki,ij->kj")),
            ("einsum:mix", g.einsum(j, a, subscripts="ij,ik->jk")),
            ("einsum:ki", g.einsum(a, b, subscripts="ij,jk->ki")),
            ("einsum:batch", g.einsum(a, a, subscripts="ij,ij->i")),
            ("einsum:ell", g.einsum(w, b, subscripts="...ij,jk->...ik")),
            ("einsum:ell2", g.einsum(w, a, subscripts="...j,...j")),  # implicit
            ("tensordot:1", g.tensordot(a, b, axes=1)),
            ("tensordot:ax", g.tensordot(b, c, axes=((0,), (1,)))),
            ("tensordot:0", g.tensordot(i, i, axes=0)),
            ("tensordot:dyn", g.tensordot(d, a, axes=1)),
            ("inner:2d", g.inner(a, c)), ("inner:1d", g.inner(i, i)),
            ("inner:0d", g.inner(s, a)), ("inner:int", g.inner(j, j)),
            ("inner:dyn", g.inner(d, d)),
            ("vdot:2d", g.vdot(a, a)), ("vdot:int", g.vdot(j, j)),
            ("vdot:mix", g.vdot(j, a)),
            ("trace:0", g.trace(c, offset=0, axis1=0, axis2=1)),
            ("trace:off", g.trace(a, offset=1, axis1=0, axis2=1)),
            ("trace:neg", g.trace(b, offset=-1, axis1=1, axis2=0)),
            ("trace:int", g.trace(j, offset=0, axis1=-1, axis2=0)),
            ("trace:dyn", g.trace(d, offset=0, axis1=0, axis2=1)),
            ("einsum:T", g.einsum(at, a, subscripts="ij,jk->ik")),
            ("tensordot:T", g.tensordot(at, b, axes=((0,), (0,)))),
            ("vdot:T", g.vdot(at, at)),
            ("trace:T", g.trace(at, offset=-1, axis1=0, axis2=1)),
            # bools: NumPy's dot of bools is an OR of ANDs
            ("einsum:bool", g.einsum(m, m, subscripts="ij,jk->ik")),
            ("einsum:bool3", g.einsum(m, m, m, subscripts="ij,jk,kl->il")),
            ("tensordot:bool", g.tensordot(m, m, axes=1)), ("inner:bool", g.inner(m, m)),
            ("vdot:bool", g.vdot(m, m)), ("trace:bool", g.trace(m, offset=0, axis1=0,
                                                               axis2=1)),
        ]

    in_avals = [((2, 3), F32), ((3, 4), F32), ((3, 3), F64), ((5,), F64), ((2, 3), I32),
                ((None, 2), F32), ((), F32), ((3, 3), B), ((4, 2, 3), F32)]
    graph, labels = build("linalg", in_avals, body)
    arrays = [data(s, t) for s, t in in_avals[:5]] + [data((4, 2), F32), np.asarray(1.5, F32),
                                                      data((3, 3), B), data((4, 2, 3), F32)]
    ex = check(graph, labels, arrays)
    big = np.iinfo(np.int32).max
    ints = np.array([[big, 3, -big], [7, big, 2]], np.int32)  # products wrap
    run_variants(ex, graph, labels, [
        [data((3, 2), F32).T, data((4, 3), F32).T, data((3, 3), F64)[::-1],
         data((10,), F64)[::2], ints, np.zeros((0, 2), F32), np.asarray(-2.0, F32),
         np.eye(3, dtype=bool)[::-1], data((4, 3, 2), F32).transpose(0, 2, 1)],
    ])
    normal = [RNG.standard_normal(a.shape).astype(a.dtype) if a.dtype.kind == "f" else a
              for a in arrays]
    with np.errstate(all="ignore"):
        close(ex(normal), run_graph(graph, normal), labels)
    with pytest.raises(InvalidArgumentError):  # the unknown dim disagrees at run time
        ex(arrays[:5] + [data((4, 3), F32), *arrays[6:]])


def test_einsum_products_without_a_result_transpose(compiled_only):
    """An einsum whose output puts one operand's free labels around the other's
    (``nchw,oc->nohw``, a convolution tap) is a loop of BLAS products written straight
    into the result; too small a product, an int product or an unknown dim keeps one
    product and a transpose. Both agree with the interpreter."""
    def body(g, img, w, small, iw, ints, dyn):
        all_ = ("slice", None, None, None)  # a strided view, copied first
        window = g.getitem(img, key=(all_, all_, ("slice", 1, None, None),
                                     ("slice", None, -1, None)))
        return [("nchw,oc", g.einsum(window, w, subscripts="nchw,oc->nohw")),
                ("oc,nchw", g.einsum(w, img, subscripts="oc,nchw->nohw")),
                ("nhcw,oc", g.einsum(img, w, subscripts="nchw,oc->nhow")),
                ("small", g.einsum(small, w, subscripts="nchw,oc->nohw")),
                ("int", g.einsum(ints, iw, subscripts="nchw,oc->nohw")),
                ("dyn", g.einsum(dyn, w, subscripts="nchw,oc->nohw"))]

    in_avals = [((2, 3, 9, 9), F32), ((4, 3), F32), ((2, 3, 2, 2), F32), ((4, 3), I32),
                ((2, 3, 9, 9), I32), ((None, 3, 9, 9), F32)]
    graph, labels = build("einsum_products", in_avals, body)
    arrays = [data(s if s[0] else (2,) + s[1:], t) for s, t in in_avals]
    ex = check(graph, labels, arrays)
    assert ex.program.source.count("H.dot_into(") == 3, ex.program.source
    run_variants(ex, graph, labels, [[data((3, 2, 9, 9), F32).transpose(1, 0, 2, 3),
                                      *arrays[1:5], data((1, 3, 9, 9), F32)]])
