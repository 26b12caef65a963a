"""``gnp.mgrid``/``ogrid``/``meshgrid``/``r_``/``c_``/``ix_`` against NumPy: eagerly,
traced, and compiled (NPBench's ``i, j = np.mgrid[0:R, 0:R]``)."""

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.runtime.cpu import numba_cpu, runners


def same(got, want):
    """Equal values, dtypes and containers (tuple/list) as NumPy's."""
    if isinstance(want, tuple | list):
        assert type(got) is type(want) and len(got) == len(want), (got, want)
        for g, w in zip(got, want):
            same(g, w)
        return
    got = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
    np.testing.assert_array_equal(got, want)


GRID_KEYS = [
    np.s_[0:3, 0:2], np.s_[0:1:3j, 0:1:2j], np.s_[-1:1:5j, 2:4, 0:2], np.s_[0:1:0.3, 0:1],
    np.s_[0:3:2.5j, 0:1], np.s_[0:1:1j, 0:2:1j], np.s_[np.int8(0):np.int8(3), 0:2],
    np.s_[0:3,], np.s_[()], np.s_[5:0:-2, 1:2],
    np.s_[0:5], np.s_[0:1:3j], np.s_[0:1:0.3], np.s_[5:1], np.s_[0.5:3], np.s_[:4],
    np.s_[0:1:1j], np.s_[2:-3:-1],
]


@pytest.mark.parametrize("name", ["mgrid", "ogrid"])
@pytest.mark.parametrize("key", GRID_KEYS, ids=str)
def test_grids_match_numpy(name, key):
    want = getattr(np, name)[key]
    same(getattr(gnp, name)[key], want)
    same(gc.function(lambda: getattr(gnp, name)[key])(), want)


def test_mgrid_single_slice_with_traced_bounds():
    f = gc.function(lambda n: (gnp.mgrid[0:n], gnp.ogrid[1:n:2], gnp.r_[n:6]))
    for n in (3, 5):
        got = f(gnp.asarray(n))
        same(got[0], np.mgrid[0:n])
        same(got[1], np.ogrid[1:n:2])
        same(got[2], np.r_[n:6])
    assert f.get_concrete_function(gnp.asarray(3)).output_shapes[0] == (None,)
    points = gc.function(lambda stop: gnp.mgrid[0:stop:5j])
    for stop in (2, 3.5):
        same(points(gnp.asarray(stop)), np.mgrid[0:stop:5j])


def test_grid_errors():
    with pytest.raises(ValueError, match="negative dimensions"):
        gnp.mgrid[5:1, 0:2]
    with pytest.raises(ZeroDivisionError):
        gnp.mgrid[0:3, 0:1:0]
    with pytest.raises(ZeroDivisionError):
        gnp.mgrid[0:1:0]
    with pytest.raises(TypeError, match="takes slices"):
        gnp.mgrid[3]
    with pytest.raises(TypeError, match="needs a stop"):
        gnp.ogrid[:3, 1:]
    f = gc.function(lambda n: gnp.mgrid[0:n, 0:2])
    with pytest.raises(TypeError, match="meshgrid"):
        f(gnp.asarray(3))


MESH_CASES = [
    ((np.arange(3), np.arange(4.0)), {}),
    ((np.arange(3), np.arange(4.0), [1, 2]), {}),
    ((np.arange(3), np.arange(4.0), [1, 2]), {"indexing": "ij"}),
    ((np.arange(3),), {}),
    ((), {}),
    ((np.arange(3), np.arange(2)), {"sparse": True}),
    ((np.arange(3), np.arange(2)), {"sparse": True, "copy": False}),
    ((np.ones((2, 2)), [5, 6, 7]), {"indexing": "ij"}),
    ((np.float32([1, 2]), np.int8([3, 4, 5])), {"copy": False}),
]


@pytest.mark.parametrize("args, kwargs", MESH_CASES)
def test_meshgrid_matches_numpy(args, kwargs):
    want = np.meshgrid(*args, **kwargs)
    same(gnp.meshgrid(*args, **kwargs), want)
    same(gc.function(lambda *a: gnp.meshgrid(*a, **kwargs))(*args), want)


def test_meshgrid_unknown_lengths():
    spec = gc.TensorSpec([None], np.float64)
    f = gc.function(lambda x, y: gnp.meshgrid(x, y), input_signature=[spec, spec])
    for n, m in ((2, 3), (4, 1)):
        x, y = np.arange(float(n)), np.arange(float(m)) + 10
        same(f(x, y), np.meshgrid(x, y))


def test_meshgrid_rejects_bad_indexing():
    with pytest.raises(ValueError, match="'xy' and 'ij'"):
        gnp.meshgrid([1, 2], indexing="xyz")


