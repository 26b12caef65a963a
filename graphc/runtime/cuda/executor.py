"""Runs a graph's generated CUDA program: ``Executor(arrays) -> list`` of device arrays.

The contract is the interpreter's (``interpreter.run_graph``): one array per graph input,
a list with one array per output; here inputs may be device arrays (used in place) or
host NumPy arrays (copied to the device), and outputs are device arrays shaped like the
graph's outputs. Data crosses the bus only at the graph's edges, for the predicate of a
``cond``/``while_loop`` (one scalar per test) and for nodes that run on the host.

Programs are cached per (source, device) for the process: the module is executed once,
which compiles every kernel for its explicit signature and configures its launch.
"""

from __future__ import annotations

import contextlib
import linecache
import threading
from collections import OrderedDict

import numpy as np

from graphc.core.interpreter import run_graph
from graphc.core.op_errors import kernel_error
from graphc.core.spec import shape_compatible
from graphc.ir.printer import node_signature
from graphc.passes.specialize import for_shapes
from graphc.runtime import fallback
from graphc.runtime.cuda import codegen, devmath, memory, target

_modules: dict = {}
_modules_lock = threading.Lock()


class _Ctx:
    """What one executor's program reads at run time besides its inputs."""

    __slots__ = ("consts", "host", "rechecks", "graph")

    def __init__(self, consts, host, rechecks, graph):
        self.consts, self.host, self.rechecks, self.graph = consts, host, rechecks, graph


class Executor:
    """One graph on CUDA device ``index``; ``backend`` is ``"cuda"`` when every node runs
    as a kernel, ``"cuda+host"`` when some run on the host, ``"host"`` when the whole
    graph does (``reasons`` says why; :meth:`explain`)."""

    def __init__(self, graph, index: int = 0, strict: bool = False, warn: bool = True):
        self.graph = graph
        self.index = index
        self.calls = 0
        try:
            self.program = codegen.generate(graph)
        except Exception as e:  # noqa: BLE001 - a generator bug must not break the call
            why = f"CUDA code generation failed: {type(e).__name__}: {e}"
            self.program = codegen.Program(whole_host=why, reasons=[why])
        self.reasons = list(self.program.reasons)
        self._program_fn = None
        if self.program.whole_host is None:
            try:
                self._program_fn = load(self.program, index)
            except Exception as e:  # noqa: BLE001 - reported; the host runs the graph
                first = (str(e).strip().splitlines() or [""])[0]
                self.reasons = [f"numba.cuda could not compile the program: "
                                f"{type(e).__name__}: {first}"]
        self.warned: set = set()
        if self.reasons and (warn or strict):
            fallback.report(graph.name, self.items(), strict, self.warned,
                            self._program_fn is not None)
        self._ctx = None
        if self._program_fn is not None:
            with target.cuda().gpus[index]:
                consts = [target.to_device_flat(c, c.dtype) for c in self.program.consts]
            self._ctx = _Ctx(consts, self.program.host_nodes, self.program.rechecks, graph)
        self._shapes = [tuple(v.aval.shape) for v in graph.outputs]
        # entering a device context costs a few microseconds a call: only with several GPUs
        gpus = target.cuda().gpus
        self._gpu = gpus[index] if len(gpus) > 1 else contextlib.nullcontext()
        if target.simulator():  # its launches swap module-wide state: one at a time
            self._gpu = _SIMULATOR_LAUNCH

    @property
    def backend(self) -> str:
        if self._program_fn is None:
            return "host"
        return "cuda+host" if self.program.host_nodes else "cuda"

    def items(self) -> list:
        """Why nodes run on the host, in the user's terms (``fallback.Item`` s)."""
        blocked = self.program.blocked if self._program_fn is not None else []
        return fallback.items_for(self.graph, blocked, self.reasons, self.program)

    def __call__(self, arrays):
        self.calls += 1
        avals = [v.aval for v in self.graph.inputs]
        if len(arrays) != len(avals):
            raise TypeError(f"graph {self.graph.name!r} takes {len(avals)} inputs, got "
                            f"{len(arrays)}")
        with self._gpu:
            if self._program_fn is None:
                host = [_host_input(a, v, i) for i, (a, v) in enumerate(zip(arrays, avals))]
                outs = run_graph(self.graph, host)
                return [target.cuda().to_device(np.array(o, order="C")) for o in outs]
            flat = [_device_input(a, v, i) for i, (a, v) in enumerate(zip(arrays, avals))]
            outs = self._program_fn(self._ctx, *flat)
            return [target.shaped(o, s) for o, s in zip(outs, self._shapes)]

    def explain(self) -> str:
        """A few lines on how this graph runs on the GPU and why."""
        src = self.program.source.split(f"def {codegen.FN_NAME}(", 1)[-1]
        syncs = src.count("_pred(") + src.count("_index(")
        lines = [f"backend: {self.backend} (device cuda:{self.index})",
                 f"kernels: {len(self.program.kernels)}"]
        if syncs:
            lines.append(f"device-to-host scalar copies (synchronizations) in the program: "
                         f"{syncs}" + (", those in a while loop once per iteration"
                                       if "while True:" in src else ""))
        if self.reasons:
            lines += fallback.explain_lines(self.items())
        return "\n".join(lines)


