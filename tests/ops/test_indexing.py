"""Indexing ops against NumPy: every key form eagerly and traced, plus take/gather/scatter."""

from __future__ import annotations

import numpy as np
import pytest

import graphc as gc
from graphc.core.tensor import _symbolic
from graphc.core.trace import TraceContext
from graphc.errors import InvalidArgumentError
from graphc.ir.graph import Aval
from graphc.ops import gather as gx
from graphc.ops import indexing as ix

X = np.arange(24).reshape(2, 3, 4)
M1 = np.array([True, False, True])          # masks axis 1 (count 2)
M2 = X[0] % 3 == 0                          # masks axes (1, 2) (count 4)
M3 = X % 5 == 0                             # masks every axis (count 5)
S = slice(None)
_ = None  # marks the dim a boolean mask makes unknown in a graph

# (key, graph shape): graph shape is None when it equals NumPy's result shape.
CASES = [
    # ints, negative ints
    (0, None), (-1, None), ((1, 2), None), ((1, -1, 3), None), ((-2, 0), None),
    ((np.int64(1), np.int32(-1)), None),
    # slices, steps, negative steps, clamped bounds
    (S, None), (slice(1, None), None), (slice(None, None, -1), None),
    ((S, slice(None, None, 2)), None), ((S, S, slice(None, None, -3)), None),
    ((slice(-10, 10), slice(5, None)), None), ((0, slice(5, 0, -1)), None),
    ((S, slice(1, 1)), None), ((1, slice(-1, -3, -1), slice(3, 0, -2)), None),
    # newaxis and ellipsis
    (None, None), ((None, 0), None), (Ellipsis, None), ((Ellipsis, 1), None),
    ((0, Ellipsis, None), None), ((None, Ellipsis, None, 1), None), ((S, None, 1), None),
    # integer-array (advanced) indexing
    ([1, 0, 1], None), ([[0, 1], [1, 0]], None), (np.array([1, 1]), None),
    ((S, [2, 0]), None), ((Ellipsis, [3, 0, -1]), None), (([0, 1], [1, 2]), None),
    (([0, 1], [1, 2], [3, 0]), None), (([[0], [1]], S, [0, 1, 2]), None),
    ((0, (1, 2)), None), ([], None), ((S, []), None),
    # adjacent advanced indices stay in place, separated ones go first
    ((1, S, [0, 2]), None), ((S, 1, [0, 2]), None), (([1], [0, 2], 1), None),
    (([0, 1], None, [0, 1]), None), ((S, [0, 1], None), None), ((S, [0], Ellipsis, [0]), None),
    ((np.array(1), S, [0, 1]), None),
    # boolean masks: a None dim in a graph
    ([True, False], (_, 3, 4)), (([True, True], 1), (_, 4)), ((S, M1), (2, _, 4)),
    ((S, M2), (2, _)), (M3, (_,)), ((0, M1, slice(1, None)), (_, 3)),
    ((S, M1, [0, 1]), (2, 2)), ((Ellipsis, np.array([True, False, True, True])), (2, 3, _)),
    # Python bool scalars are static: a new dim of size 1 or 0
    (True, None), (False, None), ((S, True), None), ((0, True), None),
]
IDS = [repr(k)[:40] for k, _shape in CASES]


def _index_arrays(key):
    """The array-valued parts of a key (each becomes a tensor input of the node)."""
    items = key if type(key) is tuple else (key,)
    return [k for k in items if isinstance(k, list | tuple | np.ndarray) and np.ndim(k) > 0]


def _symbolize(key, ctx, feeds):
    def sym(k):
        if isinstance(k, list | tuple | np.ndarray) and np.ndim(k) > 0:
            arr = np.asarray(k)
            if arr.size == 0 and arr.dtype.kind == "f":
                arr = arr.astype(np.intp)
            v = ctx.new_input(Aval(arr.shape, arr.dtype))
            feeds[v.id] = arr
            return _symbolic(v)
        return k

    return tuple(sym(k) for k in key) if type(key) is tuple else sym(key)


def _run_node(node, feeds):
    """Run one traced node with its op's reference implementation."""
    args = []
    for v in node.inputs:
        if v.id in feeds:
            args.append(feeds[v.id])
        else:  # a constant folded into the graph
            producer = next(n for n in _nodes if v in n.outputs)
            args.append(producer.attrs["value"].array)
    return node.op.ref(*args, **node.attrs)


_nodes: list = []


