"""Table "latency": import time, first call and a fresh process's first compiled result.

Every number comes from fresh Python processes (``sys.executable -c ...``), the median
of several; the cold rows use a new ``GRAPHC_CACHE_DIR`` each time so nothing is on
disk, the "from disk" row uses a directory a previous process filled. Times are taken
inside the child with ``perf_counter`` (so interpreter start-up is excluded, except in
the "process start" column, which is the wall time of the whole child run).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from time import perf_counter

from benchmarks.runner import fmt_time, render_table

# Modules `import graphc` must not load (docs/architecture.md, "Import cost"): each is
# imported by its first use. A tuple of prefixes for str.startswith.
INTEGRATIONS = ("numba", "llvmlite", "dask", "graphc.dask", "graphc.saved_model",
                "graphc.autograph.transformer", "graphc.runtime", "graphc.passes",
                "graphc.__main__")

# The child program: prints a JSON dict of seconds. MODE picks what it measures.
_CHILD = r"""
import json, os, sys, time
t0 = time.perf_counter()
INTEGRATIONS = %r
mode = sys.argv[1]
if mode == "numpy":
    import numpy
    print(json.dumps({"import": time.perf_counter() - t0})); sys.exit()
if mode == "numba":
    import numba
    print(json.dumps({"import": time.perf_counter() - t0})); sys.exit()
import numpy as np
t_np = time.perf_counter()
if mode in ("small", "small_numba", "small_jax"):  # first compile of a small graph, timed
    x = np.linspace(-3, 3, 1000).astype(np.float32)  # from after `import numpy`
    if mode == "small":  # (GRAPHC_JIT=eager, empty cache)
        import graphc as gc
        sigmoid = gc.function(lambda x: 1.0 / (1.0 + gc.exp(-x)))
        sigmoid(x)
        assert sigmoid.get_concrete_function(x).runtime.origin == "compiled"
    elif mode == "small_numba":  # the same loop written for numba.njit by hand
        import numba
        @numba.njit
        def loop(x):
            out = np.empty_like(x)
            for i in range(x.shape[0]):
                out[i] = np.float32(1.0) / (np.float32(1.0) + np.exp(-x[i]))
            return out
        loop(x)
    else:
        import jax, jax.numpy as jnp
        jax.jit(lambda x: 1.0 / (1.0 + jnp.exp(-x)))(x).block_until_ready()
    print(json.dumps({"small": time.perf_counter() - t_np})); sys.exit()
import graphc as gc
t1 = time.perf_counter()
out = {"import": t1 - t0, "numba_imported": "numba" in sys.modules}
if mode == "import":  # what `import graphc` loaded: none of INTEGRATIONS, how many modules
    out["graphc_modules"] = sum(m.split(".")[0] == "graphc" for m in sys.modules)
    out["integrations"] = sorted(m for m in sys.modules if m.startswith(INTEGRATIONS))
    print(json.dumps(out)); sys.exit()
x = np.random.default_rng(0).standard_normal(1 << 20).astype(np.float32)

@gc.function
def sigmoid(x):
    return 1.0 / (1.0 + gc.exp(-x))

if mode == "matmul":  # a program calling BLAS: its first call must not stall
    x = np.random.default_rng(0).standard_normal((64, 64))
    sigmoid = gc.function(lambda x: gc.numpy.matmul(x, x) + 1.0)
    mode = "compiled"

t2 = time.perf_counter()
y = sigmoid(x)
out["first_result"] = time.perf_counter() - t2
ex = sigmoid.get_concrete_function(x).runtime
if mode == "compiled":  # until the compiled program produced a result
    while ex.backend != "numba":
        if ex.wait(0.002) is False and ex.calls < 2:
            sigmoid(x)  # the lazy policy compiles after 2 calls
    sigmoid(x)
    out["compiled_result"] = time.perf_counter() - t2
    out["since_numpy"] = time.perf_counter() - t_np  # import graphc included
    out["origin"] = ex.origin
    out["numba_imported"] = "numba" in sys.modules
    out["scipy_linalg"] = "scipy.linalg" in sys.modules
