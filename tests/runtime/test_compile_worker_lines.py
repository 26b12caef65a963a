"""The compile worker answers every job even when some stdin lines are not jobs: each bad
line gets an error reply and is skipped (it used to kill the worker, leaving later jobs
unanswered)."""

import json
import os
import subprocess
import sys

import pytest

from graphc.runtime.cpu import compile_worker

BAD = ["[]", "1", "null", "{}", '{"key": "x"}', "not json", '"text"',
       '{"key": 3, "source": "", "signature": [], "cache_dir": "/tmp"}',
       '{"key": "k", "source": "x = 1", "signature": {}, "cache_dir": "/tmp"}']


@pytest.mark.parametrize("line", BAD)
def test_a_bad_line_is_an_error_reply(line):
    job, reply = compile_worker.read_job(line)
    assert job is None and reply["ok"] is False
    assert reply["error"].startswith("bad job line: ")
    assert reply["key"] == ("x" if line == '{"key": "x"}' else "k" if '"k"' in line else None)


def test_a_job_line_is_read():
    line = json.dumps({"key": "k", "source": "x = 1\n", "signature": [], "cache_dir": "/c"})
    assert compile_worker.read_job(line) == (json.loads(line), None)


def test_the_worker_answers_the_jobs_after_bad_lines(tmp_path):
    """A real worker process fed bad lines, then a job (of another version's key, so it
    is answered at once without compiling): every line gets its answer, in order."""
    job = {"key": "0" * 32, "source": "x = 1\n", "signature": [], "cache_dir": str(tmp_path)}
    stdin = "\n".join([*BAD, json.dumps(job), ""])
    env = dict(os.environ, GRAPHC_CACHE_DIR=str(tmp_path))
    res = subprocess.run([sys.executable, "-c", compile_worker._BOOT, json.dumps(sys.path)],
                         input=stdin, capture_output=True, text=True, env=env, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    replies = [json.loads(line) for line in res.stdout.splitlines()]
    assert len(replies) == len(BAD) + 1
    assert all(r["error"].startswith("bad job line: ") for r in replies[:-1])
    assert replies[-1] == {"key": "0" * 32, "ok": False,
                           "error": "version mismatch with the parent"}
