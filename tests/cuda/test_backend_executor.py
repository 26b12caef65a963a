"""The CUDA executor (simulator): fused elementwise kernels with broadcasting, constants,
casts, device and host inputs, results left on the device, and fallback reporting."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import warnings

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.core import registry
from graphc.core.interpreter import run_graph
from graphc.errors import FallbackError, FallbackWarning
from graphc.runtime import cuda
from graphc.runtime.cuda import codegen, eager, executor


def optimized(fn, *args):
    return gc.function(fn).get_concrete_function(*args).optimized_graph


def _sigmoid_bias(x, b, n):
    y = 1.0 / (1.0 + gnp.exp(-x)) * 2.0 + b
    return y, gnp.astype(y > 0.5, np.int32) + n, gnp.astype(x, np.float64)


X = np.linspace(-3, 3, 24, dtype=np.float32).reshape(2, 3, 4)
B = np.arange(4, dtype=np.float32)
N = np.array([[1], [2], [3]], np.int32)
EXAMPLES = [(_sigmoid_bias, (X, B, N))]


def graphs():
    """The graphs of this file, for the PTX test."""
    ints = (np.array([3, -4, 0], np.int64), np.array([2, 0], np.int32))
    return [(optimized(fn, *args), args)
            for fn, args in [*EXAMPLES, (_gathers, (X[0], *ints)),
                             (_pads, (np.arange(3, dtype=np.float32),)),
                             (_einsums, EINSUM_ARGS), (_sorts, SORT_ARGS)]]


def test_api_surface():
    assert cuda.available() and cuda.gpu_count() == 1
    d = cuda.to_device(X)
    assert cuda.is_device_array(d) and not cuda.is_device_array(X)
    np.testing.assert_array_equal(cuda.to_host(d), X)


def test_fused_broadcasting_consts_casts():
    graph = optimized(_sigmoid_bias, X, B, N)
    ex = cuda.executor_for(graph)
    assert ex.backend == "cuda" and "backend: cuda" in ex.explain()
    want = run_graph(graph, [X, B, N])
    for inputs in ([X, B, N], [cuda.to_device(a) for a in (X, B, N)]):
        got = ex(inputs)
        assert all(cuda.is_device_array(g) for g in got)
        for g, w in zip(got, want):
            g = cuda.to_host(g)
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_allclose(g, w, rtol=2e-6)
    # one kernel per fused group: the program is cached and shared by a second executor
    assert executor.load(ex.program, 0) is executor.load(codegen.generate(graph), 0)


def test_import_graphc_imports_no_numba():
    code = ("import sys, graphc, graphc.numpy; "
            "print('numba' in sys.modules, 'numba.cuda' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert out.stdout.split() == ["False", "False"], out.stderr


def test_wrong_inputs_say_what_was_expected():
    ex = cuda.executor_for(optimized(_sigmoid_bias, X, B, N))
    with pytest.raises(ValueError, match=r"input 1 is float64\[4\] but the graph was traced "
                                         r"for f32\[4\]"):
        ex([X, B.astype(np.float64), N])
    with pytest.raises(TypeError, match="takes 3 inputs, got 2"):
        ex([X, B])


def _scatter(x):  # an op without a CUDA kernel
    return gc.tensor_scatter_nd_update(x, np.array([[0]]), np.array([5.0], np.float32))


def _with_scatter(x):
    return _scatter(x * 2.0) + 1.0


def _partly_on_host(fn, *inputs):
    """``fn``'s executor (it must warn about the scatter and run partly on the host), checked
    against the interpreter on each input."""
    graph = optimized(fn, inputs[0])
    with pytest.warns(FallbackWarning, match="tensor_scatter_nd_update"):
        ex = cuda.executor_for(graph)
    assert ex.backend == "cuda+host"
    for x in inputs:
        np.testing.assert_array_equal(cuda.to_host(ex([x])[0]), run_graph(graph, [x])[0])
    return graph, ex


def test_ops_without_kernels_run_on_the_host_and_are_reported():
    x = np.array([3.0, -1.0, 2.0], np.float32)
    graph, ex = _partly_on_host(_with_scatter, x)
    assert "tensor_scatter_nd_update" in ex.explain() and "kernels: 2" in ex.explain()
    with pytest.raises(FallbackError, match="tensor_scatter_nd_update"):
        cuda.executor_for(graph, strict=True)


def test_run_op_eager_on_the_device():
    x, y = cuda.to_device(X), cuda.to_device(B)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # eager host fallbacks are silent
        out = cuda.run_op(registry.get("add"), {}, [x, y])
        again = cuda.run_op(registry.get("add"), {}, [x, y])  # the cached executor
        srt = cuda.run_op(registry.get("sort"), {"axis": -1}, [y])
        scattered = cuda.run_op(registry.get("tensor_scatter_nd_update"), {},
                                [y, cuda.to_device(np.array([[1]])), cuda.to_device(B[:1])])
    assert cuda.is_device_array(out)
    np.testing.assert_array_equal(cuda.to_host(out), X + B)
    np.testing.assert_array_equal(cuda.to_host(again), X + B)
    np.testing.assert_array_equal(cuda.to_host(srt), np.sort(B))
    np.testing.assert_array_equal(cuda.to_host(scattered), [0, 0, 2, 3])
    assert len(eager._cache) >= 2


def test_benchmark_says_no_gpu_and_exits_0():
    """``python -m benchmarks cuda`` without a GPU (simulator off): a clear message, rc 0."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    root = pathlib.Path(__file__).resolve().parents[2]
    env["PYTHONPATH"] = os.pathsep.join([str(root), env.get("PYTHONPATH", "")])
    proc = subprocess.run([sys.executable, "-m", "benchmarks", "cuda", "--quick"], cwd=root,
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    # this machine has no GPU; one with a GPU prints the measured table instead
    assert ("no GPU" in proc.stdout and "(not run)" in proc.stdout) or (
        "fuse/graphc" in proc.stdout and "call overhead" in proc.stdout), proc.stdout


def _gathers(x, i, j):
    return gnp.take(x, i, axis=1), gc.gather(x, j), gnp.take(x, i, mode="wrap")


@pytest.mark.parametrize("bad", ["take", "gather"])
def test_bad_indices_raise_the_interpreters_error(bad):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    i, j = np.array([3, -4, 0], np.int64), np.array([2, 0], np.int32)
    graph = optimized(_gathers, x, i, j)
    ex = cuda.executor_for(graph, strict=True)
    for g, w in zip(ex([x, i, j]), run_graph(graph, [x, i, j])):
        np.testing.assert_array_equal(cuda.to_host(g), w)
    args = [x, np.array([4, 0, 0]), j] if bad == "take" else [x, i, np.array([-1, 0], np.int32)]
    with pytest.raises(Exception) as want:
        run_graph(graph, args)
    with pytest.raises(type(want.value)) as got:
        ex(args)
    assert str(got.value) == str(want.value) and bad in str(got.value)


def _scatter_in_branch(x):
    if gnp.sum(x) > 0:
        y = _scatter(x) * 2.0
    else:
        y = x + 1.0
    return y * y


def test_a_branch_without_kernels_runs_the_whole_cond_on_the_host():
    x = np.array([3.0, -1.0, 2.0], np.float32)
    _partly_on_host(_scatter_in_branch, x, -x)


def _unfused_chain(x, w):
    y = gnp.tanh(x @ w)
    z = gnp.exp(y @ w)
    return gnp.sum(z * 2.0, axis=0) + 1.0, y


def test_dead_intermediates_buffers_are_reused_within_a_call():
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    w = np.linspace(-0.5, 0.5, 9, dtype=np.float32).reshape(3, 3)
    graph = optimized(_unfused_chain, x, w)
    ex = cuda.executor_for(graph, strict=True)
    source = ex.program.source
    assert source.count("# reused") >= 1
    returned = source.rsplit("return (", 1)[1].split(")")[0].replace(",", " ").split()
    assert len(returned) == 2  # the outputs' buffers (y is read later too) are never reused
    assert not any(f"= {v}  # reused" in source for v in returned)
    for _ in range(2):
        for g, w_ in zip(ex([x, w]), run_graph(graph, [x, w])):
            np.testing.assert_allclose(cuda.to_host(g), w_, rtol=2e-6)


PAD_CASES = [(m, w) for m in ("reflect", "symmetric", "wrap", "edge")
             for w in ((5, 7), (0, 4), (2, 0))]


def _pads(x):
    return [gnp.pad(x, [w], mode=m) for m, w in PAD_CASES]


def test_pad_modes_wider_than_the_array():
    x = np.arange(3, dtype=np.float32)
    ex = cuda.executor_for(optimized(_pads, x), strict=True)
    for (m, w), got in zip(PAD_CASES, ex([x])):
        np.testing.assert_array_equal(cuda.to_host(got), np.pad(x, [w], mode=m), err_msg=m)


def _einsums(a, b, c, t):
    return (gnp.einsum("ij,jk", a, b), gnp.einsum("ij,jk,kl->il", a, b, c),
            gnp.einsum("ii", c), gnp.einsum("bij,bjk->bik", t, t), gnp.einsum("ij->", a))


EINSUM_ARGS = (np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3),
               np.arange(12, dtype=np.float32).reshape(3, 4) / 7,
               np.eye(4, dtype=np.float32) + 0.5,
               np.linspace(0, 1, 18, dtype=np.float32).reshape(2, 3, 3))


