"""``ConcreteFunction``: one trace of a ``gc.function`` (one graph) and how to call it.

Threads: a ``ConcreteFunction`` may be called from several threads at once. Its executor
and optimized graphs are built once (double-checked under ``_lock``; the hot path reads
the built executor without locking), and a call of a graph that writes variables holds
those variables' locks for the whole call (``variable_guard``).
"""

from __future__ import annotations

import threading
import time

import numpy as np

from graphc import config, nest, source_info
from graphc.core import mutation
from graphc.core import placement as eager_placement
from graphc.core import trace as _trace
from graphc.core.device_scope import local as _scoped
from graphc.core.device_scope import placing as _placing
from graphc.core.device_tensor import DeviceTensor
from graphc.core.device_tensor import made as _made
from graphc.core.interpreter import run_graph
from graphc.core.tensor import Tensor, _eager, _symbolic
from graphc.core.trace import TraceContext
from graphc.functions import (
    concrete_call,
    outputs,
    owner,
    placement,
    structured_signature,
    variable_aliasing,
    write_back,
)
from graphc.functions.call_checks import (
    check_array_argument,
    check_not_lazy,
    check_unmodified,
    describe_spec,
    snapshot_arguments,
    variable_guard,
)
from graphc.functions.replay import replay
from graphc.functions.signature import TensorSpec
from graphc.ir import graph as ir
from graphc.ops.state import argument_input
from graphc.transforms import recording
from graphc.variables import Variable, VariableSpec

_state = config.state
_taping = recording.recording  # non-empty while a GradientTape records (any thread)
_open = _trace.open_contexts  # non-empty while a trace is open (any thread)
_new = object.__new__
_ndarray = np.ndarray
_TENSOR = object()  # an output template slot filled by a graph output (None is a value)


def _is_tensor_leaf(x) -> bool:
    """A leaf that becomes a graph input (a variable: a resource input, by reference)."""
    return isinstance(x, Tensor | np.ndarray | TensorSpec | Variable | VariableSpec)


def _leaf_array(x):
    """The run-time value fed for one input leaf: an array, or a variable's handle."""
    if type(x) is Tensor:
        return x._np
    if type(x) is DeviceTensor:
        return x  # kept: _call_bound runs the call on its device
    handle = getattr(x, "_graphc_handle", None)
    return np.asarray(x) if handle is None else handle


def trace_concrete(function, python_fn, names, params, args) -> "ConcreteFunction":
    """Trace ``python_fn`` on placeholders built from ``args`` (in parameter order)."""
    started = time.perf_counter()
    placeholders = []  # (input position, the argument's tensor, its graph input)
    ctx = TraceContext(function.__name__)
    ctx.function = function  # gc.Variable checks it: creating variables is first-trace-only
    ctx.captured = []  # eager tensors the body used: (tensor, contents when traced)
    input_names = {}
    structured = []
    call_args = []
    with ctx:
        for name, param, arg in zip(names, params, args):
            leaves, td = nest.flatten(arg)
            specs, symbols = [], []
            default_names = structured_signature.leaf_names(param, arg)
            for i, leaf in enumerate(leaves):
                if isinstance(leaf, Variable):
                    v = argument_input(ctx, leaf)
                    input_names[v.id] = name if td is None else f"{name} (leaf {i})"
                    specs.append(VariableSpec.from_variable(leaf, name=default_names[i]))
                    symbols.append(leaf)  # the body uses the variable; reads go via v
                elif _is_tensor_leaf(leaf):
                    if isinstance(leaf, np.ndarray):
                        check_array_argument(function, name, leaf)
                    own = leaf.name if isinstance(leaf, TensorSpec) else None
                    spec = TensorSpec(leaf.shape, leaf.dtype, name=own or default_names[i])
                    v = ctx.new_input(ir.Aval(spec.shape, spec.dtype))
                    input_names[v.id] = name if td is None else f"{name} (leaf {i})"
                    specs.append(spec)
                    symbols.append(_symbolic(v))
                    mutation.mark_placeholder(symbols[-1])
                    placeholders.append((len(ctx.inputs) - 1, symbols[-1], v))
                else:
                    specs.append(leaf)
                    symbols.append(leaf)
            structured.append(nest.unflatten(td, specs))
            call_args.append(nest.unflatten(td, symbols))
        ctx.input_names = input_names
        pos, kw = structured_signature.split_call(params, call_args)
        before = snapshot_arguments(call_args)
        result = python_fn(*pos, **kw)
        check_unmodified(function.__name__, names, call_args, before)
        check_not_lazy(function, python_fn, result)
        out_leaves, out_td = nest.flatten(result)
        values, template = [], []
        for leaf in out_leaves:   # tensors, arrays, variables: outputs.py
            v = outputs.graph_value(ctx, leaf)
            values += () if v is None else (v,)
            template.append(leaf if v is None else _TENSOR)
        # arguments the function wrote into: their final values are extra outputs, written
        # back into the caller's arrays after each call (NumPy semantics)
        writes = [(k, t) for k, t, v in placeholders if t._sym is not v]
        values += [ctx.value_of(t) for _, t in writes]
    graph = ctx.finish(values)
    concrete = ConcreteFunction(function, graph, names, tuple(structured), out_td, template)
    concrete._params = params  # how structured_input_signature lays them out
    if writes:
        concrete._writes = tuple(k for k, _ in writes)
        concrete._single = False  # the extra outputs: no one-tensor fast path
    concrete._captured = tuple(ctx.captured)
    concrete.trace_seconds, concrete.input_names = time.perf_counter() - started, input_names
    concrete._aliases = variable_aliasing.traced_pairs(args)
    return concrete


