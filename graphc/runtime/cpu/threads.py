"""How many threads a program with parallel loops runs on, decided call by call.

A ``prange`` loop is done only when every thread has done its share, so a thread that
the OS has descheduled (another process busy on its core) holds the whole call up:
with one CPU-bound process beside it on 2 cores, a parallel sigmoid of 2^20 float32
values took 3-8 ms against 0.5-0.6 ms serial. No load signal is reliable everywhere
(``/proc/loadavg`` counts the whole host inside a container), so each compiled program
with parallel loops measures itself: it times its calls on all threads and, now and
then, one call on one thread (``numba.set_num_threads(1)`` for that call, which runs
the loops serially on the calling thread), keeps a moving average of each, and uses
the faster. A probe's time replaces the other choice's average (it may be old: the
load changed since), a probe that confirms the choice doubles the interval to the next
one (``Settings.probe_min`` .. ``probe_max`` calls), and a switch resets it, so a switch
made on one unlucky probe is undone within ``probe_min`` calls. Measured in
docs/runtime.md ("Under load").
"""

from __future__ import annotations

from time import perf_counter_ns


class Settings:
    """``adaptive``: choose threads per call (``False``: always all threads)."""

    adaptive = True
    probe_min = 8      # calls between probes of the other choice, at first and after a switch
    probe_max = 128    # ... at most, while probes keep confirming the choice
    alpha = 0.25       # weight of a new time in the moving averages


settings = Settings()


def adaptive(run, parallel: bool, controls=None):
    """``run`` itself for a serial program, else ``run`` choosing its threads per call.
    ``controls``: ``(get_num_threads, set_num_threads)`` of the threading layer, for a
    program loaded without Numba (``native``); by default Numba's."""
    if not parallel or not settings.adaptive:
        return run
    if controls is None:
        import numba  # deferred: imports Numba

        controls = (numba.get_num_threads, numba.set_num_threads)
    return _Choice(run, *controls)


class _Choice:
    """Times calls on all threads (index 0) and on one (index 1); runs the faster.

    Several Python threads may call at once: the fields are plain numbers updated
    under the GIL, so a race only blurs an average. The thread count is
    per calling thread, so one thread's serial call never changes another's."""

    __slots__ = ("run", "est", "current", "calls", "interval", "next_probe", "_get", "_set")

    def __init__(self, run, get_num_threads, set_num_threads):
        self.run, self._get, self._set = run, get_num_threads, set_num_threads
        self.est = [0.0, 0.0]  # ns per call: all threads, one thread (0.0: not yet timed)
        self.current = 0
        self.calls = 0
        self.interval = settings.probe_min
        # the first call is not timed: it pays once for the thread pool's start and the
        # program's first touches of memory (a 98 ms first call of a 33 ms product on
        # 2 threads made its serial probe, 67 ms, look faster: 7 calls in 10 went
        # serial); the second is timed on all threads, the third probes one thread
        self.next_probe = 3

    @property
    def serial(self) -> bool:
        """Whether calls now run on one thread."""
        return self.current == 1

    def __call__(self, arrays):
        self.calls += 1
        probing = self.calls >= self.next_probe
        mode = 1 - self.current if probing else self.current
        t0 = perf_counter_ns()
        if mode:
            before = self._get()
            self._set(1)
            try:
                out = self.run(arrays)
            finally:
                self._set(before)
        else:
            out = self.run(arrays)
        dt = perf_counter_ns() - t0
        if self.calls == 1:
            return out
        e = self.est[mode]  # a probe's time replaces its average, which may be old
        self.est[mode] = float(dt) if probing or e == 0.0 else e + (dt - e) * settings.alpha
        if probing:
            self._decide()
        return out

    def _decide(self) -> None:
        other = 1 - self.current
        if self.est[other] < self.est[self.current]:
            self.current, self.interval = other, settings.probe_min
        else:
            self.interval = min(2 * self.interval, settings.probe_max)
        self.next_probe = self.calls + self.interval
