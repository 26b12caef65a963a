"""``gc.GradientTape``: record the ops applied to watched values, then walk them backwards.

Recording happens in ``bind`` (the one entry every op goes through): while any tape
records in any thread, ``bind`` calls ``recording.record_bind`` (through
``hooks.record_bind``), which runs the op and, for
each tape of the calling thread that sees one of the op's tensor inputs (watched, or
computed from a watched value), keeps ``(op, args, outputs, attrs)``. The same record is
made eagerly (arrays) and while a ``gc.function`` traces (symbolic tensors): the backward
walk (:mod:`graphc.transforms.autodiff`) calls each op's gradient rule through ``bind``,
so eagerly it computes gradients now and inside a trace it adds the backward nodes to the
graph, where the passes and the compiler treat them like any other.

Tapes belong to the thread that opened them (as TensorFlow's do). A tape holds its
records (and so every intermediate value they reference) until ``gradient`` is called,
or until it is dropped when ``persistent=True``.
"""

from __future__ import annotations

import numpy as np

from graphc import nest, source_info
from graphc.core import trace
from graphc.core.registry import bind
from graphc.core.tensor import Tensor, _symbolic
from graphc.ir.graph import Node
from graphc.ops.elementwise import STOP_GRADIENT
from graphc.transforms import autodiff, jacobian
from graphc.transforms.graph_vjp import variables_read
from graphc.transforms.recording import Paused, Record, local, lock, recording
from graphc.variables import Variable


