"""Which trace contexts are open: one stack per thread (``local.stack``, innermost last)
and one list entry per context open in any thread (``open_contexts``).

The eager hot paths test ``open_contexts`` first (a plain list: empty means no thread
traces) and read the thread-local stack only when it is not empty. The contexts
themselves (``TraceContext``) are in ``trace.py``; this module sits below ``Tensor`` so
that a tensor can ask whether its thread traces.
"""

from __future__ import annotations

import threading


class _ThreadState(threading.local):
    """One thread's tracing state: its stack of open trace contexts (innermost last)."""

    def __init__(self):
        self.stack: list = []  # TraceContexts


local = _ThreadState()
# One entry per context open in any thread (list.append/pop are atomic): empty means no
# thread traces, the one test the eager hot paths make.
open_contexts: list[None] = []


def active() -> bool:
    """True while the calling thread traces (other threads' traces do not count)."""
    return bool(open_contexts) and bool(local.stack)


def current():
    """The calling thread's innermost trace context (only while ``active()``)."""
    return local.stack[-1]
