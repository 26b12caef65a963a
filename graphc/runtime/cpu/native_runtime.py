"""What a program's machine code needs at run time, set up without importing Numba.

A compiled program is Numba's machine code: it calls Numba's C helpers (array boxing,
the reference-counted memory system NRT, exceptions), the Python C API, libm and, with
parallel loops, a threading layer. ``import numba`` costs 0.1-0.5 s (its typing and
lowering machinery); the helpers themselves are four small C extension modules. This
module loads those extensions directly from Numba's package directory (without running
``numba/__init__.py``), registers their functions under the names the machine code
refers to, exactly as Numba does at its own start, and keeps one LLVM JIT engine
(llvmlite, ~20 ms to import) that links the programs' object code in this process.

Sharing with Numba: the extension modules are the same shared objects Numba loads later
(CPython keeps one copy of an extension per file and name, so their C state, such as the
memory system and the threading layer, is shared), and every address registered here is
the one Numba registers. One difference is bridged: Numba's helper that rebuilds Python
objects embedded in machine code (``numba_unpickle``) imports ``numba.core.serialize``
the first time it runs, which would import all of Numba; it is primed once with a
module that does the same thing (:func:`_prime_unpickle`). :func:`hand_over` tells Numba
about a threading layer started here, when Numba is imported after it.
"""

from __future__ import annotations

import builtins
import ctypes
import glob
import importlib.machinery
import importlib.util
import os
import pickle
import sys
import threading
import types

from graphc import config
from graphc.runtime.cpu import thread_layer

# the threading layers a program may have been compiled against, by Numba's name
LAYERS = {"omp": "np/ufunc/omppool", "workqueue": "np/ufunc/workqueue"}
_LAYER_SYMBOLS = {"numba_parallel_for": "parallel_for"} | {
    name: name for name in ("do_scheduling_signed", "do_scheduling_unsigned",
                            "allocate_sched", "deallocate_sched", "get_num_threads",
                            "set_num_threads", "get_thread_id", "set_parallel_chunksize",
                            "get_parallel_chunksize", "get_sched_size")}

_lock = threading.RLock()
_runtime = None
_failed = None  # why the runtime could not be set up (not tried again)


class Unavailable(Exception):
    """The machine-code runtime cannot be set up here (why is the message)."""


def runtime() -> Runtime:
    """The process's runtime, set up on first use; :class:`Unavailable` if it cannot be."""
    global _runtime, _failed
    with _lock:
        if _runtime is None:
            if _failed is not None:
                raise Unavailable(_failed)
            try:
                _runtime = Runtime()
            except Exception as e:  # noqa: BLE001 - programs load through Numba
                _failed = f"{type(e).__name__}: {e}"
                raise Unavailable(_failed) from e
        return _runtime


def nrt_module():
    """Numba's memory-system extension (``numba.core.runtime._nrt_python``), from Numba
    when it is imported, else from the runtime here."""
    return sys.modules.get("numba.core.runtime._nrt_python") or runtime().nrt


class Runtime:
    """Numba's C helpers, their symbols registered, and one JIT engine."""

    def __init__(self):
        self.helperlib = self.extension("numba._helperlib", "_helperlib")
        self.dynfunc = self.extension("numba._dynfunc", "_dynfunc")
        self.nrt = self.extension("numba.core.runtime._nrt_python", "core/runtime/_nrt_python")
        import llvmlite.binding as ll  # deferred: imports llvmlite

        self.ll = ll
        ll.initialize_native_target()
        ll.initialize_native_asmprinter()
        self._register()
        self.nrt.memsys_use_cpython_allocator()  # as numba.core.runtime.nrt does at import
        machine = ll.Target.from_default_triple().create_target_machine(codemodel="jitdefault")
        self.engine = ll.create_mcjit_compiler(ll.parse_assembly(""), machine)
        self.layer = None         # (name, module) of the threading layer, once started
        self.thread_controls = None  # (get_num_threads, set_num_threads) of that layer
        _prime_unpickle(self.helperlib)

    def extension(self, name: str, relpath: str):
        """One of Numba's C extension modules (:func:`load_extension`)."""
        return load_extension(name, "numba", relpath)

    def _register(self) -> None:
        """The names Numba gives its helpers in machine code (its ``_load_global_helpers``,
        ``externals`` and ``rtsys.initialize``), each with the same address."""
        add = self.ll.add_symbol
        add("_Py_NoneStruct", id(None))
        for helpers in (self.helperlib.c_helpers, self.dynfunc.c_helpers):
            for name, address in helpers.items():
                add("numba_" + name, address)
        for obj in builtins.__dict__.values():
            if isinstance(obj, type) and issubclass(obj, BaseException):
                add("PyExc_" + obj.__name__, id(obj))
        for name, address in self.nrt.c_helpers.items():
            add(name if name.startswith("_") else "NRT_" + name, address)

    def resolves(self, symbol: str) -> bool:
        """Whether the JIT can link ``symbol``: registered above, or in this process
        (the Python C API, libm). A math function only Numba's helper table has is
        registered under its own name, as Numba's ``externals`` does."""
        if self.ll.address_of_symbol(symbol):
            return True
        address = self.helperlib.c_helpers.get(symbol)
        if address:
            self.ll.add_symbol(symbol, address)
            return True
        return False

    def start_layer(self, name: str) -> None:
        """Start threading layer ``name`` (``omp`` or ``workqueue``), the one the program
        was compiled with; Unavailable if another one runs or it cannot start."""
        if self.layer is not None:
            if self.layer[0] != name:
                raise Unavailable(f"threading layer {self.layer[0]} runs, not {name}")
            return
        numba_parallel = sys.modules.get("numba.np.ufunc.parallel")
        if numba_parallel is not None:  # Numba is here: its own layer, started by Numba
            if not getattr(numba_parallel, "_is_initialized", False):
                thread_layer.start_threads()
            if not getattr(numba_parallel, "_is_initialized", False):
                raise Unavailable("Numba's threading layer did not start")
            if numba_parallel._threading_layer != name:
                raise Unavailable(f"Numba runs threading layer "
                                  f"{numba_parallel._threading_layer}, not {name}")
            self.layer = (name, None)
            self.thread_controls = (numba_parallel._get_num_threads,
                                    numba_parallel._set_num_threads)
            return
        if name not in LAYERS or config.numba_threading_layer(name) not in (name, "default"):
            raise Unavailable(f"threading layer {name} is not one this loader starts")
        count = _thread_count()
        with thread_layer.passive_openmp():  # idle OpenMP threads sleep, as Numba's do
            lib = self.extension(f"numba.{LAYERS[name].replace('/', '.')}", LAYERS[name])
            ctypes.CFUNCTYPE(None, ctypes.c_int)(lib.launch_threads)(count)
        for symbol, attr in _LAYER_SYMBOLS.items():
            self.ll.add_symbol(symbol, getattr(lib, attr))
        set_threads = ctypes.CFUNCTYPE(None, ctypes.c_int)(lib.set_num_threads)
        set_threads(count)
        self.layer = (name, lib)
        self.thread_controls = (ctypes.CFUNCTYPE(ctypes.c_int)(lib.get_num_threads),
                                set_threads)


