"""Shape arguments that may hold tensors (dynamic shapes, issue 12).

A shape-taking op (``full``/``zeros``/``fill``, ``reshape``, ``broadcast_to``, ``tile``,
``pad``) accepts its shape as Python ints, as a sequence mixing ints and 0-d integer
tensors, or as a 1-D integer tensor. :func:`shape_arg` sorts the argument into one of
two forms:

* **static**: every entry is known while tracing (Python ints, eager tensors, or traced
  values this module can evaluate at trace time, see :func:`static_value`). The op is
  bound exactly as before issue 12: the shape is an attr, no extra operand.
* **dynamic**: some entry is only known at run time. The op gets the whole shape as one
  more operand, a 1-D int64 tensor, and its attr holds the *template*: a tuple with the
  dims known while tracing and ``None`` for the others, or ``None`` when even the length
  (the result's rank) is unknown. Ops read the rule "the template is ``None`` or holds a
  ``None`` <=> the value comes from the operand" (:func:`is_dynamic`); ``infer`` reads the
  template, ``ref`` and the Numba kernels read the operand.

Only the op's wrapper calls :func:`shape_arg`; ``infer``/``ref`` stay with each op.
"""

from __future__ import annotations

import operator
import weakref

import numpy as np

from graphc import source_info
from graphc.core import trace
from graphc.core.registry import bind, get
from graphc.core.tensor import Tensor

# Trace-time evaluation limits: values bigger than this, or computed through more ops
# than this, are left to run time.
_EVAL_SIZE = 64
_EVAL_DEPTH = 8


def is_dynamic(template) -> bool:
    """Whether an op with this shape template takes the shape as an operand."""
    return template is None or None in template


# --------------------------------------------------------------------------- trace time
_producers: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _producer(value):
    """The node (in an open trace context of this thread) that produced ``value``."""
    for ctx in reversed(trace.local.stack):
        seen, table = _producers.get(ctx, (0, {}))
        if seen < len(ctx.nodes):  # index the nodes added since the last look
            for node in ctx.nodes[seen:]:
                for i, o in enumerate(node.outputs):
                    table[o.id] = (node, i)
            _producers[ctx] = (len(ctx.nodes), table)
        hit = table.get(value.id)
        if hit is not None:
            return hit
    return None


def _captured_from(value):
    """The value of an enclosing trace context that ``value`` (an input of a ``cond``
    branch or loop body being traced) captures, else ``None``: the same in every
    iteration, so known when it is."""
    for ctx in reversed(trace.local.stack):
        for outer, inner in ctx.captures.values():
            if inner is value:
                return outer
    return None


def _evaluate(value, depth):
    """``value``'s array if it can be computed while tracing, else ``None``."""
    aval = value.aval
    if aval.shape is None or None in aval.shape or int(np.prod(aval.shape)) > _EVAL_SIZE:
        return None
    hit = _producer(value)
    if hit is None:  # a branch's or loop body's input: the enclosing value it captures
        outer = _captured_from(value)
        return None if outer is None else _evaluate(outer, depth + 1)
    node, index = hit
    op = node.op
    if op.name == "const":
        return node.attrs["value"].array
    if op.name == "shape":  # tf.shape of a value whose dims are all known
        shape = node.inputs[0].aval.shape
        if shape is None or None in shape:
            return None
        return np.array(shape, dtype=aval.dtype)
    if op.stateful or depth >= _EVAL_DEPTH or node.subgraphs():
        return None
    arrays = []
    for v in node.inputs:
        arr = _evaluate(v, depth + 1)
        if arr is None:
            return None
        arrays.append(arr)
    try:
        with np.errstate(all="ignore"):
            out = op.ref(*arrays, **node.attrs)
    except Exception:  # noqa: BLE001 - the same error is raised when the graph runs
        return None
    return np.asarray(out[index] if op.multiple_results else out)


def static_value(x):
    """``x`` as a NumPy array if it is known while tracing, else ``None``.

    Eager tensors are known; a traced value is known when it comes from constants through
    a few pure, small ops (``gc.range(3)``, ``gc.shape(x)`` of a fully known shape, ...),
    as TensorFlow's ``constant_value`` would find it.
    """
    if not isinstance(x, Tensor):
        return None
    if x._np is not None:
        return x._np
    return _evaluate(x._sym, 0)


# --------------------------------------------------------------------------- shapes
def _bad(what, shape, detail=""):
    if not detail and isinstance(shape, tuple | list) and None in shape:
        detail = (" (a None dim is unknown while tracing: pass gc.shape(x), the shape "
                  "known when the function runs, instead of x.shape)")
    return TypeError(
        f"{what}: a shape must be an int, a sequence of ints and 0-d integer tensors, or a "
        f"1-D integer tensor; got {shape!r:.80}{detail}{source_info.where()}")


