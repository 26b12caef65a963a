"""``import graphc`` loads the package's core and NumPy, and no integration: Dask and
``graphc.dask``, saved graphs, AutoGraph's transformer, the CPU and CUDA backends, the
pass pipeline, the CLI and Numba load when first used (docs/architecture.md, "Import
cost"). Each check runs in a fresh process; no wall-clock assertion (the machine is
shared)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import graphc as gc

# module prefixes that `import graphc` must not load
NOT_AT_IMPORT = (
    "numba", "llvmlite", "dask", "scipy", "networkx",
    "graphc.dask", "graphc.saved_model", "graphc.__main__",
    "graphc.autograph.transformer", "graphc.autograph.operators", "graphc.autograph.loops",
    "graphc.runtime", "graphc.passes", "graphc.functions.report",
)


def _child(code: str, tmp_path=None) -> dict:
    """Runs ``code`` in a fresh process (from a file under ``tmp_path`` if given, so
    AutoGraph can read its source); returns the JSON its last line prints."""
    code = textwrap.dedent(code)
    if tmp_path is not None:
        script = tmp_path / "child.py"
        script.write_text(code)
        argv = [sys.executable, str(script)]
    else:
        argv = [sys.executable, "-c", code]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def _loaded(prefixes) -> str:
    """Child code: the loaded modules under any of ``prefixes``, as a JSON list."""
    return (f"sorted(m for m in sys.modules if any(m == p or m.startswith(p + '.') "
            f"for p in {tuple(prefixes)!r}))")


def test_import_graphc_loads_no_integration():
    got = _child(f"""
        import json, sys
        import graphc
        print(json.dumps({{"loaded": {_loaded(NOT_AT_IMPORT)}, "numpy": "numpy" in sys.modules,
                          "graphc.numpy": "graphc.numpy" in sys.modules}}))
    """)
    assert got["loaded"] == []
    assert got["numpy"] and got["graphc.numpy"]


def test_lazy_names_load_on_first_use():
    got = _child("""
        import json, sys
        import graphc as gc
        before = {m: m in sys.modules for m in ("graphc.saved_model", "graphc.dask",
                                                 "graphc.runtime.cpu.cache")}
        from graphc import saved_model
        names = [gc.saved_model.save.__module__, gc.dask.map_blocks.__module__,
                 gc.cache.clear.__module__, gc.passes.optimize.__module__,
                 gc.autograph.experimental.do_not_convert.__name__]
        print(json.dumps({"before": before, "names": names, "same": saved_model is gc.saved_model,
                          "dask": "dask" in sys.modules}))
    """)
    assert not any(got["before"].values()), got["before"]
    assert got["names"] == ["graphc.saved_model.save", "graphc.dask.api",
                            "graphc.runtime.cpu.cache", "graphc.passes.pipeline",
                            "do_not_convert"]
    assert got["same"]
    assert not got["dask"]  # graphc.dask itself imports Dask only when used


def test_dir_lists_the_lazy_names():
    names = dir(gc)
    for name in ("saved_model", "dask", "cache", "autograph", "TensorArray", "function"):
        assert name in names
    assert "experimental" in dir(gc.autograph)


def test_first_conversion_loads_the_transformer_and_a_call_runs_without_dask(tmp_path):
    got = _child(f"""
        import json, sys
        import numpy as np
        import graphc as gc

        @gc.function
        def f(x):
            if gc.reduce_sum(x) > 0:
                x = x + 1
            return x

        y = f(np.ones(3, np.float32)).numpy().tolist()
        print(json.dumps({{"y": y, "loaded": {_loaded(("graphc.autograph.transformer",
                                                      "graphc.dask", "dask"))}}}))
    """, tmp_path)
    assert got["y"] == [2.0, 2.0, 2.0]
    # the transformer loads with the first conversion; the Dask integration stays out
    assert "graphc.autograph.transformer" in got["loaded"]
    assert not [m for m in got["loaded"] if m.startswith(("dask", "graphc.dask"))]


def test_dask_arguments_still_run_block_by_block():
    got = _child("""
        import json, sys
        import numpy as np
        import graphc as gc
        import dask.array as da

        f = gc.function(lambda x: gc.sqrt(x) * 2)
        y = f(da.ones(8, chunks=4))
        print(json.dumps({"type": type(y).__module__, "sum": float(y.sum().compute()),
                          "graphc.dask": "graphc.dask" in sys.modules}))
    """)
    assert got["type"].startswith("dask.array")
    assert got["sum"] == 16.0 and got["graphc.dask"]
