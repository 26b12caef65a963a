"""Compiled programs saved as machine code and loaded without importing Numba.

When Numba compiles a program into the disk cache, graphc also writes the program's
object code and what is needed to call it (:mod:`native_build`)::

    numba/<tag>/g_<key>.native.o      the ELF object Numba's JIT made for the program
    numba/<tag>/g_<key>.native.json   its entry point's symbol name, its environments'
                                      (the program's and those of the functions linked
                                      into it) with their constants (dtypes), the
                                      argument types, the threading layer

Both are in the entry's manifest (``g_<key>.sums``) and pass the same checks as the rest
of the entry (owner, mode, sha256) before anything is read. A later process loads them
here: :mod:`native_runtime` sets up Numba's C helpers and an LLVM JIT engine without
``import numba``, every symbol the object leaves undefined is checked to resolve (else
the program loads through Numba as before), the object is linked, and Numba's own entry
point object is made for it (``_dynfunc.make_function``: the same Python-callable
wrapper Numba makes for a compiled function). So a fresh process runs a cached program
in ~20-30 ms instead of Numba's 0.2-0.5 s import and set-up (docs/runtime.md, "Fresh
process"). Only ELF objects (Linux) load this way; elsewhere programs load through Numba.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import struct
import sys
import types

import numpy as np

from graphc.runtime.cpu import cache_files as files
from graphc.runtime.cpu import native_runtime

FORMAT = 2
SUFFIXES = (".native.o", ".native.json")


def paths(directory: str, key: str) -> tuple[str, str]:
    """``(object, description)`` paths of a program's machine code."""
    return tuple(os.path.join(directory, f"g_{key}{s}") for s in SUFFIXES)


class NativeProgram:
    """A program linked from its saved machine code; called like the Numba dispatcher
    it was compiled as: arguments of another dtype, rank or layout raise TypeError
    (the caller retries with C-contiguous copies or runs the interpreter), as the
    dispatcher's type matching does for a program compiled for one signature."""

    origin = "disk"
    __slots__ = ("entry_point", "spec", "thread_controls", "__weakref__")

    def __init__(self, entry_point, spec, thread_controls):
        self.entry_point = entry_point
        self.spec = [(np.dtype(dt), ndim) for dt, ndim, _ro in spec]
        self.thread_controls = thread_controls

    def __call__(self, *args):
        if len(args) != len(self.spec):
            raise TypeError(f"the program takes {len(self.spec)} arguments, got {len(args)}")
        for i, (a, (dtype, ndim)) in enumerate(zip(args, self.spec)):
            if not (type(a) is np.ndarray and a.dtype == dtype and a.ndim == ndim
                    and a.flags.c_contiguous and a.dtype.isnative):
                raise TypeError(f"argument {i}: the program was compiled for a C-contiguous "
                                f"{dtype}[{ndim}-d] array")
        return self.entry_point(*args)


def load(directory: str, key: str, spec: list, digests: dict) -> NativeProgram | None:
    """The program ``key`` linked from its machine code, or None when it cannot be (no
    such files, another platform, a symbol nothing here provides, a threading layer
    that cannot start): the caller then loads it through Numba. ``digests``: the
    manifest's sha256 of each file, checked against the bytes actually read."""
    linked = _linked.get(key)
    if linked is not None and linked.spec == [(np.dtype(dt), nd) for dt, nd, _ro in spec]:
        return linked  # linked once per process (its code stays in the engine)
    obj_path, meta_path = paths(directory, key)
    try:
        meta = json.loads(_read(meta_path, digests))
        code = _read(obj_path, digests)
        if meta.get("format") != FORMAT or meta.get("spec") != spec:
            return None
        envs = [(name, [_const(c) for c in consts]) for name, consts in meta["envs"]]
        undefined = undefined_symbols(code)
        rt = native_runtime.runtime()
        with native_runtime._lock:
            if meta.get("layer") is not None:
                rt.start_layer(meta["layer"])
            if not all(rt.resolves(s) for s in undefined):
                return None
            program = _link(rt, key, code, meta, envs, spec)
            if program is not None:
                _linked[key] = program
            return program
    except Exception:  # noqa: BLE001 - any failure: the program loads through Numba
        return None


_linked: dict = {}  # key -> NativeProgram, every program linked in this process


def _link(rt, key, code, meta, envs, spec) -> NativeProgram | None:
    """Link the object and make its entry point; ``envs``: ``(symbol, constants)`` of
    the program's environment, then of the functions linked into it."""
    engine = rt.engine
    engine.add_object_file(rt.ll.ObjectFileRef.from_data(code))
    engine.finalize_object()
    fnptr = engine.get_function_address(meta["wrapper"])
    if not fnptr or not engine.get_global_value_address(envs[0][0]):
        return None
    module = sys.modules.get(f"graphc_program_{key}") or types.ModuleType(
        f"graphc_program_{key}", "graphc generated program (machine code)")
    made = []
    for name, consts in envs:
        address = engine.get_global_value_address(name)
        if address:  # (a callee's environment the object does not keep: never read)
            env = rt.dynfunc.Environment(module.__dict__)
            env.consts.extend(consts)
            ctypes.c_void_p.from_address(address).value = id(env)
            made.append(env)
    entry = rt.dynfunc.make_function(module, "program", f"graphc program {key}", fnptr,
                                     made[0], (engine, *made))
    controls = rt.thread_controls if meta.get("layer") is not None else None
    return NativeProgram(entry, spec, controls)


def _read(path: str, digests: dict) -> bytes:
    """The checked bytes of ``path`` whose sha256 is the one the manifest recorded."""
    data = files.read_checked(path)
    if hashlib.sha256(data).hexdigest() != digests.get(os.path.basename(path)):
        raise ValueError(f"{path}: not the bytes recorded in the manifest")
    return data


def _const(item):
    """One environment constant from its JSON form (``native_build.const``)."""
    kind, value = item
    if kind == "dtype":
        return np.dtype(value)
    if kind == "value" and (value is None or type(value) in (bool, int, float, str)):
        return value
    raise ValueError(f"unknown constant kind {kind!r}")


def undefined_symbols(code: bytes) -> list[str]:
    """The names a 64-bit little-endian ELF object refers to but does not define;
    ValueError for anything else (another object format: not loaded natively)."""
    if code[:4] != b"\x7fELF" or code[4:6] != b"\x02\x01":
        raise ValueError("not a 64-bit little-endian ELF object")
    (shoff,) = struct.unpack_from("<Q", code, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", code, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", code, shoff + i * shentsize)
                for i in range(shnum)]
    names = []
    for _name, kind, _flags, _addr, offset, size, link, _info, _align, entsize in sections:
        if kind != 2 or not entsize:  # SHT_SYMTAB
            continue
        strings = sections[link][4]
        for k in range(1, size // entsize):
            st_name, _i, _o, st_shndx, _v, _s = struct.unpack_from(
                "<IBBHQQ", code, offset + k * entsize)
            if st_shndx == 0 and st_name:  # SHN_UNDEF
                start = strings + st_name
                names.append(code[start:code.index(b"\0", start)].decode())
    return names
