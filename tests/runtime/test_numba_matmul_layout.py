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


def batched(a, w, u, v, i, j):
    return (a @ w,       # a shared right matrix: one product of all the rows
            u @ v,       # a contraction over one index: outer products
            u @ v[0],    # the same with v[0] shared
            i @ j)       # int32 outer products (wraparound)


def test_batched_matmuls_flattened_or_as_products_agree_with_numpy():
    rng = np.random.default_rng(4)
    a, w = rng.normal(size=(6, 2, 5)), rng.normal(size=(5, 3))
    u, v = rng.normal(size=(4, 3, 1)), rng.normal(size=(4, 1, 2))
    u[0, 0, 0], v[0, 0, 1] = -1.0, 0.0  # -1 * 0: BLAS and NumPy give +0.0
    i = np.array([[[70000]], [[-3]]], np.int32)
    j = np.array([[[70000, 2]], [[5, -7]]], np.int32)
    args = (a, w, u, v, i, j)
    f = gc.function(batched)
    ex = numba_cpu.executor_for(f.get_concrete_function(*args).optimized_graph)
    assert ex.backend == "numba", ex.explain()
    src = ex.program.source
    assert src.count("H.dot_into(") == 0 and src.count("_av * ") == 3
    got = f(*args)
    want = (a @ w, u @ v, u @ v[0], i @ j)
    np.testing.assert_allclose(got[0].numpy(), want[0], rtol=1e-13)  # BLAS: 64 ulp
    for g, wnt in zip(got[1:], want[1:]):
        assert g.numpy().dtype == wnt.dtype
        np.testing.assert_array_equal(g.numpy(), wnt)
        assert (np.signbit(g.numpy()) == np.signbit(wnt)).all()


def column_slices(data, i):
    return (data[:, 1] @ data[:, 1:], data[::2, 0] @ data[::2, 2:4], data[:, i] @ data[:, i:],
            data[2:, 0] @ data[2:, i:], data[:, 0] @ data[:, i + 4:])


def in_order_of_k(v, a):
    """The sum over k one row at a time, in order: what H.vecmat computes."""
    out = np.zeros(a.shape[1], a.dtype)
    for k in range(a.shape[0]):
        out = out + v[k] * a[k]
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_vector_times_column_slice_reads_the_slice_in_place(dtype, compiled_only):
    rng = np.random.default_rng(1)
    data = rng.normal(size=(9, 7)).astype(dtype)
    data[0, 1], data[0, 2] = np.inf, 0.0  # inf * 0 is NaN either way
    fn = gc.function(column_slices)
    got = fn(data, np.int64(3))
    operands = [(data[:, 1], data[:, 1:]), (data[::2, 0], data[::2, 2:4]),
                (data[:, 3], data[:, 3:]), (data[2:, 0], data[2:, 3:]),
                (data[:, 0], data[:, 7:])]  # the last one empty
    with np.errstate(invalid="ignore"):
        want = column_slices(data, 3)
        for g, w, (v, a) in zip(got, want, operands):
            np.testing.assert_array_equal(g.numpy(), in_order_of_k(v, a))
            np.testing.assert_allclose(g.numpy(), w, rtol=1e-5 if dtype == np.float32 else 1e-12)
            assert g.numpy().dtype == w.dtype
    src = numba_cpu.executor_for(
        fn.get_concrete_function(data, np.int64(3)).optimized_graph).program.source
    # each through its C-contiguous base (H.vecmat_view: rows of the base where the
    # view is a block of it, as data[::2] is not, so its rows go as they are)
    assert src.count("H.vecmat_view(") == 5 and ".copy()" not in src


