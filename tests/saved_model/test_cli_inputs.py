"""``python -m graphc run --input NAME=FILE``: every malformed file is exit status 2 with
one ``error:`` line (an empty file was an ``EOFError`` traceback and status 1)."""

import io
import os
import subprocess
import sys

import numpy as np
import pytest

import graphc as gc
from graphc.__main__ import main

X = np.array([1.0, 2.0, 3.0], np.float32)


def _npy(a, version=None):
    buf = io.BytesIO()
    if version is None:
        np.save(buf, a)
    else:
        np.lib.format.write_array(buf, a, version=version)
    return buf.getvalue()


def _header(text: bytes) -> bytes:
    text = text.ljust(118) + b"\n"
    return b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli_inputs")

    @gc.function(input_signature=[gc.TensorSpec([None], gc.float32)])
    def double(x):
        return x * 2.0

    gc.saved_model.save(double, d / "sm")
    good = _npy(X)
    files = {
        "empty.npy": b"",
        "short.npy": b"\x93NUM",
        "text.npy": b"x,y\n1,2\n",
        "header_cut.npy": good[:20],
        "data_cut.npy": good[:-4],
        "bad_version.npy": b"\x93NUMPY\x07\x00" + good[8:],
        "not_a_dict.npy": _header(b"[1, 2, 3]"),
        "bad_literal.npy": _header(b"{'descr': '<f4', 'fortran_order': False, 'shape': (3,"),
        "evil_literal.npy": _header(b"{'descr': __import__('os').system('exit 3')}"),
        "huge_shape.npy": _header(b"{'descr': '<f4', 'fortran_order': False, "
                                  b"'shape': (1099511627776,), }"),
        "huge_header.npy": b"\x93NUMPY\x02\x00" + (2 ** 31).to_bytes(4, "little"),
        "negative.npy": _header(b"{'descr': '<f4', 'fortran_order': False, "
                                b"'shape': (-3,), }"),
        "strings.npy": _npy(np.array(["a", "b"])),
        "record.npy": _npy(np.zeros(2, dtype=[("a", "<f4")])),
        "broken.npz": b"PK\x03\x04 not really a zip",
        "good_v2.npy": _npy(X, version=(2, 0)),
        "good_big_endian.npy": _npy(X.astype(">f4")),
        "good_fortran.npy": _npy(X),
    }
    for name, data in files.items():
        (d / name).write_bytes(data)
    (d / "a_dir.npy").mkdir()
    return d


@pytest.mark.parametrize("name, message", [
    ("empty.npy", "empty.npy is not a plain .npy array: it is empty"),
    ("short.npy", "ends inside the npy magic number and version (4 of 8 bytes)"),
    ("text.npy", "it does not start with NumPy's magic number"),
    ("header_cut.npy", "it ends inside the npy header"),
    ("data_cut.npy", "declares shape (3,) of float32 but holds only 8 bytes of data"),
    ("bad_version.npy", "has npy version 7.0"),
    ("not_a_dict.npy", "it has an unreadable npy header (ValueError"),
    ("bad_literal.npy", "it has an unreadable npy header (TokenError"),
    ("evil_literal.npy", "it has an unreadable npy header (ValueError"),
    ("huge_shape.npy", "declares shape (1099511627776,) of float32 but holds only 0 bytes"),
    ("huge_header.npy", "an npy header of 2147483648 bytes"),
    ("negative.npy", "it declares the negative shape (-3,)"),
    ("strings.npy", "has dtype <U1, not a plain numeric dtype"),
    ("record.npy", "not a plain numeric dtype"),
    ("broken.npz", "is an .npz archive"),
    ("a_dir.npy", "cannot read a_dir.npy"),
])
def test_malformed_input_files_exit_2_with_one_error_line(saved, name, message, capsys,
                                                         monkeypatch):
    monkeypatch.chdir(saved)
    assert main(["run", "sm", "--input", f"x={name}"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --input x: ") and err.count("\n") == 1, err
    assert message in err, err


@pytest.mark.parametrize("name", ["good_v2.npy", "good_big_endian.npy", "good_fortran.npy"])
def test_well_formed_variants_run(saved, name, capsys, monkeypatch):
    monkeypatch.chdir(saved)
    assert main(["run", "sm", "--input", f"x={name}"]) == 0
    assert "[2. 4. 6.]" in capsys.readouterr().out


def test_empty_input_file_from_the_command_line(saved):
    res = subprocess.run([sys.executable, "-m", "graphc", "run", "sm", "--input",
                          "x=empty.npy"], cwd=saved, capture_output=True, text=True,
                         env=dict(os.environ), timeout=120)
    assert res.returncode == 2, res.stderr
    assert res.stderr.splitlines() == [
        "error: --input x: empty.npy is not a plain .npy array: it is empty, not an .npy "
        "array"]
