"""Parallel elementwise loops (``numba.prange`` above ``parallel_settings.min_size``)
give the same bits as the serial loops and the interpreter."""

from __future__ import annotations

import numpy as np
import pytest
from test_numba_backend import build, check, compare, floats

from graphc.runtime.cpu.parallel import parallel_settings

F32, I32 = np.dtype(np.float32), np.dtype(np.int32)


pytestmark = pytest.mark.usefixtures("eager_compile")


def _graph():
    def body(g, x, i):
        s = g.sigmoid(g.add(g.multiply(x, np.asarray(2.0, F32)), np.asarray(0.5, F32)))
        return [("sigmoid", s), ("where", g.where(g.less(x, s), x, s)),
                ("int", g.floor_divide(g.multiply(i, i), np.asarray(7, I32))),
                ("sum", g.sum(s, axis=1))]

    return build("par", [((64, 33), F32), ((64, 33), I32)], body)


def test_parallel_loops_agree_with_serial(monkeypatch):
    graph, labels = _graph()
    x = floats((64, 33), F32)
    i = np.random.default_rng(2).integers(-2**20, 2**20, (64, 33), dtype=np.int32)
    tol = {"where": 4, "sum": 4}  # derived from sigmoid: vmath vs NumPy, a few ULP
    serial = check(graph, labels, [x, i], tol)
    assert "prange" not in serial.program.source
    monkeypatch.setattr(parallel_settings, "min_size", 1024)  # 64 * 33 = 2112
    parallel = check(graph, labels, [x, i], tol)
    assert "numba.prange" in parallel.program.source and "parallel=" in parallel.program.source
    compare(parallel([x, i]), serial([x, i]), labels)


def _broadcast_graph():
    """Every operand kind of the rows x last-dim loop (loops._row_kinds) at once."""
    def body(g, x, bias, col, one, t):
        y = g.multiply(g.add(x, bias), col)                 # full, row, col
        z = g.multiply(g.tanh(y), one)                      # one element
        return [("full-row-col", y), ("tanh", z),
                ("strided", g.add(g.transpose(t), bias)),    # a transposed operand: N-d loop
                ("int", g.add(g.floor_divide(x, np.asarray(3.0, F32)), bias))]

    return build("bcast", [((4, 16, 33), F32), ((33,), F32), ((4, 16, 1), F32),
                           ((1, 1, 1), F32), ((33, 16), F32)], body)


@pytest.mark.parametrize("parallel", [False, True])
def test_broadcasting_row_loops(monkeypatch, parallel):
    graph, labels = _broadcast_graph()
    if parallel:
        monkeypatch.setattr(parallel_settings, "min_size", 1024)
    shapes = [(4, 16, 33), (33,), (4, 16, 1), (1, 1, 1), (33, 16)]
    ex = check(graph, labels, [floats(s, F32) for s in shapes])
    src = ex.program.source
    assert "reshape(64, -1)" in src  # rows x last dim: 4 * 16 rows
    # the transposed operand's N-d loop reads it as it is (static shapes: no broadcast_to)
    assert "np.broadcast_to" not in src and "[_i0, _i1]" in src
    assert ("numba.prange" in src) == parallel


def test_adaptive_threads_give_the_same_bits_on_one_thread(monkeypatch):
    """threads.py: a parallel program's calls on one thread (chosen under load) and on
    all threads agree with the serial program."""
    from graphc.runtime.cpu import threads

    graph, labels = _graph()
    x = floats((64, 33), F32)
    i = np.random.default_rng(2).integers(-2**20, 2**20, (64, 33), dtype=np.int32)
    serial = check(graph, labels, [x, i], {"where": 4, "sum": 4})
    monkeypatch.setattr(parallel_settings, "min_size", 1024)
    parallel = check(graph, labels, [x, i], {"where": 4, "sum": 4})
    choice = parallel._compiled
    assert isinstance(choice, threads._Choice)
    for current in (1, 0):  # one thread, then all
        choice.current, choice.next_probe = current, 10**9
        compare(parallel([x, i]), serial([x, i]), labels)


class _FakeClock:
    """perf_counter_ns for threads._Choice: each call 'takes' the time that the test
    says a call on the threads the program saw (``seen[-1]``) takes."""

    def __init__(self, seen):
        self.seen, self.now, self.cost = seen, 0, {1: 100, 2: 50}
        self.started = False

    def __call__(self):
        if self.started:  # the end of a call: charge it
            self.now += self.cost[self.seen[-1]]
        self.started = not self.started
        return self.now


def test_adaptive_threads_follow_the_faster_choice(monkeypatch):
    import numba

    from graphc.runtime.cpu import threads

    numba.set_num_threads(2)
    clock_calls = []
    clock = _FakeClock(clock_calls)

    def run(arrays):  # the program: its time is charged when the call ends
        clock_calls.append(numba.get_num_threads())
        return arrays

    monkeypatch.setattr(threads, "perf_counter_ns", clock)
    choice = threads._Choice(run, numba.get_num_threads, numba.set_num_threads)

    def calls(n):
        for _ in range(n):
            assert choice([1]) == [1]
        return clock_calls[-n:]

    calls(40)  # all threads are faster: stays parallel, probing one thread now and then
    assert not choice.serial and 1 in clock_calls and choice.interval > 8
    clock.cost = {1: 100, 2: 900}  # a busy core: parallel calls wait for their thread
    calls(300)
    assert choice.serial and calls(5).count(1) >= 4
    clock.cost = {1: 100, 2: 50}  # the other process is gone
    calls(300)
    assert not choice.serial and numba.get_num_threads() == 2
    later = calls(200)
    assert later.count(1) <= 200 // threads.settings.probe_max + 1  # probes back off


