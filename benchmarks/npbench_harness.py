"""Run one NPBench kernel, unchanged, on NumPy and on graphc, and compare them.

The helper of table ``npbench`` (``bench_npbench.py``). NPBench (github.com/spcl/npbench)
is never copied into this repository: everything is read from a checkout whose root the
user names. In that checkout ``bench_info/<name>.json`` describes each benchmark (module,
entry function, argument names, presets, init function, optional ``rtol``/``atol``/
``norm_error``); the NumPy kernel lives in
``npbench/benchmarks/<relative_path>/<module>_numpy.py`` and the init code in
``<module>.py`` next to it.

What a user would do, and what ``run_kernel`` does:

1. build the inputs with NPBench's own init function at preset ``S`` (real NumPy);
2. load the ``_numpy.py`` source twice: as it is, and with its ``import numpy as np``
   line replaced by ``import graphc.numpy as np`` (nothing else changes, so the line
   numbers and AutoGraph's view of the source stay those of the file); the graphc copy's
   entry function is wrapped with ``gc.function``;
3. call both on their own copies of the array arguments, then compare the returned
   values and every array argument (kernels often write into their arguments and return
   nothing) by NPBench's rule (``compare``); graphc runs first on its reference
   interpreter (the check), then from a fresh ``gc.function`` compiled by Numba, whose
   outputs are compared again (``run_kernel``);
4. when they agree, time NumPy and the compiled kernel: fresh argument copies before each
   call (not timed), calls interleaved, median per call.

``python -m benchmarks.npbench_harness ROOT NAME --out FILE`` does this for one kernel
and writes a JSON record to FILE, rewritten at each stage so a killed run still says where
it was; ``bench_npbench`` runs one such process per kernel under a time limit.
"""

from __future__ import annotations

import argparse
import gc as _gc
import json
import re
import statistics
import sys
import types
import warnings
from dataclasses import dataclass
from pathlib import Path
from time import perf_counter

import numpy as np

NUMPY_IMPORT = re.compile(r"^(?P<indent>[ \t]*)import numpy as np[ \t]*(?:#.*)?$", re.MULTILINE)
PRESET = "S"


@dataclass(frozen=True)
class Kernel:
    """One NPBench benchmark, as its ``bench_info`` JSON describes it."""

    name: str            # short_name, the row label
    folder: Path         # npbench/benchmarks/<relative_path>
    module: str          # module_name: <module>.py holds init, <module>_numpy.py the kernel
    func: str            # the entry function of the NumPy kernel
    params: dict         # the preset's parameters
    init: dict | None    # {"func_name", "input_args", "output_args"} or None
    input_args: tuple    # the kernel's arguments, in order
    array_args: tuple    # the ones that are arrays (copied before each call)
    output_args: tuple = ()  # the array arguments the kernel writes (NPBench compares them)
    rtol: float = 1e-5
    atol: float = 1e-8
    norm_error: float = 1e-5

    @property
    def numpy_file(self) -> Path:
        return self.folder / f"{self.module}_numpy.py"


def discover(root) -> list[Kernel]:
    """Every benchmark of the checkout at ``root`` with a preset ``S``, by short name."""
    root = Path(root)
    info_dir = root / "bench_info"
    if not info_dir.is_dir():
        raise FileNotFoundError(f"{root} is not an NPBench checkout (no bench_info/ folder)")
    kernels = []
    for path in sorted(info_dir.glob("*.json")):
        info = json.loads(path.read_text())["benchmark"]
        if PRESET not in info.get("parameters", {}):
            continue
        kernels.append(Kernel(
            name=info.get("short_name", path.stem),
            folder=root / "npbench" / "benchmarks" / info["relative_path"],
            module=info["module_name"], func=info["func_name"],
            params=dict(info["parameters"][PRESET]), init=info.get("init") or None,
            input_args=tuple(info["input_args"]), array_args=tuple(info.get("array_args", ())),
            output_args=tuple(info.get("output_args", ())),
            rtol=info.get("rtol", 1e-5), atol=info.get("atol", 1e-8),
            norm_error=info.get("norm_error", 1e-5)))
    return sorted(kernels, key=lambda k: k.name)


