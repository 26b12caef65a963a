"""NumPy's mutation semantics for gc.Tensor (SPEC section 12): writes, in-place operators,
views, eagerly and inside gc.function, compared with NumPy running the same code; and the
errors where graphc cannot honour an alias."""

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.errors import AliasError


def run_both(program, *arrays):
    """``program(xp, *arrays)`` on NumPy arrays, eagerly on tensors and under gc.function:
    every result and every argument compared with NumPy's."""
    want_args = [a.copy() for a in arrays]
    want = program(np, *want_args)
    eager_args = [gnp.array(a) for a in arrays]
    got = program(gnp, *eager_args)
    traced_args = [a.copy() for a in arrays]
    traced = gc.function(lambda *xs: program(gnp, *xs))(*traced_args)
    for g, t, w in zip(_seq(got), _seq(traced), _seq(want)):
        np.testing.assert_array_equal(np.asarray(g), w)
        np.testing.assert_array_equal(np.asarray(t), w)
        assert np.asarray(g).dtype == np.asarray(w).dtype == np.asarray(t).dtype
    for e, t, w in zip(eager_args, traced_args, want_args):
        np.testing.assert_array_equal(e.numpy(), w)
        np.testing.assert_array_equal(t, w)


def _seq(x):
    return x if isinstance(x, tuple) else (x,)


def p_setitem_keys(xp, a):
    a[0] = 9
    a[1:, ::2] = -1
    a[..., -1] = a[0, :1]
    a[a > 5] = 5
    a[[0, 1], [2, 0]] = 7
    a[:, None, 1] = 3
    return a


def p_augmented(xp, a, b):
    c = a
    c += b
    a *= 2
    a[1] -= b[0]
    a[:, 0] **= 2
    b //= 3
    return a, b, c


def p_views_see_writes(xp, a):
    row = a[1]
    col = a.T[:, 0]
    back = a[::-1, ::-1]
    a[1, 2] = 100
    a += 1
    return row * 1, col * 1, back * 1


def p_writes_through_views(xp, a):
    v = a[1:, 1:]
    v[0, 0] = 50
    w = v.T
    w[1] += 1000
    f = xp.flip(a, 0)
    f[0, 0] = -7
    return a, v * 1, w * 1


def p_inplace_methods(xp, a):
    b = a[0] * 1
    b.sort()
    c = a[1] * 1
    c.fill(4)
    a[2].sort()
    return b, c, a


def p_alias_chain(xp, a):
    b = a
    b[0] += 1
    d = b[1:]
    d *= 3
    return a


@pytest.mark.parametrize("program", [p_setitem_keys, p_views_see_writes,
                                     p_writes_through_views, p_inplace_methods,
                                     p_alias_chain])
def test_single_array_programs(program):
    run_both(program, np.arange(12.0).reshape(3, 4) - 4)


def test_augmented_operators_on_integers():
    run_both(p_augmented, np.arange(6).reshape(2, 3) + 1, np.array([2, 5, 7]))


def test_same_kind_casting_raises_numpys_error():
    for a in (gnp.arange(3), np.arange(3)):
        with pytest.raises(np._core._exceptions._UFuncOutputCastingError):
            a += 1.5
    t = gnp.arange(3)

    @gc.function
    def f(x):
        x += 1.5
        return x

    with pytest.raises(TypeError, match="same_kind"):
        f(np.arange(3))
    np.testing.assert_array_equal(t.numpy(), [0, 1, 2])


def test_writes_cast_like_numpy_setitem():
    t = gnp.zeros(3, dtype=np.int32)
    t[0] = 2.7  # setitem casts unsafely, as NumPy
    t[1:] = np.array([5.9, -1.2])
    np.testing.assert_array_equal(t.numpy(), np.array([2, 5, -1], np.int32))


def test_the_result_of_an_inplace_op_keeps_the_shape():
    t = gnp.zeros(3)
    with pytest.raises(ValueError, match="non-broadcastable output"):
        t += gnp.ones((2, 3))
    with pytest.raises(ValueError, match="could not broadcast"):
        t[:2] = np.ones(3)


