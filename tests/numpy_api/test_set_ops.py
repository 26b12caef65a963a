"""``gnp``'s set routines and sort helpers against NumPy (``graphc/ops/set_ops.py``,
``graphc/ops/sorting.py``): eagerly, traced (unknown result lengths), compiled, gradients."""

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.runtime.cpu import numba_cpu, runners

INTS = np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3])
FLOATS = np.array([3.0, np.nan, 1.0, np.nan, 3.0, -0.0, 0.0])
ROWS = np.array([[1, 2], [3, 4], [1, 2], [0, 9], [3, 4]])


def same(got, want):
    if isinstance(want, list | tuple):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w)
        return
    got = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
    want = np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("a", [INTS, FLOATS, INTS.reshape(2, 5), np.zeros(0),
                               np.array([True, False, True])], ids=range(5))
@pytest.mark.parametrize("flags", [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 1)], ids=str)
@pytest.mark.parametrize("equal_nan", [True, False])
def test_unique(a, flags, equal_nan):
    want = np.unique(a, *flags, equal_nan=equal_nan)
    same(gnp.unique(a, *flags, equal_nan=equal_nan), want)
    if a.size:
        same(gc.function(lambda v: gnp.unique(v, *flags, equal_nan=equal_nan))(a), want)


@pytest.mark.parametrize("a", [INTS, FLOATS, INTS.reshape(2, 5)], ids=range(3))
def test_unique_array_api(a):
    for name in ("unique_all", "unique_counts", "unique_inverse"):
        got, want = getattr(gnp, name)(a), getattr(np, name)(a)
        assert type(got).__name__ == type(want).__name__ and got._fields == want._fields
        same(tuple(got), tuple(want))
    # NumPy 2.4's unique_values is hash-based for integers (order unspecified): ours sorts
    same(gnp.unique_values(a), np.sort(np.unique_values(a)))


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_unique_axis(axis):
    for flags in [(0, 0, 0), (1, 1, 1)]:
        want = np.unique(ROWS, *flags, axis=axis)
        same(gnp.unique(ROWS, *flags, axis=axis), want)
        same(gc.function(lambda v: gnp.unique(v, *flags, axis=axis))(ROWS), want)
    cube = np.arange(24).reshape(2, 3, 4) % 3
    same(gnp.unique(cube, axis=2, return_counts=True), np.unique(cube, axis=2, return_counts=True))


A1, A2 = np.array([5, 1, 3, 3, 7, 1]), np.array([3, 8, 1, 1, 0])


@pytest.mark.parametrize("assume_unique", [False, True])
def test_1d_sets(assume_unique):
    b1, b2 = (np.unique(A1), np.unique(A2)) if assume_unique else (A1, A2)
    for fn, extra in [("intersect1d", ()), ("intersect1d", (True,)), ("setdiff1d", ()),
                      ("setxor1d", ())]:
        want = getattr(np, fn)(b1, b2, assume_unique, *extra)
        same(getattr(gnp, fn)(b1, b2, assume_unique, *extra), want)
        same(gc.function(lambda p, q: getattr(gnp, fn)(p, q, assume_unique, *extra))(b1, b2), want)
    same(gnp.union1d(A1, A2.astype(float)), np.union1d(A1, A2.astype(float)))
    same(gnp.setxor1d([], []), np.setxor1d([], []))


@pytest.mark.parametrize("e, t", [(INTS, [1, 5]), (FLOATS, [np.nan, 3.0]),
                                  (INTS.reshape(2, 5), np.arange(300)), (INTS, []),
                                  (FLOATS, np.arange(5000.0)), (3, [3])], ids=range(6))
@pytest.mark.parametrize("invert", [False, True])
def test_isin(e, t, invert):
    want = np.isin(e, t, invert=invert)
    same(gnp.isin(e, t, invert=invert), want)
    f = gc.function(lambda p, q: gnp.isin(p, q, invert=invert))
    same(f(np.asarray(e), np.asarray(t)), want)


def test_isin_errors():
    with pytest.raises(ValueError, match="'table' method"):
        gnp.isin([1.0], [1.0], kind="table")
    with pytest.raises(ValueError, match="Invalid kind"):
        gnp.isin([1], [1], kind="hash")


