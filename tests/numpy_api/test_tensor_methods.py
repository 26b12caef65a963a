"""``gc.Tensor``'s NumPy methods added by ``graphc/ops/tensor_methods.py`` against NumPy's
``ndarray`` methods: eagerly, inside ``gc.function``, compiled for a subset, and the
in-place ones with NumPy's mutation semantics (docs/mutation.md)."""

import copy

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.errors import AliasError, SymbolicTensorError

A = np.array([[3.0, -1.0, 2.0], [0.5, 4.0, -2.0]])
V = np.array([5, 1, 4, 1, 3, 9, 2])
Z = np.array([1 + 2j, -3 - 0.5j, 0.25j])


def same(got, want):
    got = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
    want = np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
    np.testing.assert_array_equal(got, want)


def test_every_listed_ndarray_name_exists():
    import pathlib

    path = pathlib.Path(__file__).resolve().parents[3] / "shared/api_targets/numpy.ndarray.txt"
    if path.exists():
        names = [n.strip() for n in path.read_text().splitlines()[1:] if n.strip()]
    else:  # the list as frozen (numpy 2.4): the names this module adds
        names = ["mT", "flat", "real", "imag", "partition", "put", "resize", "to_device"]
    missing = [n for n in names if not hasattr(gc.Tensor, n)]
    assert not missing
    for name in ("argpartition", "partition", "choose", "compress", "conj", "conjugate",
                 "diagonal", "searchsorted", "put", "resize", "to_device", "__dlpack__"):
        assert getattr(gc.Tensor, name).__doc__


# --------------------------------------------------------------------------- pure methods
PURE = [
    ("argpartition", V, (2,), {}),
    ("argpartition", A, (1,), {"axis": 0}),
    ("choose", np.array([0, 1, 1]), ([[1, 2, 3], [10, 20, 30]],), {}),
    ("choose", np.array([0, 3, 1]), ([[1, 2, 3], [10, 20, 30]],), {"mode": "wrap"}),
    ("compress", A, ([False, True],), {"axis": 0}),
    ("compress", A, ([True, False, True],), {}),
    ("conj", Z, (), {}),
    ("conjugate", A, (), {}),
    ("diagonal", A, (), {}),
    ("diagonal", np.arange(24.0).reshape(2, 3, 4), (1, 1, 2), {}),
    ("searchsorted", np.array([1.0, 2.0, 2.0, 5.0]), ([2.0, 0.0, 9.0],), {}),
    ("searchsorted", np.array([1.0, 2.0, 2.0, 5.0]), (2.0,), {"side": "right"}),
]


@pytest.mark.parametrize("name,a,args,kw", PURE, ids=[f"{p[0]}{i}" for i, p in enumerate(PURE)])
def test_pure_methods(name, a, args, kw):
    want = getattr(a, name)(*args, **kw)
    if name == "argpartition":  # graphc's partition is a stable sort: same kth element
        k = args[0]
        axis = kw.get("axis", -1)
        got = gnp.asarray(a).argpartition(*args, **kw).numpy()
        np.testing.assert_array_equal(np.take(np.take_along_axis(a, got, axis), k, axis),
                                      np.take(np.take_along_axis(a, want, axis), k, axis))
        return
    same(getattr(gnp.asarray(a), name)(*args, **kw), want)
    same(gc.function(lambda x: getattr(x, name)(*args, **kw))(a), want)


def test_attributes():
    t = gnp.asarray(A.astype(np.float32))
    assert (t.itemsize, t.nbytes) == (4, 24)
    same(t.mT, A.astype(np.float32).mT)
    cube = np.arange(24.0).reshape(2, 3, 4)
    same(gnp.asarray(cube).mT, cube.mT)
    same(gc.function(lambda x: x.mT)(cube), cube.mT)
    with pytest.raises(ValueError, match="ndim < 2"):
        gnp.asarray(V).mT
    same(gnp.asarray(Z).real, Z.real)
    same(gnp.asarray(Z).imag, Z.imag)
    same(gnp.asarray(A).imag, A.imag)
    assert gnp.asarray(A).real.shape == A.shape
    sizes = gc.function(lambda x: gnp.asarray(x.nbytes + x.itemsize))(A)
    assert int(sizes) == A.nbytes + A.itemsize


