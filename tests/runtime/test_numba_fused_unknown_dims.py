"""Elementwise ops whose shapes are unknown at trace time (slices with run-time bounds in
a staged loop) fuse into one compiled loop when the group has one result: members whose
run-time shape is smaller than the loop's (here ``(1,)`` beside ``(i + 1,)``) are read
broadcast, and the results match NumPy bit for bit (passes/fusion.py)."""

import warnings

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.runtime.cpu import numba_cpu

pytestmark = pytest.mark.usefixtures("eager_compile")


def program(np, x, y, n):
    out = np.zeros_like(x)
    for i in range(n):
        a = np.sin(x[i:i + 1]) * 2.0  # (1,) at run time, (?,) when traced
        out[:i + 1] = a + y[:i + 1] * 0.5  # (i + 1,): the loop's shape
        out[i:] -= np.cos(y[i:]) * out[i]  # a group whose first input is a view
    return out


def staged(x, y, n):
    return program(gnp, x, y, n)


def test_unknown_dims_fuse_and_match_numpy():
    x, y, n = np.linspace(-1, 1, 7), np.arange(7.0) - 2.5, np.array(6)
    f = gc.function(staged)
    with warnings.catch_warnings():
        warnings.simplefilter("error", gc.errors.FallbackWarning)
        got = f(x, y, n)
    np.testing.assert_array_equal(got.numpy(), program(np, x, y, 6))
    graph = f.get_concrete_function(x, y, n).optimized_graph
    loop = next(node for node in graph.nodes if node.op.name == "while_loop")
    body = loop.attrs["body"]
    fused = [node for node in body.nodes if node.op.name == "fused_elementwise"]
    assert len(fused) == 2 and all(None in node.outputs[0].aval.shape for node in fused)
    assert numba_cpu.executor_for(graph).backend == "numba"
