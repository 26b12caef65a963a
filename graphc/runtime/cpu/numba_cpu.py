"""The Numba CPU backend: one compiled program per graph, run behind the interpreter's contract.

``executor_for(graph)`` returns an :class:`Executor`, ``executor(arrays) -> list`` exactly
like ``interpreter.run_graph(graph, arrays)``. It generates the program at once (cheap;
so unsupported ops are reported on the first call), runs the graph on the interpreter
while it is cold, and switches to the compiled program once it is hot (policy below and
in docs/runtime.md). A graph with nodes that have no Numba kernel runs as compiled
segments joined by Python (``segments``), or on the interpreter when nothing else is
left to compile: ``executor.reasons`` lists why, and ops that should have compiled
get one :class:`FallbackWarning` per ``gc.function`` (``fallback``). Numba is imported only when a
program is compiled.

Compile policy (``settings``, from ``settings.py``; ``gc.config`` may override, see
:func:`_setting`):

* ``mode="lazy"`` (default): the first ``compile_after`` calls run on the interpreter,
  then the program compiles on the background worker (:mod:`compile_queue`, one thread
  for every executor) and later calls switch to it. A program already compiled in this
  process is used at once; one found on disk is queued for loading at once.
* ``mode="eager"``: compile on the first call and wait (tests, benchmarks).
* ``mode="off"``: interpreter only.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time

import numpy as np

from graphc import config
from graphc.core.interpreter import run_graph
from graphc.errors import FallbackError, FallbackWarning  # noqa: F401 (numba_cpu.Fallback*)
from graphc.runtime import fallback
from graphc.runtime.cpu import (
    cache,
    cache_entry,
    codegen,
    compile_log,
    compile_queue,
    compile_worker,
    heap,
    numba_start,
    segments,
)
from graphc.runtime.cpu.kernels import uses_blas
from graphc.runtime.cpu.native import NativeProgram
from graphc.runtime.cpu.programs import compile_source, origin
from graphc.runtime.cpu.runners import runner
from graphc.runtime.cpu.settings import setting as _setting
from graphc.runtime.cpu.settings import settings  # noqa: F401 (numba_cpu.settings)


class Executor:
    """Runs one graph: ``executor(arrays) -> list[ndarray]`` (``run_graph``'s contract).

    ``backend`` is ``"numba"`` once the compiled program runs, else ``"numpy"``;
    ``reasons`` says why a graph is not compiled (empty while merely cold); ``program``
    is the generated :class:`codegen.Program` (its ``source`` is the module text).
    """

    __slots__ = ("graph", "program", "reasons", "key", "path", "origin", "native", "calls",
                 "warned", "_run",
                 "_compiled", "_queued", "_done", "_on_compiled", "_lock", "_compile_lock",
                 "_job", "compile_seconds", "_log_t0", "__weakref__")

    def __init__(self, graph, on_compiled=None, strict=False, warn=True, warned=None):
        self.graph = graph
        self.warned = set() if warned is None else warned  # fallbacks already reported
        self.program = None
        self.reasons: list[str] = []
        self.key = self.path = self.origin = None
        self.native = False  # linked from its machine code, without Numba (native.py)
        self.compile_seconds = None  # how long compiling (or loading) the program took
        self.calls = 0
        self._compiled = None
        self._queued = False              # a background compile was asked for
        self._done = threading.Event()    # ... and has finished (either way)
        self._on_compiled = on_compiled
        self._lock = threading.Lock()
        self._compile_lock = threading.Lock()
        self._job = None                  # the compile worker's job, when it has one
        self._log_t0 = None               # when a logged background compile started
        self._run = self._interpret
        # strict (jit_compile=True) compiles at once, so a failure raises here and now
        mode = "eager" if strict else _setting("mode")
        if mode == "off":
            return
        try:
            self.program = codegen.generate(graph)
            self.reasons.extend(self.program.reasons)
        except Exception as e:  # noqa: BLE001 - a codegen bug must not break the call
            self.reasons.append(f"code generation failed: {type(e).__name__}: {e}")
        if self.reasons:
            if warn or strict:
                self._fallback(strict)
            return
        self.key = cache.key_for(self.program.source)
        # compiled in this process, or on disk (a script's second run): load it now
        if mode == "eager" or cache.lookup(self.key) is not None or _on_disk(self.key):
            self.compile_now()
            if self.reasons:
                self._fallback(strict)

    def __call__(self, arrays):
        return self._run(arrays)

    @property
    def backend(self) -> str:
        return "numba" if self._compiled is not None and self._run is self._compiled \
            else "numpy"

    def _interpret(self, arrays):
        self.calls += 1
        if self.calls >= _setting("compile_after") and not self._queued \
                and self.program is not None and not self.reasons:
            if _setting("background"):
                self._start_compile()
            elif not self.compile_now():
                self._fallback(False)
        return run_graph(self.graph, arrays)

    def start_compile(self) -> None:
        """Queue the compile on the background worker now, whatever the call count (a
        loop handing over from the interpreter: ``loop_handover``)."""
        if self.program is not None and not self.reasons:
            self._start_compile()

    def _start_compile(self) -> None:
        with self._lock:
            if self._queued or self._compiled is not None:
                return
            self._queued = True
        self._log_t0 = compile_log.started(self.graph, self.program, background=True)
        if _setting("worker") and not _on_disk(self.key) and _worker_can_cache():
            self._job = compile_worker.submit(self.key, self.program.source,
                                              signature_spec(self.program))
        compile_queue.submit(self._compile_in_thread)

    def _compile_in_thread(self) -> None:
        try:
            if self._job is not None:  # the worker process compiles; this thread sets up
                with contextlib.suppress(Exception):  # Numba meanwhile, then only waits
                    numba_start.prewarm(blas=uses_blas(self.program.source),
                                        native=_setting("native"))
                self._job.wait()
            if self._compiled is None and not self.reasons and not self.compile_now():
                self._fallback(False)
        finally:
            self._done.set()

    def wait(self, timeout=None) -> bool:
        """Block until a background compile finishes (at most ``timeout`` seconds; at
        once when none was started); True if the program now runs."""
        if self._queued:
            self._done.wait(timeout)
        return self.backend == "numba"

    def compile_now(self) -> bool:
        """Compile (or load) the program and switch to it; False if it failed."""
        with self._compile_lock:  # a background compile and a caller may both get here
            return self._compile_locked()

    def _compile_locked(self) -> bool:
        if self._compiled is not None:
            return True
        if self.program is None or not self.program.ok or self.reasons:
            return False
        in_memory = cache.lookup(self.key) is not None
        started = time.perf_counter()
        logged = self._log_t0 or (None if in_memory else compile_log.started(
            self.graph, self.program, background=False))
        try:
            dispatcher, self.path = compile_program(self.program, self.key)
        except Exception as e:  # noqa: BLE001 - reported, the interpreter keeps running
            where = cache.path_for(self.key)
            where = where if os.path.exists(where) else "executor.program.source"
            self.reasons.append(fallback.compile_failure(e, self.graph, self.program, where))
            if logged is not None:
                compile_log.finished(self.graph, logged, None, ok=False)
            return False
        self.origin = "memory" if in_memory else origin(dispatcher)
        self.native = isinstance(dispatcher, NativeProgram)
        self.compile_seconds = time.perf_counter() - started
        if logged is not None:
            compile_log.finished(self.graph, logged, self.origin, ok=True)
        heap.keep_freed_memory()  # temporaries' pages reused across calls
        self._compiled = runner(dispatcher, self.program, self.graph)
        self._run = self._compiled
        if self._on_compiled is not None:
            self._on_compiled(self._compiled)
        return True

    def items(self) -> list:
        """Why this graph is not compiled, in the user's terms (``fallback.Item`` s)."""
        blocked = self.program.blocked if self.program is not None else []
        return fallback.items_for(self.graph, blocked, self.reasons, self.program)

    def _fallback(self, strict: bool) -> None:
        fallback.report(self.graph.name, self.items(), strict, self.warned, False)

    def explain(self) -> str:
        """A few lines on how this graph runs and why."""
        backend = self.backend
        if backend == "numpy" and self._queued and not self._done.is_set():
            backend = ("compiling in the background (calls run on the NumPy interpreter "
                       "until the program is ready)")
        elif backend == "numpy" and self.reasons:
            backend = "numpy (the reference interpreter: not compiled, see below)"
        elif backend == "numpy" and _setting("mode") == "off":
            backend = "numpy (compilation is off: GRAPHC_JIT=off)"
        elif backend == "numpy":
            backend = "not compiled yet (calls run on the NumPy interpreter)"
        lines = [f"backend: {backend}"]
        if self.path:
            how = ", its machine code linked without Numba" if self.native else ""
            lines.append(f"compiled program ({self.origin}{how}): {self.path}")
        if self.reasons:
            lines += fallback.explain_lines(self.items())
        elif self.backend == "numpy" and not self._queued and _setting("mode") != "off":
            lines.append(f"cold: {self.calls} interpreter call(s) so far; compiles after "
                         f"{_setting('compile_after')}")
        return "\n".join(lines)


def executor_for(graph, on_compiled=None, strict=False, warned=None):
    """The executor for ``graph``; ``on_compiled(fast)`` is called with the compiled runner
    when it becomes available, so a caller can call it directly and skip one indirection.

    A graph with nodes that cannot be compiled (``executor.reasons``) runs as compiled
    segments joined by Python (:mod:`segments`) when some compiled segment does work,
    else wholly on the interpreter; either way one :class:`FallbackWarning` says which
    nodes run in Python (``fallback``: none for ops that run in Python by design; none
    for a fallback already in ``warned``, the set a ``gc.function`` shares between its
    traces). ``strict=True`` raises :class:`FallbackError` instead.

    >>> run = executor_for(concrete.optimized_graph)    # doctest: +SKIP
    >>> run([x])                                        # doctest: +SKIP
    """
    ex = Executor(graph, on_compiled, strict, warn=False, warned=warned)
    if not ex.reasons or ex.program is None:
        return ex
    blocked = ex.program.blocked
    if blocked and _setting("segments"):
        items = ex.items()
        seg = segments.split(graph, [n for n, _r in blocked], [i.line() for i in items],
                             lambda g: Executor(g, warn=True, warned=ex.warned))
        if seg is not None:
            seg.items = items
            fallback.report(graph.name, items, False, ex.warned, True)
            return seg
    ex._fallback(False)
    return ex


def compile_program(program, key=None):
    """``(dispatcher, path)`` for a generated program: memory, then disk, then Numba.

    ``path`` is None when the program was compiled in memory because the cache
    directory is not private or not writable (a :class:`cache.CacheWarning` said so).
    """
    return compile_source(program.source, key, signature_spec(program))


def signature_spec(program) -> list:
    """The program's argument types as ``[dtype.str, ndim, readonly]`` rows (plain data:
    computed without Numba, sent as JSON to the compile worker): inputs, constants and
    variables read-only, recycled result buffers writable."""
    spec = [[v.dtype.str, len(v.shape), True] for v in program.input_avals]
    spec += [[c.dtype.str, c.ndim, True] for c in program.consts]
    spec += [[aval.dtype.str, len(aval.shape), True] for _ref, aval in program.variables]
    spec += [[np.dtype(dtype).str, ndim, False] for _i, dtype, ndim in program.recycle]
    return spec


def _worker_can_cache() -> bool:
    """A worker process helps only through the disk cache: a usable private directory,
    and Numba not told to cache elsewhere (``NUMBA_CACHE_DIR``)."""
    return not config.numba_cache_dir() and cache_entry.disk_usable()


def _on_disk(key) -> bool:
    return cache.on_disk(key)
