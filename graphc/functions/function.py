"""``gc.function``: trace a Python function into graphs, one per input signature.

``Function.__call__`` computes the call's trace key (see ``signature.py``), reuses the
cached ``ConcreteFunction`` for it or traces a new one, and runs its graph. Inside another
trace, a ``Function`` is simply called, so its ops join the outer graph.

Threads: a cached call takes no lock (the fast paths' tuples are replaced whole; see
``trace_cache.py``); a miss traces under the function's re-entrant ``trace_lock``, so
threads missing one key at once trace it once; retrace bookkeeping is updated under it.
"""

from __future__ import annotations

import functools
import inspect
import sys
import threading
import weakref

import numpy as np

from graphc import config, source_info
from graphc.autograph.api import to_graph
from graphc.core import trace
from graphc.core.device_scope import local as _scoped
from graphc.core.device_scope import placing as _placing
from graphc.core.tensor import Tensor
from graphc.functions import eager_call, held_objects, inline, retracing, spec_names
from graphc.functions.concrete import ConcreteFunction, trace_concrete
from graphc.functions.explain import explain
from graphc.functions.input_signature import InputSignature
from graphc.functions.signature import (
    closest_diff,
    fast_path_key,
    has_unknown_dims,
    positional_kind,
    relaxable,
    structure_key,
)
from graphc.functions.trace_cache import TraceCache
from graphc.transforms import recording

_ndarray = np.ndarray
_new = object.__new__

MAX_CONCRETE_FUNCTIONS = 128  # per Function; least recently used traces are dropped

_all_functions: "weakref.WeakSet[Function]" = weakref.WeakSet()
# guards _all_functions and every Function's _instances (adds and snapshots)
_registry_lock = threading.RLock()
_state = config.state
_open, _local = trace.open_contexts, trace.local  # see trace.py: this thread traces
_taping = recording.recording  # non-empty while a GradientTape records (any thread)
_modules = sys.modules


#: ``(module, handler)`` pairs, filled by the face: once ``module`` is imported, a call
#: whose arguments reach the slow path is offered to ``handler(function, args)``
#: (arguments in parameter order), which returns the result or ``NotImplemented`` (the
#: Dask integration: a call with Dask arrays runs block by block).
call_handlers: list = []


