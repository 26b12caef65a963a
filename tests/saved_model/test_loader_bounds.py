"""Loading costs what the files hold: no buffer of the size cap, no zip-bomb expansion.

Each check runs in a fresh process (an address-space limit, tracemalloc's peak), so the
memory a load takes is measured, not guessed.
"""

import hashlib
import io
import json
import os
import subprocess
import sys
import textwrap
import zipfile

import numpy as np
import pytest

import graphc as gc
from graphc.errors import SavedModelError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FILES = ("graph.json", "constants.npz", "variables.npz")


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A function with one constant ``c0`` (float64[3]) and a variable ``v0`` (float32[2])."""
    v = gc.Variable(np.array([1.0, 2.0], np.float32))

    @gc.function
    def f(x):
        return x * gc.constant(np.array([1.0, 2.0, 3.0])) + gc.reduce_sum(v.read_value())

    f(np.zeros(3))
    path = tmp_path_factory.mktemp("bounds") / "s"
    gc.saved_model.save(f, path)
    return path


def _copy(base, d):
    d.mkdir()
    for name in (*FILES, "manifest.json"):
        (d / name).write_bytes((base / name).read_bytes())
    return d


def _refresh(d):
    m = json.loads((d / "manifest.json").read_text())
    for name in FILES:
        data = (d / name).read_bytes()
        m["files"][name] = {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
    (d / "manifest.json").write_text(json.dumps(m))


def _npy(shape, dtype, fill=0):
    buf = io.BytesIO()
    np.save(buf, np.full(shape, fill, dtype))
    return buf.getvalue()


def _zip(d, name, members, method=zipfile.ZIP_DEFLATED):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=method) as z:
        for member, data in members.items():
            z.writestr(member, data)
    (d / name).write_bytes(buf.getvalue())
    _refresh(d)


def _run(code, *args):
    env = dict(os.environ, PYTHONPATH=ROOT)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code), *map(str, args)],
                          capture_output=True, text=True, env=env, timeout=300, cwd=ROOT)


# --------------------------------------------------------------------------- item 1
LIMITED = """
    import resource, sys
    limit = 4_000_000 * 1024  # ulimit -v 4000000
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    import numpy as np
    import graphc as gc
    from graphc.__main__ import main
    m = gc.saved_model.load(sys.argv[1])
    print("loaded", m.f(np.ones(3)).numpy().tolist())
    sys.exit(main(["show", sys.argv[1]]))
"""


def test_load_and_show_run_under_an_address_space_limit(saved):
    """Each file was read with ``f.read(cap + 1)``: an 8 GiB buffer for a 22-byte file."""
    r = _run(LIMITED, saved)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "loaded [4.0, 5.0, 6.0]" in r.stdout and "signature 'f'" in r.stdout


# --------------------------------------------------------------------------- item 2
PEAK = """
    import sys, tracemalloc
    import graphc as gc
    from graphc.errors import SavedModelError
    tracemalloc.start()  # counts NumPy's buffers too (ru_maxrss would start at the parent's)
    try:
        gc.saved_model.load(sys.argv[1])
        print("LOADED")
    except SavedModelError as e:
        print("ERROR", e)
    print("PEAK_KIB", tracemalloc.get_traced_memory()[1] // 1024)
"""


def _peak_load(d):
    r = _run(PEAK, d)
    assert r.returncode == 0, r.stderr[-2000:]
    lines = dict(line.split(" ", 1) for line in r.stdout.splitlines())
    return lines.get("ERROR"), int(lines["PEAK_KIB"])


def test_zip_bomb_constant_is_refused_before_it_expands(saved, tmp_path):
    """A deflated 2**25-element float64 npy (256 MiB, a few hundred KB compressed) where
    graph.json declares float64[3]: refused from its header, before decompression."""
    d = _copy(saved, tmp_path / "d")
    _zip(d, "constants.npz", {"c0.npy": _npy((2 ** 25,), np.float64)})
    assert (d / "constants.npz").stat().st_size < 2 ** 20
    error, peak = _peak_load(d)
    assert error is not None and "constants.npz: c0.npy holds float64[33554432]; " \
        "graph.json declares float64[3]" in error
    assert peak < 16 * 1024, f"loading took {peak} KiB at its peak"


def test_compressed_member_with_an_open_shape_may_expand_at_most_2x(saved, tmp_path):
    """A variable declared with a None dim does not pin its size: a deflated member then
    expands at most 2x (np.savez stores members uncompressed)."""
    d = _copy(saved, tmp_path / "d")
    doc = json.loads((d / "graph.json").read_text())
    doc["variables"][0]["shape"] = [None]
    (d / "graph.json").write_text(json.dumps(doc))
    _zip(d, "variables.npz", {"v0.npy": _npy((2 ** 25,), np.float32)})
    error, peak = _peak_load(d)
    assert error is not None and "variables.npz: v0.npy: " in error and "over 2x" in error
    assert peak < 16 * 1024, f"loading took {peak} KiB at its peak"


def test_honestly_compressed_members_still_load(saved, tmp_path):
    d = _copy(saved, tmp_path / "d")
    _zip(d, "constants.npz", {"c0.npy": _npy((3,), np.float64, 1.0)})
    _zip(d, "variables.npz", {"v0.npy": _npy((2,), np.float32, 2.0)})
    m = gc.saved_model.load(d)
    np.testing.assert_allclose(m.f(np.ones(3)).numpy(), [5.0, 5.0, 5.0])


@pytest.mark.parametrize("members, match", [
    ({"c0.npy": _npy((3,), np.float32)}, r"c0.npy holds float32\[3\]; graph.json declares "
                                         r"float64\[3\]"),
    ({"c0.npy": _npy((3,), np.float64), "c9.npy": _npy((1,), np.float64)},
     "member c9.npy is not an array graph.json uses"),
    ({"c0.npy": b""}, "c0.npy is empty, not an .npy array"),
    ({"c0.npy": b"\x93NUMPY\x02\x00" + (2 ** 31).to_bytes(4, "little")},
     "an npy header of 2147483648 bytes"),
    ({"c0.npy": _npy((3,), np.float64)[:-8]}, r"declares shape \(3,\) but holds only"),
])
def test_members_that_do_not_fit_graph_json_are_refused(saved, tmp_path, members, match):
    d = _copy(saved, tmp_path / "d")
    _zip(d, "constants.npz", members, method=zipfile.ZIP_STORED)
    with pytest.raises(SavedModelError, match="constants.npz: .*" + match):
        gc.saved_model.load(d)


def test_big_endian_members_load_as_native_arrays(saved, tmp_path):
    d = _copy(saved, tmp_path / "d")
    _zip(d, "constants.npz", {"c0.npy": _npy((3,), ">f8", 2.0)}, method=zipfile.ZIP_STORED)
    m = gc.saved_model.load(d)
    np.testing.assert_allclose(m.f(np.ones(3)).numpy(), [5.0, 5.0, 5.0])
