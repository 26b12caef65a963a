"""``gc.Tensor``: attributes, methods, operators, NumPy interop, immutability (SPEC 1)."""

from __future__ import annotations

import operator

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp

A = np.array([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]])
IA = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.int32)


def same(t, want):
    """``t`` is an eager gc.Tensor equal to NumPy's ``want`` in value, shape and dtype."""
    assert isinstance(t, gc.Tensor), type(t)
    want = np.asarray(want)
    assert t.shape == want.shape and t.dtype == want.dtype, (t, want)
    np.testing.assert_allclose(t.numpy(), want, rtol=1e-12)


# --------------------------------------------------------------------------- attributes
def test_attributes():
    t = gnp.asarray(A)
    assert t.shape == (2, 3) and isinstance(t.shape, tuple)
    assert t.dtype == np.float64 and isinstance(t.dtype, np.dtype)
    assert t.ndim == 2
    assert t.size == 6
    assert t.device == "cpu:0"
    same(t.T, A.T)
    assert gnp.asarray(5).shape == () and gnp.asarray(5).ndim == 0 and gnp.asarray(5).size == 1
    assert isinstance(t, gnp.ndarray)
    assert issubclass(gc.Tensor, gnp.ndarray)  # gnp.ndarray(shape) allocates, as NumPy
    assert len(t) == 2


def test_symbolic_attributes():
    seen = {}

    @gc.function(input_signature=[gc.TensorSpec([None, 3], gc.float32)])
    def f(x):
        seen.update(shape=x.shape, dtype=x.dtype, ndim=x.ndim, size=x.size,
                    device=x.device, t_shape=x.T.shape, symbolic=x.is_symbolic,
                    is_tensor=isinstance(x, gc.Tensor))
        return x.sum(axis=0)

    same(f(gnp.ones([2, 3], gnp.float32)), np.full(3, 2, np.float32))
    assert seen == dict(shape=(None, 3), dtype=np.float32, ndim=2, size=None,
                        device="cpu:0", t_shape=(3, None), symbolic=True, is_tensor=True)


def test_gc_tensor_constructor():
    same(gc.Tensor([1, 2]), np.array([1, 2]))
    same(gc.Tensor(A), A)
    same(gc.Tensor([1, 2], dtype=gc.float32), np.array([1, 2], np.float32))


# --------------------------------------------------------------------------- .numpy()
def test_numpy_returns_a_copy():
    t = gnp.asarray(A)
    a = t.numpy()
    assert type(a) is np.ndarray
    a[0, 0] = 100.0  # the copy is writable and independent
    assert t.numpy()[0, 0] == 1.5


def test_numpy_rank0_is_numpy_scalar():
    x = gnp.asarray(2.5).numpy()
    assert isinstance(x, np.float64) and x == 2.5  # like np.asarray(2.5)[()]
    assert isinstance(gnp.asarray(3, dtype=gnp.int32).numpy(), np.int32)
    assert gnp.asarray(3).item() == 3 and type(gnp.asarray(3).item()) is int


def test_source_array_changes_do_not_leak_in():
    a = np.array([1.0, 2.0])
    t = gnp.asarray(a)
    u = gc.constant(a)
    a[0] = 9.0
    assert t.numpy()[0] == 1.0 and u.numpy()[0] == 1.0


def test_np_asarray_and_conversions():
    t = gnp.asarray(A)
    v = np.asarray(t)
    assert type(v) is np.ndarray
    np.testing.assert_array_equal(v, A)
    v[0, 0] = 100.0  # np.asarray(t) is a view of the tensor, as of an ndarray
    assert t[0, 0] == 100.0 and A[0, 0] != 100.0  # gnp.asarray(A) copied A
    v[0, 0] = A[0, 0]
    assert np.asarray(t, dtype=np.float32).dtype == np.float32
    assert np.array(t).flags.writeable
    assert float(gnp.asarray(2.5)) == 2.5 and int(gnp.asarray(3)) == 3
    assert bool(gnp.asarray(True)) is True
    assert [1, 2, 3][gnp.asarray(1)] == 2  # __index__
    assert f"{gnp.asarray(2.5):.2f}" == "2.50"
    assert t.tolist() == A.tolist()


