"""An experiment for the ``latency`` table: what a fresh process would need to run a
compiled program without importing Numba (issue 17, item 4).

The sigmoid loop is compiled once here by Numba as a C-callable function (``cfunc``:
pointers and a length, no Python objects), its LLVM module emitted as a
position-independent object by llvmlite and linked into a shared library with the system
C compiler; a fresh process then loads it with ``ctypes`` and calls it on NumPy arrays
it allocated itself. Three of Numba's runtime functions the module refers to on paths this
loop never takes (the GIL around an exception, an NRT destructor) get trapping stand-ins:
a real implementation would need its own small runtime for them (see docs/runtime.md).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from time import perf_counter

_STUBS = """
void NRT_MemInfo_call_dtor(void *mi) { __builtin_trap(); }
int numba_gil_ensure(void *s) { __builtin_trap(); }
void numba_gil_release(void *s) { __builtin_trap(); }
"""

_LOAD = r"""
import ctypes, json, sys, time
import numpy as np
t0 = time.perf_counter()
lib = ctypes.CDLL(sys.argv[1])
f = lib[sys.argv[2]]
f.restype = None
f.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_ssize_t]
x = np.linspace(-3, 3, 1000).astype(np.float32)
out = np.empty_like(x)
f(x.ctypes.data, out.ctypes.data, x.size)
t = time.perf_counter() - t0
err = float(np.abs(out - 1 / (1 + np.exp(-x))).max())
print(json.dumps({"small": t, "err": err, "numba": "numba" in sys.modules}))
"""


def _build(directory: str) -> tuple[str, str]:
    """``(library path, symbol)`` of the sigmoid loop compiled ahead of time."""
    import llvmlite.binding as ll
    import numpy as np
    from numba import carray, cfunc, types

    sig = types.void(types.CPointer(types.float32), types.CPointer(types.float32), types.intp)

    @cfunc(sig, error_model="numpy")
    def sigmoid(x, out, n):
        xa, oa = carray(x, (n,)), carray(out, (n,))
        for i in range(n):
            oa[i] = np.float32(1.0) / (np.float32(1.0) + np.exp(-xa[i]))

    machine = ll.Target.from_default_triple().create_target_machine(
        cpu=ll.get_host_cpu_name(), features=ll.get_host_cpu_features().flatten(), opt=3,
        reloc="pic", codemodel="default")
    obj = os.path.join(directory, "sigmoid.o")
    with open(obj, "wb") as f:
        f.write(machine.emit_object(ll.parse_assembly(sigmoid._library.get_llvm_str())))
    stubs = os.path.join(directory, "stubs.c")
    with open(stubs, "w") as f:
        f.write(_STUBS)
    lib = os.path.join(directory, "libsigmoid.so")
    subprocess.run([shutil.which("cc") or "cc", "-shared", "-fPIC", "-o", lib, obj, stubs,
                    "-lm"], check=True, capture_output=True)
    return lib, sigmoid.native_name


def runs(reps: int, env: dict) -> list[dict] | str:
    """Fresh-process loads of the library (seconds from after ``import numpy`` to the
    first result), or why the experiment could not run here."""
    if shutil.which("cc") is None:
        return "no C compiler (cc) to link the object"
    directory = tempfile.mkdtemp()
    try:
        try:
            lib, name = _build(directory)
        except Exception as e:  # noqa: BLE001 - an experiment: report, do not fail the table
            return f"could not build the object: {type(e).__name__}: {e}"
        out = []
        for _ in range(reps):
            t0 = perf_counter()
            res = subprocess.run([sys.executable, "-c", _LOAD, lib, name], env=env,
                                 capture_output=True, text=True, check=True)
            out.append({**json.loads(res.stdout.strip().splitlines()[-1]),
                        "wall": perf_counter() - t0})
        return out
    finally:
        shutil.rmtree(directory, ignore_errors=True)
