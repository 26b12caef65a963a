"""Programs on disk are linked from their machine code without importing Numba
(runtime/cpu/native.py): a second process gets the same results as the interpreter, for
every kind of program a graph compiles to, and Numba still works when imported after."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from graphc.runtime.cpu import native, native_build

CHILD = r"""
import json, sys, warnings
if "--numba-first" in sys.argv:  # Numba imported, its threads not started, before graphc
    import numba
import numpy as np
import graphc as gc
import graphc.numpy as gnp
from graphc.runtime.cpu import numba_cpu
numba_cpu.settings.mode = "eager"
warnings.simplefilter("error")  # no fallback, no cache warning

v = gc.Variable(np.arange(3.0))

@gc.function
def two_outputs(x, n):  # a tuple of results, a 0-d one, an int input
    y = gnp.tanh(x) * 2.0
    return y, gnp.sum(y) + gc.cast(n, gc.float64)

@gc.function
def with_state(x):  # reads and writes a variable
    v.assign_add(x)
    return v.read_value() * 2.0

@gc.function
def matmul(a, b):  # BLAS through Numba's helpers
    return gnp.matmul(a, b) + 1.0

@gc.function
def ints(a, b):
    return (a // b) % 7, a > b

@gc.function
def big(x):  # parallel loops (prange) and a recycled result buffer
    return 1.0 / (1.0 + gnp.exp(-x))

@gc.function
def gather(x, i):  # an index out of range raises the interpreter's error
    return gc.gather(x, i)

rng = np.random.default_rng(0)
x = rng.standard_normal(5)
sig = lambda a: 1 / (1 + np.exp(-a))
cases = [  # (function, arguments, NumPy's answer)
    (two_outputs, (x, np.array(3, np.int32)),
     lambda x, n: (np.tanh(x) * 2, (np.tanh(x) * 2).sum() + 3.0)),
    (with_state, (np.ones(3),), lambda a: ((v.numpy() + a) * 2,)),
    (matmul, (rng.standard_normal((4, 3)), rng.standard_normal((3, 2))),
     lambda a, b: (a @ b + 1,)),
    (ints, (np.arange(-6, 6, dtype=np.int64), np.full(12, 4, np.int64)),
     lambda a, b: ((a // b) % 7, a > b)),
    (big, (rng.standard_normal(1 << 20).astype(np.float32),), lambda a: (sig(a),)),
    (big, (rng.standard_normal(2 << 20).astype(np.float32)[::2],),  # not contiguous
     lambda a: (sig(a),)),
    (gather, (x, np.array([0, 4])), lambda x, i: (x[i],)),
]
report = {"cases": []}
for fn, args, numpy_answer in cases:
    same = True
    for _ in range(2):  # the second call: the compiled entry point's own path
        want = numpy_answer(*args)
        got = fn(*args)
        got = [np.asarray(g) for g in (got if isinstance(got, tuple) else (got,))]
        same = same and len(got) == len(want) and all(
            g.shape == np.shape(w) and np.allclose(g, w, rtol=1e-6) for g, w in zip(got, want))
    ex = fn.get_concrete_function(*args).runtime
    report["cases"].append({"fn": fn.__name__, "origin": ex.origin, "backend": ex.backend,
                            "same": bool(same)})
try:
    gather(x, np.array([9]))
except Exception as e:
    report["error"] = f"{type(e).__name__}: {e}"
from graphc.runtime.cpu import cache
from graphc.runtime.cpu import native
linked = len(native._linked)
cache.clear(disk=False)  # a new trace of the same program: linked once per process
again = gc.function(big.python_function)
report["relinked"] = [bool(np.allclose(again(x5), sig(x5))) for x5 in [cases[4][1][0]]] + [
    len(native._linked) - linked]
report["numba"] = "numba" in sys.modules
report["explain"] = big.get_concrete_function(cases[4][1][0]).runtime.explain()
if "--import-numba" in sys.argv:  # Numba after a native load: its own parallel code works
    import numba
    f = numba.njit(parallel=True)(lambda a: sum([a[i] * 2 for i in numba.prange(a.size)]))
    report["numba_parallel"] = float(f(np.arange(100.0)))
    from numba.np.ufunc import parallel
    report["layer"] = parallel.threading_layer()
print(json.dumps(report))
"""


def _run(cache_dir, *flags):
    env = dict(os.environ, GRAPHC_CACHE_DIR=str(cache_dir))
    script = cache_dir / "child.py"  # a file: AutoGraph reads the functions' source
    script.write_text(CHILD)
    res = subprocess.run([sys.executable, str(script), *flags], env=env, text=True,
                         capture_output=True, timeout=600, check=False)
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    cache_dir = tmp_path_factory.mktemp("native")
    return (_run(cache_dir), _run(cache_dir), _run(cache_dir, "--import-numba"),
            _run(cache_dir, "--numba-first"))


def test_first_run_compiles_and_writes_machine_code(runs):
    first = runs[0]
    assert {c["origin"] for c in first["cases"]} == {"compiled"}
    assert all(c["same"] and c["backend"] == "numba" for c in first["cases"]), first


def test_second_run_links_every_program_without_numba(runs):
    second = runs[1]
    assert all(c["same"] and c["backend"] == "numba" for c in second["cases"]), second
    assert {c["origin"] for c in second["cases"]} == {"disk"}
    assert second["numba"] is False
    assert second["relinked"] == [True, 0]  # the same program again: not linked twice
    assert "gather" in second["error"] and "test_native_load" not in second["error"]
    assert second["error"] == runs[0]["error"]  # the interpreter's error, as compiled
    assert "compiled program (disk, its machine code linked without Numba)" in \
        second["explain"] and "machine code" not in runs[0]["explain"]


def test_numba_imported_after_a_native_load_still_works(runs):
    third = runs[2]
    assert all(c["same"] for c in third["cases"])
    assert third["numba_parallel"] == 9900.0
    assert third["layer"] in ("omp", "workqueue", "tbb")


def test_with_numba_imported_first_its_own_threads_serve(runs):
    fourth = runs[3]
    assert all(c["same"] and c["origin"] == "disk" for c in fourth["cases"]), fourth


def test_objects_other_than_elf_are_refused():
    with pytest.raises(ValueError, match="ELF"):
        native.undefined_symbols(b"\xcf\xfa\xed\xfe" + bytes(60))  # a Mach-O header


def test_only_plain_constants_are_saved():
    assert native_build.const(np.dtype(np.float32)) == ["dtype", "<f4"]
    assert native_build.const(3) == ["value", 3]
    assert native._const(["dtype", "<f4"]) == np.dtype(np.float32)
    with pytest.raises(ValueError):
        native_build.const(np.dtype([("a", np.int32)]))
    with pytest.raises(ValueError):
        native_build.const(object())
    with pytest.raises(ValueError):
        native._const(["pickle", "..."])


def test_arguments_of_another_type_raise_type_error():
    program = native.NativeProgram(lambda *a: "ran", [["<f4", 1, True]], None)
    assert program(np.zeros(3, np.float32)) == "ran"
    for bad in (np.zeros(3), np.zeros((3, 1), np.float32), np.zeros(6, np.float32)[::2],
                np.zeros(3, ">f4"), [1.0]):
        with pytest.raises(TypeError):
            program(bad)
    with pytest.raises(TypeError, match="takes 1"):
        program()


LAZY_CHILD = r"""
import json, sys
import numpy as np
import graphc as gc
import graphc.numpy as gnp
from graphc.runtime.cpu import numba_cpu
numba_cpu.settings.mode, numba_cpu.settings.worker = "lazy", True

@gc.function
def softsign(x):
    return x / (1.0 + gnp.abs(x))

x = np.linspace(-3, 3, 7)
ex = None
for _ in range(2000):  # a hot loop: the worker compiles, this process links the result
    y = softsign(x)
    ex = softsign.get_concrete_function(x).runtime
    if ex.wait(0.05):
        break
y = softsign(x)
print(json.dumps({"backend": ex.backend, "origin": ex.origin, "numba": "numba" in sys.modules,
                  "right": bool(np.allclose(y, x / (1 + np.abs(x))))}))
"""


def test_a_lazy_compile_never_imports_numba_in_the_caller(tmp_path):
    """The compile worker process compiles into the cache; the caller links the machine
    code it wrote, so the caller's calls never compete with an `import numba`."""
    script = tmp_path / "lazy.py"
    script.write_text(LAZY_CHILD)
    res = subprocess.run([sys.executable, str(script)], text=True, capture_output=True,
                         env=dict(os.environ, GRAPHC_CACHE_DIR=str(tmp_path)), timeout=600,
                         check=False)
    assert res.returncode == 0, res.stderr[-3000:]
    report = json.loads(res.stdout.strip().splitlines()[-1])
    assert report == {"backend": "numba", "origin": "disk", "numba": False, "right": True}


def test_a_description_that_does_not_load_falls_back_to_numba(tmp_path, cache_program):
    """Machine code whose description this graphc does not read (another format) is
    not linked: the program loads through Numba, with the same results."""
    from graphc.runtime.cpu import cache_files

    run, check, record = cache_program
    report = run(tmp_path)
    check(report, "compiled")
    directory, key = os.path.dirname(report["path"]), report["key"]
    meta_path = os.path.join(directory, f"g_{key}.native.json")
    with open(meta_path) as f:
        meta = json.load(f)
    meta["format"] = native.FORMAT - 1
    with open(meta_path, "w") as f:
        json.dump(meta, f)
    manifest = os.path.join(directory, f"g_{key}.sums")
    cache_files.write_manifest(manifest, directory, sorted(
        cache_files.recorded_digests(manifest)))  # as that graphc would have written it
    report = run(tmp_path, prelude=record)
    check(report, "disk")
    assert report["native_read"] == [] and report["numba_read"]


THREADS_CHILD = r"""
import json, sys, threading
import numpy as np
import graphc as gc
import graphc.numpy as gnp
from graphc.runtime.cpu import numba_cpu
numba_cpu.settings.mode = "eager"
fns = [gc.function(lambda x, k=k: gnp.tanh(x) * float(k) + gnp.exp(-x)) for k in range(6)]
x = np.linspace(-2, 2, 9)
barrier = threading.Barrier(6)
right, errors = {}, []

def work(k):  # six threads load six programs at once
    try:
        barrier.wait()
        right[k] = bool(np.allclose(fns[k](x), np.tanh(x) * k + np.exp(-x)))
    except Exception as e:
        errors.append(repr(e))

threads = [threading.Thread(target=work, args=(k,)) for k in range(6)]
for t in threads:
    t.start()
for t in threads:
    t.join()
origins = sorted({f.get_concrete_function(x).runtime.origin for f in fns})
print(json.dumps({"right": sorted(right.values()), "errors": errors,
                  "numba": "numba" in sys.modules, "origins": origins}))
"""


def test_threads_loading_programs_at_once(tmp_path):
    script = tmp_path / "threads.py"
    script.write_text(THREADS_CHILD)
    env = dict(os.environ, GRAPHC_CACHE_DIR=str(tmp_path))
    reports = []
    for _ in range(2):  # compiled, then linked from machine code
        res = subprocess.run([sys.executable, str(script)], text=True, capture_output=True,
                             env=env, timeout=600, check=False)
        assert res.returncode == 0, res.stderr[-3000:]
        reports.append(json.loads(res.stdout.strip().splitlines()[-1]))
    assert [r["origins"] for r in reports] == [["compiled"], ["disk"]]
    for r in reports:
        assert r["right"] == [True] * 6 and r["errors"] == []
    assert reports[1]["numba"] is False


CORPUS_CHILD = r"""
import json, os, sys, warnings
sys.path.insert(0, os.environ["CORPUS_DIR"])
warnings.simplefilter("ignore")
import numpy as np
import graphc as gc
from graphc.runtime.cpu import numba_cpu
from corpus import CORPUS
numba_cpu.settings.mode = "eager"
out = {}
for name, (build, args) in CORPUS.items():
    f = build()
    f(*args)
    results = f(*args)
    flat = results if isinstance(results, tuple) else (results,)
    runtime = f.get_concrete_function(*args).runtime
    out[name] = {"origin": getattr(runtime, "origin", None),
                 "bytes": [np.asarray(r).tobytes().hex() for r in flat]}
print(json.dumps({"programs": out, "numba": "numba" in sys.modules}))
"""


def test_the_saved_model_corpus_gives_the_same_bits_from_machine_code(tmp_path):
    """Control flow, variables, effects between segments, TensorArrays, a loop gradient,
    shapes known at run time: linked from machine code in a second process, every
    program gives the very bits the compiled program gave."""
    corpus_dir = os.path.join(os.path.dirname(os.path.dirname(__file__)), "saved_model")
    script = tmp_path / "corpus_child.py"
    script.write_text(CORPUS_CHILD)
    env = dict(os.environ, GRAPHC_CACHE_DIR=str(tmp_path), CORPUS_DIR=corpus_dir)
    runs = []
    for _ in range(2):
        res = subprocess.run([sys.executable, str(script)], text=True, capture_output=True,
                             env=env, timeout=600, check=False)
        assert res.returncode == 0, res.stderr[-3000:]
        runs.append(json.loads(res.stdout.strip().splitlines()[-1]))
    first, second = runs[0]["programs"], runs[1]["programs"]
    assert {k: v["bytes"] for k, v in first.items()} == {
        k: v["bytes"] for k, v in second.items()}
    compiled = [k for k, v in first.items() if v["origin"] == "compiled"]
    assert len(compiled) >= 5 and all(second[k]["origin"] == "disk" for k in compiled)
    assert runs[1]["numba"] is False