class ConcreteFunction:
    """One traced graph of a ``gc.function``, callable with matching tensors."""
    _function = owner.WeakOwner()  # the gc.function that traced it, held weakly

    def __init__(self, function, graph, names, structured, out_treedef, out_template):
        self._function = function
        self.graph = graph
        self._names = names
        self._structured = structured
        self._out_treedef = out_treedef
        self._out_template = out_template
        self._tensor_slots = [i for i, t in enumerate(out_template) if t is _TENSOR]
        # Python and NumPy numbers returned: a new tensor each call (outputs.py)
        self._literal_slots = [i for i, t in enumerate(out_template) if outputs.is_literal(t)]
        self._flat_inputs = all(_is_tensor_leaf(s) for s in structured)
        # Positions of tensor arguments when every argument is a tensor or a plain Python
        # value (no containers): the call path then skips flattening.
        if not self._flat_inputs and all(nest.flatten(s)[1] is None for s in structured):
            self._tensor_positions = [i for i, s in enumerate(structured)
                                      if _is_tensor_leaf(s)]
        else:
            self._tensor_positions = None
        self._optimized = {}  # optimizer options -> (graph, report)
        # input positions of arguments written into: their final values end the outputs
        self._writes = ()  # (``_write_back``)
        self._captured = ()  # eager tensors used as constants: (tensor, value when traced)
        self._single = (len(out_template) == 1 and out_treedef is None
                        and out_template[0] is _TENSOR)
        # a flat tuple of tensors: its length, wrapped without the template walk
        # (_wrap_outputs); 0 for any other structure
        self._tuple = len(out_template) if (
            out_treedef is not None and out_treedef[0] is tuple
            and all(c is None for c in out_treedef[1])
            and all(t is _TENSOR for t in out_template)) else 0
        self._executor = None  # arrays -> arrays, built on first call
        self._executor_version = -1  # config.state.optimizer_version it was built under
        self._hot = None  # array -> array for one input and output, where the executor
        # has it (``executor.one``: a compiled program's runner); see _install
        self.runtime = None  # the numba executor (how this graph runs, and why), once built
        self._device_executors = {}  # accelerator -> (optimizer_version, executor)
        # variable arguments that were the same object when traced, and the traces for
        # calls where they differ (graphc/functions/variable_aliasing.py)
        self._aliases, self._unaliased = None, {}
        # set when tracing (the report shows them): why, how long it took, which trace of
        # the function (1, 2, ...), and graph input value id -> argument name
        self.trace_reason, self.trace_seconds, self.trace_number = "", None, 0
        self.input_names = {}
        # builds of the executor and of optimized graphs (once each, however many
        # threads ask at once), and the swap to the compiled runner
        self._lock = threading.RLock()

    # ---------------------------------------------------------------- inspection
    @property
    def name(self):
        return self._function.__name__

    def _optimize(self):
        key = tuple(config.state.optimizer.items())
        hit = self._optimized.get(key)
        if hit is None:
            with self._lock:  # optimized once per options, even when threads race here
                hit = self._optimized.get(key)
                if hit is None:
                    from graphc.passes import optimize  # deferred: passes load at 1st build

                    hit = self._optimized[key] = optimize(self.graph)
        return hit

    @property
    def optimized_graph(self) -> ir.Graph:
        """The graph after the optimization passes under the current
        ``gc.config.optimizer`` options (the graph that runs)."""
        return self._optimize()[0]

    @property
    def pass_report(self) -> list:
        """Per pass: ops before/after and what it folded, merged, simplified, pruned, fused."""
        return self._optimize()[1]

    @property
    def structured_input_signature(self):
        """``(args, kwargs)`` with ``gc.TensorSpec`` for tensors, Python values as given
        (``*args`` spread into ``args``; keyword-only and ``**kwargs`` in ``kwargs``)."""
        return structured_signature.args_and_kwargs(getattr(self, "_params", None),
                                                    self._structured)

    @property
    def structured_outputs(self):
        leaves = list(self._out_template)
        for slot, v in zip(self._tensor_slots, self.graph.outputs):
            leaves[slot] = TensorSpec(v.aval.shape, v.aval.dtype)
        return nest.unflatten(self._out_treedef, leaves)

    @property
    def variables(self) -> tuple:
        """The ``gc.Variable`` objects the graph closes over (reads or writes)."""
        return concrete_call.captured_variables(self.graph)

    @property
    def trainable_variables(self) -> tuple:
        return concrete_call.captured_variables(self.graph, trainable_only=True)

    @property
    def output_shapes(self):
        """Output shapes shaped like the outputs; ``None`` for a value of unknown rank."""
        return nest.map_structure(lambda s: s.shape if isinstance(s, TensorSpec) else None,
                                  self.structured_outputs)

    @property
    def output_dtypes(self):
        return nest.map_structure(lambda s: s.dtype if isinstance(s, TensorSpec) else None,
                                  self.structured_outputs)

    def pretty_printed_signature(self, verbose=True) -> str:
        """This trace's signature as TensorFlow prints it."""
        header, args = [], []
        for name, spec in zip(self._names, self._structured):
            leaves, _ = nest.flatten(spec)
            if any(isinstance(x, TensorSpec | VariableSpec) for x in leaves):
                header.append(name)
                args.append(f"    {name}: {describe_spec(spec)}")
            else:
                header.append(f"{name}={spec!r}")
        lines = [f"{self.name}({', '.join(header)})"]
        if args:
            lines += ["  Args:", *args]
        lines += ["  Returns:", f"    {describe_spec(self.structured_outputs)}"]
        return "\n".join(lines)

    def __repr__(self):
        return f"<ConcreteFunction {self.pretty_printed_signature().splitlines()[0]}>"

    # ---------------------------------------------------------------- calling
    def __call__(self, *args, **kwargs):
        """Call with tensors matching this trace's signature, as the Python function
        is called or flat (``concrete_call.py``); others raise TypeError."""
        try:
            return self._call_bound(concrete_call.bind(self, args, kwargs))
        except Exception as e:  # the user's frames only, as gc.function's own call does
            raise source_info.without_internal_frames(e) from e.__cause__

    def _call_bound(self, flat_args):
        if self._aliases is not None:
            other = variable_aliasing.trace_for_call(self, flat_args)
            if other is not None:
                return other._call_bound(flat_args)
        if _taping and recording.local.tapes or _open and _trace.local.stack:
            return self._call_replayed(flat_args)  # inside a trace, or under a tape
        positions = self._tensor_positions
        if positions is not None:
            arrays = []
            for i in positions:
                a = flat_args[i]
                arrays.append(a._np if type(a) is Tensor else _leaf_array(a))
        elif self._flat_inputs:
            arrays = [a._np if type(a) is Tensor else _leaf_array(a) for a in flat_args]
        else:
            arrays = []
            for a in flat_args:
                leaves, _ = nest.flatten(a)
                arrays.extend(_leaf_array(x) for x in leaves if _is_tensor_leaf(x))
        if _placing and _scoped.stack or _made and eager_placement.has_device_tensor(
                arrays):
            device = eager_placement.choose(arrays, self)
            if device != eager_placement.CPU:
                if self._captured:
                    write_back.check_captures(self)
                outs = placement.run_call(self, device, arrays)
                return outs[0] if self._single else self._wrap_outputs(outs)
        return self._call_arrays(arrays)

    def _call_replayed(self, flat_args):
        """The graph's ops bound one by one (``graphc/functions/replay.py``): inlined into
        the trace being built, or run eagerly where this thread's tapes record them."""
        if self._captured:
            write_back.check_captures(self)
        leaves = [x for a in flat_args for x in nest.flatten(a)[0] if _is_tensor_leaf(x)]
        inputs = [x if isinstance(x, Variable | Tensor) else _eager(np.asarray(x))
                  for x in leaves]
        outs = replay(self.graph, inputs)
        if self._writes:  # into the caller's tensors: rebound in its trace
            outs = write_back.into_tensors(self, inputs, outs)
        return outs[0] if self._single else self._wrap_outputs(outs)

    def _call_arrays(self, arrays):
        """Run on the input arrays (tensor leaves in order) and wrap the outputs."""
        if self._captured:
            write_back.check_captures(self)
        executor = self._executor
        if executor is None or self._executor_version != _state.optimizer_version:
            executor = self._build_executor()
        outs = executor(arrays)
        if self._writes:
            outs = write_back.into_arrays(self, arrays, outs)
        if self._single:  # _eager inlined: this is the per-call hot path
            out = outs[0]
            t = _new(Tensor)
            t._np = out if type(out) is _ndarray else np.asarray(out)
            t._sym = None
            return t
        return self._wrap_outputs(outs)

    def _build_executor(self):
        """The executor for the current optimizer options, built by one thread only:
        threads that find none wait here for the one building it."""
        with self._lock:
            executor = self._executor
            if executor is not None and self._executor_version == _state.optimizer_version:
                return executor  # built by another thread while this one waited
            return self._build_executor_locked()

    def _build_executor_locked(self):
        graph, version = self.optimized_graph, _state.optimizer_version
        guard = variable_guard(graph)
        if self._function._backend == "numpy":
            def execute(arrays):
                return run_graph(graph, arrays)
        else:
            from graphc.runtime.cpu import numba_cpu  # deferred: the CPU backend's modules

            def swap(fast):  # called when the compiled program is ready (maybe a thread)
                with self._lock:
                    if self._executor_version == version:
                        self._install(guard(fast), version)

            self._install(None, version)
            warned = getattr(self._function, "_fallback_warned", None)  # once per function
            execute = numba_cpu.executor_for(graph, on_compiled=swap,
                                             strict=bool(self._function._jit_compile),
                                             warned=warned)
            self.runtime = execute
            if self._executor is not None:  # compiled (or loaded) while being built: the
                return self._executor       # compiled runner itself, one call less
        execute = guard(execute)
        self._install(execute, version)
        return execute

    def _install(self, executor, version) -> None:
        """Set the executor, and ``_hot`` (Function's one-tensor call path) to its
        ``one`` (array -> array: a program of one input) when it has one and this trace
        returns one tensor; ``_hot`` is cleared first, so no reader pairs it with another
        executor."""
        self._hot = None
        self._executor, self._executor_version = executor, version
        if self._single and not self._captured:  # _hot skips check_captures
            self._hot = getattr(executor, "one", None)

    def _wrap_outputs(self, outs):
        if self._tuple:  # the common multi-output case, 1.5 -> 0.5 us for two outputs
            return tuple([a if isinstance(a, Tensor) else _eager(a)
                          for a in outs[:self._tuple]])
        leaves = list(self._out_template)
        for slot, arr in zip(self._tensor_slots, outs):
            leaves[slot] = arr if isinstance(arr, Tensor) else _eager(arr)
        for slot in self._literal_slots:
            leaves[slot] = outputs.literal_tensor(leaves[slot])
        return nest.unflatten(self._out_treedef, leaves)
