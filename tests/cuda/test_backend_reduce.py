"""Reductions on the CUDA backend (simulator) along every axis and axis set, keepdims,
NaN and integer/bool inputs, compared with the interpreter: one graph, one executor."""

from __future__ import annotations

import numpy as np

from graphc.core.interpreter import run_graph
from graphc.core.registry import all_ops, bind
from graphc.core.tensor import _symbolic
from graphc.core.trace import TraceContext
from graphc.ir.graph import Aval
from graphc.runtime.cuda import executor

RNG = np.random.default_rng(15)
F = RNG.standard_normal((2, 3, 4)).astype(np.float32)
FN = F.copy()
FN[1, 2, 1] = FN[0, 1, 3] = np.nan  # NaN in some rows: max/min/argmax must see it
FN[0, 0, :2] = 7.0                   # a tie: argmax picks the first
INTS = RNG.integers(-50, 50, (2, 3, 4)).astype(np.int32)
B = RNG.random((2, 3, 4)) > 0.6
AXES = [None, 0, 1, 2, -1, (0, 2), (1, 2), (0, 1, 2)]
CASES = (
    [(op, "F", axis) for op in ("sum", "mean") for axis in AXES]
    + [(op, "F", axis) for op in ("prod", "max", "min") for axis in (None, 0, (1, 2))]
    + [(op, "FN", axis) for op in ("max", "min", "argmax", "argmin") for axis in (None, 0, 2)]
    + [(op, "I", axis) for op in ("sum", "max", "mean", "argmin") for axis in (None, 1)]
    + [(op, "B", axis) for op in ("any", "all", "sum") for axis in (None, 0, (1, 2))]
)
INPUTS = {"F": F, "FN": FN, "I": INTS, "B": B}


def graphs():
    outputs, labels = [], []
    with TraceContext("reductions") as ctx:
        syms = {k: _symbolic(ctx.new_input(Aval(a.shape, a.dtype))) for k, a in INPUTS.items()}
        for k, (op, x, axis) in enumerate(CASES):
            attrs = {"axis": axis, "keepdims": k % 3 == 0}
            outputs.append(bind(all_ops()[op], syms[x], **attrs)._sym)
            labels.append(f"{op}({x}, axis={axis}, keepdims={attrs['keepdims']})")
    return [(ctx.finish(outputs), list(INPUTS.values()), labels)]


def test_reductions_along_each_axis():
    ((graph, arrays, labels),) = graphs()
    ex = executor.Executor(graph)
    assert ex.backend == "cuda", ex.explain()
    want = run_graph(graph, arrays)
    got = ex(arrays)
    for label, g, w in zip(labels, got, want):
        g, w = g.copy_to_host(), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape, (label, g.dtype, g.shape, w.shape)
        if g.dtype.kind == "f":
            np.testing.assert_allclose(g, w, rtol=3e-6, atol=1e-6, equal_nan=True,
                                       err_msg=label)
        else:
            np.testing.assert_array_equal(g, w, err_msg=label)