# --------------------------------------------------------------------------- loading
def rewrite_numpy_import(source: str, module: str = "graphc.numpy") -> str:
    """``source`` with each ``import numpy as np`` line importing ``module`` instead."""
    new, count = NUMPY_IMPORT.subn(lambda m: f"{m['indent']}import {module} as np", source)
    if not count:
        raise ImportError("the kernel has no 'import numpy as np' line to redirect")
    return new


def load_module(path: Path, name: str, numpy_module: str | None = None) -> types.ModuleType:
    """Execute the file at ``path`` as a fresh module called ``name``.

    With ``numpy_module`` its ``import numpy as np`` imports that module instead. The code
    is compiled under the file's real path, so tracebacks and AutoGraph (which reads a
    function's source through ``linecache``) see the original file; nothing is written to
    the checkout (no ``__pycache__``).
    """
    source = path.read_text()
    if numpy_module is not None:
        source = rewrite_numpy_import(source, numpy_module)
    module = types.ModuleType(name)
    module.__file__ = str(path)
    sys.modules[name] = module  # some tools look functions' modules up by name
    exec(compile(source, str(path), "exec"), module.__dict__)  # noqa: S102 - the user's kernel
    return module


def make_inputs(kernel: Kernel) -> dict:
    """The kernel's data at the preset: parameters plus what NPBench's init returns."""
    data = dict(kernel.params)
    if kernel.init:
        init_mod = load_module(kernel.folder / f"{kernel.module}.py",
                               f"_npbench_init_{kernel.name}")
        init = getattr(init_mod, kernel.init["func_name"])
        out = init(*[data[a] for a in kernel.init["input_args"]])
        names = kernel.init["output_args"]
        if len(names) == 1:
            out = (out,)
        data.update(zip(names, out, strict=True))
    return data


def call_args(kernel: Kernel, data: dict) -> list:
    """Positional arguments for one call: fresh copies of the arrays, the rest as given."""
    return [np.copy(data[a]) if a in kernel.array_args else data[a] for a in kernel.input_args]


# --------------------------------------------------------------------------- checking
def outputs(kernel: Kernel, result, args: list) -> list[tuple[str, object]]:
    """``(label, value)`` of everything a call produced: returned values, then array args."""
    if result is None:
        returned = []
    elif isinstance(result, (tuple, list)):
        returned = [(f"return[{i}]", v) for i, v in enumerate(result)]
    else:
        returned = [("return", result)]
    arrays = [(a, v) for a, v in zip(kernel.input_args, args, strict=True)
              if a in kernel.array_args]
    return returned + arrays


def compare(ref, val, rtol=1e-5, atol=1e-8, norm_error=1e-5) -> bool:
    """NPBench's validation rule for one output (its ``utilities.validate``).

    Equal when ``np.allclose(ref, val, rtol, atol)`` holds or, failing that, when the
    relative error ``||ref - val|| / ||ref||`` is below ``norm_error``. Shapes must match
    first (stricter than NPBench, whose ``allclose`` would broadcast).
    """
    ref, val = np.asarray(ref), np.asarray(val)
    if ref.shape != val.shape:
        return False
    if np.allclose(ref, val, rtol=rtol, atol=atol):
        return True
    with np.errstate(all="ignore"):
        rel = np.linalg.norm(ref - val) / np.linalg.norm(ref)
    return bool(rel < norm_error)


def mismatches(kernel: Kernel, ref: list, got: list) -> list[str]:
    """Labels of the outputs that differ (``[]`` when every one agrees)."""
    if [label for label, _ in ref] != [label for label, _ in got]:
        return [f"outputs {[label for label, _ in got]} instead of {[label for label, _ in ref]}"]
    bad = []
    for (label, r), (_, v) in zip(ref, got, strict=True):
        try:
            ok = compare(r, v, kernel.rtol, kernel.atol, kernel.norm_error)
        except Exception as e:  # noqa: BLE001 - an incomparable value is a wrong one
            ok, label = False, f"{label} ({type(e).__name__})"
        if not ok:
            bad.append(label)
    return bad