class Function:
    """A Python function traced into graphs. Create it with ``gc.function``."""

    def __init__(self, python_function, input_signature=None, autograph=True,
                 reduce_retracing=False, backend=None, name=None, jit_compile=None,
                 unroll=None):
        if not callable(python_function):
            raise TypeError(f"gc.function expects a callable, got {python_function!r}")
        if not (unroll is None or isinstance(unroll, int) and unroll >= 0):  # bools too
            raise ValueError(f"gc.function: unroll must be None, True, False or a "
                             f"non-negative int (an iteration count), got {unroll!r}")
        self.unroll = unroll  # Python range loops: see ``function``'s docstring
        if backend not in (None, "numpy", "numba"):
            raise ValueError(
                f"gc.function: unknown backend {backend!r}; use 'numba' (the default: "
                "compiled with Numba when hot) or 'numpy' (the reference interpreter)")
        self._python_function = python_function
        self._input_signature = None if input_signature is None else tuple(input_signature)
        self._autograph = autograph
        self._reduce_retracing = reduce_retracing
        self._backend = backend or "numba"
        self._jit_compile = jit_compile
        self.__name__ = name or getattr(python_function, "__name__", "function")
        self.__doc__ = getattr(python_function, "__doc__", None)
        self.__wrapped__ = python_function
        self._signature = inspect.signature(python_function)
        self._params = [p for p in self._signature.parameters.values()]
        self._positional = positional_kind(self._params)  # "simple", "varargs" or None
        self._simple = self._positional == "simple"
        # exact keys (LRU) and patterns (reduce_retracing / input_signature)
        self._traces = TraceCache(MAX_CONCRETE_FUNCTIONS)
        self._instances = weakref.WeakKeyDictionary()
        # calls that traced: shared by the gc.functions of one Python function (retracing)
        self._window = retracing.window_for(python_function)
        self._recent = self._window.recent
        self._fallback_warned: set = set()  # fallbacks warned about (once per function)
        self.tracing_count = 0
        self.retrace_reasons: list[str] = []
        self._inlined_keys: set = set()  # keys this function was inlined with
        self._dead_keys = []  # keys of traces whose argument objects died (held_objects)
        self._last = None  # (key, concrete): the dispatch fast path
        self._fast = None  # (key, concrete) when the last call passed only eager tensors
        # or ndarrays; _one: (dtype, shape, concrete) when that was one tensor
        self._one = None
        self._sig = None if input_signature is None else InputSignature(
            self.__name__, self._params, input_signature)  # checked: input_signature.py
        with _registry_lock:
            _all_functions.add(self)
        functools.update_wrapper(self, python_function, updated=())
        self.__name__ = name or getattr(python_function, "__name__", "function")

    # ---------------------------------------------------------------------- methods
    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        bound = self._instances.get(instance)
        if bound is None:
            with _registry_lock:  # one per instance, even when threads race here
                bound = self._instances.get(instance)
                if bound is None:
                    bound = self._instances[instance] = Function(
                        retracing.weak_method(self._python_function, instance),
                        self._input_signature, self._autograph, self._reduce_retracing,
                        self._backend, self.__name__, self._jit_compile, self.unroll)
        return bound

    # ---------------------------------------------------------------------- calling
    @property
    def python_function(self):
        return self._python_function

    def _converted(self):
        fn = self._python_function
        if self._autograph:
            return to_graph(fn)
        return fn

    def __call__(self, *args, **kwargs):
        one = self._one  # (dtype, shape, concrete): one plain tensor, as the last call,
        # and no trace in the window of RETRACE_WINDOW calls (see _arm_one)
        if one is not None and len(args) == 1 and not (
                kwargs or _open or _placing or _taping or _state.run_functions_eagerly):
            # the commonest hot call, checked first and without a loop; nobody traces,
            # places or tapes (else the checks below, per thread); dtype by identity first
            a = args[0]
            t = type(a)
            arr = a._np if t is Tensor else a if t is _ndarray else None
            if arr is not None and arr.shape == one[1] and (
                    (d := arr.dtype) is one[0] or d == one[0]):
                c = one[2]  # ConcreteFunction._call_arrays inlined for a compiled program
                hot = c._hot  # of one input and output (array -> array, no lists: a frame
                try:          # and two lists are 10% of a cached scalar call)
                    if hot is None or c._executor_version != _state.optimizer_version:
                        return c._call_arrays([arr])
                    out = hot(arr)
                except Exception as e:  # as below: the user's frames only
                    source_info.hide_internal_frames(e)
                    raise
                t = _new(Tensor)
                t._np = out if type(out) is _ndarray else np.asarray(out)
                t._sym = None
                return t
        if _state.run_functions_eagerly:  # arguments converted as tracing converts them
            return eager_call.call_eagerly(self, args, kwargs)
        if _open and _local.stack:  # inside another trace: inlined (inline.py)
            return inline.call_inlined(self, args, kwargs)
        try:  # free in CPython 3.11+ until something raises
            fast = self._fast
            if _placing and _scoped.stack:
                fast = None  # maybe on an accelerator: _call_bound places the call
            if _taping and recording.local.tapes:
                fast = None  # a tape of this thread records: _call_bound replays the graph
            if fast is not None and not kwargs and len(args) == len(fast[0]):
                # the last call's signature, all plain tensors: compare dtype/shape in place
                # instead of building the key (the cached-call hot path)
                arrays = []
                for a, k in zip(args, fast[0]):
                    t = type(a)
                    if t is not Tensor and t is not _ndarray:
                        break
                    arr = a._np if t is Tensor else a
                    if arr is None or arr.shape != k[1] or arr.dtype != k[0]:
                        break
                    arrays.append(arr)
                else:
                    self._recent.append(False)
                    if self._one is None and len(arrays) == 1:
                        self._arm_one()
                    return fast[1]._call_arrays(arrays)
            if kwargs or not self._simple or len(args) != len(self._params):
                args = self._bind(args, kwargs)
            for module, handler in call_handlers:  # e.g. Dask arrays: run block by block
                if module in _modules:
                    out = handler(self, args)
                    if out is not NotImplemented:
                        return out
            if self._sig is not None:  # converted to the specs: one trace serves them all
                args = self._sig.convert(args)
            flat_args = args
            key = tuple([structure_key(a) for a in args])
            last = self._last
            if last is not None and last[0] == key:
                concrete = last[1]
                self._recent.append(False)
            else:
                concrete = self._lookup(key, flat_args)
            return concrete._call_bound(flat_args)
        except Exception as e:
            # an error while tracing or running the graph (a shape that does not match
            # input_signature, an index out of range, an error inside a loop): show the
            # user's frames, not graphc's call chain; GRAPHC_SHOW_INTERNAL_FRAMES=1 keeps
            # them (none left: graphc refused the call itself; the caller's line is enough)
            source_info.hide_internal_frames(e)  # and the bare raise adds no frame of ours
            raise

    def _bind(self, args, kwargs) -> tuple:
        """Arguments in parameter order, defaults filled in (fast path for positionals)."""
        params = self._params
        if not kwargs and self._simple and len(args) == len(params):
            return args
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self.__name__}(): {e}") from None
        bound.apply_defaults()
        return tuple(bound.arguments[p.name] for p in params)

    def _lookup(self, key, flat_args, specs_match=False) -> ConcreteFunction:
        if self._dead_keys:
            held_objects.retire_dead(self)
        concrete = self._traces.get(key)
        if concrete is None:
            with self._traces.trace_lock:
                concrete = self._traces.get(key)  # traced by another thread meanwhile?
                if concrete is None:
                    concrete = self._new_trace(key, flat_args, specs_match)
                else:
                    self._recent.append(False)
        else:
            self._recent.append(False)
        self._last = (key, concrete)
        fast = fast_path_key(self._positional, key, flat_args) if len(flat_args) == len(
            self._params) else None
        self._fast = None if fast is None else (fast, concrete)
        self._arm_one()
        return concrete

    def _arm_one(self):
        """The one-tensor path (``_one``) for ``_fast``'s trace of one argument, armed
        only while the retrace window is full of calls that did not trace: that path
        records nothing, as one more such call would change nothing there."""
        fast, recent = self._fast, self._recent
        self._one = (*fast[0][0], fast[1]) if fast is not None and len(fast[0]) == 1 and (
            len(recent) == recent.maxlen and True not in recent) else None

    def _new_trace(self, key, flat_args, specs_match=False) -> ConcreteFunction:
        if self._sig is not None:  # (callers such as gc.dask pass unconverted specs)
            bound = self._sig.convert(flat_args)
            concrete = self._traces.get(tuple(map(structure_key, bound)))
            if concrete is None:
                concrete = self._trace(self._sig.trace_args(bound),
                                       reason="first call (input_signature)")
                self._traces.add_pattern(self._sig.key_pattern(bound), concrete)
            return concrete
        reasons = self._retrace_reasons(key)
        trace_args = flat_args
        relaxed = self._reduce_retracing and len(self._traces) and relaxable(
            self._traces.keys_newest_first(), key)
        if relaxed:
            trace_args, key = relaxed
        concrete = self._trace(trace_args, reason="; ".join(reasons) or "first call")
        if relaxed or specs_match and has_unknown_dims(key):  # get_concrete_function
            self._traces.add_pattern(key, concrete)
        else:
            self._traces.add(key, concrete)
        held_objects.hold_weakly(self, concrete, key)
        return concrete

    def _trace(self, args, reason) -> ConcreteFunction:
        names = [p.name for p in self._params]
        concrete = trace_concrete(self, self._converted(), names, self._params, args)
        concrete.trace_reason = reason
        self.tracing_count += 1
        concrete.trace_number = self.tracing_count
        self.retrace_reasons.append(reason)
        self._recent.append(True)
        retracing.maybe_warn(self, reason)
        return concrete

    # ---------------------------------------------------------------- diagnostics
    def _retrace_reasons(self, key) -> list[str]:
        return closest_diff([p.name for p in self._params], self._traces.keys_newest_first(),
                            key)

    def experimental_get_tracing_count(self) -> int:
        """Number of times this function traced (TensorFlow's name)."""
        return self.tracing_count

    # ---------------------------------------------------------------- signatures
    @property
    def input_signature(self):
        """The specs given as ``input_signature`` (a tuple), or ``None``."""
        return self._input_signature

    def get_concrete_function(self, *args, **kwargs) -> ConcreteFunction:
        """The ``ConcreteFunction`` for these arguments (tensors, arrays, Python values or
        ``gc.TensorSpec``), tracing if needed."""
        if self._input_signature is not None and not args and not kwargs:
            args = self._input_signature
        flat_args = self._bind(args, kwargs)
        if self._sig is not None:
            flat_args = self._sig.convert(flat_args)
        key = tuple(map(structure_key, flat_args))  # None dims: serves matching calls
        concrete = self._lookup(key, flat_args, specs_match=True)
        return spec_names.named_trace(self, concrete, key, flat_args)

    def explain(self, *args, format="text", path=None, **kwargs) -> str:
        """Print (and return) what the optimizer did to the trace for these arguments:
        each pass's changes and the optimized graph. ``format="html"`` returns (and
        writes to ``path``, if given) the HTML report of every trace instead, tracing for
        the arguments first when there are any (docs/inspecting.md)."""
        return explain(self, args, kwargs, format, path)

    def concrete_functions(self) -> list[ConcreteFunction]:
        """Every trace kept in the cache, in the order they were traced."""
        return sorted(self._traces.concretes(), key=lambda c: c.trace_number)

    def pretty_printed_concrete_signatures(self, verbose=True) -> str:
        """Every trace as TensorFlow prints them, in the order they were traced."""
        return "\n\n".join(c.pretty_printed_signature(verbose) for c in self.concrete_functions())

    def clear_cache(self):
        self._traces.clear()
        self._count_at_clear = self.tracing_count  # its next trace may make variables
        self._last = self._fast = self._one = None
        with _registry_lock:
            bound_functions = list(self._instances.values())
        for bound in bound_functions:
            bound.clear_cache()

    def __repr__(self):
        return f"<gc.Function {self.__name__}>"

    def __reduce__(self):  # pickled as its Python function and options (no traces)
        return Function, (self._python_function, self._input_signature, self._autograph,
                          self._reduce_retracing, self._backend, self.__name__,
                          self._jit_compile, self.unroll)