print(json.dumps(out))
"""


def _child(mode: str, env: dict) -> dict:
    t0 = perf_counter()
    res = subprocess.run([sys.executable, "-c", _CHILD % (INTEGRATIONS,), mode], env=env,
                         capture_output=True, text=True, check=False)
    wall = perf_counter() - t0
    if res.returncode != 0:
        raise RuntimeError(f"latency child {mode!r} failed:\n{res.stderr}")
    out = json.loads(res.stdout.strip().splitlines()[-1])
    out["wall"] = wall
    return out


def _median(runs: list[dict], key: str) -> float:
    vals = sorted(r[key] for r in runs)
    return vals[len(vals) // 2]


def run(settings) -> str:
    reps = 1 if settings.quick else 7  # quick: a smoke run, one child per row
    # as installed: with bytecode caches (PYTHONDONTWRITEBYTECODE would make every child
    # compile every module it imports from source); one warm-up child writes them
    base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    base["GRAPHC_JIT"] = "lazy"
    _child("compiled", {**base, "GRAPHC_CACHE_DIR": tempfile.mkdtemp()})
    rows, notes = [], []

    def row(label, runs, key, target):
        rows.append([label, fmt_time(_median(runs, key) * 1e9),
                     fmt_time(_median(runs, "wall") * 1e9), target])

    row("import numpy (reference)", [_child("numpy", base) for _ in range(reps)], "import", "")
    imports = [_child("import", base) for _ in range(reps)]
    row("import graphc (numpy included)", imports, "import", "<= 0.2 s")
    if any(r["numba_imported"] for r in imports):
        notes.append("WARNING: import graphc imported Numba")
    loaded = sorted({m for r in imports for m in r["integrations"]})
    notes.append(f"import graphc: {imports[0]['graphc_modules']} graphc modules; "
                 + (f"WARNING: it loaded {', '.join(loaded)}" if loaded else
                    "no integration (Dask, saved graphs, AutoGraph's transformer, the "
                    "passes, the CPU/CUDA backends, the CLI) and not Numba"))
    row("import numba (reference)", [_child("numba", base) for _ in range(reps)], "import", "")

    cold = [_child("first", {**base, "GRAPHC_CACHE_DIR": tempfile.mkdtemp()})
            for _ in range(reps)]
    row("first call: trace + first result (sigmoid f32[2^20])", cold, "first_result",
        "<= 0.1 s")
    compiled = [_child("compiled", {**base, "GRAPHC_CACHE_DIR": tempfile.mkdtemp()})
                for _ in range(1 if settings.quick else max(2, reps // 2))]
    row("cold: first call until the compiled result", compiled, "compiled_result", "")
    small = {"small": "graphc (GRAPHC_JIT=eager, empty cache)",
             "small_numba": "hand-written numba.njit loop", "small_jax": "jax.jit"}
    for mode, who in small.items():
        if mode == "small_jax" and importlib.util.find_spec("jax") is None:
            continue
        runs = [_child(mode, {**base, "GRAPHC_JIT": "eager",  # a new empty cache each
                              "GRAPHC_CACHE_DIR": tempfile.mkdtemp()}) for _ in range(reps)]
        row(f"first compile, sigmoid f32[1000], after import numpy: {who}", runs, "small",
            "<= 0.6 s" if mode == "small" else "")
    warm_dir = tempfile.mkdtemp()
    _child("compiled", {**base, "GRAPHC_CACHE_DIR": warm_dir})  # fills the disk cache
    _child("matmul", {**base, "GRAPHC_CACHE_DIR": warm_dir})
    disk, through_numba, matmul = [], [], []
    for _ in range(reps):  # interleaved: the rows compared see the same machine load
        disk.append(_child("compiled", {**base, "GRAPHC_CACHE_DIR": warm_dir}))
        through_numba.append(_child("compiled", {**base, "GRAPHC_CACHE_DIR": warm_dir,
                                                 "GRAPHC_NATIVE_LOAD": "0"}))
        matmul.append(_child("matmul", {**base, "GRAPHC_CACHE_DIR": warm_dir}))
    row("fresh process, program on disk: first call until the compiled result", disk,
        "compiled_result", "")
    row("the same from after import numpy (import graphc included)", disk, "since_numpy",
        "<= 0.15 s")
    row("the same, loaded through Numba (GRAPHC_NATIVE_LOAD=0)", through_numba,
        "since_numpy", "")
    row("a matmul program on disk (f64[64,64]), from after import numpy", matmul,
        "since_numpy", "no stall")
    origins = sorted({r.get("origin") for r in disk + matmul})
    if any(r["numba_imported"] for r in disk + matmul):
        notes.append("WARNING: a program loaded from disk imported Numba")
    if any(r["scipy_linalg"] for r in matmul):
        notes.append("WARNING: the matmul program imported scipy.linalg")
    notes += [
        "time = measured inside a fresh process (median); process = wall time of that "
        "process, interpreter start-up included",
        "first result: the lazy policy answers the first calls on the interpreter and "
        "compiles in a worker process (docs/runtime.md, warm-up)",
        f"program on disk: loaded by the first call ({', '.join(map(str, origins))}), "
        "linked from its machine code without importing Numba (runtime/cpu/native.py); "
        "through Numba, `import numba` and its set-up dominate (the reference row)",
    ]
    return render_table("latency: imports, first call, first compiled result",
                        ["what", "time", "process", "target"], rows, tuple(notes))


if __name__ == "__main__":
    from benchmarks.runner import Settings

    print(run(Settings(quick="--quick" in sys.argv)))
