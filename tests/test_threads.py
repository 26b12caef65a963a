"""Threads: tracing, eager ops, variable updates and gc.function calls from several
threads at once give the results of a single-threaded run (issue 11).

Each test makes the interleaving it needs happen for certain (a barrier inside a traced
body keeps several traces open at once; a sleep inside a body or an executor build keeps
the window of a race open; big arrays make NumPy release the GIL in the middle of a
read-modify-write), so the tests fail on code without the locking, not just sometimes.
"""

from __future__ import annotations

import sys
import threading
import time

import numpy as np
import pytest

import graphc as gc
from graphc.core import trace
from graphc.runtime.cpu import numba_cpu

TIMEOUT = 10.0  # seconds a test waits for its threads (a deadlock fails, not hangs)


def run_threads(*targets):
    """Start one thread per target, join them all; re-raise the first error in a thread."""
    errors = []

    def guarded(target):
        def body():
            try:
                target()
            except BaseException as e:  # noqa: BLE001 - reported to the test below
                errors.append(e)
        return body

    threads = [threading.Thread(target=guarded(t), daemon=True) for t in targets]
    for t in threads:
        t.start()
    deadline = time.monotonic() + TIMEOUT
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()))
    assert not any(t.is_alive() for t in threads), "threads still running: a deadlock?"
    if errors:
        raise errors[0]


