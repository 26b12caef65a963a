"""Graphs with nodes that cannot be compiled (print, numpy_function, variables) run as
compiled segments joined by Python (graphc.runtime.cpu.segments), effects in program order,
and say so once (FallbackWarning) and in explain()."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.errors import FallbackError, FallbackWarning

pytestmark = pytest.mark.usefixtures("eager_compile")


def make(backend, jit_compile=False):
    v = gc.Variable(np.zeros(3, np.float32))

    def f(x):
        y = x * 2.0 + 1.0                      # compiled (segment 0)
        gc.print("y =", y)
        z = gc.numpy_function(lambda a: np.sort(a)[::-1].copy(), [y], gc.float32)
        z = gnp.reshape(z, (3,))               # unknown rank in: runs in Python
        v.assign_add(z)
        w = gnp.exp(z) * 3.0 + gnp.sum(x)      # compiled again (sum(x) in segment 0)
        if gnp.sum(w) > 0.0:                   # a cond with a print inside: Python
            gc.print("positive", gnp.max(w))
        return w + v.read_value(), y

    return gc.function(f, backend=backend, jit_compile=jit_compile), v


def test_segments_run_effects_in_order(capsys):
    x = gc.constant(np.array([3.0, 1.0, 2.0], np.float32))
    ref, v_ref = make("numpy")
    fn, v = make("numba")
    with warnings.catch_warnings():
        # every Python node is there by design (print, numpy_function) or only because
        # of those (its unknown-rank result, variable ops kept in order, a cond holding a
        # print): explain() says so, nothing warns
        warnings.simplefilter("error", FallbackWarning)
        got = [fn(x) for _ in range(2)]
    printed = capsys.readouterr().out
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the interpreter backend never warns
        want = [ref(x) for _ in range(2)]
    assert capsys.readouterr().out == printed
    assert printed.count("y =") == 2 and printed.count("positive") == 2
    assert printed.index("y =") < printed.index("positive")
    for g, w in zip(got, want):
        for a, b in zip(g, w):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=4e-7)
    np.testing.assert_array_equal(v.numpy(), v_ref.numpy())

    runtime = fn.get_concrete_function(x).runtime
    assert runtime.backend == "segments"
    text = runtime.explain()
    assert "3 compiled segment(s)" in text and "python: " in text, text
    assert all(s.backend == "numba" for s in runtime.segments), text
    for name in ("gc.print", "gc.numpy_function", "reshape", "assign_variable",
                 "read_variable", "cond"):
        assert f"  - {name} at " in text and "test_numba_segments.py:" in text, name


def test_strict_raises_instead_of_splitting():
    fn, _v = make("numba", jit_compile=True)
    with pytest.raises(FallbackError, match="numpy_function"):
        fn(gc.constant(np.ones(3, np.float32)))
