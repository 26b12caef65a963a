"""``gc.numpy_function`` and ``gc.py_function``: run Python on tensor values at run time.

The function is held in the node's attrs (by reference) and called when the node runs:
``numpy_function`` with ``numpy.ndarray`` inputs (read-only: copy before changing one),
``py_function`` with eager ``gc.Tensor`` inputs, so graphc ops work inside it. Their
outputs have unknown rank in the graph (``f32[*]``): only ``Tout``'s dtypes are known.

Ops, all with ``extra["runs_user_code"]`` so an exception from the user's function keeps
its type (the runtime adds a note naming the node and the traced line instead of
rewrapping it):

* ``numpy_function``: stateful, the default (``stateful=True``);
* ``stateless_numpy_function``: pure, so CSE may merge two equal calls and pruning may
  drop an unused one; ``extra["no_fold"]`` keeps constant folding from running user code
  at compile time;
* ``py_function``: stateful, as ``tf.py_function`` always is; differentiable: its
  gradient is another ``py_function`` that runs the function again under an eager
  ``GradientTape`` (the ``numpy_function`` ops pass no gradient).

Results are checked against ``Tout``: the count, and the dtype of every NumPy array or
tensor returned, which must equal ``Tout``'s (Python numbers and lists convert into it,
as literals do). A mismatch raises ``InvalidArgumentError`` naming the function.
"""

from __future__ import annotations

import numpy as np

from graphc import source_info
from graphc.core import hooks, trace
from graphc.core.attr_types import BOOL, DTYPES, PYOBJ, STR
from graphc.core.registry import NOT_DIFFERENTIABLE, OpDef, _operands, bind, register
from graphc.core.tensor import Tensor, _eager
from graphc.dtypes import as_dtype
from graphc.errors import InvalidArgumentError
from graphc.ir.graph import Aval


class FunctionRef:
    """A node attr holding a Python function: hashable even for bound methods of
    unhashable objects, and printed as ``<fn name>``."""

    __slots__ = ("fn",)

    def __init__(self, fn):
        self.fn = fn

    def __hash__(self):
        try:
            return hash(self.fn)
        except TypeError:
            return id(getattr(self.fn, "__func__", self.fn))

    def __eq__(self, other):
        return isinstance(other, FunctionRef) and (other.fn is self.fn or other.fn == self.fn)

    def __repr__(self):
        return f"<fn {_fn_name(self.fn)}>"


def _fn_name(fn) -> str:
    return getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)


# --------------------------------------------------------------------------- running
def _infer(*avals, func, Tout, single, kind, name):
    return tuple(Aval(None, d) for d in Tout)


def _ref(*arrays, func, Tout, single, kind, name):
    return run(func.fn, arrays, Tout, single, kind, name, where=None)


def run(fn, arrays, Tout, single, kind, name, where):
    """Call ``fn`` on ``arrays`` (as ndarrays or eager tensors) and check its results.

    ``where`` is the eager call's line, noted on an exception from ``fn``; in a graph it is
    ``None`` and the runtime adds the note (one note, naming the node and traced line).
    """
    if kind == "py_function":
        args = [_eager(a) for a in arrays]
    else:
        args = [_readonly(a) for a in arrays]
    try:
        result = fn(*args)
    except Exception as e:
        if where is not None:
            e.add_note(f"raised inside {kind} '{name}' (called at {where})")
        raise
    return convert_results(result, Tout, single, kind, name)


def _readonly(a):
    if not a.flags.writeable:
        return a
    view = a.view()  # the graph may use this array elsewhere: fn must not change it
    view.flags.writeable = False
    return view


def convert_results(result, Tout, single, kind, name) -> list:
    """``result`` as a list of arrays matching the dtypes ``Tout`` (raise if it does not);
    ``single``: ``Tout`` was one dtype, so ``result`` is one value even if a tuple."""
    if single:
        values = [result]
    elif not Tout:
        if result is None or (isinstance(result, list | tuple) and not result):
            return []
        raise InvalidArgumentError(
            f"{kind} '{name}' returned {_describe(result)}, but Tout=[] expects no results "
            "(the function should return None)")
    elif isinstance(result, list | tuple):
        values = list(result)
    else:
        values = [result]
    if len(values) != len(Tout):
        raise InvalidArgumentError(
            f"{kind} '{name}' returned {len(values)} value(s), but Tout lists {len(Tout)}: "
            f"expected [{', '.join(d.name for d in Tout)}], got "
            f"[{', '.join(_describe(v) for v in values)}]")
    return [_convert(v, d, i, kind, name) for i, (v, d) in enumerate(zip(values, Tout))]


