"""Shapes from tensors (issue 12): every shape-taking op accepts traced 0-d integers in
its shape (mixed with ints) or a 1-D integer tensor, traced in a gc.function and checked
against NumPy written by hand on several sizes; the static forms bind as before; the
avals say what is known while tracing; errors name what was wrong."""

from __future__ import annotations

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.errors import InvalidArgumentError

SIZES = (0, 1, 3)


def same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got, want)
    np.testing.assert_array_equal(got, want)


def graph_of(fn, *args):
    return fn.get_concrete_function(*args).graph


def ops(graph):
    return [n.op.name for n in graph.nodes]


def out_shapes(fn, *args):
    return [tuple(v.aval.shape) if v.aval.shape is not None else None
            for v in graph_of(fn, *args).outputs]


# --------------------------------------------------------------------------- creation
@gc.function
def creations(n):
    return (gc.zeros([1, n, 2]), gc.ones([n, 3]), gnp.zeros((n,), dtype=gnp.int32),
            gnp.full([2, n], 7), gnp.empty([n]), gc.fill([n, n], 1.5), gnp.ones(n))


@pytest.mark.parametrize("n", SIZES)
def test_creation_ops_with_a_traced_dim(n):
    a, b, c, d, e, f, g = creations(gc.constant(n))
    same(a, np.zeros((1, n, 2), np.float32))
    same(b, np.ones((n, 3), np.float32))
    same(c, np.zeros(n, np.int32))
    same(d, np.full((2, n), 7))
    same(e, np.zeros(n))
    same(f, np.full((n, n), 1.5, np.float32))
    same(g, np.ones(n))


def test_traced_dims_are_unknown_in_the_aval():
    assert out_shapes(creations, gc.constant(2)) == [
        (1, None, 2), (None, 3), (None,), (2, None), (None,), (None, None), (None,)]


@gc.function
def from_shape_tensors(x, k):
    return (gc.zeros(gc.shape(x)), gnp.ones(gc.shape(x)[::-1], dtype=gnp.int8),
            gc.zeros(gc.range(k)), gc.fill(gc.range(2) + 2, 3))


@pytest.mark.parametrize("rows", [0, 2, 4])
def test_one_d_shape_tensors(rows):
    x = np.ones((rows, 3))
    a, b, c, d = from_shape_tensors(x, gc.constant(2))
    same(a, np.zeros((rows, 3), np.float32))
    same(b, np.ones((3, rows), np.int8))
    same(c, np.zeros((0, 1), np.float32))
    same(d, np.full((2, 3), 3, np.int32))


def test_rank_from_a_shape_tensor_of_static_length():
    spec = gc.TensorSpec([None, 3], gc.float64)
    f = gc.function(from_shape_tensors.python_function, input_signature=[
        spec, gc.TensorSpec([], gc.int32)])
    shapes = out_shapes(f, np.ones((2, 3)), gc.constant(2))
    # gc.shape(x) keeps x's known dims; gc.range(k) has unknown length: unknown rank;
    # gc.range(2) + 2 is evaluated while tracing: static
    assert shapes == [(None, 3), (None, None), None, (2, 3)]


def test_static_shapes_bind_as_before():
    @gc.function
    def f(x):
        return gc.zeros([2, gc.constant(3)]), gnp.reshape(x, [3, 2]), gc.zeros(gc.shape(x))

    g = graph_of(f, np.ones((2, 3)))
    assert "stack" not in ops(g) and "cast" not in ops(g)
    assert all(len(node.inputs) == 1 for node in g.nodes
               if node.op.name in ("full", "reshape"))  # the shape is an attr
    assert [tuple(v.aval.shape) for v in g.outputs] == [(2, 3), (3, 2), (2, 3)]