# --------------------------------------------------------------------------- methods
@pytest.mark.parametrize("method,args,kwargs", [
    ("sum", (), {}), ("sum", (), {"axis": 0}), ("sum", (), {"axis": 1, "keepdims": True}),
    ("mean", (), {}), ("mean", (), {"axis": 0}), ("max", (), {}), ("max", (), {"axis": 1}),
    ("min", (), {}), ("min", (), {"axis": 0, "keepdims": True}), ("prod", (), {}),
    ("std", (), {}), ("var", (), {"axis": 1}), ("std", (), {"ddof": 1}),
    ("argmax", (), {}), ("argmax", (), {"axis": 1}), ("argmin", (), {"axis": 0}),
    ("any", (), {}), ("all", (), {"axis": 0}), ("cumsum", (), {}), ("cumsum", (), {"axis": 1}),
    ("cumprod", (), {"axis": 0}), ("reshape", (3, 2), {}), ("reshape", ((3, 2),), {}),
    ("reshape", ([-1],), {}), ("ravel", (), {}), ("flatten", (), {}),
    ("transpose", (), {}), ("transpose", (1, 0), {}), ("transpose", ((1, 0),), {}),
    ("swapaxes", (0, 1), {}), ("clip", (0, 2), {}), ("round", (), {}), ("copy", (), {}),
    ("repeat", (2,), {}), ("repeat", (2,), {"axis": 0}), ("take", ([0, 4],), {}),
    ("sort", (), {}), ("argsort", (), {"axis": 0}), ("trace", (), {}),
    ("astype", (np.int32,), {}), ("astype", ("float32",), {}),
])
@pytest.mark.parametrize("data", [A, IA], ids=["float64", "int32"])
def test_methods_match_numpy(method, args, kwargs, data):
    t = gnp.asarray(data)
    got = getattr(t, method)(*args, **kwargs)
    if method == "sort":  # sorts in place and returns None, as ndarray.sort
        assert got is None
        got, data = t, data.copy()
        data.sort(*args, **kwargs)
        want = data
    else:
        want = getattr(data, method)(*args, **kwargs)
    same(got, want)


def test_more_methods():
    t = gnp.asarray(A)
    same(t.dot(t.T), A.dot(A.T))
    same(gnp.asarray([[1.0], [2.0]]).squeeze(), np.array([1.0, 2.0]))
    same(gnp.asarray([[1.0], [2.0]]).squeeze(axis=1), np.array([1.0, 2.0]))
    assert t.item is not None and gnp.asarray([[7]]).item() == 7
    same(t.round(1), A.round(1))


def test_iteration_and_len():
    rows = list(gnp.asarray(IA))
    assert len(rows) == 2
    for r, want in zip(rows, IA):
        same(r, want)
    with pytest.raises(TypeError, match="0-d"):
        len(gnp.asarray(1))
    with pytest.raises(TypeError, match="0-d"):
        iter(gnp.asarray(1))


def test_repr_and_str():
    t = gnp.asarray([1, 2])
    assert repr(t) == "<gc.Tensor: shape=(2,), dtype=int64, numpy=array([1, 2])>"
    assert str(t) == "[1 2]"


# --------------------------------------------------------------------------- operators
BINARY = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
          operator.mod, operator.pow, operator.lt, operator.le, operator.gt, operator.ge,
          operator.eq, operator.ne]
X = np.array([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]])
Y = np.array([2.0, 0.5, -3.0])
XI = np.array([[7, -3, 4], [1, 9, -8]], dtype=np.int32)
YI = np.array([2, 5, 3], dtype=np.int64)


