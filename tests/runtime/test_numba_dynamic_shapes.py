"""Shapes read from tensors at run time (issue 12) compile: ``full``/``zeros``/``fill``,
``reshape`` (with a run-time -1), ``broadcast_to``, ``tile`` and ``pad`` (run-time widths
and constant) each take their shape as a 1-D int64 operand, and the Numba program reads
it. Every program here must run compiled (``jit_compile=True``, backend "numba", no call
of the interpreter), on several sizes, equal to NumPy by hand.
"""

from __future__ import annotations

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.errors import InvalidArgumentError
from graphc.runtime.cpu import runners

pytestmark = pytest.mark.usefixtures("eager_compile")


class Fallback(Exception):
    """The compiled program raised and the executor called the interpreter."""


def _no_fallback(graph, arrays):
    raise Fallback


def compiled(fn, *args):
    """Run ``fn`` (a jit_compile gc.function) with no interpreter fallback; check that
    the graph it ran is the Numba program."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(runners, "run_graph", _no_fallback)
        out = fn(*args)
    runtime = fn.get_concrete_function(*args).runtime
    assert runtime.backend == "numba", runtime.explain()
    return out


def same(got, want):
    got = np.asarray(got)
    assert got.shape == np.shape(want) and got.dtype == np.asarray(want).dtype, (got, want)
    np.testing.assert_array_equal(got, want)


@gc.function(jit_compile=True)
def creations(n, v):
    return (gc.zeros([1, n, 2]), gnp.ones([n, 3], dtype=gnp.int32), gc.fill([n, n], v),
            gnp.full(gc.stack([n, 2]), v))


@pytest.mark.parametrize("n", [0, 1, 3])
def test_creation_ops(n):
    a, b, c, d = compiled(creations, gc.constant(n), gc.constant(2.5))
    same(a, np.zeros((1, n, 2), np.float32))
    same(b, np.ones((n, 3), np.int32))
    same(c, np.full((n, n), 2.5, np.float32))
    same(d, np.full((n, 2), 2.5, np.float32))


@gc.function(jit_compile=True)
def reshapes(x, n, m):
    return (gnp.reshape(x, [n, -1]), gnp.reshape(x, [m, n]), gnp.reshape(x, gc.shape(x)),
            gnp.reshape(x[0, 0], [n * 0 + 1, 1]))


@pytest.mark.parametrize("n, m", [(2, 6), (3, 4), (1, 12), (4, -1)])
def test_reshape(n, m):
    x = np.arange(12.0).reshape(3, 4)[:, ::-1]  # not contiguous: copied first
    a, b, c, d = compiled(reshapes, x, np.int64(n), np.int32(m))
    same(a, x.reshape(n, -1))
    same(b, x.reshape(m, n))
    same(c, x)
    same(d, np.full((1, 1), x[0, 0]))


def test_reshape_errors_at_run_time():
    x = np.arange(12.0).reshape(3, 4)
    with pytest.raises(InvalidArgumentError, match="reshape"):
        reshapes(x, np.int64(5), np.int32(2))  # 12 is not a multiple of 5
    with pytest.raises(InvalidArgumentError, match="reshape"):
        reshapes(x, np.int64(-1), np.int32(-1))  # two -1


@gc.function(jit_compile=True)
def layout(x, n, v):
    row = x[0]
    return (gnp.broadcast_to(row, [n, row.shape[0]]), gnp.tile(x, [n, 1]),
            gnp.tile(row, gc.stack([n])), gnp.pad(x, [[0, n], [n, 1]], constant_values=v),
            gnp.pad(x, [[n, 0], [0, 0]], mode="edge"), gnp.pad(x, 1, constant_values=v))


@pytest.mark.parametrize("n", [0, 1, 2])
def test_broadcast_tile_pad(n):
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    outs = compiled(layout, x, np.int64(n), np.int32(-7))
    same(outs[0], np.broadcast_to(x[0], (n, 3)))
    same(outs[1], np.tile(x, (n, 1)))
    same(outs[2], np.tile(x[0], n))
    same(outs[3], np.pad(x, [[0, n], [n, 1]], constant_values=-7))
    same(outs[4], np.pad(x, [[n, 0], [0, 0]], mode="edge"))
    same(outs[5], np.pad(x, 1, constant_values=-7))


def test_negative_dims_raise_compiled():
    with pytest.raises(InvalidArgumentError, match="negative"):
        creations(gc.constant(-2), gc.constant(1.0))
    with pytest.raises(InvalidArgumentError, match="negative"):
        layout(np.ones((2, 3), np.int32), np.int64(-1), np.int32(0))


@gc.function(jit_compile=True)
def grow(n):
    """A tensor loop whose state grows by a packed list and by a traced-width pad."""
    v = gnp.zeros([0], dtype=gnp.int64)
    m = gnp.zeros([1, 1], dtype=gnp.int64)
    i = gc.constant(0, dtype=gc.int64)
    while i < n:
        v = gc.concat((v, [i]), 0)
        m = gnp.pad(m, [[0, 1], [i, 0]], constant_values=i)
        i += 1
    return v, m, gc.zeros(gc.shape(m)[::-1])


@pytest.mark.parametrize("n", [0, 1, 3])
def test_loop_state_with_dynamic_shapes(n):
    v, m, z = compiled(grow, np.int64(n))
    want_m = np.zeros((1, 1), np.int64)
    for i in range(n):
        want_m = np.pad(want_m, [[0, 1], [i, 0]], constant_values=i)
    same(v, np.arange(n, dtype=np.int64))
    same(m, want_m)
    same(z, np.zeros(want_m.shape[::-1], np.float32))