def load_extension(name: str, package: str, relpath: str):
    """The C extension module ``name`` from the file ``relpath.*`` in the installed
    ``package``, loaded without importing that package (``sys.modules``' one if it is
    imported already); CPython keeps one copy of an extension per file and name, so a
    later import of the package shares it. :class:`Unavailable` if there is no file."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise Unavailable(f"{package} is not installed")
    base = list(spec.submodule_search_locations)[0]
    found = sorted(glob.glob(os.path.join(base, relpath + ".*.so")) + glob.glob(
        os.path.join(base, relpath + ".*.pyd")))
    if len(found) != 1:
        raise Unavailable(f"the extension {name} was not found as one file")
    loader = importlib.machinery.ExtensionFileLoader(name, found[0])
    module = importlib.util.module_from_spec(
        importlib.util.spec_from_file_location(name, found[0], loader=loader))
    loader.exec_module(module)
    return module


def _thread_count() -> int:
    """Numba's default thread count (``NUMBA_NUM_THREADS``, else the usable CPUs)."""
    with_env = config.numba_num_threads()
    if with_env is not None:
        return with_env
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


def hand_over() -> None:
    """Called right after ``import numba``: if a threading layer was started here, mark
    Numba's own as started with it, so Numba never starts a second one."""
    rt = _runtime
    if rt is None or rt.layer is None or rt.layer[1] is None:
        return
    from numba.np.ufunc import parallel  # deferred: imports Numba

    with _lock:
        if not getattr(parallel, "_is_initialized", False):
            parallel._load_threading_functions(rt.layer[1])
            parallel._threading_layer = rt.layer[0]
            parallel._is_initialized = True


_memo: dict = {}


def _unpickle(address, data, hashed):
    """What ``numba.core.serialize._numba_unpickle`` does: the object pickled into the
    machine code at ``address``, unpickled once. The bytes come from program code that
    passed the cache's checks (its owner, mode and recorded digest) like the code
    itself, never from a data file."""
    key = (address, hashed)
    if key not in _memo:
        _memo[key] = pickle.loads(data)  # noqa: S301 - part of the verified machine code
    return _memo[key]


def _prime_unpickle(helperlib) -> None:
    """Have Numba's C helper ``numba_unpickle`` keep :func:`_unpickle` as its function.

    On its first run the helper imports ``numba.core.serialize`` (``PyImport_ImportModule``,
    which imports the package ``numba`` too) and keeps that module's function for good.
    Unless Numba is imported already, one call is made here with stand-in modules under
    those three names, removed right after, so the real ones import normally later.
    The window is kept from other threads: graphc's own imports of Numba wait for
    ``thread_layer.import_lock()``, and no other thread is switched in during it (a long switch
    interval, and nothing in it blocks).
    """
    names = ("numba", "numba.core", "numba.core.serialize")
    # PYFUNCTYPE: the call keeps the GIL (the helper runs Python code)
    call = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p)(
        helperlib.c_helpers["unpickle"])
    data = pickle.dumps(None)
    stand_ins = {n: types.ModuleType(n, "graphc's stand-in, present during one call")
                 for n in names}
    stand_ins["numba.core.serialize"]._numba_unpickle = _unpickle
    with thread_layer.import_lock():
        if any(n in sys.modules for n in names):
            return  # Numba (being) imported: its own function is the one kept
        interval = sys.getswitchinterval()
        sys.setswitchinterval(100.0)
        try:
            sys.modules.update(stand_ins)
            try:
                call(data, len(data), b"\0" * 20)
            finally:
                for n in names:
                    if sys.modules.get(n) is stand_ins[n]:
                        del sys.modules[n]
        finally:
            sys.setswitchinterval(interval)