@pytest.fixture
def fast_switching():
    """Switch threads every microsecond so that races get many chances to happen."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(old)


def test_other_threads_see_not_tracing_while_one_thread_traces():
    inside, release = threading.Event(), threading.Event()
    seen = {}

    @gc.function
    def slow(x):
        inside.set()
        assert release.wait(TIMEOUT)
        return x + 1.0

    def in_new_thread():
        seen["new thread tracing"] = trace.active()
        seen["new thread op"] = (gc.constant(2.0) * 3.0).numpy()

    def tracer():
        seen["result"] = slow(gc.constant(1.0)).numpy()

    worker = threading.Thread(target=tracer, daemon=True)
    worker.start()
    try:
        assert inside.wait(TIMEOUT)
        seen["main tracing"] = trace.active()
        seen["main op"] = (gc.constant(1.0) + 1.0).numpy()  # eager: not in slow's graph
        run_threads(in_new_thread)
    finally:
        release.set()
        worker.join(TIMEOUT)
    assert seen == {"main tracing": False, "main op": 2.0, "new thread tracing": False,
                    "new thread op": 6.0, "result": 2.0}
    (concrete,) = slow.concrete_functions()
    assert [n.op.name for n in concrete.graph.nodes] == ["const", "add"]


def _traced_functions(gate=None, done=None):
    """Three functions (traced while ``gate`` holds them all open) and one more used with
    two signatures, as a factory so a single-threaded run can build fresh ones."""
    def make(k):
        @gc.function(backend="numpy")
        def scaled(x):
            y = gc.reduce_sum(x * 2.0) + x
            if gate is not None:
                gate.wait(TIMEOUT)  # every traced body is open at once here
                assert done.wait(TIMEOUT)  # ... while other threads run eager ops
            return y * float(k) - gc.exp(x)
        return scaled

    @gc.function(backend="numpy")
    def shared(x):
        return gc.reduce_max(x, axis=0) - gc.reduce_min(x)

    return [make(k) for k in (1, 2, 3)], shared


def test_concurrent_traces_eager_ops_and_assigns_match_a_single_threaded_run():
    n_eager, n_assign, rounds = 2, 2, 200
    gate = threading.Barrier(3 + n_eager + n_assign, timeout=TIMEOUT)
    done = threading.Event()
    finished = threading.Barrier(n_eager + n_assign, action=done.set, timeout=TIMEOUT)
    scaled, shared = _traced_functions(gate, done)
    x = np.linspace(-1.0, 1.0, 6).reshape(2, 3)
    inputs = {"f32": x.astype(np.float32), "f64": x, "wide": np.arange(12.0).reshape(3, 4)}
    counter = gc.Variable(0.0, dtype=np.float64)
    results, eager = {}, []

    def tracer(i):
        def run():
            results[i] = scaled[i](inputs["f64"]).numpy()
        return run

    def shared_caller(name):
        def run():
            results[name] = shared(inputs[name]).numpy()
        return run

    def eager_ops():
        gate.wait()
        a = gc.constant(x)
        for _ in range(rounds):
            eager.append(float(gc.reduce_sum(gc.exp(a) * 3.0 - a).numpy()))
        finished.wait()

    def assigner():
        gate.wait()
        for _ in range(rounds):
            counter.assign_add(1.0)
        finished.wait()

    run_threads(*[tracer(i) for i in range(3)], shared_caller("f32"),
                shared_caller("wide"), *[eager_ops] * n_eager, *[assigner] * n_assign)

    # the same calls, one thread, fresh functions
    scaled_1, shared_1 = _traced_functions()
    expected = {i: scaled_1[i](inputs["f64"]).numpy() for i in range(3)}
    expected.update({k: shared_1(inputs[k]).numpy() for k in ("f32", "wide")})
    assert results.keys() == expected.keys()
    for k in expected:
        np.testing.assert_array_equal(results[k], expected[k])
    for f, f_1 in zip(scaled + [shared], scaled_1 + [shared_1]):
        assert [str(c.graph) for c in f.concrete_functions()] == [
            str(c.graph) for c in f_1.concrete_functions()]
    assert eager == [float(np.sum(np.exp(x) * 3.0 - x))] * (n_eager * rounds)
    assert counter.numpy() == n_assign * rounds


@pytest.mark.parametrize("method, delta, total", [
    ("assign_add", 1, 8 * 3000), ("assign_sub", 2, -2 * 8 * 3000)])
def test_eager_read_modify_write_from_8_threads_is_exact(fast_switching, method, delta,
                                                        total):
    v = gc.Variable(np.int64(0))
    update = getattr(v, method)
    start = threading.Barrier(8, timeout=TIMEOUT)

    def work():
        start.wait()
        for _ in range(3000):
            update(delta)

    run_threads(*[work] * 8)
    assert int(v.numpy()) == total


def test_eager_assign_add_of_big_values_is_exact():
    # np.add releases the GIL on big arrays: without a lock, another thread reads the
    # old value during the add and one of the two updates is lost
    v = gc.Variable(np.zeros(300_000, np.int64))
    one = np.ones(300_000, np.int64)
    start = threading.Barrier(4, timeout=TIMEOUT)

    def work():
        start.wait()
        for _ in range(25):
            v.assign_add(one)

    run_threads(*[work] * 4)
    np.testing.assert_array_equal(v.numpy(), np.full(300_000, 100))


def test_graph_calls_and_eager_updates_of_one_variable_lose_nothing():
    v = gc.Variable(np.zeros(300_000, np.int64))
    one = np.ones(300_000, np.int64)

    @gc.function(backend="numpy")
    def bump():
        v.assign(v + 1)  # read, add, write: one call must not interleave with another
        return v.read_value()

    bump()  # traced once, before the threads
    start = threading.Barrier(6, timeout=TIMEOUT)

    def graph_calls():
        start.wait()
        for _ in range(20):
            bump()

    def eager_updates():
        start.wait()
        for _ in range(20):
            v.assign_add(one)

    run_threads(*[graph_calls] * 4, *[eager_updates] * 2)
    np.testing.assert_array_equal(v.numpy(), np.full(300_000, 1 + 6 * 20))


def count_executor_builds(monkeypatch) -> list:
    """Make ``numba_cpu.executor_for`` slow (a window in which a second thread would
    build another executor) and record each graph it builds one for."""
    built = []
    real = numba_cpu.executor_for

    def slow_executor_for(graph, **kwargs):
        built.append(graph)
        time.sleep(0.05)
        return real(graph, **kwargs)

    monkeypatch.setattr(numba_cpu, "executor_for", slow_executor_for)
    return built


def test_first_calls_from_8_threads_trace_once_and_build_one_executor(monkeypatch):
    traces, built = [], count_executor_builds(monkeypatch)

    @gc.function
    def f(x):
        traces.append(1)
        time.sleep(0.05)  # the window in which a second thread would trace again
        return x * 2.0

    start = threading.Barrier(8, timeout=TIMEOUT)
    x = gc.constant(np.arange(4.0))
    out = []

    def first_call():
        start.wait()
        out.append(f(x).numpy())

    run_threads(*[first_call] * 8)
    assert len(traces) == 1 and f.experimental_get_tracing_count() == 1
    assert len(f.concrete_functions()) == 1
    assert len(built) == 1
    for o in out:
        np.testing.assert_array_equal(o, np.arange(4.0) * 2.0)


def test_new_signatures_from_several_threads_trace_once_each():
    traces = []

    @gc.function(backend="numpy")
    def f(x):
        traces.append(x.shape)
        time.sleep(0.02)
        return x + 1

    start = threading.Barrier(8, timeout=TIMEOUT)
    shapes = [(2,), (3,)] * 4

    def call(shape):
        def run():
            start.wait()
            np.testing.assert_array_equal(f(np.zeros(shape)).numpy(), np.ones(shape))
        return run

    run_threads(*[call(s) for s in shapes])
    assert sorted(traces) == [(2,), (3,)]
    assert f.experimental_get_tracing_count() == 2


def test_nested_and_recursive_tracing_in_one_thread_does_not_deadlock():
    @gc.function(backend="numpy")
    def inner(x):
        return x * 3.0

    @gc.function(backend="numpy")
    def outer(x):
        if x.dtype == np.float32:
            # traces outer again (another signature) while outer is being traced
            outer.get_concrete_function(gc.TensorSpec([None], np.float64))
        return inner(x) + 1.0

    result = {}

    def run():
        result["y"] = outer(np.ones(2, np.float32)).numpy()

    run_threads(run)
    np.testing.assert_array_equal(result["y"], np.full(2, 4.0, np.float32))
    assert outer.experimental_get_tracing_count() == 2