def _check_int(t, what, shape):
    if t.dtype.kind not in "iu":
        raise _bad(what, shape, f" (a {t.dtype} tensor; cast it with gc.cast(..., "
                                "gc.int32) if its values are whole numbers)")


def _static_dims(arr, what, shape) -> tuple:
    arr = np.asarray(arr)
    if arr.dtype.kind not in "iu" or arr.ndim > 1:
        raise _bad(what, shape)
    return tuple(int(d) for d in arr.reshape(-1))


def shape_arg(shape, what: str):
    """``(template, operand)`` for a shape argument.

    Static: ``(dims, None)`` with every dim a Python int. Dynamic: ``(template, t)``
    where ``t`` is a 1-D int64 tensor holding the whole shape at run time. Raises
    ``TypeError`` (naming ``what`` and the user's line) for anything that is not a shape.
    """
    if isinstance(shape, Tensor):
        value = static_value(shape)
        if value is not None:
            return _static_dims(value, what, shape), None
        _check_int(shape, what, shape)
        if shape.ndim == 0:
            return (None,), as_int64(_reshape1(shape))
        if shape.ndim != 1:
            raise _bad(what, shape, f" (a tensor of rank {shape.ndim})")
        return _template_of(shape), as_int64(shape)
    if isinstance(shape, np.ndarray):
        return _static_dims(shape, what, shape), None
    if isinstance(shape, int | np.integer):
        return (int(shape),), None
    try:
        entries = list(shape)
    except TypeError:
        raise _bad(what, shape) from None
    template, dynamic = [], False
    for e in entries:
        if isinstance(e, Tensor):
            value = static_value(e)
            if value is None:
                _check_int(e, what, shape)
                if e.ndim != 0:
                    raise _bad(what, shape, f" (an entry of shape {e.shape})")
                template.append(None)
                dynamic = True
                continue
            if value.ndim != 0 or value.dtype.kind not in "iu":
                raise _bad(what, shape)
            template.append(int(value))
            continue
        try:
            template.append(operator.index(e))
        except TypeError:
            raise _bad(what, shape) from None
    if not dynamic:
        return tuple(template), None
    parts = [as_int64(e) if isinstance(e, Tensor) and d is None else np.asarray(d, np.int64)
             for e, d in zip(entries, template)]
    return tuple(template), bind(get("stack"), *parts, axis=0)


def _template_of(t):
    """What is known of a 1-D shape tensor's values: its length, and the dims when it is
    ``gc.shape(x)`` (those of ``x`` known while tracing)."""
    n = t.shape[0]
    if n is None:
        return None
    hit = _producer(t._sym)
    if hit is not None and hit[0].op.name == "shape":
        dims = hit[0].inputs[0].aval.shape
        if dims is not None and len(dims) == n:
            return tuple(dims)
    if hit is not None and hit[0].op.name == "stack" and len(hit[0].inputs) == n:
        # gc.stack([2, n]): the entries known while tracing
        values = [_evaluate(v, 1) for v in hit[0].inputs]
        return tuple(None if v is None or v.ndim else int(v) for v in values)
    return (None,) * n


def as_int64(t):
    """``t`` as int64 (a cast node when it is another integer dtype)."""
    if t.dtype == np.int64:
        return t
    return bind(get("cast"), t, dtype=np.dtype(np.int64))


def _reshape1(t):
    return bind(get("reshape"), t, shape=(1,), order="C")


def pack(value, stack):
    """A nested list/tuple holding traced tensors, as one tensor (TensorFlow packs such
    lists: ``gc.concat((v, [i]), 0)``); ``stack`` stacks one level. Anything else is
    returned unchanged."""
    if not isinstance(value, list | tuple) or not holds_symbolic(value):
        return value
    return stack([pack(v, stack) for v in value])


def holds_symbolic(value) -> bool:
    """Whether a nested list/tuple holds a traced (symbolic) tensor."""
    for v in value:
        if isinstance(v, Tensor):
            if v._np is None:
                return True
        elif isinstance(v, list | tuple) and holds_symbolic(v):
            return True
    return False


# --------------------------------------------------------------------------- run time
def dims(operand, template, what: str, allow_minus_one: bool = False) -> tuple:
    """The shape an op's shape operand holds at run time, checked: a 1-D integer array
    of the template's length, no negative dim (``-1`` allowed for ``reshape``).

    Raises ``ValueError`` (the interpreter names the node and the user's line)."""
    arr = np.asarray(operand)
    if arr.ndim != 1:
        raise ValueError(f"{what}: the shape must be a 1-D tensor, got shape {arr.shape}")
    out = tuple(int(d) for d in arr)
    if template is not None and len(out) != len(template):
        raise ValueError(f"{what}: the shape {list(out)} has {len(out)} dims, "
                         f"{len(template)} expected")
    for i, d in enumerate(out):
        if d < 0 and not (allow_minus_one and d == -1):
            raise ValueError(f"{what}: negative dimension {d} at position {i} of the shape "
                             f"{list(out)}; dims must be >= 0")
    return out