def _convert(value, dtype, i, kind, name) -> np.ndarray:
    as_tensor = getattr(value, "_graphc_tensor_", None)
    if as_tensor is not None:
        value = as_tensor()
    if isinstance(value, Tensor):
        value = np.asarray(value)
    if isinstance(value, np.ndarray | np.generic):
        arr = np.asarray(value)
        if arr.dtype == dtype:
            return arr
        raise _mismatch(kind, name, i, dtype, f"{arr.dtype.name} array of shape {arr.shape}",
                        f"cast it in the function (.astype(np.{dtype.name})) or set Tout to "
                        f"{arr.dtype.name}")
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):
        arr = np.asarray(None)
    if value is None or arr.dtype.kind not in "biufc" or not _literal_fits(arr.dtype, dtype):
        raise _mismatch(kind, name, i, dtype, _describe(value),
                        "return a NumPy array, a tensor or a Python number")
    return np.asarray(value, dtype=dtype)


_KIND_ORDER = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}


def _literal_fits(src, dst) -> bool:
    """A Python number converts into ``dst`` if ``dst``'s kind is as wide: ints into
    ints or floats, floats into floats; bools only into bools."""
    if src.kind == "b":
        return dst.kind == "b"
    return _KIND_ORDER[dst.kind] >= _KIND_ORDER[src.kind]


def _mismatch(kind, name, i, dtype, got, hint) -> InvalidArgumentError:
    return InvalidArgumentError(
        f"{kind} '{name}': result {i} does not match Tout: expected {dtype.name}, got {got}; "
        f"{hint}")


def _describe(v) -> str:
    if isinstance(v, np.ndarray | Tensor):
        return f"{v.dtype.name} array of shape {tuple(v.shape)}"
    return f"{type(v).__name__} {v!r:.40}"


def _py_function_grad(cts, args, outputs, *, func, Tout, single, kind, name):
    """The VJP of a ``py_function``: another ``py_function`` that, when it runs, calls
    the Python function again on eager tensors under a ``GradientTape`` and returns the
    gradients of its float inputs (zeros where the function does not use one). Eagerly
    it runs at once; in a trace it is a node that runs with the graph."""
    wrt = [i for i, a in enumerate(args)
           if isinstance(a, Tensor) and np.dtype(a.dtype).kind in "fc"]
    seeded = [i for i, c in enumerate(cts) if c is not None]
    if not wrt or not seeded:
        return (None,) * len(args)
    n = len(args)

    def vjp(*values):
        xs, upstream = list(values[:n]), values[n:]
        with hooks.gradient_tape() as tape:
            tape.watch([xs[i] for i in wrt])
            result = func.fn(*xs)
        ys = [result] if single else list(result) if isinstance(result, list | tuple) \
            else [result]
        targets = [ys[i] if i < len(ys) else None for i in seeded]
        grads = tape.gradient(targets, [xs[i] for i in wrt], output_gradients=list(upstream),
                              unconnected_gradients="zero")
        return list(grads)

    grads = py_function(vjp, list(args) + [cts[i] for i in seeded],
                        [np.dtype(args[i].dtype) for i in wrt], name=f"{name}_grad")
    out = [None] * n
    for i, g in zip(wrt, grads):
        out[i] = g
    return tuple(out)


