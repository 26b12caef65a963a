"""The names CUDA kernels call: ``np``, ``H`` and ``V`` as the shared scalar templates use them.

The templates of ``graphc/runtime/scalar_templates.py`` call ``np.floor(x)``,
``H.clip(x, lo, hi)``, ``V.exp_f32(x)`` and so on. On the CPU those are NumPy's scalar
ufuncs, ``numba_helpers`` and ``vmath*.py``. numba-cuda lowers only some NumPy ufuncs
on scalars (0.30: no ``floor``, ``rint``, ``trunc``, ``sqrt``, ``cbrt``, ``exp2``,
``log1p``, ``isinf``, ``isfinite``, ``copysign``...), so for a real GPU:

* ``np`` is a module holding NumPy's names, except that those ufuncs are stubs whose
  CUDA overloads call libdevice (``floorf`` for float32, ``floor`` for float64);
* ``V`` holds the *same* vmath functions, rebuilt from their Python code with ``np``
  rebound to that module in their globals (and their callees rebuilt likewise), so the
  GPU runs the code the CPU runs; numba-cuda compiles ``numba.njit`` functions called
  from a kernel as device functions (the bit casts and FMA intrinsics lower to PTX);
* ``H`` is ``runtime/numba_helpers`` (its scalar helpers compile as device functions too).
* vmath's own LLVM intrinsics that NVVM cannot lower (``ldexp_f32`` is ``llvm.ldexp``,
  ``rint_i32`` is ``llvm.lrint``: left in the PTX as calls to undefined functions, which
  the GPU's PTX assembler rejects) are replaced, in the rebuilt functions' globals, by
  libdevice's ``ldexpf`` and ``float2int_rn``, which compute the same values.

Under the simulator (``NUMBA_ENABLE_CUDASIM=1``) kernels are plain Python: ``np`` is
NumPy, ``V`` and ``H`` the CPU modules. Only the CUDA executor imports this module.
"""

from __future__ import annotations

import math
import types as pytypes

import numpy as np

# ufuncs the templates or vmath call that numba-cuda has no scalar lowering for:
# name -> (libdevice float32 function, float64 function)
_UNARY = {
    "floor": ("floorf", "floor"), "ceil": ("ceilf", "ceil"), "trunc": ("truncf", "trunc"),
    "rint": ("rintf", "rint"), "sqrt": ("sqrtf", "sqrt"), "cbrt": ("cbrtf", "cbrt"),
    "exp2": ("exp2f", "exp2"), "log1p": ("log1pf", "log1p"), "log": ("logf", "log"),
    "exp": ("expf", "exp"), "log10": ("log10f", "log10"), "log2": ("log2f", "log2"),
    "arccosh": ("acoshf", "acosh"), "arctanh": ("atanhf", "atanh"),
    "arcsin": ("asinf", "asin"), "arccos": ("acosf", "acos"),
}
_CLASSIFY = {"isinf": ("isinff", "isinfd", False), "isfinite": ("finitef", "isfinited", True)}


def namespaces(simulator: bool) -> dict:
    """``{"np": ..., "H": ..., "V": ..., "math": ...}`` for a generated CUDA module."""
    from graphc.runtime import numba_helpers, vmath  # deferred: both import Numba

    if simulator:
        return {"np": np, "H": numba_helpers, "V": vmath, "math": math}
    return {"np": _np_module(), "H": numba_helpers, "V": _vmath_module(), "math": math}


_cache: dict = {}


def _np_module():
    mod = _cache.get("np")
    if mod is None:
        mod = _cache["np"] = _build_np()
    return mod