def test_flat_reads():
    t = gnp.asarray(A)
    same(t.flat[4], A.flat[4])
    same(t.flat[[0, 5]], A.flat[[0, 5]])
    same(t.flat[1:4], A.flat[1:4])
    assert len(t.flat) == A.size
    assert [float(x) for x in t.flat] == list(A.flat)
    same(np.asarray(t.flat), np.asarray(A.flat))
    same(t.flat.copy(), A.flat.copy())
    assert t.flat.base is t
    same(gc.function(lambda x: x.flat[2:5])(A), A.flat[2:5])


def test_protocols():
    t = gnp.asarray(A)
    assert (4.0 in t, 7.0 in t) == (4.0 in A, 7.0 in A)
    for c in (copy.copy(t), copy.deepcopy(t)):
        assert c is not t
        c[0, 0] = 99.0
    assert float(t[0, 0]) == A[0, 0]
    with pytest.raises(SymbolicTensorError):
        gc.function(lambda x: gnp.asarray(1.0 in x))(A)
    same(gc.function(lambda x: copy.copy(x) + 1)(A), A + 1)


# --------------------------------------------------------------------------- in place
def test_partition_in_place():
    a = V.copy()
    t = gnp.asarray(V)
    view = t[2:]
    assert t.partition(3) is None
    a.partition(3)
    assert t.numpy()[3] == a[3]
    same(view, t.numpy()[2:])  # NumPy views of the tensor see the write
    arg = V.copy()
    gc.function(lambda x: x.partition(3))(arg)  # written back into the caller's array
    assert arg[3] == a[3] and (arg[:3] <= arg[3]).all() and (arg[4:] >= arg[3]).all()
    with pytest.raises(ValueError):
        gnp.asarray(V).partition(10)


def test_put_and_flat_writes():
    a, t = A.copy(), gnp.asarray(A)
    a.put([0, 5], [-1.0, -2.0])
    assert t.put([0, 5], [-1.0, -2.0]) is None
    same(t, a)
    a.flat[[1, 2, 3]] = [7.0, 8.0]  # values repeated, as NumPy
    t.flat[[1, 2, 3]] = [7.0, 8.0]
    same(t, a)
    a.flat = 0.5
    t.flat = 0.5
    same(t, a)

    def f(x):
        x.put([1], 10)
        x.flat[-1] = 11
        return x.sum()

    arg, want = V.copy(), V.copy()
    want.put([1], 10)
    want.flat[-1] = 11
    got = gc.function(f)(arg)
    same(arg, want)
    assert int(got) == int(want.sum())
    with pytest.raises(IndexError):
        gnp.asarray(V).put([20], 1)


def test_real_imag_writes():
    z, t = Z.copy(), gnp.asarray(Z)
    z.real, z.imag = 5.0, [1.0, 2.0, 3.0]
    t.real, t.imag = 5.0, [1.0, 2.0, 3.0]
    same(t, z)
    r, tr = A.copy(), gnp.asarray(A)
    r.real = 2.0
    tr.real = 2.0
    same(tr, r)
    with pytest.raises(TypeError, match="imaginary part"):
        tr.imag = 1.0

    def f(x):
        x.real = x.imag
        x.imag = 0.0
        return x

    arg, want = Z.copy(), Z.copy()
    want.real, want.imag = Z.imag, 0.0
    same(gc.function(f)(arg), want)
    same(arg, want)


def test_resize():
    a, t = V.copy(), gnp.asarray(V)
    a.resize((3, 3), refcheck=False)
    assert t.resize((3, 3), refcheck=False) is None
    same(t, a)
    t.resize(2, 2)
    a.resize(2, 2, refcheck=False)
    same(t, a)

    def grow(x):
        y = x * 2
        y.resize((2, 5))
        return y

    def shrink(x):
        y = x + 0
        y.resize(3)
        return y

    want = (V * 2).copy()
    want.resize((2, 5), refcheck=False)
    same(gc.function(grow)(V), want)
    same(gc.function(shrink)(V), V[:3])
    with pytest.raises(AliasError):  # an argument's shape cannot change for the caller
        gc.function(lambda x: x.resize(3))(V.copy())
    with pytest.raises(ValueError, match="negative"):
        gnp.asarray(V).resize(-1)


def test_compiled_subset():
    def f(x, s):
        y = x + 0
        y.partition(1, axis=1)
        return y.diagonal(), y.mT, y.compress([True, False, True], axis=1), s.searchsorted(1.5)

    s = np.array([0.0, 1.0, 2.0])
    fn = gc.function(f, jit_compile=True)
    got = fn(A, s)
    y = np.sort(A, axis=1)
    for g, w in zip(got, (y.diagonal(), y.mT, y.compress([True, False, True], axis=1),
                          s.searchsorted(1.5))):
        same(g, w)
