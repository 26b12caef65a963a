"""``stack`` and ``concatenate`` compiled (kernels_shape._join) agree with NumPy: a stack
of scalars stores each into a preallocated result (int into float cast), arrays go
through NumPy's functions (mixed dtypes, empty parts, negative axes), and a dim known
only at run time keeps NumPy's shape check. One program holds every case."""

from __future__ import annotations

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp

pytestmark = pytest.mark.usefixtures("eager_compile")


def joins(xp, a, b, c):
    return (xp.stack([a[0, 0], b[1, 0] * 2, c[0]]),          # scalars, int into float
            xp.concatenate([a, b, a[:0]], axis=0),           # an empty part
            xp.concatenate([a, b.astype(xp.float32)], axis=-1),
            xp.stack([a, a * 2, b > 0], axis=1),             # bool into float
            xp.stack([b, b], axis=-1))


def test_joins_match_numpy():
    a = np.arange(6.0).reshape(2, 3)
    b = np.array([[1, -2, 3], [4, 5, -6]], np.int32)
    c = np.array([7, 8], np.int64)
    f = gc.function(lambda a, b, c: joins(gnp, a, b, c))
    got = f(a, b, c)
    ex = f.get_concrete_function(a, b, c).runtime
    assert ex.backend == "numba"
    assert ex.program.source.count("np.stack(") == 2  # the scalars' stack has none
    for g, w in zip(got, joins(np, a, b, c), strict=True):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g.numpy(), w)


def test_a_runtime_dim_mismatch_still_raises():
    f = gc.function(lambda a, b: gnp.stack([a, b]),
                    input_signature=[gc.TensorSpec([None], gc.float64)] * 2)
    np.testing.assert_array_equal(f(np.ones(2), np.zeros(2)).numpy(), [[1, 1], [0, 0]])
    with pytest.raises(Exception, match="shape"):
        f(np.ones(2), np.zeros(3))
