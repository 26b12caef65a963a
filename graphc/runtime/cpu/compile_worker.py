"""Compiles in a separate process, so a hot caller never competes with Numba for the GIL.

Numba's compiler is Python code that calls LLVM through ctypes; every ctypes call gives
the GIL up and must win it back, and a caller running a tight loop holds it for 5 ms at
a time (``sys.getswitchinterval``). A compile in a thread of the calling process thus
took 19 s for ``x + 1`` (2 s alone) and slowed the caller's own calls. Here the program
is compiled by a worker process into the disk cache (the same entry, lock and manifest
as any other process: :mod:`cache_entry`), and the caller then loads it from there
(milliseconds once Numba is imported).

``submit(key, source, signature) -> Job``; ``Job.wait()`` -> True when the worker left
a verified entry for ``key`` on disk. The worker is one child process per parent,
started on first use (``sys.executable`` with this process's ``sys.path``), fed JSON lines on its
stdin (key, generated source, argument types, the parent's cache directory at the time;
never pickles) and answering one JSON line per job; a line that is not a job object is
answered with an error reply (``"key"`` null unless the line had a string key) and
skipped, and the jobs after it are answered as usual. It reads every job as soon as it
arrives and finishes all of them even when the parent exits, so a short script's
programs are on disk for its next run. It exits when its stdin closes and its queue is
empty, or after ``IDLE_EXIT`` seconds idle.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import sys
import threading
import warnings

from graphc import config
from graphc.runtime.cpu import cache
from graphc.runtime.cpu.programs import compile_source

IDLE_EXIT = 120.0  # seconds an idle worker waits for a job before it exits
_BOOT = ("import json, sys; sys.path[:] = json.loads(sys.argv[1]); "
         "from graphc.runtime.cpu.compile_worker import main; main()")


class Job:
    """One program sent to the worker; ``wait()`` blocks (without the GIL) for its answer."""

    __slots__ = ("key", "ok", "error", "_done")

    def __init__(self, key: str):
        self.key, self.ok, self.error = key, False, None
        self._done = threading.Event()

    def finish(self, ok: bool, error: str | None = None) -> None:
        self.ok, self.error = ok, error
        self._done.set()

    def wait(self, timeout: float | None = None) -> bool:
        self._done.wait(timeout)
        return self.ok


class _Child:
    """The worker process, started without a ``subprocess.Popen``: its finalizer warns
    (``ResourceWarning: subprocess N is still running``) when the parent exits first,
    which this child is meant to do (it finishes the jobs it has). Its stdin and stdout
    are raw pipe ends (no file objects to leave unclosed); a parent that exits closes
    them, which the worker reads as the end of its jobs."""

    def __init__(self, argv):
        if not hasattr(os, "posix_spawn"):  # the caller compiles in a thread instead
            raise OSError("this platform has no posix_spawn")
        in_r, self.stdin_fd = os.pipe()
        self.stdout_fd, out_w = os.pipe()
        try:
            self.pid = os.posix_spawn(argv[0], argv, os.environ, setsid=True, file_actions=[
                (os.POSIX_SPAWN_DUP2, in_r, 0), (os.POSIX_SPAWN_DUP2, out_w, 1),
                (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)])
        except BaseException:
            for fd in (self.stdin_fd, self.stdout_fd):
                os.close(fd)
            raise
        finally:
            os.close(in_r)
            os.close(out_w)
        self.returncode = None

    def poll(self):
        """The exit status once the child has exited (and reaped it), else None."""
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:  # reaped elsewhere
                pid, status = self.pid, 0
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self.stdin_fd, view):]

    def lines(self):
        """The child's stdout, line by line (bytes), until it closes."""
        pending = b""
        while chunk := os.read(self.stdout_fd, 1 << 16):
            *done, pending = (pending + chunk).split(b"\n")
            yield from done
        os.close(self.stdout_fd)


