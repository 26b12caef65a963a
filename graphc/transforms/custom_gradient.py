"""``@gc.custom_gradient``: a function that supplies its own gradient.

A call runs the function's body with no tape recording it (so none of its ops is
differentiated) while a watcher notes the trainable variables it reads; then it records
*one* tape record for the whole call: its arguments are the call's tensor inputs (and the
reads of those variables), its outputs the function's results, and its rule calls the
``grad_fn`` the function returned. The record's ``op`` is a small per-call object with a
``name`` and a ``grad`` rule, which is all the backward walk asks of an op, so eager
tapes, tapes inside a ``gc.function`` trace and ``gc.gradients`` (which finds the record
noted on the trace) treat it like any op.
"""

from __future__ import annotations

import inspect

from graphc import nest
from graphc.autograph.api import converted
from graphc.core import trace
from graphc.core.registry import bind
from graphc.core.tensor import Tensor, _eager
from graphc.numpy import asarray
from graphc.ops.creation import IDENTITY
from graphc.transforms import recording
from graphc.transforms.graph_gradients import note_record
from graphc.variables import Variable


class CustomGradientOp:
    """Stands in for an ``OpDef`` in one tape record: ``grad`` calls the call's grad_fn."""

    __slots__ = ("name", "grad")

    def __init__(self, name, grad):
        self.name, self.grad = name, grad

    def __repr__(self):
        return f"<custom_gradient {self.name}>"


def custom_gradient(f=None):
    """Decorate ``f`` so that ``f`` returns ``(y, grad_fn)`` and ``grad_fn`` gives its
    gradient (``tf.custom_gradient``).

    ``grad_fn(*upstream)`` gets one cotangent per (flattened) result and returns one
    gradient (or ``None``) per tensor argument, in the order of ``f``'s parameters
    whether they were passed by position or by keyword (a single tensor when there is
    one; a gradient per argument, non-tensor ones included, is accepted too). If ``f``
    reads trainable ``gc.Variable``s, ``grad_fn`` must take a ``variables=`` keyword and
    return ``(input_grads, variable_grads)``, one variable gradient per entry of
    ``variables``. The body's own ops are not differentiated. Works eagerly and inside
    ``gc.function``, called with positional or keyword arguments.

    >>> @gc.custom_gradient
    ... def clip_gradient(x):
    ...     def grad_fn(dy):
    ...         return gnp.clip(dy, -1.0, 1.0)
    ...     return x * 1.0, grad_fn
    >>> x = gc.constant(2.0)
    >>> with gc.GradientTape() as tape:
    ...     tape.watch(x)
    ...     y = clip_gradient(x) * 10.0
    >>> float(tape.gradient(y, x))
    1.0
    """
    if f is None:
        return custom_gradient

    def wrapper(*args, **kwargs):
        return _call(f, args, kwargs)

    # no __wrapped__: AutoGraph converts ``f`` itself when the call traces (see _call)
    for attr in ("__name__", "__qualname__", "__doc__", "__module__"):
        setattr(wrapper, attr, getattr(f, attr, None))
    wrapper.__dict__.update(getattr(f, "__dict__", {}))
    return wrapper


class _VariableWatcher:
    """Replaces this thread's tapes while the body runs: records nothing, notes the
    trainable variables read (and the tensors those reads gave)."""

    def __init__(self):
        self.reads: dict[int, tuple] = {}   # id(variable) -> (variable, [read tensors])

    def _record(self, op, args, outputs, attrs) -> None:
        pass

    def _on_variable_read(self, variable, tensor) -> None:
        if variable.trainable:
            self.reads.setdefault(id(variable), (variable, []))[1].append(tensor)

    def __enter__(self):
        self.saved = recording.local.tapes
        recording.local.tapes = [self]
        with recording.lock:
            recording.recording.append(self)
        return self

    def __exit__(self, *exc):
        recording.local.tapes = self.saved
        with recording.lock:
            recording.recording.remove(self)
        return False