def test_ndarray_inplace_with_a_tensor_writes_the_ndarray():
    a = np.zeros(3)
    same = a
    a += gnp.ones(3)
    assert a is same and type(a) is np.ndarray
    np.testing.assert_array_equal(a, [1, 1, 1])
    t = gnp.zeros(3)
    out = np.add(t, 2, out=t)
    assert out is t
    np.testing.assert_array_equal(t.numpy(), [2, 2, 2])


def test_np_asarray_is_a_view():
    t = gnp.zeros(3)
    np.asarray(t)[1] = 5
    np.testing.assert_array_equal(t.numpy(), [0, 5, 0])
    assert np.shares_memory(t, t[1:])


# --------------------------------------------------------------------------- errors
def test_writing_through_a_traced_reshape_raises():
    @gc.function
    def f(a):
        r = a.reshape(-1)
        r[0] = 1.0
        return a

    with pytest.raises(AliasError, match="reshape"):
        f(np.zeros((2, 2)))


def test_a_reshape_made_stale_by_a_write_raises_when_used():
    @gc.function
    def f(a):
        r = a.reshape(-1)
        a[0, 0] = 1.0
        return r * 2

    with pytest.raises(AliasError, match="stale") as info:
        f(np.zeros((2, 2)))
    assert "test_mutation.py" in str(info.value)


def test_a_reshape_not_used_after_the_write_is_fine():
    @gc.function
    def f(a):
        s = a.reshape(-1).sum()
        a[0, 0] = 1.0
        return s, a

    s, a = f(np.ones((2, 2)))
    assert float(s) == 4.0 and a[0, 0] == 1.0


def test_writing_a_captured_tensor_inside_a_function_raises():
    outside = gnp.zeros(3)

    @gc.function
    def f(x):
        outside[0] = x
        return x

    with pytest.raises(AliasError, match="captured"):
        f(np.float64(1.0))
    np.testing.assert_array_equal(outside.numpy(), [0, 0, 0])


def test_writes_inside_a_tensor_branch_reach_the_outer_tensor():
    def f(a, flag):
        b = a
        if flag > 0:
            a[0] = 1.0
        else:
            b += 2.0
        return b * 1

    for flag in (1.0, -1.0):
        got_arg, want_arg = np.zeros(2), np.zeros(2)
        got = gc.function(f)(got_arg, np.array(flag))
        want = f(want_arg, flag)
        np.testing.assert_array_equal(got.numpy(), want)
        np.testing.assert_array_equal(got_arg, want_arg)


def test_a_write_inside_a_map_fn_body_into_an_outer_tensor_raises():
    @gc.function
    def f(a):
        out = gnp.zeros(3)

        def body(row):
            out[0] = row[0]
            return row

        gc.map_fn(body, a)
        return out

    with pytest.raises(AliasError, match="made outside the body"):
        f(np.ones((2, 3)))


def test_inplace_writes_under_a_tape_differentiate_variables():
    v = gc.Variable(np.array([1.0, 2.0]))
    t = gnp.zeros(2)
    with gc.GradientTape() as tape:
        t += v * v
        loss = gnp.sum(t * 3.0)
    np.testing.assert_allclose(tape.gradient(loss, v).numpy(), [6.0, 12.0])


def test_a_captured_tensor_written_after_tracing_is_refused():
    w = gnp.ones(3)

    @gc.function
    def f(x):
        return x * w

    np.testing.assert_array_equal(f(np.arange(3.0)).numpy(), [0, 1, 2])
    w[0] = 5  # the trace holds w's old contents: calling it now would be stale
    with pytest.raises(AliasError, match="captured"):
        f(np.arange(3.0))
    w[0] = 1  # the same contents again: the trace is valid again
    np.testing.assert_array_equal(f(np.arange(3.0)).numpy(), [0, 1, 2])