def column_dots(a, b, i, j):
    return (gnp.dot(a[i + 1:, i], b[i + 1:, j]), a[:, 0] @ b[:, 1], gnp.dot(a[0], b[:, j]),
            gnp.dot(a[i:i, 0], b[i:i, 0]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dot_of_strided_vectors_reads_them_in_place(dtype, compiled_only):
    """trmm's ``np.dot(A[i + 1:, i], B[i + 1:, j])``: a loop over the two strided
    vectors (H.dot_1d), not two copies for BLAS; small-integer values make every
    order exact, normal values agree within BLAS rounding; inf * 0 is NaN as in NumPy;
    the empty dot is 0."""
    rng = np.random.default_rng(3)
    a = rng.integers(-4, 5, (11, 11)).astype(dtype)
    b = rng.integers(-4, 5, (11, 7)).astype(dtype)
    fn = gc.function(column_dots)
    at = lambda i, j: (gc.constant(np.int64(i)), gc.constant(np.int64(j)))  # noqa: E731
    for i, j in ((0, 0), (3, 6), (9, 2), (10, 1)):  # one trace: slices with run-time bounds
        for g, w in zip(fn(a, b, *at(i, j)), column_dots(a, b, i, j)):
            np.testing.assert_array_equal(g.numpy(), w)
            assert g.numpy().dtype == np.asarray(w).dtype
    src = numba_cpu.executor_for(fn.get_concrete_function(
        a, b, *at(0, 0)).optimized_graph).program.source
    assert src.count("H.dot_1d(") == 4 and ".copy()" not in src
    x, y = rng.normal(size=(11, 11)).astype(dtype), rng.normal(size=(11, 7)).astype(dtype)
    x[5, 2], y[5, 4] = np.inf, 0.0
    with np.errstate(invalid="ignore"):
        for g, w in zip(fn(x, y, *at(2, 4)), column_dots(x, y, 2, 4)):
            np.testing.assert_allclose(g.numpy(), w, rtol=1e-5 if dtype == np.float32 else 1e-12)


@pytest.mark.parametrize("n", [5, 600])  # the loop, and BLAS from DOT_BLAS_MIN values on
def test_dot_of_contiguous_vectors(n, compiled_only):
    rng = np.random.default_rng(n)
    x, y = rng.normal(size=n), rng.normal(size=n)
    fn = gc.function(lambda x, y: x @ y)
    np.testing.assert_allclose(fn(x, y).numpy(), x @ y, rtol=1e-12)
    small = rng.integers(-3, 4, n).astype(np.float64)  # every order exact
    assert fn(small, small).numpy() == small @ small
    src = numba_cpu.executor_for(fn.get_concrete_function(x, y).optimized_graph).program.source
    assert "H.dot_contiguous(" in src


@pytest.mark.parametrize("step", [1, 2])  # H.dot_contiguous, H.dot_1d
def test_dot_of_vectors_of_different_lengths_raises_the_interpreters_error(step, monkeypatch):
    """Lengths known only at run time: the compiled loop raises (it never reads past the
    shorter vector) and the call is rerun on the interpreter, whose error names the op."""
    from graphc.errors import InvalidArgumentError
    from graphc.runtime.cpu import runners

    spec = gc.TensorSpec([None], gc.float64)
    view = (lambda x: x[1:]) if step == 1 else (lambda x: x[::2])  # noqa: E731
    fn = gc.function(lambda x, y: view(x) @ y, input_signature=[spec, spec])
    helper = "H.dot_contiguous(" if step == 1 else "H.dot_1d("
    src = numba_cpu.executor_for(fn.get_concrete_function(spec, spec).optimized_graph)
    assert helper in src.program.source
    n = 4 if step == 1 else 3  # the view of 5 values
    assert fn(np.ones(5), np.ones(n)).numpy() == n
    reruns = []
    rerun = runners.run_graph
    monkeypatch.setattr(runners, "run_graph", lambda g, a: reruns.append(1) or rerun(g, a))
    with pytest.raises(InvalidArgumentError, match="matmul"):
        fn(np.ones(5), np.ones(6))
    assert reruns  # the compiled program raised first
