"""Shared memory in the CUDA kernels (simulator): reductions, std/var, argmax, sort, matmul.

Three checks, each of which a shared-memory race would fail:

* the simulator's ``cuda.shared.array`` gives every thread of a block the same array even
  when the threads allocate it at once (``target`` makes it thread-safe: unlocked, two
  threads could each get a private uninitialized copy, and on a loaded machine a
  reduction, std/var, argmax or matmul kernel returned garbage in a fifth of the runs of
  tests/cuda/test_backend_registry.py);
* a race checker: every shared-array access is recorded with its thread and the number of
  ``syncthreads`` that thread has passed; two threads touching the same element between
  the same two barriers, one of them writing, is a race on a GPU (a missing barrier), and
  is reported whether or not this run's thread order happened to expose it;
* the kernels run many times on small inputs and match NumPy every time.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from dataclasses import replace

import numpy as np
import pytest

from graphc.core.registry import all_ops, bind
from graphc.core.tensor import _symbolic
from graphc.core.trace import TraceContext
from graphc.ir.graph import Aval
from graphc.runtime.cuda import executor, target

# These check the simulator itself (conftest.py: NUMBA_ENABLE_CUDASIM=0 runs on a GPU)
pytestmark = pytest.mark.skipif(os.environ.get("NUMBA_ENABLE_CUDASIM") == "0",
                                reason="checks Numba's CUDA simulator itself")

cuda = None  # numba.cuda, imported by the test that launches a kernel of its own
RNG = np.random.default_rng(7)
X23 = RNG.standard_normal((2, 3)).astype(np.float32) + 3.0
X235 = RNG.standard_normal((2, 3, 5))
I34 = RNG.integers(-9, 9, (3, 4)).astype(np.int32)
A = RNG.standard_normal((3, 9)).astype(np.float32)   # k = 9 > tile 4: three tiles
B = RNG.standard_normal((9, 2)).astype(np.float32)
AB = RNG.standard_normal((2, 3, 5))                  # batched, broadcast right operand
BB = RNG.standard_normal((5, 4))
S = RNG.standard_normal((3, 7))

# (op, inputs, attrs, NumPy's result)
CASES = [
    ("std", [X23], {"axis": None}, np.std(X23)),
    ("std", [X235], {"axis": (0, 2), "ddof": 1}, np.std(X235, axis=(0, 2), ddof=1)),
    ("var", [X23], {"axis": 1, "keepdims": True}, np.var(X23, axis=1, keepdims=True)),
    ("var", [X235], {"axis": 2}, np.var(X235, axis=2)),
    ("prod", [X23], {"axis": None}, np.prod(X23)),
    ("prod", [I34], {"axis": 0}, np.prod(I34, axis=0)),
    ("sum", [X235], {"axis": (0, 1)}, np.sum(X235, axis=(0, 1))),
    ("argmax", [I34], {"axis": 1}, np.argmax(I34, axis=1)),
    ("sort", [S], {"axis": -1}, np.sort(S, axis=-1)),
    ("matmul", [A, B], {}, A @ B),
    ("matmul", [AB, BB], {}, AB @ BB),
]


def _executor():
    arrays, outputs = [], []
    with TraceContext("shared_memory") as ctx:
        for op, args, attrs, _ in CASES:
            syms = [_symbolic(ctx.new_input(Aval(a.shape, a.dtype))) for a in args]
            outputs.append(bind(all_ops()[op], *syms, **attrs)._sym)
            arrays += args
    ex = executor.Executor(ctx.finish(outputs))
    assert ex.backend == "cuda", ex.explain()
    assert ex.program.source.count("cuda.shared.array(") >= len(CASES)
    return ex, arrays


def _check(got, label):
    for (op, _, attrs, want), g in zip(CASES, got):
        g = g.copy_to_host()
        assert g.shape == np.shape(want), (label, op, attrs)
        np.testing.assert_allclose(g, want, rtol=2e-5 if g.dtype == np.float32 else 1e-12,
                                   err_msg=f"{label}: {op} {attrs}")


def test_threads_allocating_a_shared_array_at_once_share_it(monkeypatch):
    """Every thread of a 16-thread block allocates while ``np.empty`` is slow (each would
    otherwise store its own array); each sums the block's ``t + 1``: 136 if all wrote one
    array."""
    global cuda  # the simulator swaps the kernel's global ``cuda`` for its own at launch
    cuda = target.cuda()
    empty = np.empty

    def slow_empty(*args, **kwargs):
        time.sleep(0.002)  # a thread switch inside the allocation, every time
        return empty(*args, **kwargs)

    import numba  # deferred: imports Numba (conftest selects the simulator first)

    @cuda.jit
    def block_sum(out):
        sh = cuda.shared.array(16, numba.int64)
        t = cuda.threadIdx.x
        sh[t] = t + 1
        cuda.syncthreads()
        acc = 0
        for j in range(16):
            acc += sh[j]
        out[t] = acc

    out = cuda.to_device(np.zeros(16, np.int64))
    monkeypatch.setattr(np, "empty", slow_empty)
    for _ in range(3):
        block_sum[1, 16](out)
    monkeypatch.setattr(np, "empty", empty)
    np.testing.assert_array_equal(out.copy_to_host(), np.full(16, 136))


class _RaceCheck:
    """Records each shared-array element's accesses per block and barrier phase."""

    def __init__(self):
        self.lock = threading.Lock()
        self.seen: dict = {}   # (array id, block, flat index) -> (phase, writers, readers)
        self.races: list = []

    def access(self, arr, index, write):
        th = threading.current_thread()
        idx = index if isinstance(index, tuple) else (index,)
        flat = 0
        for i, n in zip(idx, arr.base.shape):
            flat = flat * n + int(i)
        key = (id(arr), tuple(th.blockIdx), flat)
        phase, tid = getattr(th, "_racecheck_phase", 0), th.thread_id
        with self.lock:
            old = self.seen.get(key)
            if old is None or old[0] != phase:
                old = (phase, set(), set())
                self.seen[key] = old
            _, writers, readers = old
            others_w = writers - {tid}
            others = others_w | (readers - {tid}) if write else others_w
            if others and len(self.races) < 20:
                self.races.append(f"{arr.where} element {idx}, block {tuple(th.blockIdx)}, "
                                  f"barrier phase {phase}: thread {tid} "
                                  f"{'writes' if write else 'reads'}, thread "
                                  f"{min(others)} {'writes' if others & writers else 'reads'}")
            (writers if write else readers).add(tid)


