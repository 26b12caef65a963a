"""``gc.Variable``: mutable state that graphs read and write by reference.

A variable holds one read-only ``numpy.ndarray``; every write replaces it, so a tensor
read earlier keeps its value. Eagerly, methods act at once. While ``gc.function`` traces,
reads and writes become ``read_variable`` / ``assign_variable`` nodes (see
``graphc/ops/state.py``) that act on every call, in program order, so a later
``v.assign(...)`` outside the function is seen by the next call without retracing.

Variables stand in for tensors everywhere (operators, ``gnp`` functions, indexing): each
use reads the current value. They are unhashable, like tensors; ``v.ref()`` is a
hashable reference.

Threads: every write holds the variable's lock (``_lock``, re-entrant) from reading the
old value to storing the new one, so ``assign_add``/``assign_sub`` from several threads
lose no update. A ``gc.function`` call that writes variables holds the locks of all the
variables its graph uses for the whole call (``locks_of``, taken by ``ConcreteFunction``), so
its reads and writes do not interleave with another thread's writes of those variables.
"""

from __future__ import annotations

import threading

import numpy as np

from graphc import source_info
from graphc.core import hooks, trace
from graphc.core.tensor import Tensor, _eager
from graphc.dtypes import as_dtype, numpy_literal, tf_literal
from graphc.ir.graph import Aval
from graphc.ops import state