def _call(f, args, kwargs):
    name = getattr(f, "__qualname__", None) or repr(f)
    # Variables passed as arguments are inputs: read them here, where the caller's
    # tapes see the read, and give the body the value.
    # Inputs in the order of f's parameters, however they were passed.
    try:
        bound = inspect.signature(f).bind(*args, **kwargs)
    except ValueError:   # no signature to read (a builtin): positional, then keywords
        bound = None
    names = list(bound.arguments) if bound is not None else None
    values = list(bound.arguments.values()) if bound is not None \
        else [list(args), list(kwargs.values())]
    leaves, treedef = nest.flatten(values)
    leaves = [v.read_value() if isinstance(v, Variable) else v for v in leaves]
    inputs = [v for v in leaves if isinstance(v, Tensor)]
    values = nest.unflatten(treedef, leaves)
    if bound is not None:
        for k, v in zip(names, values):
            bound.arguments[k] = v
        args, kwargs = bound.args, bound.kwargs
    else:
        args, kwargs = values[0], dict(zip(kwargs, values[1]))

    body = f
    if trace.active():
        body = converted(f)
    with _VariableWatcher() as watcher:
        result = body(*args, **kwargs)
    if not (isinstance(result, tuple | list) and len(result) == 2 and callable(result[1])):
        raise TypeError(f"@custom_gradient function '{name}' must return (y, grad_fn), got "
                        f"{type(result).__name__}")
    y, grad_fn = result
    variables = [v for v, _ in watcher.reads.values()]
    takes_variables = _takes_variables(grad_fn)
    if variables and not takes_variables:
        raise TypeError(
            f"@custom_gradient function '{name}' reads trainable variables "
            f"({', '.join(repr(v.name) for v in variables)}), so its grad_fn must accept a "
            "keyword argument 'variables' and return (input_grads, variable_grads)")

    # fresh results: a record's outputs are keyed by tensor identity (and, in a graph,
    # by value), so a result must not be one of the inputs (``return x, grad_fn``)
    out_leaves, out_def = nest.flatten(y)
    tracing = trace.active()
    first = len(trace.current().nodes) if tracing else 0
    outputs = [_fresh(t, tracing) for t in out_leaves]
    reads = [(v, ts[-1]) for v, ts in watcher.reads.values()]
    op = CustomGradientOp(name, _rule(name, grad_fn, len(inputs), len(leaves), inputs,
                                      leaves, variables if takes_variables else None))
    record_args = tuple(inputs) + tuple(t for _, t in reads)
    tensor_outputs = tuple(t for t in outputs if isinstance(t, Tensor))
    if recording.recording:
        for variable, t in reads:
            recording.on_variable_read(variable, t)
        for tape in recording.local.tapes:
            tape._record(op, record_args, tensor_outputs, {})
    if tracing:
        note_record(recording.Record(op, record_args, tensor_outputs, {}), first)
    return nest.unflatten(out_def, outputs)


def _fresh(t, tracing):
    """A new tensor for the result ``t``. While tracing it is a new graph value too (an
    ``identity`` node, as TensorFlow adds): a result that *is* an input would otherwise
    be one value with two producers, and ``gc.gradients`` would count its cotangent
    twice (``f(f(x))`` with an identity ``f``)."""
    if not isinstance(t, Tensor):
        return t
    if tracing:
        with recording.unrecorded():   # the call's one record stands for this node
            return bind(IDENTITY, t)
    return _eager(t._np)


def _takes_variables(fn) -> bool:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == "variables" or p.kind is p.VAR_KEYWORD for p in params)


def _rule(name, grad_fn, n_inputs, n_leaves, inputs, leaves, variables):
    """The record's gradient rule: call ``grad_fn`` and check what it returns."""

    def grad(cts, args, outputs, **_):
        if variables is None:
            input_grads, variable_grads = grad_fn(*cts), []
        else:
            got = grad_fn(*cts, variables=list(variables))
            if not (isinstance(got, tuple | list) and len(got) == 2):
                raise ValueError(f"@custom_gradient function '{name}': grad_fn takes "
                                 "'variables', so it must return (input_grads, "
                                 f"variable_grads); got {type(got).__name__}")
            input_grads, variable_grads = got
        grads = _flat(input_grads)
        if len(grads) == n_leaves and n_leaves != n_inputs:
            # one gradient per argument, non-tensor ones included: keep the tensors'
            grads = [g for g, leaf in zip(grads, leaves) if isinstance(leaf, Tensor)]
        if len(grads) != n_inputs:
            raise ValueError(
                f"@custom_gradient function '{name}': grad_fn returned {len(grads)} "
                f"gradient(s), but the function has {n_inputs} tensor input(s); return one "
                "gradient (or None) per tensor argument, in the order of the function's parameters")
        variable_grads = _flat(variable_grads)
        if len(variable_grads) != len(variables or ()):
            raise ValueError(
                f"@custom_gradient function '{name}': grad_fn returned "
                f"{len(variable_grads)} variable gradient(s) for {len(variables or ())} "
                "variable(s); return one per entry of `variables`")
        return [_as_gradient(g, a) for g, a in zip(grads + variable_grads, args)]

    return grad


def _flat(grads) -> list:
    if grads is None or isinstance(grads, Tensor) or not isinstance(grads, list | tuple):
        return [grads]
    return list(grads)


def _as_gradient(g, like):
    if g is None or isinstance(g, Tensor):
        return g

    return asarray(g, dtype=like.dtype)

