"""``t.shape = s`` (NumPy's in-place reshape) and ``out`` on graphc.numpy's ufuncs, as
NumPy programs use them (NPBench's mandelbrot: ``Xi.shape = n``, ``np.multiply(Z, Z, Z)``,
``np.logical_not(I, I)``), eagerly and traced."""

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp


def reshape_and_fill(np, x):
    a = x * 2
    a.shape = (3, 2)
    a[0] = -1
    rows, cols = np.arange(6).reshape(2, 3) * 1
    rows.shape = (3,)
    return a, rows + 1


def test_setting_shape_matches_numpy_eagerly_and_traced():
    x = np.arange(6.0)
    want = reshape_and_fill(np, x)
    eager = reshape_and_fill(gnp, gnp.asarray(x))
    traced = gc.function(lambda v: reshape_and_fill(gnp, v))(x)
    for w, e, t in zip(want, eager, traced):
        np.testing.assert_array_equal(np.asarray(e), w)
        np.testing.assert_array_equal(np.asarray(t), w)


def test_setting_shape_eagerly_keeps_the_memory_and_refuses_a_copy_as_numpy():
    base = gnp.arange(6.0)
    t = base[:]
    t.shape = (2, 3)
    t[1, 2] = 50.0
    assert base.numpy()[5] == 50.0  # still a view of base's memory
    with pytest.raises(AttributeError):
        np.arange(6.0).reshape(2, 3).T.shape = (6,)  # NumPy's own error, for reference
    f = gnp.arange(6.0).reshape(2, 3).T
    with pytest.raises(AttributeError):
        f.shape = (6,)
    with pytest.raises(ValueError):
        gnp.arange(6.0).shape = (4,)


def test_setting_shape_while_tracing_refuses_what_it_cannot_follow():
    @gc.function
    def of_argument(x):
        x.shape = (6,)
        return x

    with pytest.raises(gc.errors.AliasError, match="argument"):
        of_argument(np.zeros((2, 3)))

    @gc.function
    def write_through(x):
        a, _b = x * 1
        a.shape = (3,)
        a[0] = 1.0  # a is now a reshape of a view: NumPy's layout decides, graphc raises
        return a

    with pytest.raises(gc.errors.AliasError, match="reshape"):
        write_through(np.zeros((2, 3)))

    @gc.function
    def with_views(x):
        a = x * 1
        v = a[1:]
        a.shape = (2, 3)
        return a, v

    with pytest.raises(gc.errors.AliasError, match="has views"):
        with_views(np.zeros(6))


def squares_in_place(np, z, c, mask):
    np.multiply(z, z, z)
    np.add(z, c, out=z)
    np.logical_not(mask, mask)
    return z, mask


def test_ufunc_out_positional_and_keyword_match_numpy():
    z, c, m = np.arange(4.0), np.ones(4), np.array([True, False, True, False])
    want = squares_in_place(np, z.copy(), c, m.copy())
    eager_args = gnp.asarray(z.copy()), c, gnp.asarray(m.copy())
    eager = squares_in_place(gnp, *eager_args)
    assert eager[0] is eager_args[0] and eager[1] is eager_args[2]  # out is returned
    zz, mm = z.copy(), m.copy()
    traced = gc.function(lambda a, b, k: squares_in_place(gnp, a, b, k))(zz, c, mm)
    for w, e, t in zip(want, eager, traced):
        np.testing.assert_array_equal(np.asarray(e), w)
        np.testing.assert_array_equal(np.asarray(t), w)
    np.testing.assert_array_equal(zz, want[0])  # written back into the caller's arrays
    np.testing.assert_array_equal(mm, want[1])


def test_ufunc_out_into_an_ndarray_a_tuple_and_the_casting_rule():
    out = np.zeros(3)
    assert gnp.add(gnp.arange(3.0), 1.0, out) is out
    np.testing.assert_array_equal(out, [1.0, 2.0, 3.0])
    t = gnp.zeros(3)
    assert gnp.exp(gnp.zeros(3), out=(t,))[0] is t
    np.testing.assert_array_equal(t.numpy(), np.ones(3))
    with pytest.raises(TypeError):
        np.add(np.arange(3), 0.5, out=np.zeros(3, np.int64))  # NumPy's own error
    with pytest.raises(TypeError):
        gnp.add(gnp.arange(3), 0.5, out=gnp.zeros(3, np.int64))
    with pytest.raises(TypeError, match="out must be"):
        gnp.add(gnp.arange(3), 1, out=[1, 2, 3])
