"""The ``npbench`` benchmark table's harness, on a tiny fake NPBench checkout.

NPBench itself is not needed: ``fake_npbench`` writes the same layout (``bench_info``
JSON, an init module and a ``_numpy.py`` kernel per benchmark) into a temporary folder.
"""

import json

import numpy as np
import pytest

from benchmarks import bench_npbench, npbench_harness, npbench_peers
from benchmarks.runner import Settings

KERNELS = {
    # name: (init source, kernel source, bench_info fields)
    "toyret": (
        "def initialize(N):\n    return np.arange(N, dtype=np.float64)\n",
        "def kernel(x):\n    return np.exp(-x) * 2.0 + x.sum()\n",
        {"input_args": ["x"], "array_args": ["x"], "init_out": ["x"]}),
    "toywrite": (
        "def initialize(N):\n    return 1.5, np.ones((N, N))\n",
        "def kernel(alpha, A):\n    A[:] = alpha * A + 1.0\n",
        {"input_args": ["alpha", "A"], "array_args": ["A"], "init_out": ["alpha", "A"],
         "output_args": ["A"]}),
    "toyhang": (
        "def initialize(N):\n    return np.ones(N)\n",
        "def kernel(x):\n    while True:\n        pass\n",
        {"input_args": ["x"], "array_args": ["x"], "init_out": ["x"]}),
}


@pytest.fixture
def fake_npbench(tmp_path):
    (tmp_path / "bench_info").mkdir()
    for name, (init_src, kernel_src, info) in KERNELS.items():
        folder = tmp_path / "npbench" / "benchmarks" / "toys" / name
        folder.mkdir(parents=True)
        (folder / f"{name}.py").write_text("import numpy as np\n\n\n" + init_src)
        (folder / f"{name}_numpy.py").write_text("import numpy as np\n\n\n" + kernel_src)
        bench = {"short_name": name, "relative_path": f"toys/{name}", "module_name": name,
                 "func_name": "kernel", "parameters": {"S": {"N": 6}, "L": {"N": 600}},
                 "init": {"func_name": "initialize", "input_args": ["N"],
                          "output_args": info["init_out"]},
                 "input_args": info["input_args"], "array_args": info["array_args"],
                 "output_args": info.get("output_args", [])}
        (tmp_path / "bench_info" / f"{name}.json").write_text(json.dumps({"benchmark": bench}))
    return tmp_path


def kernels(root):
    return {k.name: k for k in npbench_harness.discover(root)}


def test_rewrite_numpy_import():
    src = "import numpy as np  # arrays\n\ndef f():\n    import numpy as np\n    return np\n"
    new = npbench_harness.rewrite_numpy_import(src)
    assert new.count("import graphc.numpy as np") == 2 and "import numpy" not in new
    assert new.count("\n") == src.count("\n")  # line numbers unchanged
    with pytest.raises(ImportError):
        npbench_harness.rewrite_numpy_import("import numpy\n")


def test_compare_uses_npbench_rule():
    ref = np.ones(1000)
    assert npbench_harness.compare(ref, ref + 1e-7)
    off_by_one = ref.copy()
    off_by_one[0] = 1.001  # fails allclose, but the relative norm error is 3e-5
    assert not npbench_harness.compare(ref, off_by_one)
    assert npbench_harness.compare(ref, off_by_one, norm_error=1e-4)
    assert not npbench_harness.compare(ref, ref[None, :])  # shapes must match


def test_return_value_kernel_passes_on_graphc(fake_npbench):
    record = npbench_harness.run_kernel(kernels(fake_npbench)["toyret"], reps=1)
    assert record["status"] == "pass", record
    assert record["numpy_s"] > 0 and record["graphc_s"] > 0 and record["ops"] >= 1
    big = npbench_harness.run_kernel(kernels(fake_npbench)["toyret"], reps=1, max_ops=0)
    assert big["status"] == "pass" and big["compile"] == "skipped" and "graphc_s" not in big