# --------------------------------------------------------------------------- reshape
@gc.function
def reshapes(x, n):
    return (gnp.reshape(x, [n, -1]), gc.reshape(x, [2, n // 2, -1]),
            gnp.reshape(x, gc.stack([n, 12 // n])), x.reshape((n, -1)))


@pytest.mark.parametrize("n", [2, 4, 6])
def test_reshape_with_traced_dims(n):
    x = np.arange(12.0)
    a, b, c, d = reshapes(x, gc.constant(n))
    same(a, x.reshape(n, -1))
    same(b, x.reshape(2, n // 2, -1))
    same(c, x.reshape(n, 12 // n))
    same(d, x.reshape(n, -1))


def test_reshape_infers_the_one_open_dim():
    @gc.function
    def f(x, n):
        return gnp.reshape(x, [n, 4]), gnp.reshape(x, [n, -1])

    assert out_shapes(f, np.arange(12.0), gc.constant(3)) == [(3, 4), (None, None)]


def test_reshape_traced_minus_one():
    @gc.function
    def f(x, n):
        return gnp.reshape(x, [n, 4]), gnp.reshape(x, gc.stack([2, n]))

    a, b = f(np.arange(12.0), gc.constant(-1))
    same(a, np.arange(12.0).reshape(-1, 4))
    same(b, np.arange(12.0).reshape(2, -1))


def test_reshape_wrong_sizes():
    x = np.arange(12.0)
    with pytest.raises(InvalidArgumentError, match="reshape"):
        reshapes(x, gc.constant(5))  # 12 is not a multiple of 5: at run time

    @gc.function
    def f(x, n):
        return gnp.reshape(x, [n, 5])

    with pytest.raises(InvalidArgumentError, match="not a multiple of 5"):
        f(x, gc.constant(2))  # known while tracing

    @gc.function
    def g(x, s):
        return gnp.reshape(x, s)

    with pytest.raises(InvalidArgumentError, match="cannot reshape"):
        g(x, np.array([5, 3]))  # a shape tensor of the right length, wrong size
    with pytest.raises(InvalidArgumentError, match="unknown dimension"):
        g(x, np.array([-1, -1]))


# --------------------------------------------------------------------------- broadcast_to
@gc.function
def broadcasts(x, n):
    return gnp.broadcast_to(x, [n, 3]), gc.broadcast_to(x[:1], gc.stack([2, n])), \
        gnp.broadcast_to(x, gc.shape(gc.zeros([n, 1, 3])))


@pytest.mark.parametrize("n", [0, 1, 3])
def test_broadcast_to_with_traced_dims(n):
    x = np.arange(3.0)
    a, b, c = broadcasts(x, gc.constant(n))
    same(a, np.broadcast_to(x, (n, 3)))
    same(b, np.broadcast_to(x[:1], (2, n)))
    same(c, np.broadcast_to(x, (n, 1, 3)))


def test_broadcast_to_keeps_known_input_dims():
    # a run-time target dim against a known input dim other than 1 can only equal it
    assert out_shapes(broadcasts, np.arange(3.0), gc.constant(1)) == [
        (None, 3), (2, None), (None, 1, 3)]


def test_broadcast_to_bad_target_at_run_time():
    @gc.function
    def f(x, n):
        return gnp.broadcast_to(x, [2, n])

    same(f(np.arange(3.0), gc.constant(3)), np.broadcast_to(np.arange(3.0), (2, 3)))
    with pytest.raises(InvalidArgumentError, match="broadcast"):
        f(np.arange(3.0), gc.constant(2))


# --------------------------------------------------------------------------- tile
@gc.function
def tiles(x, n):
    return gnp.tile(x, [n, 1]), gc.tile(x, gc.stack([1, n])), gnp.tile(x[0], n)


@pytest.mark.parametrize("n", SIZES)
def test_tile_with_traced_multiples(n):
    x = np.arange(6).reshape(2, 3)
    a, b, c = tiles(x, gc.constant(n))
    same(a, np.tile(x, (n, 1)))
    same(b, np.tile(x, (1, n)))
    same(c, np.tile(x[0], n))
    assert out_shapes(tiles, x, gc.constant(n)) == [(None, 3), (2, None), (None,)]


# --------------------------------------------------------------------------- pad
@gc.function
def pads(x, n, v):
    return (gnp.pad(x, [[0, n]], constant_values=v), gnp.pad(x, n),
            gnp.pad(x, [n, 1], mode="edge"), gc.pad(x, gc.stack([[n, 0]])),
            gnp.pad(x, 1, constant_values=v * 2))


@pytest.mark.parametrize("n", SIZES)
def test_pad_with_traced_widths_and_constant(n):
    x = np.arange(1, 4, dtype=np.int32)
    a, b, c, d, e = pads(x, gc.constant(n), gc.constant(-5))
    same(a, np.pad(x, [[0, n]], constant_values=-5))
    same(b, np.pad(x, n))
    same(c, np.pad(x, [n, 1], mode="edge"))
    same(d, np.pad(x, [[n, 0]]))
    same(e, np.pad(x, 1, constant_values=-10))
    assert out_shapes(pads, x, gc.constant(n), gc.constant(-5)) == [
        (None,), (None,), (None,), (None,), (5,)]


def test_pad_constant_from_a_float_tensor_is_cast_as_numpy_does():
    @gc.function
    def f(x, v):
        return gnp.pad(x, [[1, 1], [0, 1]], constant_values=v)

    x = np.arange(4, dtype=np.int64).reshape(2, 2)
    same(f(x, gc.constant(2.75)), np.pad(x, [[1, 1], [0, 1]], constant_values=2.75))


# --------------------------------------------------------------------------- concat / stack
@gc.function
def packs(v, i):
    return (gc.concat((v, [i]), 0), gnp.concatenate([v, [i, i + 1]]),
            gc.stack([[i, 1], [2, i]]), gnp.stack([v, [i, i, i]], axis=1))


@pytest.mark.parametrize("i", [0, 4])
def test_lists_holding_traced_tensors_are_packed(i):
    v = np.array([7, 8, 9], np.int32)
    a, b, c, d = packs(v, gc.constant(i))
    same(a, np.array([7, 8, 9, i], np.int32))
    same(b, np.array([7, 8, 9, i, i + 1], np.int32))
    same(c, np.array([[i, 1], [2, i]], np.int32))
    same(d, np.stack([v, np.full(3, i, np.int32)], axis=1))  # [i, i, i] is i's int32


# --------------------------------------------------------------------------- errors
def test_negative_dims_raise_at_run_time():
    with pytest.raises(InvalidArgumentError, match="negative dimension -2"):
        creations(gc.constant(-2))
    with pytest.raises(InvalidArgumentError, match="negative"):
        tiles(np.ones((2, 3)), gc.constant(-1))
    with pytest.raises(InvalidArgumentError, match="negative"):
        pads(np.ones(3, np.int32), gc.constant(-1), gc.constant(0))


def test_negative_known_dims_raise_while_tracing():
    @gc.function
    def f(n):
        return gc.zeros([n, -3])

    with pytest.raises(InvalidArgumentError, match="negative dimension"):
        f(gc.constant(2))


def test_non_integer_shape_tensors_raise_while_tracing():
    @gc.function
    def f(x):
        return gc.zeros([2, x])

    @gc.function
    def g(x):
        return gnp.reshape(np.arange(4.0), x)

    with pytest.raises(TypeError, match=r"shape must be .*float32 tensor.*test_dynamic"):
        f(gc.constant(2.0))
    with pytest.raises(TypeError, match="bool tensor"):
        g(gc.constant([True, False]))
    with pytest.raises(TypeError, match="an entry of shape"):
        f(gc.constant([2, 3]))


def test_wrong_length_shapes_for_reshape():
    @gc.function(input_signature=[gc.TensorSpec([None], gc.int32)])
    def f(s):
        return gnp.reshape(np.arange(12.0).reshape(3, 4), s)

    same(f(np.array([4, 3], np.int32)), np.arange(12.0).reshape(4, 3))
    same(f(np.array([2, 2, 3], np.int32)), np.arange(12.0).reshape(2, 2, 3))
    assert out_shapes(f, np.array([4, 3], np.int32)) == [None]  # unknown rank
    with pytest.raises(InvalidArgumentError, match="cannot reshape"):
        f(np.array([5], np.int32))


def test_verifier_and_passes_accept_the_dynamic_forms():
    from graphc.ir.verify import verify
    from graphc.passes.pipeline import optimize

    for fn, args in ((creations, (gc.constant(2),)), (pads, (np.ones(3), gc.constant(1),
                                                              gc.constant(0.5))),
                     (reshapes, (np.arange(12.0), gc.constant(3)))):
        graph = graph_of(fn, *args)
        verify(graph)
        optimized, _ = optimize(graph)
        verify(optimized)
        assert any(len(n.inputs) > 1 for n in optimized.nodes
                   if n.op.name in ("full", "pad", "reshape"))
