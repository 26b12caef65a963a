"""Writing a compiled program's machine code beside its cache entry (read by :mod:`native`).

Called with Numba imported, after it compiled (or loaded) the program. A program whose
environment holds constants other than dtypes and plain scalars is not written (it
loads through Numba, as before); so is anything on a platform whose objects are not ELF.
"""

from __future__ import annotations

import json

import numpy as np

from graphc.runtime.cpu import native, native_runtime


def describe(dispatcher, spec: list, parallel: bool) -> tuple[bytes, bytes] | None:
    """``(object code, description)`` of a one-signature dispatcher, or None when the
    program cannot be loaded natively later."""
    (sig,) = dispatcher.signatures
    cres = dispatcher.overloads[sig]
    main = cres.target_context.get_env_name(cres.fndesc)
    try:
        # the program's environment first, then those of the functions linked into it,
        # which Numba also sets when it loads a program from its cache
        envs = {main: [const(c) for c in cres.environment.consts]}
        for env in cres._find_referenced_environments():
            if env.env_name not in envs:
                envs[env.env_name] = [const(c) for c in env.consts]
    except (ValueError, AttributeError):  # a constant not saved natively; another Numba
        return None
    _name, kind, data = cres.library.serialize_using_object_code()
    if kind != "object":
        return None
    code = data[0]
    try:
        native.undefined_symbols(code)
    except ValueError:  # not ELF
        return None
    layer = None
    if parallel:
        from numba.np.ufunc import parallel as numba_parallel  # deferred: imports Numba

        layer = numba_parallel._threading_layer
        if layer not in native_runtime.LAYERS:
            return None
    meta = {"format": native.FORMAT,
            "wrapper": cres.fndesc.llvm_cpython_wrapper_name,
            "envs": [[name, consts] for name, consts in envs.items()],
            "spec": spec, "layer": layer}
    return code, json.dumps(meta, indent=1).encode()


def const(value) -> list:
    """An environment constant in JSON form; ValueError for one :mod:`native` cannot
    rebuild without unpickling."""
    if isinstance(value, np.dtype) and value.fields is None and not value.hasobject:
        return ["dtype", value.str]
    if value is None or type(value) in (bool, int, float, str):
        return ["value", value]
    raise ValueError(f"constant {type(value).__name__} is not saved natively")