def test_array_arguments_are_compared(fake_npbench):
    toywrite = kernels(fake_npbench)["toywrite"]
    # The kernel itself under NumPy: it writes into A, which must be compared.
    same = npbench_harness.run_kernel(toywrite, reps=1, numpy_module="numpy",
                                      wrap=lambda fn: fn)
    assert same["status"] == "pass", same

    def on_copies(fn):  # a "framework" that never writes back into the caller's arrays
        return lambda *args: fn(*[np.copy(a) for a in args])

    lost = npbench_harness.run_kernel(toywrite, reps=1, numpy_module="numpy", wrap=on_copies)
    assert lost["status"] == "wrong" and lost["wrong"] == ["A"] and lost["unwritten"] == ["A"]


def test_table_runs_kernels_in_children(fake_npbench, monkeypatch):
    monkeypatch.setenv("GRAPHC_JIT", "off")  # no Numba compile: keep the test fast
    text = bench_npbench.run(Settings(quick=True), path=fake_npbench, timeout=120,
                             kernels=["toyret", "toywrite"])
    rows = {line.split("|")[0].strip(): line for line in text.splitlines() if "|" in line}
    assert "pass" in rows["toyret"] and "pass" in rows["toywrite"], text
    assert "2 of 2 kernels pass unchanged; 2 of them compiled and timed" in text
    assert "geometric mean graphc/NumPy" in text


def test_hanging_kernel_times_out(fake_npbench):
    record = bench_npbench.run_child(fake_npbench, "toyhang", Settings(quick=True), timeout=1.5,
                                     compile_timeout=1.5)
    assert record["status"] == "timeout"
    assert bench_npbench.status_cell(record) == "timeout"


def test_rows_and_summary():
    records = [
        {"kernel": "fast", "status": "pass", "numpy_first_s": 0.01, "graphc_first_s": 0.1,
         "compile_s": 1.0, "numpy_s": 0.004, "graphc_s": 0.001},
        {"kernel": "slowjit", "status": "pass", "stage": "compile", "graphc_first_s": 0.1,
         "compile": "timeout"},
        {"kernel": "huge", "status": "pass", "stage": "done", "ops": 5000, "compile": "skipped"},
        {"kernel": "lost", "status": "wrong", "wrong": ["A", "x"], "unwritten": ["A"]},
        {"kernel": "broken", "status": "error", "stage": "graphc", "error": "TypeError",
         "message": "no"},
        {"kernel": "noinit", "status": "error", "stage": "init", "error": "ImportError",
         "message": "scipy"},
    ]
    rows = {r[0]: r for r in map(bench_npbench.row, records)}
    assert rows["fast"][-1] == "0.25x" and rows["slowjit"][5] == "timeout"
    assert rows["lost"][1] == "wrong (A unchanged, x)"
    assert rows["broken"][1] == "TypeError" and rows["noinit"][1] == "setup: ImportError"
    notes = "\n".join(bench_npbench.summary(records, 1.0, 20, 1000))
    assert "3 of 6 kernels pass unchanged; 1 of them compiled and timed" in notes
    assert "over those 1: 0.25x" in notes and "within 20 s: slowjit" in notes
    assert "more than 1000 ops (--max-ops): huge" in notes
    assert "1 x TypeError: no: broken" in notes


def test_without_path_nothing_runs():
    text = bench_npbench.run(Settings(quick=True))
    assert "(not run)" in text and "--path" in text
    assert "not an NPBench checkout" in bench_npbench.run(Settings(quick=True), path=".")


def test_main_forwards_path_and_timeout(fake_npbench, capsys, monkeypatch):
    monkeypatch.setenv("GRAPHC_JIT", "off")
    from benchmarks.__main__ import main

    assert main(["npbench", "--quick", "--path", str(fake_npbench), "--timeout", "0.001"]) == 0
    out = capsys.readouterr().out
    assert "0 of 3 kernels pass unchanged" in out and out.count("timeout") >= 3


@pytest.fixture
def fake_jax(monkeypatch):
    """A stand-in for JAX with the three things the peer runner uses (jax is not a test
    dependency): ``config.update``, ``block_until_ready`` and ``jax.numpy.array``."""
    import sys
    import types

    jax = types.ModuleType("jax")
    jax.config = types.SimpleNamespace(update=lambda *a: None)
    jax.block_until_ready = lambda x: x
    jnp = types.ModuleType("jax.numpy")
    jnp.array = lambda a: np.array(a)
    jax.numpy = jnp
    monkeypatch.setitem(sys.modules, "jax", jax)
    monkeypatch.setitem(sys.modules, "jax.numpy", jnp)


