"""Compiled advanced indexing, take/gather/scatter and argwhere agree with the interpreter
(graphc/runtime/cpu/kernels_index.py, kernels_take.py).

Each test is one graph holding many cases (a Numba compile costs ~1 s), run on two or
three sets of inputs (the second with all-False masks, empty index arrays, zero-row
unknown dims). ``run_compiled`` fails if the compiled program raised and the executor
quietly fell back to the interpreter, so a kernel that over-checks cannot hide; the
out-of-bounds tests check the opposite: the program raises, and the user sees the
interpreter's ``InvalidIndexError``.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_numba_backend import F32, F64, I32, I64, U8, B, build, compare

from graphc.core.interpreter import run_graph
from graphc.errors import InvalidArgumentError, InvalidIndexError
from graphc.runtime.cpu import numba_cpu, runners

RNG = np.random.default_rng(7)
FULL = ("slice", None, None, None)
ELL, NEW = ("ellipsis",), ("newaxis",)


def A(k):
    return ("array", k)


pytestmark = pytest.mark.usefixtures("eager_compile")


class Fallback(Exception):
    """The compiled program raised and the executor called the interpreter."""


def _no_fallback(graph, arrays):
    raise Fallback


def executor(graph):
    ex = numba_cpu.executor_for(graph)
    assert ex.backend == "numba", ex.explain()
    return ex


def run_compiled(ex, arrays):
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(runners, "run_graph", _no_fallback)
        return ex(list(arrays))


def check_runs(graph, labels, runs):
    ex = executor(graph)
    for arrays in runs:
        compare(run_compiled(ex, arrays),
                [np.asarray(w) for w in run_graph(graph, list(arrays))], labels)
    return ex


def ints(shape, lo, hi, dtype=I64):
    return RNG.integers(lo, hi, shape).astype(dtype)


def floats(shape, dtype=F32):
    return RNG.standard_normal(shape).astype(dtype)


# --------------------------------------------------------------------------- getitem
GETITEM_INPUTS = [
    ((4, 5, 6), F32),    # 0 x
    ((2, 3), I32),       # 1 i
    ((3,), I64),         # 2 j (valid on every axis of x: [-4, 4))
    ((4, 5), B),         # 3 m
    ((), I64),           # 4 n
    ((), B),             # 5 b
    ((), I32),           # 6 s
    ((3,), U8),          # 7 k
    ((None, 3), F64),    # 8 u
    ((None,), B),        # 9 mu
    ((None,), I64),      # 10 iu
    ((5, 6), B),         # 11 m2
    ((4, 5), I64),       # 12 y
    ((2, 1), I32),       # 13 c
]


def _getitem_body(g, x, i, j, m, n, b, s, k, u, mu, iu, m2, y, c):
    def gi(label, t, key, *idx):
        return (label, g.getitem(t, *idx, key=key))

    xt = g.transpose(x)  # (6, 5, 4), not contiguous
    return [
        gi("x[i]", x, (A(0),), i),
        gi("x[:,j]", x, (FULL, A(0)), j),
        gi("x[j,:,j]", x, (A(0), FULL, A(1)), j, j),
        gi("x[m]", x, (A(0),), m),
        gi("x[1,:,j]", x, (("int", 1), FULL, A(0)), j),
        gi("x[:,n,1:s]", x, (FULL, A(0), ("slice", 1, ("in", 1), None)), n, s),
        gi("x[:,s:n:-1]", x, (FULL, ("slice", ("in", 0), ("in", 1), -1)), s, n),
        gi("x[::s]", x, (("slice", None, None, ("in", 0)),), s),
        gi("x[n]", x, (A(0),), n),
        gi("x[n,-1,n]", x, (A(0), ("int", -1), A(1)), n, n),
        gi("x[b]", x, (A(0),), b),
        gi("x[True]", x, (("bool", True),)),
        gi("x[False,1]", x, (("bool", False), ("int", 1))),
        gi("x[...,i]", x, (ELL, A(0)), i),
        gi("x[None,j,:,-1]", x, (NEW, A(0), FULL, ("int", -1)), j),
        gi("x[c,:,j]", x, (A(0), FULL, A(1)), c, j),
        gi("x[::-1,k]", x, (("slice", None, None, -1), A(0)), k),
        gi("x[:,m2]", x, (FULL, A(0)), m2),
        gi("x[j,k]", x, (A(0), A(1)), j, k),
        gi("x[:,j,k]", x, (FULL, A(0), A(1)), j, k),
        gi("x[:,j,...,k]", x, (FULL, A(0), ELL, A(1)), j, k),
        gi("x[:,[[0,-1]]]", x, (FULL, A(0)), np.array([[0, -1]])),
        gi("x[m,::2]", x, (A(0), ("slice", None, None, 2)), m),
        gi("xt[j,1:,k]", xt, (A(0), ("slice", 1, None, None), A(1)), j, k),
        gi("xt[:,m.T]", xt, (FULL, A(0)), g.transpose(m)),
        gi("y[m]", y, (A(0),), m),
        gi("y[j,j]", y, (A(0), A(1)), j, j),
        gi("m[j]", m, (A(0),), j),
        gi("u[iu]", u, (A(0),), iu),
        gi("u[mu]", u, (A(0),), mu),
        gi("u[iu,1:]", u, (A(0), ("slice", 1, None, None)), iu),
        gi("u[:,[2,-1]]", u, (FULL, A(0)), np.array([2, -1], np.int32)),
        gi("u[:,n]", u, (FULL, A(0)), n),
    ]


def _getitem_arrays(rows, masks=True):
    return [floats((4, 5, 6)), ints((2, 3), -4, 4, I32), np.array([3, -4, 0]),
            RNG.random((4, 5)) < 0.5 if masks else np.zeros((4, 5), bool),
            np.asarray(-2), np.asarray(masks), np.asarray(3, I32), np.array([0, 3, 3], U8),
            floats((rows, 3), F64), RNG.random(rows) < 0.5, ints((rows,), -rows, rows),
            RNG.random((5, 6)) < 0.5 if masks else np.zeros((5, 6), bool),
            ints((4, 5), -100, 100), ints((2, 1), -4, 4, I32)]


def test_getitem_advanced():
    graph, labels = build("getitem_adv", GETITEM_INPUTS, _getitem_body)
    runs = [_getitem_arrays(7), _getitem_arrays(0, masks=False), _getitem_arrays(1)]
    runs[1][6] = np.asarray(-1, I32)  # other slice bounds and step
    check_runs(graph, labels, runs)


# --------------------------------------------------------------------------- take family
TAKE_INPUTS = [
    ((3, 4), F64),       # 0 a
    ((2, 2), I32),       # 1 it: [-3, 3)
    ((3,), I64),         # 2 iw: anything (wrap / clip)
    ((3, 2), I64),       # 3 ia: [-4, 4) along axis 1
    ((2, 1), I64),       # 4 ib: [-3, 3) along axis 0, broadcast
    ((3, 4), I32),       # 5 p
    ((2,), I64),         # 6 gi: [0, 3)
    ((3, 2), I32),       # 7 gb: [0, 4), batch_dims=1
    ((), I64),           # 8 g0: [0, 3)
    ((4, 3), F32),       # 9 t
    ((2, 1), I64),       # 10 si (duplicates)
    ((2, 3), F64),       # 11 su
    ((2, 2), I32),       # 12 si2
    ((2,), F32),         # 13 su2
    ((2, 0), I64),       # 14 si0
    ((2, 4, 3), F32),    # 15 su0
    ((2, 3), F32),       # 16 w
    ((2, 3), B),         # 17 wb
    ((5,), I32),         # 18 wi
    ((), F64),           # 19 ws
    ((3,), B),           # 20 bidx
    ((None, 4), F64),    # 21 an
    ((None,), I32),      # 22 ain: valid for an's rows and for axis 1 of an
    ((5,), U8),          # 23 ia1: [0, 12) flat
]


def _take_body(g, a, it, iw, ia, ib, p, gi, gb, g0, t, si, su, si2, su2, si0, su0, w, wb,
               wi, ws, bidx, an, ain, ia1):
    at, pt, wt = g.transpose(a), g.transpose(p), g.transpose(w)
    return [
        ("take:None", g.take(a, it, axis=None, mode="raise")),
        ("take:0", g.take(a, it, axis=0, mode="raise")),
        ("take:1", g.take(a, it, axis=1, mode="raise")),
        ("take:-1", g.take(a, it, axis=-1, mode="raise")),
        ("take:wrap", g.take(a, iw, axis=1, mode="wrap")),
        ("take:clip", g.take(a, iw, axis=0, mode="clip")),
        ("take:wrapNone", g.take(a, iw, axis=None, mode="wrap")),
        ("take:scalar", g.take(a, g0, axis=0, mode="raise")),
        ("take:scalarNone", g.take(a, g0, axis=None, mode="raise")),
        ("take:T", g.take(at, it, axis=1, mode="raise")),
        ("take:bool", g.take(a, bidx, axis=0, mode="raise")),
        ("take:p", g.take(p, ia1, axis=None, mode="raise")),
        ("take:unknown", g.take(an, ain, axis=0, mode="raise")),
        ("along:1", g.take_along_axis(a, ia, axis=1)),
        ("along:0b", g.take_along_axis(a, ib, axis=0)),
        ("along:None", g.take_along_axis(p, ia1, axis=None)),
        ("along:T", g.take_along_axis(at, ib, axis=0)),
        ("along:unknown", g.take_along_axis(an, g.take(ia, np.array([0]), axis=0,
                                                       mode="raise"), axis=1)),
        ("gather:0", g.gather(p, gi, axis=0, batch_dims=0)),
        ("gather:1", g.gather(p, gb, axis=1, batch_dims=0)),
        ("gather:batch", g.gather(p, gb, axis=1, batch_dims=1)),
        ("gather:scalar", g.gather(p, g0, axis=0, batch_dims=0)),
        ("gather:T", g.gather(pt, gi, axis=1, batch_dims=0)),
        ("gather:unknown", g.gather(an, gi, axis=1, batch_dims=0)),
        ("scatter:dup", g.tensor_scatter_nd_update(t, si, su)),
        ("scatter:2", g.tensor_scatter_nd_update(t, si2, su2)),
        ("scatter:k0", g.tensor_scatter_nd_update(t, si0, su0)),
        ("scatter:T", g.tensor_scatter_nd_update(g.transpose(t), si2, su2)),
        ("argwhere:f", g.argwhere(w)),
        ("argwhere:b", g.argwhere(wb)),
        ("argwhere:i", g.argwhere(wi)),
        ("argwhere:0d", g.argwhere(ws)),
        ("argwhere:T", g.argwhere(wt)),
        ("argwhere:unknown", g.argwhere(an)),
    ]


def _take_arrays(rows, zeros=False):
    w = floats((2, 3))
    w[0, 0], w[1, 1] = np.nan, 0.0
    return [floats((3, 4), F64), ints((2, 2), -3, 3, I32), ints((3,), -20, 20),
            ints((3, 2), -4, 4), ints((2, 1), -3, 3), ints((3, 4), -9, 9, I32),
            ints((2,), 0, 3), ints((3, 2), 0, 4, I32), np.asarray(2), floats((4, 3)),
            np.array([[1], [1]]), floats((2, 3), F64), np.array([[2, 2], [0, 1]], I32),
            floats((2,)), np.zeros((2, 0), I64), floats((2, 4, 3)),
            np.zeros((2, 3), F32) if zeros else w, RNG.random((2, 3)) < 0.5,
            np.array([0, 3, 0, -1, 0], I32), np.asarray(0.0 if zeros else 2.5),
            np.array([True, False, True]), floats((rows, 4), F64),
            ints((rows,), -min(rows, 4), min(rows, 4), I32), ints((5,), 0, 12, U8)]


def test_take_gather_scatter_argwhere():
    graph, labels = build("take_family", TAKE_INPUTS, _take_body)
    check_runs(graph, labels, [_take_arrays(3), _take_arrays(0, zeros=True)])


# --------------------------------------------------------------------------- errors
ERROR_INPUTS = [((4, 5), F32), ((2,), I64), ((2,), I32), ((), I64), ((None,), B),
                ((2, 1), I64), ((2, 5), F32), ((4, 2), I64), ((2,), I64), ((2,), I64),
                ((3,), F64), ((3,), I32)]


def _error_body(g, x, i, j, n, mask, si, su, ia, gi, ti, v, vi):
    return [("x[i]", g.getitem(x, i, key=(A(0),))),
            ("x[:,j]", g.getitem(x, j, key=(FULL, A(0)))),
            ("x[n]", g.getitem(x, n, key=(A(0),))),
            ("x[mask]", g.getitem(x, mask, key=(A(0),))),
            ("scatter", g.tensor_scatter_nd_update(x, si, su)),
            ("along", g.take_along_axis(x, ia, axis=1)),
            ("gather", g.gather(x, gi, axis=0, batch_dims=0)),
            ("take", g.take(x, ti, axis=1, mode="raise")),
            ("v[vi]", g.getitem(v, vi, key=(A(0),)))]  # H.take_1d


def _good_errors():
    return [floats((4, 5)), np.array([-4, 3]), np.array([4, -5], I32), np.asarray(-4),
            np.ones(4, bool), np.array([[3], [0]]), floats((2, 5)), ints((4, 2), -5, 5),
            np.array([3, 0]), np.array([-5, 4]), floats((3,), F64),
            np.array([-3, 2, -1], I32)]


BAD = [(1, np.array([0, 4])), (1, np.array([-5, 0])), (2, np.array([5, 0], I32)),
       (3, np.asarray(4)), (3, np.asarray(-5)), (4, np.ones(5, bool)),
       (5, np.array([[4], [0]])), (5, np.array([[-1], [0]])), (7, np.full((4, 2), 5)),
       (8, np.array([-1, 0])), (8, np.array([4, 0])), (9, np.array([0, 5])),
       (11, np.array([0, 3, 1], I32)), (11, np.array([-4, 0, 1], I32))]


@pytest.fixture(scope="module")
def error_graph():
    graph, labels = build("index_errors", ERROR_INPUTS, _error_body)
    return graph, labels, check_runs(graph, labels, [_good_errors()])


@pytest.mark.parametrize("at,bad", BAD, ids=[f"in{k}-{v.tolist()}" for k, v in BAD])
def test_out_of_bounds_raises_the_interpreters_error(error_graph, at, bad):
    """The program raises (it never reads out of bounds); the interpreter's error is
    what the user sees."""
    graph, _labels, ex = error_graph
    arrays = _good_errors()
    arrays[at] = bad
    with pytest.raises(Fallback):
        run_compiled(ex, arrays)
    error = InvalidIndexError if at != 4 else (InvalidArgumentError, IndexError)
    with pytest.raises(error):
        ex(arrays)


@pytest.mark.parametrize("parts", [
    ("i", ":s:"), (":s:",), ("i", "1:-1:"), ("i", "::2"), ("i",), ("1:3:", ":"),
    ("1:3:",), ("::1",), ("i", ":"), ("None", "i"), ("...", "i"), (":", "i"),
])
def test_views_said_c_contiguous_are_what_numba_types_c(parts):
    # kernels_shape.keeps_c mirrors Numba's layout rule for basic views: a view it calls
    # C-contiguous gets flat loops and reshapes, which compile only on Numba 'C' arrays
    import numba

    from graphc.runtime.cpu.kernels import Val
    from graphc.runtime.cpu.kernels_shape import keeps_c

    ns = {}
    exec(f"def view(a, i, s):\n    return a[{', '.join(parts)},]\n", ns)  # noqa: S102
    fn = numba.njit(ns["view"])
    fn(np.ones((4, 4, 4)), 1, 3)
    layout = fn.nopython_signatures[0].return_type.layout
    said = keeps_c(Val("a", None), list(parts))
    if "None" in parts or "..." in parts:
        assert not said  # not looked at: never C (Numba may say C)
    else:
        assert said == (layout == "C")