def test_a_slow_first_call_does_not_make_the_choice_serial(monkeypatch):
    """The first call (thread pool start-up, first touches) is not timed: the choice
    compares warm calls only, so one slow start does not run the next calls serially."""
    import numba

    from graphc.runtime.cpu import threads

    numba.set_num_threads(2)
    seen = []
    clock = _FakeClock(seen)

    def run(arrays):
        seen.append(numba.get_num_threads())
        if len(seen) == 1:
            clock.now += 10_000  # the first call: slower than any serial call
        return arrays

    monkeypatch.setattr(threads, "perf_counter_ns", clock)
    choice = threads._Choice(run, numba.get_num_threads, numba.set_num_threads)
    for _ in range(10):
        choice([1])
    assert seen.count(1) == 1 and seen[2] == 1  # one probe, the third call
    assert not choice.serial


def test_serial_scope_is_per_thread():
    """``parallel_settings.serial()`` (the Dask backend's block programs) makes the
    programs this thread generates serial, never another thread's."""
    import threading

    import graphc as gc
    from graphc.runtime.cpu import codegen

    spec = gc.TensorSpec([parallel_settings.min_size], gc.float32)
    graph = gc.function(lambda x: x * 2 + 1).get_concrete_function(spec).optimized_graph
    with parallel_settings.serial():
        assert "prange" not in codegen.generate(graph).source
        other = []
        t = threading.Thread(target=lambda: other.append(codegen.generate(graph).source))
        t.start()
        t.join()
        assert "prange" in other[0]
    assert "prange" in codegen.generate(graph).source


def test_big_matrix_products_split_into_row_blocks_under_prange(monkeypatch, compiled_only):
    """A float product of >= PARALLEL_MATMUL_MIN multiply-adds: one BLAS call per block
    of rows (kernels_matmul._row_blocks), the block count fixed by the machine, so every
    call gives the same bits whatever the threads it runs on (threads.py)."""
    import numba

    import graphc as gc
    import graphc.numpy as gnp
    from graphc.runtime.cpu import kernels_matmul, numba_cpu

    monkeypatch.setattr(kernels_matmul, "PARALLEL_MATMUL_MIN", 1 << 15)
    monkeypatch.setattr(numba.config, "NUMBA_NUM_THREADS", 3)  # 3 blocks: 67, 67, 66 rows
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((200, 24)), rng.standard_normal((24, 40))
    bt = rng.standard_normal((40, 24))

    def products(a, b, bt):  # the last: batched rows times a shared matrix, as one product
        return a @ b, a @ bt.T, (a * 2.0) @ b + 1.0, gnp.reshape(a, (2, -1, 24)) @ b

    f = gc.function(products)
    got = f(a, b, bt)
    ex = numba_cpu.executor_for(f.get_concrete_function(a, b, bt).optimized_graph)
    src = ex.program.source
    assert src.count("numba.prange(3)") == 4 and "H.dot_into(" in src
    want = products(a, b, bt)[:3] + (a.reshape(2, -1, 24) @ b,)
    for g_, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g_, w, rtol=1e-13, atol=1e-13)  # BLAS rounding
    one = numba.get_num_threads()
    try:
        numba.set_num_threads(1)  # the blocks one after another: the same bits
        serial = ex([a, b, bt])
    finally:
        numba.set_num_threads(one)
    for g_, s in zip(got, serial, strict=True):
        np.testing.assert_array_equal(g_, s)
    small = gc.function(products)(a[:100], b, bt)  # fewer than 2 blocks of 64 rows
    assert "prange(" not in numba_cpu.executor_for(gc.function(products).get_concrete_function(
        a[:100], b, bt).optimized_graph).program.source
    np.testing.assert_allclose(small[0], a[:100] @ b, rtol=1e-13)



def test_few_row_products_split_the_summed_index(monkeypatch, compiled_only):
    """Too few rows for row blocks: blocks of the summed index (kernels_matmul._k_blocks),
    each block's partial product added in block order, the same bits on any threads; a
    transposed right operand (no row blocks of it without a copy) stays one BLAS call."""
    import numba

    import graphc as gc
    from graphc.runtime.cpu import kernels_matmul, numba_cpu

    monkeypatch.setattr(kernels_matmul, "PARALLEL_MATMUL_MIN", 1 << 12)
    monkeypatch.setattr(kernels_matmul, "BLOCK_SUM_MIN", 100)
    monkeypatch.setattr(numba.config, "NUMBA_NUM_THREADS", 3)  # 3 blocks: 234, 234, 232
    rng = np.random.default_rng(6)
    a, b, bt = (rng.standard_normal(s).astype(np.float32) for s in
                ((8, 700), (700, 20), (20, 700)))

    def products(a, b, bt):
        return a @ b, a @ bt.T

    f = gc.function(products)
    got = f(a, b, bt)
    ex = numba_cpu.executor_for(f.get_concrete_function(a, b, bt).optimized_graph)
    src = ex.program.source
    assert src.count("numba.prange(3)") == 1 and "H.dot(" in src, src
    for g_, w in zip(got, products(a, b, bt), strict=True):
        np.testing.assert_allclose(g_, w, rtol=2e-5, atol=2e-4)  # float32 BLAS rounding
    one = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        serial = ex([a, b, bt])
    finally:
        numba.set_num_threads(one)
    for g_, s in zip(got, serial, strict=True):
        np.testing.assert_array_equal(g_, s)
