"""``gnp.tri``/``triu``/``tril`` and ``gnp.<binary ufunc>.outer`` against NumPy, eagerly
and traced (NPBench's nbody uses ``np.triu``, floyd_warshall ``np.minimum.outer``)."""

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp

A = np.arange(20.0).reshape(4, 5) - 7
B3 = np.arange(24).reshape(2, 3, 4)


@pytest.mark.parametrize("k", [-2, -1, 0, 1, 3])
@pytest.mark.parametrize("name", ["triu", "tril"])
@pytest.mark.parametrize("x", [A, B3], ids=["2d", "batched-int"])
def test_triangles_match_numpy(name, k, x):
    want = getattr(np, name)(x, k)
    got = getattr(gnp, name)(x, k)
    traced = gc.function(lambda v: getattr(gnp, name)(v, k))(x)
    for g in (got, traced):
        assert g.dtype == want.dtype
        np.testing.assert_array_equal(g.numpy(), want)


def test_tri_matches_numpy():
    for args in [(3,), (3, 5), (4, 2, -1), (2, 3, 1)]:
        np.testing.assert_array_equal(gnp.tri(*args).numpy(), np.tri(*args))
    assert gnp.tri(2, dtype=np.int32).dtype == np.int32


def test_triangles_need_a_matrix():
    with pytest.raises(ValueError, match="last two dims"):
        gnp.triu(np.ones(3))


@pytest.mark.parametrize("name", ["minimum", "add", "multiply", "subtract", "greater"])
def test_outer_matches_numpy(name):
    a, b = np.array([3.0, -1.0, 2.0]), np.array([[0.5, 4.0], [2.0, -3.0]])
    want = getattr(np, name).outer(a, b)
    got = getattr(gnp, name).outer(a, b)
    traced = gc.function(lambda x, y: getattr(gnp, name).outer(x, y))(a, b)
    for g in (got, traced):
        assert g.shape == want.shape and g.dtype == want.dtype
        np.testing.assert_array_equal(g.numpy(), want)