class _Worker:
    """The parent's handle on one worker process and its reply reader."""

    def __init__(self):
        # the child imports what this process imports: its sys.path, exactly (a checkout,
        # a virtual environment), not PYTHONPATH edits that could shadow the stdlib
        self.proc = _Child([sys.executable, "-c", _BOOT, json.dumps(sys.path)])
        self.jobs: dict[str, list[Job]] = {}
        self.lock = threading.Lock()
        threading.Thread(target=self._read, name="graphc-compile-worker-reader",
                         daemon=True).start()

    def alive(self) -> bool:
        return self.proc.poll() is None

    def send(self, job: Job, source: str, signature: list) -> bool:
        line = json.dumps({"key": job.key, "source": source, "signature": signature,
                           "cache_dir": config.cache_dir()})  # the parent's, now
        with self.lock:
            self.jobs.setdefault(job.key, []).append(job)
            try:
                self.proc.write((line + "\n").encode("utf-8"))
            except OSError:
                self.jobs[job.key].remove(job)
                return False
        return True

    def _read(self) -> None:
        for line in self.proc.lines():
            try:
                reply = json.loads(line)
            except ValueError:
                continue
            if type(reply) is not dict or type(reply.get("key")) is not str:
                continue  # not an answer to a job (a bad line's reply has no key)
            with self.lock:
                waiting = self.jobs.pop(reply["key"], [])
            for job in waiting:
                job.finish(bool(reply.get("ok")), reply.get("error"))
        with self.lock:  # the worker is gone: whatever it did not answer failed
            waiting = [j for js in self.jobs.values() for j in js]
            self.jobs.clear()
        for job in waiting:
            job.finish(False, "the compile worker exited")
        with contextlib.suppress(ChildProcessError):  # (already reaped by poll)
            _pid, status = os.waitpid(self.proc.pid, 0)  # no zombie while we run on
            self.proc.returncode = os.waitstatus_to_exitcode(status)


_worker: _Worker | None = None
_start_lock = threading.Lock()


def submit(key: str, source: str, signature: list) -> Job:
    """Send one program to the worker (started if needed); the returned job fails at
    once when no worker can be started (the caller then compiles in-process)."""
    global _worker
    job = Job(key)
    with _start_lock:
        for _attempt in range(2):
            try:
                if _worker is None or not _worker.alive():
                    _worker = _Worker()
                if _worker.send(job, source, signature):
                    return job
            except OSError as e:
                job.finish(False, f"cannot start the compile worker: {e}")
                return job
            _worker = None
    job.finish(False, "the compile worker did not take the job")
    return job


def _after_fork_in_child() -> None:
    global _worker, _start_lock
    _worker, _start_lock = None, threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


# --- the worker process -------------------------------------------------------------

_JOB_FIELDS = {"key": str, "source": str, "signature": list, "cache_dir": str}


def read_job(line: str) -> tuple[dict | None, dict | None]:
    """``(job, None)`` for a stdin line holding a job object, else ``(None, error reply)``
    (``[]``, ``1``, ``null``, ``{}``, ``{"key": "x"}``, not JSON at all). The reply carries
    the line's key when it has a string one, so a job waiting on that key fails at once."""
    try:
        request = json.loads(line)
    except ValueError as e:
        return None, {"key": None, "ok": False, "error": f"bad job line: not JSON ({e})"[:500]}
    if type(request) is not dict:
        return None, {"key": None, "ok": False, "error": "bad job line: a JSON "
                      f"{type(request).__name__}, not a job object"}
    wrong = [f"{field} ({kind.__name__})" for field, kind in _JOB_FIELDS.items()
             if type(request.get(field)) is not kind]
    if wrong:
        key = request.get("key")
        return None, {"key": key if type(key) is str else None, "ok": False,
                      "error": "bad job line: needs " + ", ".join(wrong)}
    return request, None


def _compile_one(request: dict) -> dict:
    key, source = request["key"], request["source"]
    config.use_cache_dir(request["cache_dir"])  # where the parent looks
    if cache.key_for(source) != key:  # another graphc or Numba version than the parent's
        return {"key": key, "ok": False, "error": "version mismatch with the parent"}
    try:
        _dispatcher, path = compile_source(source, key, request["signature"])
    except Exception as e:  # noqa: BLE001 - the parent compiles again and reports it
        return {"key": key, "ok": False, "error": f"{type(e).__name__}: {e}"[:2000]}
    ok = path is not None and cache.on_disk(key)
    return {"key": key, "ok": ok, "error": None if ok else "not cached on disk"}


def main() -> None:
    """The worker: compile every job read from stdin, answer each on stdout."""
    warnings.simplefilter("ignore")  # the parent warns when it loads or compiles itself
    jobs: queue.Queue = queue.Queue()

    def read() -> None:  # read eagerly, so the parent's writes never block
        for line in sys.stdin:
            jobs.put(line)
        jobs.put(None)

    threading.Thread(target=read, daemon=True).start()
    while True:
        try:
            line = jobs.get(timeout=IDLE_EXIT)
        except queue.Empty:
            return
        if line is None:
            return
        if not line.strip():
            continue
        request, reply = read_job(line)  # a line that is no job is answered and skipped
        if request is not None:
            try:
                reply = _compile_one(request)
            except Exception as e:  # noqa: BLE001 - answered: the parent compiles itself
                reply = {"key": request["key"], "ok": False,
                         "error": f"{type(e).__name__}: {e}"[:2000]}
        try:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()
        except OSError:  # the parent is gone; keep compiling what it sent
            pass


if __name__ == "__main__":
    main()