def unwritten(kernel: Kernel, data: dict, got: list, bad: list[str]) -> list[str]:
    """The differing array arguments that graphc left as they were before the call (the
    NumPy kernel wrote into them, e.g. with ``x += ...``, and the graphc one did not)."""
    values = dict(got)

    def same(a):
        try:
            return np.array_equal(np.asarray(values[a]), data[a], equal_nan=True)
        except TypeError:  # no NaN test for this dtype
            return np.array_equal(np.asarray(values[a]), data[a])

    return [a for a in bad if a in kernel.array_args and same(a)]


def error_record(e: BaseException) -> dict:
    """Exception type and the first line of its message."""
    lines = str(e).strip().splitlines()
    return {"error": type(e).__name__, "message": lines[0] if lines else ""}


# --------------------------------------------------------------------------- running
def _timed(fn, args) -> tuple[object, float]:
    t0 = perf_counter()
    out = fn(*args)
    return out, perf_counter() - t0


def interleaved_times(contenders: dict, reps: int, budget_s: float) -> dict:
    """Seconds of each call of each contender (``label: (fn, make_args)``; ``make_args()``
    makes fresh arguments, not timed), calls interleaved, up to ``reps`` rounds (at least
    two, or ``reps`` if fewer), stopping once ``budget_s`` is spent; GC paused."""
    times = {label: [] for label in contenders}
    start = perf_counter()
    was_enabled = _gc.isenabled()
    _gc.disable()
    try:
        for i in range(reps):
            for label, (fn, make_args) in contenders.items():
                times[label].append(_timed(fn, make_args())[1])
            if i + 1 >= min(2, reps) and perf_counter() - start > budget_s:
                break
    finally:
        if was_enabled:
            _gc.enable()
    return times


def steady_times(kernel, data, np_fn, gc_fn, reps: int, budget_s: float) -> tuple[float, float]:
    """Median seconds per call of NumPy and graphc, interleaved (``interleaved_times``)."""
    times = interleaved_times({"numpy": (np_fn, lambda: call_args(kernel, data)),
                               "graphc": (gc_fn, lambda: call_args(kernel, data))},
                              reps, budget_s)
    return statistics.median(times["numpy"]), statistics.median(times["graphc"])


def _first_call(kernel: Kernel, data: dict, ref: list, fn, record: dict, key: str) -> list:
    """Call ``fn`` on fresh arguments, store its seconds under ``record[key]`` (and the
    warning categories it raised under ``record["warnings"]``); the differing outputs."""
    args = call_args(kernel, data)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out, record[key] = _timed(fn, args)
    record["warnings"] = sorted({*record.get("warnings", ()),
                                 *(w.category.__name__ for w in caught)})
    got = outputs(kernel, out, args)
    bad = mismatches(kernel, ref, got)
    if bad:
        record.update(status="wrong", wrong=bad, unwritten=unwritten(kernel, data, got, bad))
    return bad


def graph_ops(fn, args) -> int | None:
    """Ops in the optimized graph ``fn`` traced for ``args`` (top level), if it has one."""
    try:
        return len(fn.get_concrete_function(*args).optimized_graph.nodes)
    except Exception:  # noqa: BLE001 - not a gc.function (tests), or no such trace
        return None