def _trace(fn, *arrays, symbolic=True):
    """Trace ``fn`` on symbolic inputs shaped like ``arrays``; return (out, node, feeds)."""
    feeds = {}
    with TraceContext() as ctx:
        args = []
        for a in arrays:
            v = ctx.new_input(Aval(np.shape(a), np.asarray(a).dtype))
            feeds[v.id] = np.asarray(a)
            args.append(_symbolic(v))
        out = fn(ctx, feeds, *args)
    _nodes[:] = ctx.nodes
    return out, ctx.nodes[-1], feeds


@pytest.mark.parametrize("key, graph_shape", CASES, ids=IDS)
def test_getitem_eager(key, graph_shape):
    want = X[key]
    got = gc.Tensor(X)[key]
    assert isinstance(got, gc.Tensor)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("key, graph_shape", CASES, ids=IDS)
def test_getitem_traced_symbolic_indices(key, graph_shape):
    want = X[key]
    out, node, feeds = _trace(lambda ctx, feeds, x: x[_symbolize(key, ctx, feeds)], X)
    assert node.op.name == "getitem"
    assert out.shape == (want.shape if graph_shape is None else graph_shape)
    assert out.dtype == want.dtype
    np.testing.assert_array_equal(_run_node(node, feeds), want)


@pytest.mark.parametrize("key, graph_shape", CASES, ids=IDS)
def test_getitem_traced_constant_indices(key, graph_shape):
    # Index arrays given as lists/ndarrays become constants of the graph.
    want = X[key]
    out, node, feeds = _trace(lambda ctx, feeds, x: x[key], X)
    assert out.shape == (want.shape if graph_shape is None else graph_shape)
    assert len(node.inputs) == 1 + len(_index_arrays(key))
    np.testing.assert_array_equal(_run_node(node, feeds), want)


def test_key_encoding_is_static_and_hashable():
    entries, inputs = ix._encode((0, slice(1, None, -1), None, Ellipsis, [0, 1], True))
    assert entries == (("int", 0), ("slice", 1, None, -1), ("newaxis",), ("ellipsis",),
                       ("array", 0), ("bool", True))
    hash(entries)
    np.testing.assert_array_equal(inputs[0], [0, 1])
    assert ix._encode(3) == ((("int", 3),), ())


def test_zero_d_tensor_indices():
    t = gc.Tensor(X)
    i = gc.Tensor(np.array(1))
    np.testing.assert_array_equal(np.asarray(t[i]), X[1])
    np.testing.assert_array_equal(np.asarray(t[i, S, [0, 1]]), X[1, S, [0, 1]])
    np.testing.assert_array_equal(np.asarray(t[:, i:]), X[:, 1:])

    def fn(ctx, feeds, x, j):
        return x[j], x[j, S, [0, 1]], x[:, j:], x[:, :j:-1]

    (a, b, c, d), _node, _feeds = _trace(fn, X, np.array(1))
    assert a.shape == (3, 4) and b.shape == (2, 3) and c.shape == (2, None, 4)
    assert d.shape == (2, None, 4)
    getitems = [n for n in _nodes if n.op.name == "getitem"]
    np.testing.assert_array_equal(
        getitems[2].op.ref(X, np.array(1), **getitems[2].attrs), X[:, 1:])
    np.testing.assert_array_equal(
        getitems[3].op.ref(X, np.array(1), **getitems[3].attrs), X[:, :1:-1])


def test_unknown_dims_propagate():
    def fn(ctx, feeds, x):
        return (x[0], x[1:], x[:, 1], x[::-1, :2], x[2:2], x[:0], x[-1:-3], x[-3:-1], x[:3],
                x[5], x[..., None])

    with TraceContext() as ctx:
        x = _symbolic(ctx.new_input(Aval((None, 3, 4), X.dtype)))
        outs = fn(ctx, {}, x)
    assert [o.shape for o in outs] == [
        (3, 4), (None, 3, 4), (None, 4), (None, 2, 4), (0, 3, 4), (0, 3, 4),
        (0, 3, 4),  # same-sign bounds with stop <= start: empty whatever the dim
        (None, 3, 4), (None, 3, 4), (3, 4), (None, 3, 4, 1)]
    with TraceContext() as ctx:
        x = _symbolic(ctx.new_input(Aval(None, X.dtype)))
        assert x[0, 1:].shape is None