class Specializing:
    """A graph traced with unknown dims (``input_signature`` with ``None``,
    ``reduce_retracing``): kernels need static shapes, so each call's input shapes get
    their own :class:`Executor` on the graph specialized to them and optimized again
    (``graphc.passes.specialize``); the last ``MAX_SHAPES`` are kept. Only the first
    specialization reports fallbacks (one ``FallbackWarning`` per executor, as a CPU
    graph); ``explain`` and ``backend`` describe the latest call's."""

    MAX_SHAPES = 16

    def __init__(self, graph, index: int = 0, strict: bool = False):
        self.graph, self.index, self.strict = graph, index, strict
        self._avals = [v.aval for v in graph.inputs]
        self._by_shapes: OrderedDict = OrderedDict()
        self._lock = threading.Lock()
        self._latest = None

    def _executor(self, shapes) -> Executor:
        with self._lock:
            ex = self._by_shapes.get(shapes)
            if ex is None:
                ex = Executor(for_shapes(self.graph, shapes), self.index, strict=self.strict,
                              warn=not self._by_shapes and self._latest is None)
                self._by_shapes[shapes] = ex
                if len(self._by_shapes) > self.MAX_SHAPES:
                    self._by_shapes.popitem(last=False)
            else:
                self._by_shapes.move_to_end(shapes)
            self._latest = ex
            return ex

    def __call__(self, arrays):
        if len(arrays) != len(self._avals):
            raise TypeError(f"graph {self.graph.name!r} takes {len(self._avals)} inputs, "
                            f"got {len(arrays)}")
        for i, (a, aval) in enumerate(zip(arrays, self._avals)):
            arr = a if is_device_array(a) else np.asarray(a)
            _check(arr.shape, arr.dtype, aval, i)
        return self._executor(tuple(tuple(a.shape) for a in arrays))(arrays)

    @property
    def backend(self) -> str:
        return self._latest.backend if self._latest is not None else "cuda"

    @property
    def reasons(self) -> list:
        return self._latest.reasons if self._latest is not None else []

    def explain(self) -> str:
        head = (f"traced with unknown dims: one program per call shape "
                f"({len(self._by_shapes)} so far, the last {self.MAX_SHAPES} kept)")
        if self._latest is None:
            return f"backend: cuda (device cuda:{self.index}), not called yet\n{head}"
        return self._latest.explain() + "\n" + head


