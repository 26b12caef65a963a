"""Gradients through traced loops that write a TensorArray the loop only writes to: a
``dynamic_size=True`` array (its buffer grows across iterations), a fixed-size one traced
with unknown dims, and overwritten elements. The loop gradient gives such a buffer to its
backward loop as its final value instead of saving it every iteration
(``ops/control/grad.py`` ``_stacks``); each result is checked against central finite differences,
on the interpreter and compiled. An array also *read* in the body is still saved per
iteration (the read needs iteration ``k``'s value)."""

from __future__ import annotations

import numpy as np
import pytest
from test_control_flow_grads import central_difference

import graphc as gc
import graphc.numpy as gnp

X = np.array([0.3, 0.7, -0.2, 0.5])


def grown(x, n):
    """A dynamic array written at 0..n-1: its buffer grows while the loop runs."""
    ta = gc.TensorArray(gc.float64, size=0, dynamic_size=True)
    for i in gc.range(n):
        x = gnp.sin(x) * 1.5
        ta = ta.write(i, x * gc.cast(i + 1, gc.float64))
    out = ta.stack()
    return gnp.sum(out * out)


def overwritten(x, n):
    """Element ``i // 2`` written twice: the first write's value never reaches the loss."""
    ta = gc.TensorArray(gc.float64, size=0, dynamic_size=True)
    for i in gc.range(n):
        x = gnp.cos(x) + x
        ta = ta.write(i // 2, x * gc.cast(i + 1, gc.float64))
    out = ta.stack()
    return gnp.sum(out * gnp.arange(1.0, 1.0 + 4.0)[None, :])


def read_back(x, n):
    """The body reads the element the previous iteration wrote: saved per iteration."""
    ta = gc.TensorArray(gc.float64, size=n + 1).write(0, x)
    for i in gc.range(n):
        ta = ta.write(i + 1, gnp.sin(ta.read(i)) * x)
    return gnp.sum(ta.stack() ** 2)


def _grad_fn(program):
    def grad(x, n):
        with gc.GradientTape() as tape:
            tape.watch(x)
            loss = program(x, n)
        return tape.gradient(loss, x)
    return grad


@pytest.mark.parametrize("program", [grown, overwritten, read_back])
@pytest.mark.parametrize("n", [1, 5])
@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_tensor_array_loop_gradient_matches_finite_differences(program, n, backend):
    want = central_difference(lambda a: float(program(gc.constant(a), np.int64(n))), [X], 0)
    fn = gc.function(_grad_fn(program), backend=backend, jit_compile=backend == "numba")
    got = fn(gc.constant(X), gc.constant(np.int64(n)))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("program", [grown, read_back])
def test_unknown_dims_from_the_signature(program):
    """A fixed-size array whose elements have an unknown dim (``None`` in the signature)
    used to fail in the saving loop: ``(0, 4)`` stack elements against ``(1, 4)``."""
    fn = gc.function(_grad_fn(program), backend="numpy", input_signature=[
        gc.TensorSpec([None], gc.float64), gc.TensorSpec([], gc.int64)])
    for x in (X, X[:3]):
        want = central_difference(lambda a: float(program(gc.constant(a), np.int64(3))), [x], 0)
        np.testing.assert_allclose(fn(gc.constant(x), gc.constant(np.int64(3))).numpy(), want,
                                   rtol=1e-6, atol=1e-7)
