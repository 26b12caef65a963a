"""The background compiles: one daemon worker thread runs them one at a time, in order.

Numba compiles under one global lock anyway, so more threads would only wait; one
worker also bounds the threads a program with many functions starts (it was one per
compile). ``submit(job)`` queues a callable; each job reports its own result and errors
(``numba_cpu.Executor`` sets an event that ``Executor.wait`` waits on).
"""

from __future__ import annotations

import collections
import os
import threading

_jobs: collections.deque = collections.deque()
_ready = threading.Condition()
_worker: threading.Thread | None = None


def submit(job) -> None:
    """Run ``job()`` on the worker thread (started on first use), after earlier jobs."""
    global _worker
    with _ready:
        _jobs.append(job)
        if _worker is None or not _worker.is_alive():
            _worker = threading.Thread(target=_work, name="graphc-compile", daemon=True)
            _worker.start()
        _ready.notify()


def pending() -> int:
    """Jobs queued and not yet started."""
    return len(_jobs)


def _work() -> None:
    while True:
        with _ready:
            while not _jobs:
                _ready.wait()
            job = _jobs.popleft()
        try:
            job()
        except Exception:  # noqa: BLE001 - a job reports its own failure; keep working
            pass
        del job  # do not keep the last executor alive while idle


def _after_fork_in_child() -> None:
    """A forked child has no worker thread: queued jobs run on a new one when the next
    job is submitted (a compile running in the parent at the fork is not resumed)."""
    global _ready, _worker
    _ready = threading.Condition()
    _worker = None
    if _jobs:
        submit(_jobs.popleft())


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
