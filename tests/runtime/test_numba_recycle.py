"""Big results are written into last call's result only when nobody can observe it.

The arrays are 2^20 float32 (4 MiB, ``recycle.MIN_BYTES``): the smallest size recycled.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

import graphc as gc
from graphc.runtime.cpu import numba_cpu, recycle

N = 1 << 20


pytestmark = pytest.mark.usefixtures("eager_compile")


def _executor(fn, x):
    graph = gc.function(fn).get_concrete_function(gc.constant(x)).optimized_graph
    ex = numba_cpu.executor_for(graph)
    assert ex.backend == "numba" and ex.program.recycle, ex.program.source
    return ex


def _affine(x):
    return x * 2.0 + 1.0


@pytest.fixture(scope="module")
def x():
    return np.arange(N, dtype=np.float32)


def test_dropped_result_is_reused_and_correct(x):
    ex = _executor(_affine, x)
    want = x * 2.0 + 1.0
    first = ex([x])[0]
    ptr = first.ctypes.data
    np.testing.assert_array_equal(first, want)
    del first
    again = ex([x])[0]
    assert again.ctypes.data == ptr
    np.testing.assert_array_equal(again, want)
    assert recycle.held_bytes() >= again.nbytes


@pytest.mark.parametrize("hold", ["array", "tensor", "view", "memoryview"])
def test_observed_result_is_never_overwritten(x, hold):
    ex = _executor(_affine, x)
    first = ex([x])[0]
    kept = {"array": lambda a: a, "tensor": gc.constant, "view": lambda a: a[::3],
            "memoryview": memoryview}[hold](first)
    snapshot = np.array(kept, copy=True)
    del first
    second = ex([x + 1])[0]
    np.testing.assert_array_equal(np.asarray(kept), snapshot)
    np.testing.assert_array_equal(second, (x + 1) * 2.0 + 1.0)


def test_result_passed_back_as_argument(x):
    ex = _executor(_affine, x)
    y, want = x, x
    for _ in range(3):  # y = f(y): the argument list holds last result, so it is not reused
        y = ex([y])[0]
        want = want * np.float32(2.0) + np.float32(1.0)
        np.testing.assert_array_equal(y, want)


def test_a_view_returned_by_the_same_call_protects_the_buffer(x):
    def two(a):
        y = a * 2.0 + 1.0
        return y, y[::2]
    ex = _executor(two, x)
    y, half = ex([x])
    snapshot = half.copy()
    del y  # the program's view still shares the buffer (its MemInfo refcount is 2)
    ex([x + 5])
    np.testing.assert_array_equal(half, snapshot)


def test_budget_and_release(x, monkeypatch):
    ex = _executor(_affine, x)
    ex([x])
    assert recycle.held_bytes() > 0
    gc.cache.clear(disk=False)
    assert recycle.held_bytes() == 0
    monkeypatch.setattr(recycle, "MAX_HELD_BYTES", 0)
    ex([x])
    assert recycle.held_bytes() == 0
    assert gc.cache.info()["recycled_bytes"] == 0


def test_threads_never_share_a_buffer(x):
    ex = _executor(_affine, x)
    errors = []

    def work(k):
        xs = x + k
        want = xs * 2.0 + 1.0
        for _ in range(20):
            got = ex([xs])[0]
            if not np.array_equal(got, want):
                errors.append(k)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_small_results_and_scalars_are_not_recycled():
    graph = gc.function(_affine).get_concrete_function(
        gc.constant(np.ones(8, np.float32))).optimized_graph
    assert numba_cpu.executor_for(graph).program.recycle == ()
