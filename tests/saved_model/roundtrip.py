"""Round trips: save graphs here, load them in a fresh process without their source, and
compare every call with what the original computed.

``Recorder(root)`` saves cases under ``root``: ``case(name, fn, calls)`` saves ``fn``'s
traces (a ``gc.function`` or a ``ConcreteFunction``) to ``root/name``, then runs each
call on the original and keeps the arguments and results (``root/name.calls.json`` and
``.npz``; the state of variables at saving is what the loaded copy starts from, so the
calls run in the same order there). ``record_calls()`` is a context in which the first
call of every concrete function is saved that way; ``python roundtrip.py ROOT SCRIPT...``
runs scripts (the examples) that way in a process of their own and prints what it saved.
``check_in_fresh_process(root)`` runs one subprocess for all cases: it imports only
NumPy and graphc, loads each directory, repeats the calls through the loaded functions
and compares; it fails if any module of the tests or examples is imported there.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys

import numpy as np

import graphc as gc
from graphc import nest
from graphc.core import trace
from graphc.core.tensor import Tensor
from graphc.functions.concrete import ConcreteFunction

_SCALARS = (bool, int, float, str, type(None))


class Unsupported(Exception):
    """A call whose arguments or results this helper cannot write down."""


class Recorder:
    def __init__(self, root):
        self.root = os.fspath(root)
        self.names: list[str] = []
        self.skipped: dict[str, str] = {}

    def case(self, name, fn, calls) -> None:
        """Save ``fn`` to ``root/name``, then run and keep ``calls`` (tuples of args)."""
        if not isinstance(fn, ConcreteFunction) and not fn.concrete_functions():
            fn.get_concrete_function(*calls[0])
        gc.saved_model.save(fn, os.path.join(self.root, name))
        pyname = fn.name if isinstance(fn, ConcreteFunction) else fn.__name__
        entries, arrays = [], {}
        for k, args in enumerate(calls):
            flat = fn._function._bind(args, {}) if isinstance(fn, ConcreteFunction) \
                else tuple(args)
            encoded = [_encode(a, arrays, f"a{k}_{i}") for i, a in enumerate(flat)]
            result = fn(*args)
            leaves = nest.flatten(result)[0]
            out = [_encode(x, arrays, f"r{k}_{i}") for i, x in enumerate(leaves)]
            entries.append({"args": encoded, "results": out})
        self._write(name, pyname, entries, arrays)

    def _write(self, name, pyname, entries, arrays) -> None:
        with open(os.path.join(self.root, f"{name}.calls.json"), "w") as f:
            json.dump({"function": pyname, "calls": entries}, f)
        np.savez(os.path.join(self.root, f"{name}.calls.npz"), **arrays)
        self.names.append(name)

    @contextlib.contextmanager
    def record_calls(self, prefix):
        """Save the first call of every concrete function run inside (``prefix_k``)."""
        original = ConcreteFunction._call_bound
        seen: set = set()
        recorder = self

        def recording(cf, flat_args):
            if id(cf) in seen or trace.active():
                return original(cf, flat_args)
            seen.add(id(cf))
            name = f"{prefix}_{len(seen)}"
            arrays: dict = {}
            try:
                args = [_encode(a, arrays, f"a0_{i}") for i, a in enumerate(flat_args)]
                gc.saved_model.save(cf, os.path.join(recorder.root, name))
            except (Unsupported, gc.errors.SavedModelError) as e:
                recorder.skipped[name] = f"{cf.name}: {e}"
                return original(cf, flat_args)
            result = original(cf, flat_args)
            try:
                out = [_encode(x, arrays, f"r0_{i}")
                       for i, x in enumerate(nest.flatten(result)[0])]
            except Unsupported as e:
                recorder.skipped[name] = f"{cf.name}: {e}"
                return result
            recorder._write(name, cf.name, [{"args": args, "results": out}], arrays)
            return result

        ConcreteFunction._call_bound = recording
        try:
            yield
        finally:
            ConcreteFunction._call_bound = original


def _encode(x, arrays, key):
    """A call argument or result leaf as JSON (arrays go to ``arrays`` under ``key``)."""
    if isinstance(x, Tensor | np.ndarray):
        arrays[key] = np.asarray(x)
        return {"array": key}
    if type(x) in _SCALARS:
        return {"py": x}
    if type(x) in (list, tuple):
        return {type(x).__name__: [_encode(v, arrays, f"{key}_{i}")
                                   for i, v in enumerate(x)]}
    raise Unsupported(f"a {type(x).__name__} argument or result")


CHECK = r'''
import json, os, sys
import numpy as np
import graphc as gc
from graphc.runtime.cpu import numba_cpu
from graphc import nest
from graphc.core import trace
from graphc.functions.structured_signature import split_call  # parameters -> (args, kwargs)

numba_cpu.settings.mode = "off"  # the interpreter: what is compared is the graph
root, names = sys.argv[1], sys.argv[2:]
failures = []

def decode(e, arrays):
    if "array" in e:
        return arrays[e["array"]]
    if "py" in e:
        return e["py"]
    (kind, items), = e.items()
    vals = [decode(v, arrays) for v in items]
    return vals if kind == "list" else tuple(vals)

for name in names:
    try:
        m = gc.saved_model.load(os.path.join(root, name))
        with open(os.path.join(root, name + ".calls.json")) as f:
            spec = json.load(f)
        with np.load(os.path.join(root, name + ".calls.npz"), allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
        fn = m.functions[spec["function"]]
        params = fn.concrete_functions()[0]._function._params
        for k, call in enumerate(spec["calls"]):
            args, kwargs = split_call(params, [decode(a, arrays) for a in call["args"]])
            got = nest.flatten(fn(*args, **kwargs))[0]
            want = [decode(r, arrays) for r in call["results"]]
            assert len(got) == len(want), f"{len(got)} results, saved {len(want)}"
            for i, (g, w) in enumerate(zip(got, want)):
                if isinstance(w, np.ndarray):
                    g = np.asarray(g)
                    assert g.dtype == w.dtype and g.shape == w.shape, (i, g.dtype, g.shape,
                                                                       w.dtype, w.shape)
                    np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6, equal_nan=True,
                                               err_msg=f"call {k} result {i}")
                else:
                    assert g == w, (k, i, g, w)
    except Exception as e:
        failures.append(f"{name}: {type(e).__name__}: {e}"[:1500])

sources = [n for n, mod in sys.modules.items()
           if any(part in (getattr(mod, "__file__", None) or "") for part in
                  (os.sep + "tests" + os.sep, os.sep + "examples" + os.sep))]
if sources:
    failures.append(f"modules of the tests or examples were imported: {sources}")
print(json.dumps({"checked": len(names), "failures": failures}))
'''


def check_in_fresh_process(root, names) -> dict:
    """Load and call every case in one fresh process; its report."""
    env = {**os.environ, "GRAPHC_CACHE_DIR": os.path.join(os.fspath(root), "_cache")}
    res = subprocess.run([sys.executable, "-c", CHECK, os.fspath(root), *names],
                         capture_output=True, text=True, timeout=300, env=env,
                         cwd=os.fspath(root))
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


def record_scripts(root, scripts) -> dict:
    """Run each script as ``__main__`` (interpreter only, output discarded) recording the
    first call of each concrete function; ``{"names": [...], "skipped": {...}}``."""
    import io
    import runpy

    from graphc.runtime.cpu import numba_cpu

    numba_cpu.settings.mode = "off"  # as in the test suite: no compiles unless asked
    rec = Recorder(root)
    for script in scripts:
        stem = os.path.splitext(os.path.basename(script))[0]
        sys.argv = [script]  # as if run by itself (some examples read arguments)
        with rec.record_calls(stem), contextlib.redirect_stdout(io.StringIO()):
            try:
                runpy.run_path(script, run_name="__main__")
            except SystemExit as e:  # a script may end itself (an optional import missing)
                if e.code not in (0, None):
                    raise
    return {"names": rec.names, "skipped": rec.skipped}


def record_scripts_in_subprocess(root, scripts) -> dict:
    env = {**os.environ, "GRAPHC_CACHE_DIR": os.path.join(os.fspath(root), "_cache")}
    res = subprocess.run([sys.executable, __file__, os.fspath(root), *map(str, scripts)],
                         capture_output=True, text=True, timeout=300, env=env,
                         cwd=os.fspath(root))
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    print(json.dumps(record_scripts(sys.argv[1], sys.argv[2:])))