class _Tracked:
    """A shared array that reports its element reads and writes."""

    def __init__(self, base, where, check):
        self.base, self.where, self.check = base, where, check

    def __getitem__(self, index):
        self.check.access(self, index, False)
        return self.base[index]

    def __setitem__(self, index, value):
        self.check.access(self, index, True)
        self.base[index] = value


@pytest.fixture
def racecheck(monkeypatch):
    target.cuda()  # first: importing numba.cuda installs target's own shared arrays
    from numba.core import types
    from numba.cuda.simulator import kernelapi
    from numba.np import numpy_support

    check = _RaceCheck()
    lock = threading.Lock()

    def array(self, shape, dtype, alignment=None):
        if isinstance(dtype, types.Type):
            dtype = numpy_support.as_dtype(dtype)
        caller = sys._getframe(1)
        key = (caller.f_code.co_filename, caller.f_lineno)
        with lock:
            res = self._allocations.get(key)
            if res is None:
                res = self._allocations[key] = _Tracked(
                    np.empty(shape, dtype), f"{caller.f_code.co_name} line {key[1]}", check)
        return res

    def syncthreads(self):
        th = threading.current_thread()
        th.syncthreads()
        th._racecheck_phase = getattr(th, "_racecheck_phase", 0) + 1

    monkeypatch.setattr(kernelapi.FakeCUDAShared, "array", array)
    monkeypatch.setattr(kernelapi.FakeCUDAModule, "syncthreads", syncthreads)
    return check


def test_shared_memory_kernels_have_no_races(racecheck):
    ex, arrays = _executor()
    _check(ex(arrays), "race-checked run")
    assert racecheck.seen, "no shared-memory access was recorded"
    assert not racecheck.races, "\n".join(racecheck.races)


def test_racecheck_reports_a_missing_barrier(racecheck):
    """The checker itself: std without the barrier between reading the mean from slot 0
    and reusing the slots for the squares (thread 0 overwrites slot 0 as others read it)."""
    with TraceContext("std") as ctx:
        x = _symbolic(ctx.new_input(Aval(X23.shape, X23.dtype)))
        graph = ctx.finish([bind(all_ops()["std"], x)._sym])
    program = executor.Executor(graph).program
    barrier = "mean = sh[0] / np.float32(6.0)\n        cuda.syncthreads()\n"
    assert barrier in program.source
    racy = replace(program, source=program.source.replace(
        barrier, "mean = sh[0] / np.float32(6.0)\n"))
    run = executor.load(racy, 0)
    run(executor._Ctx((), (), (), graph), target.to_device_flat(X23, X23.dtype))
    assert any("element (0,)" in r and "thread 0 writes" in r for r in racecheck.races), (
        racecheck.races)


def test_shared_memory_kernels_match_numpy_every_time():
    ex, arrays = _executor()
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # thread switches as often as they come
    try:
        for k in range(15):
            _check(ex(arrays), f"run {k}")
    finally:
        sys.setswitchinterval(before)