TRIMS = [np.array([0, 0, 1, 2, 0, 3, 0]), np.zeros(3), np.array([[0, 0, 0], [0, 1, 0], [0, 0, 2]]),
         np.array([[0, 1, 0], [0, 0, 0]]), np.zeros((2, 3))]


@pytest.mark.parametrize("z", TRIMS, ids=range(len(TRIMS)))
@pytest.mark.parametrize("trim", ["fb", "f", "b", "BF"])
def test_trim_zeros(z, trim):
    for axis in [None, *range(z.ndim)]:
        want = np.trim_zeros(z, trim, axis)
        same(gnp.trim_zeros(z, trim, axis), want)
        same(gc.function(lambda v: gnp.trim_zeros(v, trim, axis))(z), want)
    with pytest.raises(ValueError, match="unexpected character"):
        gnp.trim_zeros(z, "x")


@pytest.mark.parametrize("kth", [0, 1, [0, 2], -1])
def test_partition(kth):
    y = np.array([[3, 1, 2], [0, 5, 4]])
    k = np.atleast_1d(kth)
    got = gnp.partition(y, kth).numpy()
    np.testing.assert_array_equal(got[:, k], np.partition(y, kth)[:, k])
    np.testing.assert_array_equal(got, np.sort(y))  # a valid partition: sorted
    order = gnp.argpartition(y, kth, axis=None).numpy()
    np.testing.assert_array_equal(y.ravel()[order][k], np.partition(y, kth, axis=None)[k])
    got_t = gc.function(lambda v: gnp.partition(v, kth, axis=1))(y).numpy()
    np.testing.assert_array_equal(got_t, np.sort(y, axis=1))
    with pytest.raises(ValueError, match="out of bounds"):
        gnp.partition(y, 3)


def test_lexsort_and_sort_complex():
    keys = (np.array([1, 5, 1, 4, 3, 4, 4]), np.array([9, 4, 0, 4, 0, 2, 1]))
    same(gnp.lexsort(keys), np.lexsort(keys))
    same(gnp.lexsort(np.array(keys)), np.lexsort(np.array(keys)))
    two = [np.array([[1, 0], [0, 0]])]
    same(gnp.lexsort(two, axis=0), np.lexsort(two, axis=0))
    same(gc.function(lambda a, b: gnp.lexsort((a, b)))(*keys), np.lexsort(keys))
    with pytest.raises(TypeError, match="len > 0"):
        gnp.lexsort([])
    with pytest.raises(ValueError, match="same shape"):
        gnp.lexsort([np.arange(3), np.arange(4)])
    for a in (np.array([5, 3, 6, 2, 1]), np.array([5, 3], np.int8), np.float32([2, 1]),
              np.array([1 + 2j, 2 - 1j, 3 - 2j, 3 - 3j, 3 + 5j])):
        same(gnp.sort_complex(a), np.sort_complex(a))


def test_gradient_through_unique():
    x0 = np.array([2.0, 1.0, 2.0, 3.0])
    with gc.GradientTape() as tape:
        x = gnp.asarray(x0)
        tape.watch(x)
        y = gnp.sum(gnp.unique(x) ** 2)
    # each unique value comes from its first occurrence (NumPy's return_index)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [4.0, 2.0, 0.0, 6.0])


def test_compiled(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHC_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(numba_cpu.settings, "mode", "eager")
    monkeypatch.setattr(numba_cpu.settings, "worker", False)

    @gc.function(jit_compile=True)
    def f(e, t, a, b):
        return gnp.isin(e, t), gnp.lexsort((a, b)), gnp.partition(a, 2)

    args = (INTS, np.array([1, 5]), np.array([3, 1, 2, 1]), np.array([0, 0, 1, 1]))
    with monkeypatch.context() as mp:
        mp.setattr(runners, "run_graph", lambda *a: pytest.fail("ran on the interpreter"))
        got = f(*args)
    assert f.get_concrete_function(*args).runtime.backend == "numba"
    same(got[0], np.isin(INTS, [1, 5]))
    same(got[1], np.lexsort(args[2:]))
    same(got[2], np.sort(args[2]))