def run_kernel(kernel: Kernel, reps: int = 5, budget_s: float = 2.0, numpy_module="graphc.numpy",
               wrap=None, report=lambda record: None, max_ops: int | None = None,
               peers=()) -> dict:
    """Run ``kernel`` on NumPy and on ``numpy_module`` and return its record.

    graphc runs twice, each time from a fresh ``gc.function`` of the rewritten kernel:

    * check (stage ``graphc``): ``gc.function(fn, backend="numpy")``, trace + the reference
      interpreter, the first call's cost before anything compiles (``graphc_first_s``).
      Its outputs decide ``status``: ``pass``, ``wrong`` (``wrong``: the differing labels,
      ``unwritten``: those graphc left as they were) or ``error`` (``error``, ``message``);
      ``ops`` is the size of its optimized graph.
    * compile (stage ``compile``; skipped, ``compile: "skipped"``, when ``ops`` exceeds
      ``max_ops``): ``gc.function(fn)``, compiled at its first call under
      ``GRAPHC_JIT=eager`` (``compile_s``: trace + compile + run); checked again
      (``compiled: True`` when only these outputs differ), then timed against NumPy
      (``numpy_s``, ``graphc_s``).

    * peers (stage ``peers``): NPBench's own versions named in ``peers`` (``"Numba"``,
      ``"JAX"``), each compiled, checked and timed beside the compiled graphc kernel
      (``npbench_peers.run_peers``; ``record["peers"]``).

    ``wrap`` (tests) replaces both ``gc.function`` wrappers. ``report(record)`` is called
    at each new stage, so a watcher that kills us knows where we were; once the check
    passed the record says ``pass`` (a compile that never ends does not undo it).
    """
    record = {"kernel": kernel.name, "status": "error", "stage": "load"}

    def stage(name):
        record["stage"] = name
        report(record)

    try:
        stage("load")
        np_mod = load_module(kernel.numpy_file, f"_npbench_numpy_{kernel.name}")
        stage("init")
        data = make_inputs(kernel)
        stage("numpy")
        np_args = call_args(kernel, data)
        np_out, record["numpy_first_s"] = _timed(getattr(np_mod, kernel.func), np_args)
        ref = outputs(kernel, np_out, np_args)
        stage("graphc import")
        fn = getattr(load_module(kernel.numpy_file, f"_npbench_graphc_{kernel.name}",
                                 numpy_module), kernel.func)
        if wrap is None:
            import graphc as gc
            check_wrap, fast_wrap = (lambda f: gc.function(f, backend="numpy")), gc.function
        else:
            check_wrap = fast_wrap = wrap
        stage("graphc")
        check = check_wrap(fn)
        if _first_call(kernel, data, ref, check, record, "graphc_first_s"):
            return record
        record.update(status="pass", ops=graph_ops(check, call_args(kernel, data)))
        if max_ops is not None and (record["ops"] or 0) > max_ops:
            record["compile"] = "skipped"
            stage("done")
            return record
        stage("compile")
        fast = fast_wrap(fn)
        if _first_call(kernel, data, ref, fast, record, "compile_s"):
            record["compiled"] = True
            return record
        stage("timing")
        record["numpy_s"], record["graphc_s"] = steady_times(
            kernel, data, getattr(np_mod, kernel.func), fast, reps, budget_s)
        if peers:
            from benchmarks import npbench_peers

            stage("peers")
            npbench_peers.run_peers(sys.modules[__name__], kernel, data, ref, fast, record,
                                    report, reps, budget_s, peers)
        stage("done")
    except Exception as e:  # noqa: BLE001 - every failure is a row of the table
        record.update(status="error", **error_record(e))
    return record


def _write(path: str, record: dict) -> None:
    tmp = Path(path).with_suffix(".tmp")
    tmp.write_text(json.dumps(record))
    tmp.replace(path)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Run one NPBench kernel on NumPy and graphc.")
    parser.add_argument("root", help="NPBench checkout")
    parser.add_argument("name", help="the benchmark's short name (bench_info short_name)")
    parser.add_argument("--out", required=True, help="where to write the JSON record")
    parser.add_argument("--reps", type=int, default=5, help="most timed calls of each")
    parser.add_argument("--budget", type=float, default=2.0, help="seconds of timed calls")
    parser.add_argument("--max-ops", type=int, default=None,
                        help="do not compile graphs of more ops than this")
    parser.add_argument("--peers", type=lambda text: [p for p in text.split(",") if p],
                        default=[], help="NPBench's versions to time graphc against "
                        "(comma-separated: Numba,JAX)")
    args = parser.parse_args(argv)
    by_name = {k.name: k for k in discover(args.root)}
    if args.name not in by_name:
        parser.error(f"no benchmark {args.name!r} in {args.root}")
    record = run_kernel(by_name[args.name], args.reps, args.budget,
                        report=lambda r: _write(args.out, r), max_ops=args.max_ops,
                        peers=args.peers)
    _write(args.out, {**record, "finished": True})
    return 0


if __name__ == "__main__":
    sys.exit(main())