NUMPY_FUNCTION = register(OpDef(
    name="numpy_function",
    attrs={"func": PYOBJ, "Tout": DTYPES, "single": BOOL, "kind": STR, "name": STR},
    infer=_infer, ref=_ref, stateful=True, multiple_results=True,
    grad=NOT_DIFFERENTIABLE,
    extra={"runs_user_code": True, "python_side": "gc.numpy_function"},
))
# numpy_function(stateful=False): may be merged or pruned, never folded
STATELESS_NUMPY_FUNCTION = register(OpDef(
    name="stateless_numpy_function",
    attrs={"func": PYOBJ, "Tout": DTYPES, "single": BOOL, "kind": STR, "name": STR},
    infer=_infer, ref=_ref, multiple_results=True,
    grad=NOT_DIFFERENTIABLE, extra={"runs_user_code": True, "no_fold": True,
                                  "python_side": "gc.numpy_function"},
))
# differentiable: its gradient runs the function again under an eager GradientTape
PY_FUNCTION = register(OpDef(
    name="py_function",
    attrs={"func": PYOBJ, "Tout": DTYPES, "single": BOOL, "kind": STR, "name": STR},
    infer=_infer, ref=_ref, stateful=True, multiple_results=True,
    grad=_py_function_grad,
    extra={"runs_user_code": True, "python_side": "gc.py_function"},
))


# --------------------------------------------------------------------------- API
class NotCallableError(TypeError, ValueError):
    """``func`` is not callable: a ``TypeError`` (as TensorFlow's ``numpy_function``
    raises) that is also the ``ValueError`` of TensorFlow's ``py_function``."""


def _tout_dtype(kind, d) -> np.dtype:
    """``d`` as a dtype tensors can hold (numbers and booleans), else ``TypeError``: NumPy
    reads some non-dtypes (``{}``, ``[]``) as an empty record dtype."""
    dtype = as_dtype(d)
    if dtype is None or dtype.kind not in "biufc":
        raise TypeError(f"{kind}: cannot convert Tout entry {d!r} to a tensor dtype; use "
                        "e.g. gc.float32")
    return dtype


def _call(op, kind, func, inp, Tout, name):
    if not callable(func):
        raise NotCallableError(f"{kind}: func must be callable, got {type(func).__name__}")
    if isinstance(inp, Tensor | np.ndarray) or hasattr(inp, "_graphc_tensor_"):
        inp = [inp]
    single = not isinstance(Tout, list | tuple)
    dtypes = [_tout_dtype(kind, d) for d in ([Tout] if single else Tout)]
    name = name or getattr(func, "__name__", None) or _fn_name(func)
    attrs = dict(func=FunctionRef(func), Tout=tuple(dtypes), single=single, kind=kind,
                 name=name)
    if trace.active():
        outs = bind(op, *inp, **attrs)
    else:
        # eager: run it here, so the note on an exception names this call's line
        where = source_info.user_location()

        def run_now(op, args, attrs):
            arrays = _operands(op, list(args))
            return [_eager(a) for a in run(func, arrays, dtypes, single, kind, name, where)]

        if hooks.tapes:  # a GradientTape records: let it see this call
            outs = hooks.record_bind(run_now, op, tuple(inp), attrs)
        else:
            outs = run_now(op, inp, attrs)
    return outs[0] if single else list(outs)


def numpy_function(func, inp, Tout, stateful=True, name=None):
    """Call ``func(*inp)`` on ``numpy.ndarray`` values when the graph runs.

    ``Tout`` is one dtype (one tensor back), a list of dtypes (a list back) or ``[]``
    (``func`` returns None; so does the call: ``[]``). Results have unknown shapes in the
    graph. ``stateful=False`` promises ``func`` is a pure function of its inputs, so
    equal calls may be merged and an unused call dropped. Inputs are read-only arrays.

    >>> @gc.function
    ... def f(x):
    ...     return gc.numpy_function(np.sqrt, [x], gc.float32)
    >>> f(gc.constant([[4.0, 9.0], [16.0, 25.0]])).numpy()
    array([[2., 3.],
           [4., 5.]], dtype=float32)
    """
    op = NUMPY_FUNCTION if stateful else STATELESS_NUMPY_FUNCTION
    return _call(op, "numpy_function", func, inp, Tout, name)


def py_function(func, inp, Tout, name=None):
    """Call ``func(*inp)`` on eager ``gc.Tensor`` values when the graph runs.

    Inside ``func`` graphc ops run eagerly and ``.numpy()`` works. ``Tout`` as in
    :func:`numpy_function`.

    >>> def mean(x):
    ...     return np.mean(x.numpy())
    >>> @gc.function
    ... def f(x):
    ...     return gc.py_function(mean, [x], gc.float32)
    >>> f(gc.constant([1.0, 2.0, 6.0])).numpy()
    3.0
    """
    return _call(PY_FUNCTION, "py_function", func, inp, Tout, name)