# --------------------------------------------------------------------------- errors
@pytest.mark.parametrize("key, message", [
    (5, "index 5 is out of bounds for axis 0 with size 2"),
    ((S, -4), "index -4 is out of bounds for axis 1 with size 3"),
    ((0, 0, 0, 0), "too many indices"),
    ((Ellipsis, 0, Ellipsis), "single ellipsis"),
    (np.array([True, False, True]), "boolean index did not match"),
    (([0, 1], [0, 1, 2]), "could not be broadcast"),
    (slice(None, None, 0), "slice step cannot be zero"),
])
@pytest.mark.parametrize("mode", ["eager", "traced"])
def test_getitem_invalid_raises(key, message, mode):
    with pytest.raises(InvalidArgumentError, match=message) as info:
        if mode == "eager":
            gc.Tensor(X)[key]
        else:
            _trace(lambda ctx, feeds, x: x[key], X)
    assert "getitem" in str(info.value)


@pytest.mark.parametrize("key", [1.5, "a", [1.5, 2.0], {0: 1}, (0, 2.0), slice(0.5, 2),
                                 np.array([1.0])])
def test_getitem_bad_key_type(key):
    with pytest.raises(TypeError, match="valid indices|slice indices"):
        gc.Tensor(X)[key]


def test_getitem_bad_symbolic_key_type():
    with pytest.raises(TypeError, match="valid indices"):
        _trace(lambda ctx, feeds, x, f: x[f], X, np.array([1.0]))


def test_assignment_writes_like_numpy():
    t, want = gc.Tensor(X), X.copy()
    t[0] = 1
    want[0] = 1
    np.testing.assert_array_equal(t.numpy(), want)


# --------------------------------------------------------------------------- take & friends
@pytest.mark.parametrize("axis", [None, 0, 1, 2, -1])
def test_take(axis):
    idx = np.array([[1, 0], [-1, 1]])
    want = np.take(X, idx, axis=axis)
    np.testing.assert_array_equal(np.asarray(ix.take(gc.Tensor(X), idx, axis=axis)), want)
    out, node, feeds = _trace(lambda ctx, feeds, x, i: ix.take(x, i, axis=axis), X, idx)
    assert out.shape == want.shape and out.dtype == want.dtype
    np.testing.assert_array_equal(_run_node(node, feeds), want)


def test_take_modes_and_errors():
    a = np.arange(3)
    for mode in ("wrap", "clip"):
        np.testing.assert_array_equal(np.asarray(ix.take(a, [5, -7], mode=mode)),
                                      np.take(a, [5, -7], mode=mode))
    with pytest.raises(InvalidArgumentError, match="take.*out of bounds"):
        ix.take(gc.Tensor(a), [5])
    with pytest.raises(TypeError, match="take.*integers"):
        ix.take(gc.Tensor(a), [0.5])


@pytest.mark.parametrize("axis", [0, 1, 2, -1, None])
def test_take_along_axis(axis):
    idx = np.argsort(-X, axis=axis) if axis is not None else np.array([3, 0, 23])
    if axis == 1:
        idx = idx[:1]  # broadcasts against X's axis 0
    want = np.take_along_axis(X, idx, axis=axis)
    got = ix.take_along_axis(gc.Tensor(X), idx, axis=axis)
    np.testing.assert_array_equal(np.asarray(got), want)
    out, node, feeds = _trace(lambda ctx, feeds, x, i: ix.take_along_axis(x, i, axis), X, idx)
    assert out.shape == want.shape
    np.testing.assert_array_equal(_run_node(node, feeds), want)


def test_take_along_axis_indexed_axis_takes_indices_length():
    out, node, feeds = _trace(lambda ctx, feeds, a, i: ix.take_along_axis(a, i, 0),
                              np.arange(3), np.array([2, 0]))
    assert out.shape == (2,)
    np.testing.assert_array_equal(_run_node(node, feeds), [2, 0])


def test_take_along_axis_out_of_range():
    with pytest.raises(InvalidArgumentError, match="take_along_axis"):
        ix.take_along_axis(gc.Tensor(X), np.full((2, 3, 1), 9), axis=2)


@pytest.mark.parametrize("axis", [None, 0, 1, 2, -1])
def test_gather(axis):
    idx = np.array([[1, 0, 1]])
    want = np.take(X, idx, axis=0 if axis is None else axis)
    np.testing.assert_array_equal(np.asarray(gc.gather(gc.Tensor(X), idx, axis=axis)), want)
    out, node, feeds = _trace(lambda ctx, feeds, x, i: gc.gather(x, i, axis=axis), X, idx)
    assert out.shape == want.shape and out.dtype == want.dtype
    np.testing.assert_array_equal(_run_node(node, feeds), want)