class Variable:
    """A mutable tensor-like value (``tf.Variable``).

    Python floats make float32 and ints int32 variables, as ``gc.constant`` does; NumPy
    arrays and tensors keep their dtype. ``shape`` may have ``None`` dims to allow values
    of other sizes later.

    >>> v = gc.Variable(1.0)
    >>> v.assign_add(2.0).numpy()
    3.0
    >>> @gc.function
    ... def step(x):
    ...     v.assign(v * x)
    ...     return v.read_value()
    >>> step(gc.constant(2.0)).numpy()
    6.0
    """

    __slots__ = ("_value", "_shape", "_dtype", "_name", "_trainable", "_src",
                 "_graphc_handle", "_lock", "__weakref__")
    __array_priority__ = 1001.0  # above Tensor's, so ``ndarray + v`` asks v first
    __hash__ = None  # compares elementwise, like tensors; use ``v.ref()`` as a key

    def __init__(self, initial_value, dtype=None, shape=None, name=None, trainable=True):
        self._name = "Variable" if name is None else str(name)
        self._trainable = bool(trainable)
        self._src = source_info.user_location()
        self._value = None
        self._lock = threading.RLock()  # held by every read-modify-write (see module doc)
        handle = np.empty((), dtype=object)
        handle[()] = self
        self._graphc_handle = handle  # what a graph holds: a reference, not the data
        if trace.active():
            _check_creation_allowed(self)
        if callable(initial_value) and not isinstance(initial_value, Tensor | Variable):
            initial_value = initial_value()
        if isinstance(initial_value, Variable):
            initial_value = initial_value.read_value()
        dtype = as_dtype(dtype)
        if isinstance(initial_value, Tensor) and initial_value.is_symbolic:
            # A traced initial value is known only when the graph runs: the variable is
            # initialized then, once (later calls skip the 'init' write).
            self._dtype = dtype or initial_value.dtype
            self._shape = self._declared(shape, initial_value.shape)
            state.check_static(initial_value.shape, initial_value.dtype, self._shape,
                               self._dtype, "init", self._name)
            state.write(self, initial_value, "init")
            return
        if isinstance(initial_value, Tensor):
            arr = initial_value.numpy()
            arr = np.asarray(arr if dtype is None else arr.astype(dtype))
        else:
            arr = tf_literal(initial_value, dtype)
        self._dtype = arr.dtype
        self._shape = self._declared(shape, arr.shape)
        self._write(arr, "assign")

    def _declared(self, shape, value_shape) -> tuple:
        if shape is None:
            if value_shape is None:
                raise ValueError(
                    f"gc.Variable {self._name!r}: the initial value has unknown rank; pass "
                    "shape= (with None for unknown dims)")
            return tuple(value_shape)
        declared = tuple(None if d is None else int(d) for d in shape)
        if not state.shape_fits(declared, value_shape, "assign"):
            raise ValueError(f"gc.Variable {self._name!r}: initial value of shape "
                             f"{tuple(value_shape)} does not fit shape={declared}")
        return declared

    # ------------------------------------------------------------------ properties
    name = property(lambda self: self._name, doc="The variable's name (a str).")
    dtype = property(lambda self: self._dtype, doc="The variable's dtype (np.dtype).")
    trainable = property(lambda self: self._trainable, doc="Whether tapes watch it.")
    device = property(lambda self: "cpu:0", doc="Where its value lives: the host.")

    @property
    def shape(self) -> tuple:
        """The declared shape: ``None`` dims where values of any size are allowed."""
        return self._shape

    @property
    def ndim(self) -> int:
        return len(self._shape)

    def ref(self) -> state.VariableRef:
        """A hashable reference to this variable (usable as a dict key)."""
        return state.VariableRef(self)

    def __deepcopy__(self, memo):
        """A new variable holding a copy of the current value (as ``tf.Variable``)."""
        return Variable(self.numpy(), shape=self._shape, name=self._name,
                        trainable=self._trainable)

    # ------------------------------------------------------------------ reading
    def read_value(self) -> Tensor:
        """The current value: an eager tensor, or a read node while tracing."""
        t = state.read(self) if trace.active() else _eager(self._current())
        if hooks.tapes:  # a GradientTape records: it may watch this variable
            hooks.on_variable_read(self, t)
        return t

    value = read_value

    def numpy(self):
        """A copy of the current value as a ``numpy.ndarray`` (NumPy scalar for rank 0)."""
        return self.read_value().numpy()

    def _current(self) -> np.ndarray:
        value = self._value
        if value is None:
            raise ValueError(
                f"gc.Variable {self._name!r} (created at {self._src}) is not initialized "
                "yet: it was created inside a gc.function from a traced value and gets that "
                "value the first time the function's graph runs")
        return value

    # ------------------------------------------------------------------ writing
    def assign(self, value, use_locking=None, name=None, read_value=True):
        """Replace the value (same shape, unless created with ``None`` dims); returns the
        variable."""
        return self._update(value, "assign", read_value)

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        """Add ``delta`` (broadcast to the variable's shape); returns the variable."""
        return self._update(delta, "add", read_value)

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        """Subtract ``delta`` (broadcast to the variable's shape); returns the variable."""
        return self._update(delta, "sub", read_value)

    def _update(self, value, mode, read_value):
        value = self._operand(value)
        state.check_static(value.shape, value.dtype, self._shape, self._dtype, mode,
                           self._name)
        if trace.active():
            state.write(self, value, mode)
        else:
            self._write(value._np if isinstance(value, Tensor) else value, mode)
        return self if read_value else None

    def _operand(self, value):
        """``value`` as a tensor (symbolic while tracing) or an array in this dtype."""
        if isinstance(value, Variable):
            return value.read_value()
        if isinstance(value, Tensor):
            return value  # eager, or symbolic while tracing (an eager one becomes a const)
        arr = numpy_literal(value)
        if not isinstance(value, np.ndarray | np.generic) and state.dtype_fits(
                arr.dtype, self._dtype):
            # Python values are weak: they take the variable's dtype (1.5 into an int
            # variable is not same-kind, so it stays float64 and the check refuses it)
            arr = arr.astype(self._dtype)
        return arr

    def _write(self, value, mode: str) -> None:
        """Store a new value (the run-time half of every write; checks dims left unknown
        at trace time), atomically: the old value read and the new one stored under the
        variable's lock."""
        value = np.asarray(value)
        if value.dtype != self._dtype:
            value = value.astype(self._dtype)
        with self._lock:
            if mode == "init":
                if self._value is not None:
                    return
                mode = "assign"
            if mode == "assign":
                if not state.shape_fits(self._shape, value.shape, "assign"):
                    raise ValueError(state.shape_message(self._name, self._shape, value.shape,
                                                         mode))
                new = value.copy()  # the caller may own (and later change) that array
            else:
                old = self._current()
                new = np.add(old, value) if mode == "add" else np.subtract(old, value)
                if new.shape != old.shape:
                    raise ValueError(state.shape_message(self._name, old.shape, value.shape,
                                                         mode))
                # 0-d results come back as NumPy scalars: make them arrays again
                new = np.asarray(new, dtype=self._dtype)
            self._set(new)

    def _set(self, value: np.ndarray) -> None:
        """Store ``value`` (already checked, of the variable's dtype) as the new value;
        read-only, since reads hand out this very array. The compiled runtime stores the
        values its programs computed through here too (``runtime/cpu/runners.py``). A caller
        that computed ``value`` from the old one holds ``_lock`` (``_write`` and a
        ``gc.function`` call holding ``locks_of`` do)."""
        value.flags.writeable = False
        self._value = value

    def __iadd__(self, other):
        raise RuntimeError(_INPLACE.format(op="+=", method="assign_add"))

    def __isub__(self, other):
        raise RuntimeError(_INPLACE.format(op="-=", method="assign_sub"))

    def __imul__(self, other):
        raise RuntimeError(_INPLACE.format(op="*=", method="assign"))

    def __itruediv__(self, other):
        raise RuntimeError(_INPLACE.format(op="/=", method="assign"))

    def __setitem__(self, key, value):
        raise TypeError(
            f"gc.Variable {self._name!r} does not support item assignment; assign a new "
            "value: v.assign(gc.tensor_scatter_nd_update(v, indices, updates)) or "
            "v.assign(gnp.where(mask, new_values, v))")

    # ------------------------------------------------------------------ tensor protocol
    def _graphc_tensor_(self) -> Tensor:
        """What an op sees when given this variable: a read, in program order."""
        return self.read_value()

    def _graphc_trace_key(self):
        # Distinct from a tensor's ``(dtype, shape)`` key: a trace for a tensor argument
        # must not serve a variable argument, or the reverse.
        return ("variable", self._dtype, self._shape)

    def __array__(self, dtype=None, copy=None):
        return self.read_value().__array__(dtype, copy)

    def __getattr__(self, name):
        # Tensor methods and attributes (sum, reshape, T, size, ...) act on the value.
        if name.startswith("_") or not hasattr(Tensor, name):
            raise AttributeError(f"'gc.Variable' object has no attribute {name!r}")
        return getattr(self.read_value(), name)

    def __getitem__(self, key):
        return self.read_value()[key]

    def __len__(self):
        return len(self.read_value())

    def __iter__(self):
        return iter(self.read_value())

    def __bool__(self):
        return bool(self.read_value())

    def __float__(self):
        return float(self.read_value())

    def __int__(self):
        return int(self.read_value())

    def __index__(self):
        return self.read_value().__index__()

    def __complex__(self):
        return complex(self.read_value())

    def __format__(self, spec):
        return format(self.read_value(), spec)

    def __str__(self):
        return str(self.read_value()) if not trace.active() else repr(self)

    def __repr__(self):
        head = f"<gc.Variable {self._name!r} shape={self._shape} dtype={self._dtype.name}"
        if self._value is None:
            return head + " (uninitialized)>"
        return f"{head}, numpy={np.array_repr(self._value)}>"


