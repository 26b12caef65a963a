"""Shared saved-model test graph: a variable, a constant, a branch, a None dim."""

import pytest

import graphc as gc


@pytest.fixture(scope="module")
def branchy():
    """``f(x: float32[None, 3])`` reading variable ``v`` and branching on a sum."""
    v = gc.Variable([0.5, 1.5, 2.5], name="v")

    @gc.function(input_signature=[gc.TensorSpec([None, 3], gc.float32)])
    def f(x):
        y = x * v + gc.constant([1.0, 2.0, 3.0])
        if gc.reduce_sum(y) > 0:
            y = y * 2.0
        return gc.reduce_sum(y, axis=1)

    return f
