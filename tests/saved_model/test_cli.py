"""``python -m graphc show`` / ``run`` on a saved directory (in a subprocess, and the
error matrix in-process through the same ``main``)."""

import os
import subprocess
import sys

import numpy as np
import pytest

import graphc as gc
from graphc.__main__ import main

X = np.array([[1.0, 2.0], [3.0, -4.0], [0.5, 0.0]], np.float32)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    w = gc.Variable([2.0, -1.0], name="w")

    @gc.function(input_signature=[gc.TensorSpec([None, 2], gc.float32)])
    def score(x):
        return {"sum": gc.reduce_sum(x * w, axis=1), "pair": (x, x + 1.0)}

    @gc.function(input_signature=[gc.TensorSpec([None], gc.float32)])
    def checked(y):
        gc.debugging.assert_positive(y, message="y must be positive")
        return gc.sqrt(y)

    gc.saved_model.save(None, d / "sm", signatures={"score": score, "checked": checked})
    np.save(d / "x.npy", X)
    np.save(d / "neg.npy", np.array([1.0, -1.0], np.float32))
    np.save(d / "x64.npy", X.astype(np.float64))
    np.save(d / "obj.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    np.savez(d / "pack.npz", x=X)
    return d


def _cli(*args, cwd):
    env = dict(os.environ)
    return subprocess.run([sys.executable, "-m", "graphc", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, env=env, timeout=120)


def test_show_prints_signatures_and_variables(saved):
    res = _cli("show", "sm", cwd=saved)
    assert res.returncode == 0, res.stderr
    for line in ("format 1.0", "signature 'score' (function 'score'):",
                 "x: float32 Tensor, shape=(None, 2)", "signature 'checked' (function "
                 "'checked'):", "w: float32 shape=(2,) (trainable)"):
        assert line in res.stdout


def test_run_writes_named_outputs_to_npz(saved):
    res = _cli("run", "sm", "--signature", "score", "--input", "x=x.npy", "--output",
               "out.npz", cwd=saved)
    assert res.returncode == 0, res.stderr
    with np.load(saved / "out.npz", allow_pickle=False) as got:
        assert sorted(got.files) == ["pair_0", "pair_1", "sum"]
        np.testing.assert_allclose(got["sum"], X @ np.array([2.0, -1.0], np.float32))
        np.testing.assert_array_equal(got["pair_1"], X + 1)


def test_run_reports_errors_with_status(saved):
    res = _cli("run", "sm", "--signature", "checked", "--input", "y=x.npy", cwd=saved)
    assert res.returncode == 2 and "holds float32 of shape (3, 2)" in res.stderr
    res = _cli("run", "sm", "--signature", "checked", "--input", "y=neg.npy", cwd=saved)
    assert res.returncode == 1 and "y must be positive" in res.stderr, res.stderr
    res = _cli("run", "sm", "--nope", cwd=saved)
    assert res.returncode == 2 and "usage: python -m graphc" in res.stderr


@pytest.mark.parametrize("args, message", [
    (["run", "sm", "--input", "x=x.npy"], "has 2 signatures: pick one with --signature "
     "(checked, score)"),
    (["run", "sm", "--signature", "nope"], "no signature 'nope'; saved: checked, score"),
    (["run", "sm", "--signature", "score"], "missing --input for x"),
    (["run", "sm", "--signature", "score", "--input", "z=x.npy"],
     "--input z: the signature's array arguments are x"),
    (["run", "sm", "--signature", "score", "--input", "x"], "expected NAME=FILE.npy"),
    (["run", "sm", "--signature", "score", "--input", "x=missing.npy"], "cannot read"),
    (["run", "sm", "--signature", "score", "--input", "x=obj.npy"],
     "obj.npy is not a plain .npy array"),
    (["run", "sm", "--signature", "score", "--input", "x=pack.npz"], "is an .npz archive"),
    (["run", "sm", "--signature", "score", "--input", "x=x64.npy"],
     "holds float64 of shape (3, 2); the signature takes float32 of shape (None, 2)"),
    (["show", "x.npy"], "x.npy does not load: x.npy: not a saved-graph directory"),
])
def test_bad_usage_exits_2_with_a_clear_error(saved, args, message, capsys, monkeypatch):
    monkeypatch.chdir(saved)
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err, err


def test_run_prints_results(saved, capsys, monkeypatch):
    monkeypatch.chdir(saved)
    assert main(["run", "sm", "--signature", "score", "--input", "x=x.npy"]) == 0
    out = capsys.readouterr().out
    assert "sum: float32 shape=(3,)\n[ 0. 10.  1.]" in out
    assert "pair_1: float32 shape=(3, 2)" in out