@pytest.mark.parametrize("op", BINARY, ids=lambda o: o.__name__)
@pytest.mark.parametrize("x,y", [(X, Y), (XI, YI), (XI, Y)], ids=["float", "int", "mixed"])
def test_binary_operators(op, x, y):
    if op is operator.pow and x.dtype.kind == "i" and y.dtype.kind == "i":
        x = np.abs(x)
    with np.errstate(all="ignore"):
        want = op(x, y)
        same(op(gnp.asarray(x), gnp.asarray(y)), want)
        same(op(gnp.asarray(x), y), want)  # NumPy array on the right
        same(op(x, gnp.asarray(y)), want)  # NumPy array on the left: reflected
        same(op(x.tolist(), gnp.asarray(y)), op(np.asarray(x.tolist()), y))


@pytest.mark.parametrize("op", BINARY, ids=lambda o: o.__name__)
def test_operators_with_python_numbers(op):
    t = gnp.asarray(X)
    with np.errstate(all="ignore"):
        same(op(t, 2), op(X, 2))
        same(op(2.5, t), op(2.5, X))
        same(op(t, 0.5), op(X, 0.5))


def test_matmul_operator():
    a, b = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4)
    same(gnp.asarray(a) @ gnp.asarray(b), a @ b)
    same(a @ gnp.asarray(b), a @ b)
    same(gnp.asarray(a) @ b, a @ b)
    same(gnp.asarray(a) @ [1.0, 2.0, 3.0], a @ [1.0, 2.0, 3.0])
    same([[1.0, 2.0]] @ gnp.asarray(a), [[1.0, 2.0]] @ a)


def test_unary_operators():
    t = gnp.asarray(XI)
    same(-t, -XI)
    same(+t, +XI)
    same(~t, ~XI)
    same(abs(t), abs(XI))
    same(abs(gnp.asarray(X)), np.abs(X))
    b = np.array([True, False])
    same(~gnp.asarray(b), ~b)


@pytest.mark.parametrize("op", [operator.and_, operator.or_, operator.xor],
                         ids=lambda o: o.__name__)
def test_bitwise_and_logical_operators(op):
    p, q = np.array([True, True, False, False]), np.array([True, False, True, False])
    same(op(gnp.asarray(p), gnp.asarray(q)), op(p, q))
    same(op(gnp.asarray(p), True), op(p, True))
    m, n = np.array([12, 10, 7], np.int32), np.array([10, 6, 1], np.int64)
    same(op(gnp.asarray(m), gnp.asarray(n)), op(m, n))
    same(op(5, gnp.asarray(m)), op(5, m))
    same(op(m, gnp.asarray(n)), op(m, n))
    with pytest.raises(TypeError):
        op(gnp.asarray([1.0]), gnp.asarray([2.0]))  # not defined for floats, as in NumPy


def test_comparisons_are_elementwise():
    t = gnp.asarray([1, 2, 3])
    eq = t == 2
    assert isinstance(eq, gc.Tensor) and eq.dtype == np.bool_
    same(eq, np.array([False, True, False]))
    same(t != [1, 0, 3], np.array([False, True, False]))
    same(t == t, np.array([True, True, True]))
    same(2 < t, np.array([False, False, True]))
    same(t >= gnp.asarray(2.0), np.array([False, True, True]))
    with pytest.raises(ValueError):
        bool(t == t)  # ambiguous truth value, as NumPy


def test_broadcasting():
    a, b, c = np.ones((2, 3)), np.arange(3.0), np.arange(2.0).reshape(1, 2, 1)
    want = a + b + c  # NumPy: (2, 3) + (3,) -> (2, 3); + (1, 2, 1) -> (1, 2, 3)
    got = gnp.asarray(a) + gnp.asarray(b) + gnp.asarray(c)
    assert got.shape == want.shape == (1, 2, 3)
    same(got, want)
    same(gnp.asarray(np.arange(3.0).reshape(3, 1)) * gnp.asarray(b), np.outer(b, b))
    with pytest.raises(gc.errors.InvalidArgumentError, match="broadcast"):
        gnp.ones([2, 3]) + gnp.ones([2])