def function(fn=None, *, input_signature=None, autograph=True, reduce_retracing=False,
             backend=None, name=None, jit_compile=None, unroll=None):
    """Trace ``fn`` into optimized graphs, one per input signature (``tf.function``).

    Works as ``@gc.function``, ``@gc.function(...)`` and ``gc.function(fn)``, and on
    methods (each instance gets its own traces).

    * ``input_signature``: a list of ``gc.TensorSpec`` (or nests of them), one per
      leading parameter; one trace serves every call that fits it (Python values
      converted), others raise ``TypeError`` (see ``input_signature.py``).
    * ``reduce_retracing``: after a shape-only cache miss, trace with ``None`` in the dims
      that changed and reuse that trace.
    * ``autograph``: convert ``if``/``while``/``for`` on tensors (see docs/autograph.md).
    * ``backend``: ``"numba"`` (default; compiled once hot, see docs/runtime.md) or
      ``"numpy"`` (the reference interpreter).
    * ``jit_compile=True``: compile at once and raise ``gc.errors.FallbackError`` instead
      of running any op in Python.
    * ``unroll``: how a ``for`` over a Python ``range`` runs while tracing (``None``, the
      default: unrolled up to 16 iterations and 64 ops, else staged as one graph loop,
      the index a traced integer; ``gc.config.set_loop_unroll_limit``); an int sets the
      iteration limit for this function; ``True`` always unrolls; ``False`` stages every
      such loop that can be. Loops with Python side effects (``print``, list appends,
      attribute writes) always unroll (docs/autograph.md).

    >>> @gc.function
    ... def get_mse(y_true, y_pred):
    ...     return gc.reduce_mean(gc.pow(y_true - y_pred, 2))
    """
    def decorate(f):
        return Function(f, input_signature=input_signature, autograph=autograph,
                        reduce_retracing=reduce_retracing, backend=backend, name=name,
                        jit_compile=jit_compile, unroll=unroll)

    return decorate if fn is None else decorate(fn)


def clear_caches() -> None:
    """Drop every ``gc.function``'s traces (they retrace on their next call) and the
    compiled programs kept in memory for future traces (``gc.cache.clear(disk=False)``)."""
    with _registry_lock:
        functions = list(_all_functions)
    for f in functions:
        f.clear_cache()

    from graphc.runtime.cpu import cache  # deferred: the CPU backend loads on first compile

    cache.clear(disk=False)
