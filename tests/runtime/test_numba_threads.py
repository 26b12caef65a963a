"""Compiled programs called from several threads (issue 11; tests/test_threads.py has the
interpreter's cases). Programs run without the GIL (``nogil=True``), so two calls of a
program that writes a variable really overlap: without the variables' locks held around
the call, one call's write replaces the other's."""

from __future__ import annotations

import pathlib
import sys
import threading

import numpy as np
import pytest

import graphc as gc

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from test_threads import TIMEOUT, count_executor_builds, run_threads  # noqa: E402

pytestmark = pytest.mark.usefixtures("eager_compile")

SIZE = 300_000


def test_compiled_calls_and_eager_updates_of_one_variable_lose_nothing():
    v = gc.Variable(np.zeros(SIZE, np.int64))
    one = np.ones(SIZE, np.int64)

    @gc.function
    def bump(delta):
        v.assign_add(delta * 2)
        return gc.reduce_sum(v.read_value())

    bump(one)
    runtime = bump.get_concrete_function(one).runtime
    assert runtime.backend == "numba" and runtime.program.variables, runtime.reasons
    start = threading.Barrier(6, timeout=TIMEOUT)

    def compiled_calls():
        start.wait()
        for _ in range(20):
            bump(one)

    def eager_updates():
        start.wait()
        for _ in range(20):
            v.assign_add(one)

    run_threads(*[compiled_calls] * 4, *[eager_updates] * 2)
    np.testing.assert_array_equal(v.numpy(), np.full(SIZE, 2 + 4 * 20 * 2 + 2 * 20))


def test_first_calls_from_8_threads_compile_one_executor(monkeypatch):
    built = count_executor_builds(monkeypatch)

    @gc.function
    def f(x):
        return gc.reduce_sum(x * x) + 1.0

    x = np.arange(5.0)
    start = threading.Barrier(8, timeout=TIMEOUT)
    out = []

    def first_call():
        start.wait()
        out.append(float(f(x).numpy()))

    run_threads(*[first_call] * 8)
    assert len(built) == 1
    assert f.get_concrete_function(x).runtime.backend == "numba"
    assert out == [31.0] * 8