def test_operator_precedence():
    x, y, z = np.array([1.0, -2.0, 3.0]), np.array([2.0, 2.0, 2.0]), np.eye(3)
    tx, ty, tz = gnp.asarray(x), gnp.asarray(y), gnp.asarray(z)
    same(-tx ** 2, -x ** 2)  # unary minus binds looser than **
    same(tx + ty * 3, x + y * 3)
    same(tx @ tz + ty, x @ z + y)
    same(2 ** ty ** 2, 2 ** y ** 2)  # right-associative
    same((tx > 0) & (tx < 2), (x > 0) & (x < 2))
    same(tx - ty - 1, x - y - 1)
    same(tx / ty * 2, x / y * 2)
    same(tx % 2 * 3, x % 2 * 3)


# --------------------------------------------------------------------------- NumPy interop
def test_reflected_numpy_left_returns_tensor():
    assert isinstance(np.ones(2) + gnp.ones(2), gc.Tensor)
    assert isinstance(gnp.ones([2]) + np.ones([2]), gc.Tensor)
    assert isinstance(np.ones(2) * gnp.ones(2), gc.Tensor)
    assert isinstance(np.ones(2) == gnp.ones(2), gc.Tensor)
    assert isinstance(np.float64(2.0) * gnp.ones(2), gc.Tensor)
    assert gc.Tensor.__array_priority__ > np.ones(1).__array_priority__


def test_numpy_functions_on_tensors_return_numpy():
    t = gnp.asarray(A)
    s = np.sum(t)
    assert not isinstance(s, gc.Tensor)
    assert isinstance(s, np.floating) and s == A.sum()
    m = np.mean(t, axis=0)
    assert type(m) is np.ndarray
    np.testing.assert_array_equal(m, A.mean(axis=0))
    c = np.concatenate([t, A])
    assert type(c) is np.ndarray and c.shape == (4, 3)
    # NumPy ufuncs on tensors are graphc's (NEP 13), as `ndarray op tensor` is
    assert type(np.sqrt(gnp.asarray([4.0]))) is gc.Tensor
    np.testing.assert_array_equal(np.add(t, 1), A + 1)


def test_gnp_accepts_numpy_and_python_values():
    same(gnp.add(np.ones(2), [1.0, 2.0]), np.array([2.0, 3.0]))
    same(gnp.sum(np.arange(4)), np.int64(6))
    same(gnp.exp(0.0), np.float64(1.0))
    same(gnp.matmul([[1, 2]], np.array([[3], [4]])), np.array([[11]]))


# --------------------------------------------------------------------------- immutability
def test_unhashable():
    with pytest.raises(TypeError):
        hash(gnp.ones(2))
    with pytest.raises(TypeError):
        {gnp.ones(2): 1}
    with pytest.raises(TypeError):
        set([gnp.asarray(1)])


def test_writes_follow_numpy():
    t = gnp.asarray([1, 2, 3])
    alias = t
    for key in (0, slice(None), [0, 1], (0,)):
        t[key] = 7
    same(alias, np.array([7, 7, 7]))  # the same tensor: b = a; b[0] = 1 changes a


def test_functional_updates_work():
    t = gnp.asarray([1, 2, 3])
    same(gnp.where(t == 2, 0, t), np.array([1, 0, 3]))
    same(gc.tensor_scatter_nd_update(t, [[1]], [0]), np.array([1, 0, 3]))
    t.shape = (3, 1)  # NumPy's in-place reshape (tests/numpy_api/test_shape_set_and_out.py)
    same(t, np.array([[1], [2], [3]]))