R_KEYS = [
    np.s_[1, 2, [3, 4], 0:3], np.s_[0:1:5j], np.s_[np.array([1, 2]), 3.5],
    np.s_["0,2", [1, 2], [3, 4]], np.s_["1,2", [1, 2], [3, 4]], np.s_["0,2,0", [1, 2], [3, 4]],
    np.s_["-1", np.ones((2, 2)), np.zeros((2, 1))], np.s_[np.int8(1), np.array([2], np.int8)],
    np.s_[1, np.array([2], np.int8)], np.s_[1.5, np.array([2], np.float32)],
    np.s_[np.array(3)], np.s_["0,3,1", [1, 2]], np.s_["0,3,-2", [1, 2]], np.s_["1", [[1]], [[2]]],
]
C_KEYS = [
    np.s_[[1, 2, 3], [4, 5, 6]], np.s_[np.array([[1, 2, 3]]), 0, 0, np.array([[4, 5, 6]])],
    np.s_[0:3, 4:7], np.s_[0:1:3j, [4, 5, 6]],
]


@pytest.mark.parametrize("key", R_KEYS)
def test_r_matches_numpy(key):
    same(gnp.r_[key], np.r_[key])


@pytest.mark.parametrize("key", C_KEYS)
def test_c_matches_numpy(key):
    same(gnp.c_[key], np.c_[key])


def test_r_and_c_traced():
    f = gc.function(lambda x, y: (gnp.r_[x, 0, y], gnp.c_[x, y], gnp.r_["0,2", x, y]))
    x, y = np.float32([1, 2]), np.float32([3, 4])
    got = f(x, y)
    same(got[0], np.r_[x, 0, y])
    same(got[1], np.c_[x, y])
    same(got[2], np.r_["0,2", x, y])


def test_r_errors():
    with pytest.raises(ValueError, match="first entry"):
        gnp.r_[[1], "0,2"]
    with pytest.raises(ValueError, match="unknown special directive"):
        gnp.r_["a,b", [1]]
    with pytest.raises(NotImplementedError, match="np.matrix"):
        gnp.r_["r", [1, 2]]
    with pytest.raises(ValueError, match="at least one array"):
        gnp.r_[()]


IX_CASES = [([0, 1], [2, 4]), ([True, False, True], [1]), ([], [1, 2]), (np.array([1, 2]),),
            (np.int8([2, 0]), [True, True], [0])]


@pytest.mark.parametrize("args", IX_CASES)
def test_ix_matches_numpy(args):
    want = np.ix_(*args)
    same(gnp.ix_(*args), want)
    a = np.arange(60).reshape(3, 4, 5)[(slice(None),) * (3 - len(args))]
    if len(args) == a.ndim:
        same(gnp.asarray(a)[gnp.ix_(*args)], a[want])


def test_ix_traced_boolean_mask():
    f = gc.function(lambda m, i: gnp.ix_(m, i))
    mask, idx = np.array([True, False, True, True]), np.array([0, 2])
    same(f(mask, idx), np.ix_(mask, idx))
    with pytest.raises(ValueError, match="1 dimensional"):
        gnp.ix_(np.ones((2, 2)))


def test_gradients_through_meshgrid_and_r():
    def loss(x, lib):
        gx, gy = lib.meshgrid(x, x[:2])
        return lib.sum(gx * gy ** 2) + lib.sum(lib.r_[x, 0:2, x] ** 2)

    x0 = np.array([1.0, -2.0, 3.0])
    x = gnp.asarray(x0)
    with gc.GradientTape() as tape:
        tape.watch(x)
        y = loss(x, gnp)
    eps = 1e-6
    want = [(loss(x0 + eps * e, np) - loss(x0 - eps * e, np)) / (2 * eps) for e in np.eye(3)]
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), want, rtol=1e-6)


def test_vectorized_meshgrid():
    xs = np.arange(6.0).reshape(2, 3)
    got = gc.vectorized_map(lambda v: gnp.stack(gnp.meshgrid(v, v[:2])), xs)
    same(got, np.stack([np.stack(np.meshgrid(v, v[:2])) for v in xs]))


def test_grids_compile(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHC_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(numba_cpu.settings, "mode", "eager")
    monkeypatch.setattr(numba_cpu.settings, "worker", False)

    @gc.function(jit_compile=True)
    def grids(x, y):
        i, j = gnp.mgrid[0:3, 0:4]
        u, v = gnp.meshgrid(x, y)
        return i * 10 + j, u + v, gnp.r_[x, 0:2], gnp.ogrid[0:1:3j, 0:2][0]

    x, y = np.array([1.0, 2.0]), np.array([3.0, 4.0, 5.0])
    with monkeypatch.context() as mp:  # no interpreter fallback
        mp.setattr(runners, "run_graph", lambda *a: pytest.fail("ran on the interpreter"))
        got = grids(x, y)
    assert grids.get_concrete_function(x, y).runtime.backend == "numba"
    i, j = np.mgrid[0:3, 0:4]
    u, v = np.meshgrid(x, y)
    same(got, (i * 10 + j, u + v, np.r_[x, 0:2], np.ogrid[0:1:3j, 0:2][0]))