_INPLACE = ("`variable {op} value` is not supported for gc.Variable (it would rebind the "
            "name to a new tensor and leave the variable unchanged); use "
            "variable.{method}(...) to update it, or `out = variable ... value` for a new "
            "tensor")


def _delegate(name):
    def method(self, *args):
        return getattr(self.read_value(), name)(*args)

    method.__name__ = name
    return method


for _name in ("add sub mul truediv floordiv mod divmod pow matmul and or xor").split():
    setattr(Variable, f"__{_name}__", _delegate(f"__{_name}__"))
    setattr(Variable, f"__r{_name}__", _delegate(f"__r{_name}__"))
for _name in ("eq ne lt le gt ge neg pos abs invert").split():
    setattr(Variable, f"__{_name}__", _delegate(f"__{_name}__"))
del _name


def locks_of(variables) -> list:
    """The update locks of ``variables`` (each once), in the one order in which every
    holder of several takes them (by ``id``), so two holders of overlapping sets cannot
    deadlock. ``ConcreteFunction`` holds them around a call that writes variables."""
    unique = {id(v): v for v in variables}
    return [unique[k]._lock for k in sorted(unique)]


def _check_creation_allowed(variable) -> None:
    """Variables may be created while tracing only on a function's first trace (the
    first since its ``clear_cache()``, as in TensorFlow)."""
    ctx = trace.current()
    while ctx.parent is not None:
        ctx = ctx.parent
    function = ctx.__dict__.get("function")
    if function is None or function.tracing_count == getattr(function, "_count_at_clear", 0):
        return
    name = function.__name__
    raise ValueError(
        f"gc.function '{name}' creates gc.Variable {variable.name!r} (at {variable._src}) "
        f"while tracing for the {_ordinal(function.tracing_count + 1)} time. A gc.function "
        "may create variables only on its first trace: a new trace would make a new "
        "variable while the graphs traced before keep using the old one. Create the "
        "variable once, outside the function, and use it inside:\n\n"
        f"    v = gc.Variable(...)            # once, outside\n\n"
        f"    @gc.function\n"
        f"    def {name}(...):\n"
        f"        v.assign_add(...)           # read and update it inside\n\n"
        "or create it only on the first call, e.g. "
        "`if self.v is None: self.v = gc.Variable(...)`.")


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


class VariableSpec:
    """Describes a variable argument of a concrete function: ``shape`` and ``dtype``.

    >>> VariableSpec.from_variable(gc.Variable([1.0, 2.0]))
    VariableSpec(shape=(2,), dtype=float32, name=None)
    """

    __slots__ = ("shape", "dtype", "name")

    def __init__(self, shape, dtype, name=None):
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.name = name

    @classmethod
    def from_variable(cls, variable, name=None):
        return cls(variable.shape, variable.dtype, name)

    def is_compatible_with(self, value) -> bool:
        return (isinstance(value, Variable) and value.dtype == self.dtype
                and value.shape == self.shape)

    def __eq__(self, other):
        return (isinstance(other, VariableSpec) and self.shape == other.shape
                and self.dtype == other.dtype and self.name == other.name)

    def __hash__(self):
        return hash((self.shape, self.dtype, self.name))

    def __repr__(self):
        return (f"VariableSpec(shape={self.shape}, dtype={self.dtype.name}, "
                f"name={self.name!r})")

    @property
    def aval(self):
        return Aval(self.shape, self.dtype)