def _build_np():
    from numba.core import types  # deferred: imports Numba
    from numba.cuda import libdevice  # deferred: imports numba.cuda
    from numba.cuda.extending import overload  # deferred: imports numba.cuda

    mod = pytypes.ModuleType("graphc_cuda_np")
    for k in dir(np):
        if not k.startswith("__"):
            setattr(mod, k, getattr(np, k))

    def stub(name):
        def fn(*args):
            raise NotImplementedError(f"np.{name} is a CUDA device stub")
        fn.__name__ = name
        setattr(mod, name, fn)
        return fn

    for name, (f32, f64) in _UNARY.items():
        overload(stub(name), target="cuda")(
            _unary(getattr(libdevice, f32), getattr(libdevice, f64)))
    for name, (f32, f64, for_ints) in _CLASSIFY.items():
        overload(stub(name), target="cuda")(
            _classify(getattr(libdevice, f32), getattr(libdevice, f64), for_ints))

    @overload(stub("copysign"), target="cuda")
    def _copysign(a, b):
        if a == types.float32 and b == types.float32:
            return lambda a, b: libdevice.copysignf(a, b)
        return lambda a, b: libdevice.copysign(np.float64(a), np.float64(b))

    return mod


def _unary(lo, hi):
    """The overload of a float function: ``lo`` on float32, ``hi`` on anything else."""
    from numba.core import types  # deferred: imports Numba

    def typer(x):
        if x == types.float32:
            return lambda x: lo(x)
        if isinstance(x, (types.Float, types.Integer, types.Boolean)):
            return lambda x: hi(np.float64(x))
        return None
    return typer


def _classify(lo, hi, for_ints):
    """The overload of ``isinf``/``isfinite`` (libdevice returns an int)."""
    from numba.core import types  # deferred: imports Numba

    def typer(x):
        if x == types.float32:
            return lambda x: lo(x) != 0
        if isinstance(x, types.Float):
            return lambda x: hi(x) != 0
        if isinstance(x, (types.Integer, types.Boolean)):
            return lambda x: for_ints
        return None
    return typer


def _device_intrinsics() -> dict:
    """CUDA versions of vmath_base's intrinsics that NVVM has no lowering for."""
    out = _cache.get("intrinsics")
    if out is None:
        import numba  # deferred: imports Numba
        from numba.cuda import libdevice  # deferred: imports numba.cuda

        def ldexp_f32(x, n):
            return libdevice.ldexpf(x, n)

        def rint_i32(x):
            return libdevice.float2int_rn(x)  # round half to even, as llvm.lrint

        out = _cache["intrinsics"] = {f.__name__: numba.njit(inline="always")(f)
                                      for f in (ldexp_f32, rint_i32)}
    return out


def _vmath_module():
    mod = _cache.get("V")
    if mod is not None:
        return mod
    from graphc.runtime import vmath  # deferred: imports Numba

    mod = pytypes.ModuleType("graphc_cuda_vmath")
    rebuilt: dict = {}
    for name in dir(vmath):
        if name.endswith(("_f32", "_f64")):
            setattr(mod, name, _rebuild(getattr(vmath, name), rebuilt, {}))
    _cache["V"] = mod
    return mod


def _rebuild(fn, rebuilt: dict, module_globals: dict):
    """``fn`` (a ``numba.njit`` function) compiled again from its Python code with ``np``
    rebound to the CUDA ``np`` module, its jitted callees rebuilt the same way."""
    from numba.core.registry import CPUDispatcher  # deferred: imports Numba

    if not isinstance(fn, CPUDispatcher):
        return fn
    if fn in rebuilt:
        return rebuilt[fn]
    import numba  # deferred: imports Numba

    py = fn.py_func
    g = module_globals.get(id(py.__globals__))
    if g is None:
        g = module_globals[id(py.__globals__)] = dict(py.__globals__, np=_np_module(),
                                                      **_device_intrinsics())
    new = pytypes.FunctionType(py.__code__, g, py.__name__, py.__defaults__, py.__closure__)
    rebuilt[fn] = out = numba.njit(inline="always")(new)
    for name in py.__code__.co_names:
        callee = py.__globals__.get(name)
        if isinstance(callee, CPUDispatcher):
            g[name] = _rebuild(callee, rebuilt, module_globals)
    return out
