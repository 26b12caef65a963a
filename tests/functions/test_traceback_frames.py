"""Errors raised through a ``gc.function`` (or a loaded one) show no graphc frame at all:
the re-raise in ``Function.__call__`` used to add its own line to every traceback."""

import os
import subprocess
import sys
import textwrap
import traceback

import numpy as np
import pytest

import graphc as gc
from graphc.errors import InvalidArgumentError

GRAPHC = os.path.dirname(os.path.abspath(gc.__file__)) + os.sep
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _graphc_frames(error):
    return [f"{fr.filename}:{fr.lineno}" for fr in traceback.extract_tb(error.__traceback__)
            if fr.filename.startswith(GRAPHC)]


@gc.function
def checked(x):
    gc.debugging.assert_positive(x, message="x must be positive")
    return gc.sqrt(x)


def test_run_time_error_has_no_graphc_frame():
    for _ in range(12):  # cached calls, then the one-tensor hot path
        checked(np.ones(3))
    with pytest.raises(InvalidArgumentError, match="x must be positive") as info:
        checked(-np.ones(3))
    assert _graphc_frames(info.value) == []


def test_trace_time_error_has_no_graphc_frame():
    @gc.function
    def bad(x):
        return gc.reshape(x, [3, 5])

    with pytest.raises(InvalidArgumentError) as info:
        bad(np.ones(2))
    assert _graphc_frames(info.value) == []
    assert any(fr.name == "bad" for fr in traceback.extract_tb(info.value.__traceback__))


def test_loaded_function_error_has_no_graphc_frame(tmp_path):
    checked(np.ones(2))
    gc.saved_model.save(checked, tmp_path / "s")
    m = gc.saved_model.load(tmp_path / "s")
    with pytest.raises(InvalidArgumentError, match="x must be positive") as info:
        m.checked(-np.ones(2))
    assert _graphc_frames(info.value) == []


def test_internal_frames_are_shown_on_request(monkeypatch):
    monkeypatch.setenv("GRAPHC_SHOW_INTERNAL_FRAMES", "1")
    with pytest.raises(InvalidArgumentError) as info:
        checked(-np.ones(4))
    assert len(_graphc_frames(info.value)) > 1


def test_printed_traceback_ends_at_the_users_lines(tmp_path):
    script = tmp_path / "user_script.py"
    script.write_text(textwrap.dedent("""
        import numpy as np
        import graphc as gc

        @gc.function
        def f(x):
            return gc.reshape(x, [3, 5])

        f(np.ones(2))
    """))
    res = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=120, env=dict(os.environ, PYTHONPATH=ROOT))
    assert res.returncode == 1
    files = [line for line in res.stderr.splitlines() if line.strip().startswith("File ")]
    assert len(files) == 2 and all("user_script.py" in line for line in files), res.stderr