def _check(shape, dtype, aval, i) -> None:
    if not shape_compatible(aval.shape, tuple(shape)) or np.dtype(dtype) != aval.dtype:
        raise ValueError(f"input {i} is {np.dtype(dtype).name}{list(shape)} but the graph "
                         f"was traced for {aval}: call the function with matching arguments")


def _device_input(a, aval, i):
    if is_device_array(a):
        _check(a.shape, a.dtype, aval, i)
        return target.flat(a)
    arr = np.asarray(a)
    _check(arr.shape, arr.dtype, aval, i)
    return target.to_device_flat(arr, aval.dtype)


def _host_input(a, aval, i):
    arr = a.copy_to_host() if is_device_array(a) else np.asarray(a)
    _check(arr.shape, arr.dtype, aval, i)
    return arr


def is_device_array(x) -> bool:
    return isinstance(x, target.device_array_types())


def load(program, index: int):
    """The ``program`` function of ``program.source`` for device ``index`` (executed once
    per process and device: that compiles and configures every kernel)."""
    key = (program.source, index)
    fn = _modules.get(key)
    if fn is not None:
        return fn
    with _modules_lock:
        fn = _modules.get(key)
        if fn is None:
            fn = _modules[key] = _exec(program.source, index)
    return fn


# Numba's CUDA simulator runs a launch by swapping module-wide state (the ``cuda``
# module its kernels see, each thread's block and thread index): two threads launching
# at once break each other, so under the simulator every program runs holding this.
_SIMULATOR_LAUNCH = threading.RLock()


def _exec(source: str, index: int):
    import numba  # deferred: imports Numba

    cuda = target.cuda()
    filename = f"<graphc-cuda-{abs(hash(source)):x}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    ns = {"cuda": cuda, "numba": numba, "_kernel": target.kernel_decorator(),
          "_empty": memory.empty, "_host": _host,
          "_pred": _pred, "_index": _index, "_flag": _flag, "_recheck": _recheck,
          **devmath.namespaces(target.simulator())}
    with cuda.gpus[index]:
        exec(compile(source, filename, "exec"), ns)  # noqa: S102 - our own generated code
    return ns[codegen.FN_NAME]


def _pred(x) -> bool:
    """A device scalar's truth on the host (one device-to-host copy: a synchronization)."""
    return bool(x.copy_to_host()[0])


def _index(x) -> int:
    """A device integer scalar on the host (one device-to-host copy)."""
    return int(x.copy_to_host()[0])


def _flag():
    """A zeroed one-element int32 device array a kernel sets when an index is bad."""
    return target.cuda().to_device(np.zeros(1, np.int32))


def _recheck(ctx, k, args):
    """A kernel flagged a bad index: run the node on the host, which raises the
    interpreter's error for it."""
    _run_on_host(ctx.graph, ctx.rechecks[k], args)
    raise AssertionError(f"the CUDA kernel of {ctx.rechecks[k].op.name} flagged a bad "
                         "index that NumPy accepts (a graphc bug: please report it)")


def _host(ctx, k, args):
    """Run host node ``k`` on NumPy copies of its operands; its results back on the device."""
    node = ctx.host[k]
    results = _run_on_host(ctx.graph, node, args)
    return tuple(target.to_device_flat(r, v.aval.dtype) for r, v in zip(results, node.outputs))


def _run_on_host(graph, node, args) -> list:
    """``node``'s op on host copies of ``args``; errors name the node and the user's line."""
    arrays = [target.to_host(a, v.aval.shape) for a, v in zip(args, node.inputs)]
    try:
        result = node.op.ref(*arrays, **(node.attrs or {}))
    except Exception as e:  # noqa: BLE001 - re-raised with the node and the user's line
        where = f" (while executing {node_signature(graph, node)}"
        where += f", traced at {node.src})" if node.src else ")"
        wrapped = kernel_error(node.op, e, arrays, where)
        if wrapped is e:
            raise
        raise wrapped from None
    return result if node.op.multiple_results else [result]
