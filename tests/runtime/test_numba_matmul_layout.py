"""A transposed matrix feeds the compiled matmul as it is (F-contiguous, BLAS's
transposed flag) instead of being copied first; results match NumPy either side."""

from __future__ import annotations

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.runtime.cpu import numba_cpu

pytestmark = pytest.mark.usefixtures("eager_compile")


def products(a, b, c):
    return (gnp.transpose(a) @ b, c @ gnp.transpose(a), gnp.transpose(b) @ a,
            gnp.transpose(a * 2.0) @ b)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_transposed_operands_are_not_copied_and_agree(dtype):
    rng = np.random.default_rng(0)
    a = rng.normal(size=(5, 3)).astype(dtype)
    b = rng.normal(size=(5, 4)).astype(dtype)
    c = rng.normal(size=(2, 3)).astype(dtype)
    fn = gc.function(products)
    got = fn(a, b, c)
    want = (a.T @ b, c @ a.T, b.T @ a, (a * 2).T @ b)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-5)
    source = numba_cpu.executor_for(fn.get_concrete_function(a, b, c).optimized_graph) \
        .program.source
    assert "H.dot(" in source and ".copy()" not in source
