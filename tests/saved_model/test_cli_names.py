"""``python -m graphc`` and loaded calls name what a user knows: a 1-D or 0-d spec as
Python writes its shape, an object's variables by their attribute names, a call's
keyword arguments; Python values in outputs are printed, never pickled."""

import numpy as np
import pytest

import graphc as gc
from graphc.__main__ import main


class Counter:
    def __init__(self):
        self.scale = gc.Variable(np.float32(2.0))
        self.calls = gc.Variable(0, trainable=False)

    @gc.function(input_signature=[gc.TensorSpec([3], gc.float32), gc.TensorSpec([], gc.int32)])
    def __call__(self, x, k):
        self.calls.assign_add(1)
        return x * self.scale + gc.cast(k, gc.float32)


def test_show_and_run_messages(tmp_path, capsys, monkeypatch):
    gc.saved_model.save(Counter(), tmp_path / "m")
    np.save(tmp_path / "x64.npy", np.zeros(3))
    np.save(tmp_path / "x.npy", np.arange(3, dtype=np.float32))
    np.save(tmp_path / "k.npy", np.zeros((1,), np.int32))
    monkeypatch.chdir(tmp_path)
    assert main(["show", "m"]) == 0
    out = capsys.readouterr().out
    assert "scale: float32 shape=() (trainable)" in out, out
    assert "calls: int32 shape=() (not trainable)" in out, out
    assert main(["run", "m", "--input", "x=x64.npy", "--input", "k=k.npy"]) == 2
    err = capsys.readouterr().err
    assert "holds float64 of shape (3,); the signature takes float32 of shape (3,)" in err
    assert main(["run", "m", "--input", "x=x.npy", "--input", "k=k.npy"]) == 2
    err = capsys.readouterr().err
    assert "holds int32 of shape (1,); the signature takes int32 of shape ()" in err, err


@gc.function(input_signature=[gc.TensorSpec([None], gc.float32)])
def with_python_values(x):
    return {"y": x * 2.0, "n": x.shape[0], "tag": None}


def test_python_values_in_outputs_are_printed_never_pickled(tmp_path, capsys, monkeypatch):
    gc.saved_model.save(with_python_values, tmp_path / "p")
    np.save(tmp_path / "x.npy", np.ones(2, np.float32))
    monkeypatch.chdir(tmp_path)
    assert main(["run", "p", "--input", "x=x.npy", "--output", "o.npz"]) == 0
    out = capsys.readouterr().out
    assert "n is the Python value None: not written" in out, out
    with np.load(tmp_path / "o.npz", allow_pickle=False) as got:
        assert got.files == ["y"]
        np.testing.assert_array_equal(got["y"], [2.0, 2.0])
    assert main(["run", "p", "--input", "x=x.npy"]) == 0
    assert "tag: the Python value None" in capsys.readouterr().out


def test_output_names_the_file_savez_wrote(tmp_path, capsys, monkeypatch):
    gc.saved_model.save(with_python_values, tmp_path / "p")
    np.save(tmp_path / "x.npy", np.ones(2, np.float32))
    monkeypatch.chdir(tmp_path)
    assert main(["run", "p", "--input", "x=x.npy", "--output", "result"]) == 0
    assert "wrote y to result.npz" in capsys.readouterr().out
    assert (tmp_path / "result.npz").is_file()


def test_a_call_matching_no_signature_shows_its_keyword_arguments(tmp_path):
    @gc.function
    def scaled(x, k=2):
        return x * k

    scaled(np.ones(2, np.float32))
    gc.saved_model.save(scaled, tmp_path / "s")
    loaded = gc.saved_model.load(tmp_path / "s")
    np.testing.assert_array_equal(loaded.scaled(np.ones(2, np.float32), k=2).numpy(), [2, 2])
    with pytest.raises(TypeError, match=r"scaled\(float32 shape=\(2,\), k=2\.5\) matches no"):
        loaded.scaled(np.ones(2, np.float32), k=2.5)