def test_einsum_specs():
    graph = optimized(_einsums, *EINSUM_ARGS)
    ex = cuda.executor_for(graph, strict=True)
    for g, w in zip(ex(list(EINSUM_ARGS)), run_graph(graph, list(EINSUM_ARGS))):
        np.testing.assert_allclose(cuda.to_host(g), w, rtol=2e-6, atol=1e-6)


SORT_ARGS = (np.array([[2.0, np.nan, -0.0, 1.0, 0.0, 2.0, np.nan],
                       [5.0, -1.0, 5.0, 5.0, -np.inf, 0.0, -0.0]], np.float32),
             np.array([[3, 1, 3, 0, 1]], np.int64), np.array([True, False, True]))


def _sorts(f, i, b):
    return (gnp.sort(f), gnp.argsort(f), gnp.sort(f, axis=0), gnp.argsort(f, axis=0),
            gnp.argsort(i), gnp.sort(i, axis=0), gnp.sort(b), gnp.argsort(b))


def test_sorts_are_stable_with_nans_last():
    graph = optimized(_sorts, *SORT_ARGS)
    ex = cuda.executor_for(graph, strict=True)
    for got, want in zip(ex(list(SORT_ARGS)), run_graph(graph, list(SORT_ARGS))):
        got = cuda.to_host(got)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))  # -0.0 stays first