def test_gather_batch_dims():
    idx = np.array([[3, 0, 1, 1, 2], [0, 0, 3, 2, 1]])
    want = np.stack([np.take(X[b], idx[b], axis=1) for b in range(2)])  # (2, 3, 5)
    got = gc.gather(gc.Tensor(X), idx, axis=2, batch_dims=1)
    np.testing.assert_array_equal(np.asarray(got), want)
    out, node, feeds = _trace(
        lambda ctx, feeds, x, i: gc.gather(x, i, axis=2, batch_dims=1), X, idx)
    assert out.shape == (2, 3, 5)
    np.testing.assert_array_equal(_run_node(node, feeds), want)
    with pytest.raises(InvalidArgumentError, match="must be equal"):
        gc.gather(gc.Tensor(X), idx[:1], axis=2, batch_dims=1)
    with pytest.raises(InvalidArgumentError, match="at least batch_dims"):
        gc.gather(gc.Tensor(X), idx, axis=0, batch_dims=1)


@pytest.mark.parametrize("bad", [[5], [0, -1]])
def test_gather_out_of_range(bad):
    with pytest.raises(InvalidArgumentError, match=r"gather.*is not in \[0, 3\)"):
        gc.gather(gc.Tensor(np.arange(3)), bad)


def test_tensor_scatter_nd_update():
    got = gc.tensor_scatter_nd_update(gc.Tensor(np.zeros(5)), [[1], [3]], [9, 10])
    np.testing.assert_array_equal(np.asarray(got), [0, 9, 0, 10, 0])
    assert got.dtype == np.float64
    # k=1 on a 3-d tensor replaces whole [3, 4] slices; k=3 single elements
    rows = -np.ones((1, 3, 4), X.dtype)
    np.testing.assert_array_equal(
        np.asarray(gc.tensor_scatter_nd_update(gc.Tensor(X), [[1]], rows)),
        np.concatenate([X[:1], rows]))
    want = X.copy()
    want[0, 2, 3] = want[1, 0, 0] = 0
    got = gc.tensor_scatter_nd_update(gc.Tensor(X), [[0, 2, 3], [1, 0, 0]], [0, 0])
    np.testing.assert_array_equal(np.asarray(got), want)
    out, node, feeds = _trace(lambda ctx, feeds, t, i, u: gc.tensor_scatter_nd_update(t, i, u),
                              X, np.array([[0, 2, 3], [1, 0, 0]]), np.array([0, 0]))
    assert out.shape == X.shape and out.dtype == X.dtype
    np.testing.assert_array_equal(_run_node(node, feeds), want)
    assert X[0, 2, 3] == 11  # the input is never changed


def test_tensor_scatter_nd_update_errors():
    t = gc.Tensor(np.zeros(5))
    with pytest.raises(InvalidArgumentError, match=r"tensor_scatter_nd_update.*indices\[1\]"):
        gc.tensor_scatter_nd_update(t, [[1], [5]], [9, 10])
    with pytest.raises(InvalidArgumentError, match="updates must have shape"):
        gc.tensor_scatter_nd_update(t, [[1], [3]], [9, 10, 11])
    with pytest.raises(TypeError, match="cannot be written"):
        gc.tensor_scatter_nd_update(gc.Tensor(np.zeros(5, np.int64)), [[1]], [1.5])
    with pytest.raises(InvalidArgumentError, match="updates must have shape"):
        _trace(lambda ctx, feeds, a, i, u: gc.tensor_scatter_nd_update(a, i, u),
               np.zeros(5), np.array([[1]]), np.zeros(2))


def test_argwhere_and_nonzero():
    a = X % 7 == 0
    got = gx.argwhere(gc.Tensor(a))
    np.testing.assert_array_equal(np.asarray(got), np.argwhere(a))
    assert got.dtype == np.int64
    for g, w in zip(gx.nonzero(gc.Tensor(a)), np.nonzero(a), strict=True):
        np.testing.assert_array_equal(np.asarray(g), w)
    out, node, feeds = _trace(lambda ctx, feeds, m: gx.argwhere(m), a)
    assert out.shape == (None, 3) and out.dtype == np.int64
    np.testing.assert_array_equal(_run_node(node, feeds), np.argwhere(a))
    outs, _node, _feeds = _trace(lambda ctx, feeds, m: gx.nonzero(m), a)
    assert [o.shape for o in outs] == [(None,)] * 3
    with pytest.raises(ValueError, match="0-d"):
        gx.nonzero(gc.Tensor(np.array(1)))