class GradientTape:
    """Records operations on watched tensors so their gradients can be computed.

    >>> x = gc.constant(3.0)
    >>> with gc.GradientTape() as tape:
    ...     tape.watch(x)
    ...     y = x * x
    >>> float(tape.gradient(y, x))
    6.0

    ``persistent=True`` allows several ``gradient`` calls; ``watch_accessed_variables``
    (default True) watches every trainable ``gc.Variable`` read while the tape records.
    Works the same eagerly and inside a ``gc.function`` (there the backward pass becomes
    part of the graph and is optimized and compiled with it).
    """

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent = bool(persistent)
        self._watch_variables = bool(watch_accessed_variables)
        self._records: list[Record] = []
        self._live: dict[int, object] = {}       # id -> tensor the gradient can reach
        self._by_value: dict[int, object] = {}   # graph value id -> live symbolic tensor
        self._inner_reads: dict[int, object] = {}  # value id -> variable, read in a subgraph
        self._variables: dict[int, tuple] = {}   # id(variable) -> (variable, [reads])
        self._used = False
        self._paused = 0

    # ------------------------------------------------------------------ context
    def __enter__(self):
        if self._used and not self._persistent:
            raise RuntimeError("this GradientTape was already used to compute a gradient; "
                               "open a new tape, or create it with persistent=True")
        if self in local.tapes or self in recording:  # (identity: tapes define no __eq__)
            raise ValueError("this GradientTape is still recording: a tape cannot be "
                             "entered again inside its own `with` block (open a second "
                             "tape to nest, or re-enter it after the block ends)")
        local.tapes.append(self)
        with lock:
            recording.append(self)
        return self

    def __exit__(self, *exc):
        local.tapes.remove(self)
        with lock:
            recording.remove(self)
        return False

    def stop_recording(self):
        """A context in which this tape records nothing (``tape.stop_recording()``)."""
        return Paused(self)

    def reset(self):
        """Forget everything recorded so far (the tape stays usable)."""
        self._records.clear()
        self._live.clear()
        self._by_value.clear()
        self._variables.clear()
        self._inner_reads.clear()

    # ------------------------------------------------------------------ watching
    def watch(self, tensor) -> None:
        """Watch a tensor, a ``gc.Variable``, or any nest of them."""
        leaves, _ = nest.flatten(tensor)
        for leaf in leaves:
            if isinstance(leaf, Variable):
                self._variables.setdefault(id(leaf), (leaf, []))
            elif isinstance(leaf, Tensor):
                self._keep(leaf)
            else:
                raise TypeError(f"GradientTape.watch takes tensors and gc.Variables, got "
                                f"{type(leaf).__name__}")

    def watched_variables(self) -> tuple:
        """The variables this tape watches, in the order it first saw them."""
        return tuple(v for v, _ in self._variables.values())

    def _on_variable_read(self, variable, tensor) -> None:
        entry = self._variables.get(id(variable))
        if entry is None:
            if not (self._watch_variables and variable.trainable):
                return
            entry = self._variables[id(variable)] = (variable, [])
        entry[1].append(tensor)
        self._keep(tensor)
        ctx = trace.current() if tensor._np is None else None
        if ctx is not None and ctx.parent is not None and not hasattr(ctx, "function"):
            # read while a branch or loop body is staged: the control-flow node's rule
            # returns this value's cotangent (autodiff.inner_reads), not the walk
            self._inner_reads[tensor._sym.id] = variable

    def _record(self, op, args, outputs, attrs, reads_inside=False) -> None:
        live = self._live
        if self._by_value:
            args = tuple(self._same_value(a) for a in args)
        if not reads_inside and not any(id(a) in live for a in args if isinstance(a, Tensor)):
            return
        self._records.append(Record(op, args, outputs, attrs))
        for t in outputs:
            live[id(t)] = t
            if isinstance(t, Tensor) and t._np is None:  # a control-flow node may name it
                self._by_value[t._sym.id] = t

    def _same_value(self, a):
        """The tensor this tape knows for ``a``'s graph value when ``a`` is another
        symbolic tensor naming it (``gc.vectorized_map``'s walk binds a value of the
        enclosing trace that ``fn`` captured through a tensor of its own), else ``a``."""
        if type(a) is not Tensor or a._np is not None or id(a) in self._live:
            return a
        known = self._by_value.get(a._sym.id)
        return known if known is not None and known._sym is a._sym else a

    def _view_base(self, t):
        """``(base, record)`` when ``t`` was recorded as a view a write can go through
        (``OpDef.view`` certain, ``unview`` declared) of an eager ``base``, else None."""
        for r in reversed(self._records):
            if any(o is t for o in r.outputs):
                return (r.args[0], r) if _writable_view(r) else None
        return None

    def _views_of(self, base) -> list:
        """``[(view, record)]``: the live eager views of ``base`` this tape recorded."""
        live = self._live
        return [(r.outputs[0], r) for r in self._records
                if r.args and r.args[0] is base and _writable_view(r)
                and live.get(id(r.outputs[0])) is r.outputs[0]]

    def _rename(self, before, after, allowed=None) -> None:
        """Records (and the live set) name ``after`` where they named ``before``: an
        in-place write moves ``before``'s old value to a snapshot tensor, so the object
        itself can stand for the written value (``graphc/ops/inplace.py``)."""
        if id(before) not in self._live:
            return
        if allowed is not None and before._np is not None:  # before a write: who aliases
            for x in self._live.values():
                if (x is not before and isinstance(x, Tensor) and x._np is not None
                        and not any(x is a for a in allowed)
                        and np.shares_memory(x._np, before._np)):
                    raise NotImplementedError(
                        f"an in-place write into a tensor that shares memory with another "
                        f"tensor this GradientTape recorded (a view of it, or its base)"
                        f"{source_info.where()}: the tape would differentiate that view "
                        "as it was before the write. Write into a .copy(), or take the "
                        "view after the write")
        for r in self._records:
            if any(a is before for a in r.args):
                r.args = tuple(after if a is before else a for a in r.args)
            if any(o is before for o in r.outputs):
                r.outputs = tuple(after if o is before else o for o in r.outputs)
        del self._live[id(before)]
        self._keep(after)

    def _keep(self, t) -> None:
        self._live[id(t)] = t
        if t._np is None:
            self._by_value[t._sym.id] = t

    def _record_staged(self, op, inputs, outputs, attrs) -> None:
        """Record a node staged without ``bind`` (a control-flow node): its operands are
        graph values, each matched to the tensor this tape knows for it."""
        known = self._by_value
        args = tuple(known[v.id] if v.id in known else _symbolic(v) for v in inputs)
        inside = bool(self._inner_reads) and bool(
            variables_read(Node(op, (), attrs, ()).subgraphs(), self._inner_reads))
        self._record(op, args, tuple(outputs), attrs, reads_inside=inside)

    # ------------------------------------------------------------------ gradients
    def gradient(self, target, sources, output_gradients=None,
                 unconnected_gradients="none"):
        """The gradient of ``target`` (a tensor or nest; non-scalars are summed) with
        respect to ``sources`` (a tensor, variable or nest), in the structure of
        ``sources``. See ``docs/autodiff.md``."""
        if self._used and not self._persistent:
            raise RuntimeError(
                "GradientTape.gradient can only be called once on a non-persistent tape; "
                "create it with gc.GradientTape(persistent=True) to call it again")
        if unconnected_gradients not in ("none", "zero"):
            raise ValueError(f"unconnected_gradients must be 'none' or 'zero', got "
                             f"{unconnected_gradients!r}")
        self._used = True
        # Inside its own context a persistent tape records its backward pass, so the
        # gradient can be differentiated again (TensorFlow does; a non-persistent tape
        # drops its records below, so recording would keep nothing useful)
        with _Nothing() if self._persistent else self.stop_recording():
            result = autodiff.backward(self, target, sources, output_gradients,
                                       unconnected_gradients)
        if not self._persistent:
            self._records = []
            self._live = {}
            self._by_value = {}
            self._inner_reads = {}
        return result

    def jacobian(self, target, sources, unconnected_gradients="none",
                 parallel_iterations=None, experimental_use_pfor=True):
        """``d target / d source`` in the structure of ``sources``, each of shape
        ``target.shape + source.shape`` (``graphc.transforms.jacobian``).

        >>> x = gc.constant([1.0, 2.0])
        >>> with gc.GradientTape() as tape:
        ...     tape.watch(x)
        ...     y = x * x
        >>> tape.jacobian(y, x).numpy()
        array([[2., 0.],
               [0., 4.]], dtype=float32)
        """
        return jacobian.jacobian(self, target, sources, unconnected_gradients)

    def batch_jacobian(self, target, source, unconnected_gradients="none",
                       parallel_iterations=None, experimental_use_pfor=True):
        """Per-example Jacobians over a batch dimension 0 shared by ``target`` and
        ``source``: shape ``(b,) + target.shape[1:] + source.shape[1:]``."""
        return jacobian.batch_jacobian(self, target, source, unconnected_gradients)


class _Nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _writable_view(r) -> bool:
    """Whether the eager record ``r`` made a view a write can go through: its op
    declares an ``unview`` and NumPy did return a view (for a layout-dependent op such
    as ``reshape``, whether it did is a fact here: the arrays share memory)."""
    op = r.op
    if not (op.unview is not None and op.view is not None and len(r.outputs) == 1
            and r.args and isinstance(r.args[0], Tensor) and r.args[0]._np is not None
            and isinstance(r.outputs[0], Tensor) and r.outputs[0]._np is not None):
        return False
    kind = op.view(*[getattr(a, "aval", None) for a in r.args], **dict(r.attrs))
    return kind is True or (kind == "layout"
                            and np.shares_memory(r.outputs[0]._np, r.args[0]._np))


def stop_gradient(x):
    """``x`` with no gradient flowing back through it (``tf.stop_gradient``)."""
    return bind(STOP_GRADIENT, x)
