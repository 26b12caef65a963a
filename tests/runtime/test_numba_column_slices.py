"""Elementwise loops over windows of C-contiguous arrays (``x[:, a:b]``, a GRU's gates;
``x[1:, :h]``): each such view is read as its base's row at ``start + k``
(``kernels.WindowVal``, ``loop_shapes._row_loop``), contiguous loads instead of strided
ones. The results equal the interpreter's and NumPy's bit for bit, for slices given with
negative, open and out-of-range bounds, rank 3, broadcasting operands and float32; a
view with a step keeps the N-d loop."""

from __future__ import annotations

import numpy as np
import pytest

import graphc as gc
from graphc.core.interpreter import run_graph
from graphc.runtime.cpu import kernels_shape, numba_cpu

pytestmark = pytest.mark.usefixtures("eager_compile")


def gates(xp, g, h, bias, t, f32):
    H = h.shape[1]
    z = 1.0 / (1.0 + xp.exp(-(g[:, :H] + h)))               # open start
    r = xp.tanh(g[:, H:2 * H] * h + bias)                    # a row operand beside
    n = g[:, -H:] - r * z                                    # negative start
    wide = g[:, 2 * H:10 * H] * 2.0                          # stop past the end
    deep = xp.exp(t[:, :, 1:4]) + t[:, :, 3:6]               # rank 3
    small = f32[:, 2:5] * f32[:, 0:3]                        # float32
    stepped = g[:, ::2] + 1.0                                # a step: N-d loop
    cut = g[1:, :H] - h[1:]                                  # a cut leading dim
    return z, r, n, wide, deep, small, stepped, cut


def _compiled(args):
    f = gc.function(lambda *a: gates(gc.numpy, *a))
    graph = f.get_concrete_function(*args).optimized_graph
    ex = numba_cpu.executor_for(graph)
    assert ex.backend == "numba", ex.explain()
    return graph, ex


def test_column_runs_are_read_from_their_base_rows_with_the_same_bits(monkeypatch):
    rng = np.random.default_rng(11)
    args = (rng.standard_normal((5, 12)), rng.standard_normal((5, 4)),
            rng.standard_normal(4), rng.standard_normal((2, 3, 7)),
            rng.standard_normal((3, 6)).astype(np.float32))
    arrays = [np.asarray(a) for a in args]
    graph, ex = _compiled(args)
    src = ex.program.source
    for start in (0, 4, 8, 1, 3, 2):  # every column run above read from its base row
        assert f"[_k + {start}]" in src, start
    got = ex(arrays)
    # the same program through the views' strides (the N-d loop): the same bits
    monkeypatch.setattr(kernels_shape, "window_of", lambda *a: None)
    strided = numba_cpu.Executor(graph)
    assert "[_k + " not in strided.program.source
    for g, s in zip(got, strided(arrays), strict=True):
        np.testing.assert_array_equal(g, s)
    # and NumPy's: exactly where no vmath function is involved; where one is, vmath's
    # ulp (docs/vmath.md), grown by the subtraction in n
    ref = run_graph(graph, arrays)
    for k, (g, r, w) in enumerate(zip(got, ref, gates(np, *args), strict=True)):
        assert np.asarray(g).dtype == w.dtype and np.shape(g) == w.shape
        if k < 5:  # exp, tanh: vmath's polynomials (docs/vmath.md)
            np.testing.assert_allclose(g, r, rtol=1e-14, atol=1e-15)
        else:
            np.testing.assert_array_equal(g, r)
            np.testing.assert_array_equal(g, w)
