"""Eager ops on the device: one op as a one-node graph, its executor cached by signature.

``run_op(opdef, attrs, arrays)`` traces ``opdef`` once on symbolic inputs shaped like the
device arrays, and keeps the CUDA executor for that (op, attrs, shapes, dtypes): the next
call with the same signature launches the already configured kernel. Attrs that cannot
be hashed (a subgraph, a list) still run, without the cache.
"""

from __future__ import annotations

import threading

import numpy as np

from graphc.core.registry import bind
from graphc.core.tensor import _symbolic
from graphc.core.trace import TraceContext, freeze
from graphc.ir.graph import Aval
from graphc.runtime.cuda.executor import Executor

_cache: dict = {}
_lock = threading.Lock()
MAX_ENTRIES = 4096


def run_op(opdef, attrs, arrays):
    """``opdef(*arrays, **attrs)`` on the device holding ``arrays``; device array(s)."""
    index = _device_index(arrays)
    avals = tuple((tuple(a.shape), np.dtype(a.dtype).str) for a in arrays)
    try:
        key = (opdef.name, freeze(dict(attrs or {})), avals, index)
        hash(key)
    except TypeError:
        key = None
    ex = _cache.get(key) if key is not None else None
    if ex is None:
        ex = _executor(opdef, attrs or {}, arrays, index)
        if key is not None:
            with _lock:
                if len(_cache) >= MAX_ENTRIES:
                    _cache.clear()
                _cache[key] = ex
    outs = ex(list(arrays))
    return outs if opdef.multiple_results else outs[0]


def _executor(opdef, attrs, arrays, index):
    with TraceContext(f"eager_{opdef.name}") as ctx:
        syms = [_symbolic(ctx.new_input(Aval(tuple(a.shape), a.dtype))) for a in arrays]
        out = bind(opdef, *syms, **attrs)
        results = out if isinstance(out, list) else [out]
    graph = ctx.finish([r._sym for r in results])
    return Executor(graph, index, warn=False)


def _device_index(arrays) -> int:
    """The GPU the operands live on (numba-cuda: each array's memory pointer knows its
    context); 0 for the simulator's arrays or when no operand says."""
    for a in arrays:
        context = getattr(getattr(a, "gpu_data", None), "context", None)
        device = getattr(context, "device", None)
        if device is not None:
            return int(device.id)
    return 0