def write_peer(root, name, postfix, source):
    folder = root / "npbench" / "benchmarks" / "toys" / name
    (folder / f"{name}_{postfix}.py").write_text("import numpy as np\n\n\n" + source)


def test_peers_are_checked_and_timed(fake_npbench, fake_jax):
    # Numba's convention: write into A like NumPy; JAX's: return the new A.
    write_peer(fake_npbench, "toywrite", "numba_n",
               "def kernel(alpha, A):\n    A[:] = alpha * A + 1.0\n")
    write_peer(fake_npbench, "toywrite", "jax",
               "def kernel(alpha, A):\n    return alpha * A + 1.0\n")
    toywrite = kernels(fake_npbench)["toywrite"]
    assert toywrite.output_args == ("A",)
    record = npbench_harness.run_kernel(toywrite, reps=2, numpy_module="numpy",
                                        wrap=lambda fn: fn, peers=("Numba", "JAX"))
    assert record["status"] == "pass", record
    for label in ("Numba", "JAX"):
        entry = record["peers"][label]
        assert entry["stage"] == "done" and entry["s"] > 0 and entry["graphc_s"] > 0, entry
    cells = dict(zip(bench_npbench.HEADER + npbench_peers.peer_header(["Numba", "JAX"]),
                     bench_npbench.row(record, ["Numba", "JAX"]), strict=True))
    assert cells["graphc/Numba"].endswith("x") and cells["graphc/JAX"].endswith("x")


def test_wrong_or_missing_peer_gets_no_time(fake_npbench, fake_jax):
    write_peer(fake_npbench, "toyret", "numba_n", "def kernel(x):\n    return np.exp(-x)\n")
    write_peer(fake_npbench, "toywrite", "jax", "def kernel(alpha, A):\n    return A, A\n")
    toyret, toywrite = kernels(fake_npbench)["toyret"], kernels(fake_npbench)["toywrite"]
    wrong = npbench_harness.run_kernel(toyret, reps=1, numpy_module="numpy",
                                       wrap=lambda fn: fn, peers=("Numba", "JAX"))
    assert wrong["status"] == "pass"  # graphc's own check is not the peers' business
    assert wrong["peers"]["Numba"]["error"] == "ValueError"
    assert "differs from NumPy in return" in wrong["peers"]["Numba"]["message"]
    assert wrong["peers"]["JAX"]["error"] == "FileNotFoundError"
    extra = npbench_harness.run_kernel(toywrite, reps=1, numpy_module="numpy",
                                       wrap=lambda fn: fn, peers=("JAX",))
    # each value JAX returns (here the unchanged A, twice) must be one of NumPy's outputs
    assert extra["peers"]["JAX"]["message"] == "differs from NumPy in return[0], return[1]"
    notes = "\n".join(npbench_peers.peer_notes([wrong], ["Numba"], lambda r: r[0],
                                                lambda r: f"{r:.2f}x"))
    assert "Numba not timed: toyret (ValueError: differs" in notes


def test_peer_summary_geomean():
    records = [{"kernel": k, "status": "pass",
                "peers": {"Numba": {"s": 2.0, "graphc_s": g}, "JAX": {"error": "timeout"}}}
               for k, g in (("a", 1.0), ("b", 4.0))]
    notes = "\n".join(bench_npbench.summary(records, 1.0, 20, 1000, ["Numba", "JAX"]))
    assert "graphc/Numba (NPBench's _numba_n files) over 2 kernels: 1.00x" in notes
    assert "JAX not timed: a (timeout: ), b (timeout: )" not in notes
    assert "JAX not timed: a (timeout: ); b (timeout: )" in notes
    assert bench_npbench.row(records[0], ["JAX"])[-2:] == ["timeout", ""]


def test_hanging_peer_keeps_graphc_times(fake_npbench, monkeypatch):
    monkeypatch.setenv("GRAPHC_JIT", "off")
    write_peer(fake_npbench, "toyret", "numba_n", "def kernel(x):\n    while True:\n        pass\n")
    record = bench_npbench.run_child(fake_npbench, "toyret", Settings(quick=True), timeout=60,
                                     compile_timeout=3, peers=["Numba"])
    assert record["status"] == "pass" and record["graphc_s"] > 0, record
    assert record["peers"]["Numba"]["error"] == "timeout"
