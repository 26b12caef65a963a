"""The reverse-mode walk: cotangents from a tape's records back to its sources.

Op-specific knowledge lives only in each op's ``OpDef.grad`` rule (declared with the op in
``graphc/ops/``): ``grad(cts, args, outputs, **attrs) -> one cotangent (or None) per
argument``, written with graphc ops, so the same rule computes gradients eagerly and adds
backward nodes while tracing. The walk here only orders the records, accumulates
cotangents, and applies two rules every op shares:

* a rule may return a cotangent in the broadcast shape of the op's result: it is summed
  back to the argument's shape (:func:`unbroadcast`);
* only floating and complex values carry gradients: integer and bool arguments get none.

An op marked ``grad=NOT_DIFFERENTIABLE`` passes no gradient; an op reached by a
cotangent that has no rule raises ``LookupError`` naming the op and the user's line.

A variable read inside an op's subgraphs (a branch, a loop body) is no argument of the op:
the tape tells the rules which subgraph values are such reads (:func:`inner_reads`,
``value id -> variable``), and a rule returns their cotangents as :class:`Grads`, whose
``variables`` the walk adds to the variables' gradients like one more read each.
"""

from __future__ import annotations

import threading

import numpy as np

from graphc import nest
from graphc.core.placement import scope_for
from graphc.core.registry import NOT_DIFFERENTIABLE, Grads, bind  # noqa: F401 (Grads: rules)
from graphc.core.tensor import Tensor
from graphc.numpy import asarray, reshape
from graphc.numpy import sum as gsum
from graphc.ops.creation import ones, ones_like, zeros_like
from graphc.ops.elementwise import CAST
from graphc.transforms.recording import unrecorded
from graphc.variables import Variable


def differentiable(x) -> bool:
    dtype = getattr(x, "dtype", None)
    return dtype is not None and np.dtype(dtype).kind in "fc"


class _Reads(threading.local):
    def __init__(self):
        self.by_value: dict = {}


_reads = _Reads()


def inner_reads() -> dict:
    """``{graph value id: variable}``: the variable reads inside subgraphs that the tape
    being differentiated on this thread watches (empty outside ``backward``)."""
    return _reads.by_value


def backward(tape, target, sources, output_gradients, unconnected):
    saved, _reads.by_value = _reads.by_value, getattr(tape, "_inner_reads", {})
    try:
        with scope_for(target):  # a target on a GPU: the walk's new tensors made there
            return _backward(tape, target, sources, output_gradients, unconnected)
    finally:
        _reads.by_value = saved


def _backward(tape, target, sources, output_gradients, unconnected):
    targets, _ = nest.flatten(target)
    seeds = [None] * len(targets) if output_gradients is None \
        else nest.flatten(output_gradients)[0]
    if len(seeds) != len(targets):
        raise ValueError(f"output_gradients has {len(seeds)} tensors for {len(targets)} "
                         "targets; give one per target")
    cts: dict[int, object] = {}
    # variable.ref() -> cotangent of its reads inside subgraphs, or of the variable itself
    var_cts: dict = {}
    for t, seed in zip(targets, seeds):
        if not isinstance(t, Tensor | Variable) or not differentiable(t):
            continue
        with unrecorded():
            start = _ones(t) if seed is None else _as_tensor(seed, t)
        if isinstance(t, Variable):
            # the variable itself (TensorFlow matches its handle): the seed is its
            # gradient as a source; no read of it is a target
            var_cts[t.ref()] = start if t.ref() not in var_cts else var_cts[t.ref()] + start
        else:
            _accumulate(cts, t, start)

    # a source may itself be computed by a recorded op (the gradient with respect to an
    # intermediate value): its cotangent is kept for the answer, the others are freed
    keep = set()
    for s in nest.flatten(sources)[0]:
        keep.add(id(s))
        if isinstance(s, Variable):
            keep.update(id(r) for r in tape._variables.get(id(s), (s, []))[1])
    for rec in reversed(list(tape._records)):   # a persistent tape may record the walk
        outs = [cts.get(id(o)) if id(o) in keep else cts.pop(id(o), None)
                for o in rec.outputs]
        if all(g is None for g in outs):
            continue
        for i, o in enumerate(rec.outputs):
            if outs[i] is None and isinstance(o, Tensor) and differentiable(o):
                with unrecorded():
                    outs[i] = zeros_like(o)
        rule = rec.op.grad
        if rule is NOT_DIFFERENTIABLE:
            continue
        if rule is None:
            raise LookupError(_no_rule(rec))
        grads = rule(outs, rec.args, rec.outputs, **dict(rec.attrs))
        for a, g in zip(rec.args, grads):
            if g is not None and isinstance(a, Tensor) and differentiable(a):
                _accumulate(cts, a, unbroadcast(g, a))
        for ref, g in getattr(grads, "variables", {}).items():
            var_cts[ref] = g if ref not in var_cts else var_cts[ref] + g

    source_leaves, treedef = nest.flatten(sources)
    out = []
    for s in source_leaves:
        if isinstance(s, Variable):
            reads = tape._variables.get(id(s), (s, []))[1]
            grads = [cts[id(r)] for r in reads if id(r) in cts]
            if s.ref() in var_cts:
                grads.append(var_cts[s.ref()])
            g = _sum(grads)
            like = s
        elif isinstance(s, Tensor):
            g, like = cts.get(id(s)), s
        else:
            raise TypeError(f"gradient sources must be tensors or gc.Variables, got "
                            f"{type(s).__name__}")
        if not differentiable(like):
            g = None
        elif g is None and unconnected == "zero":
            with unrecorded():
                g = zeros_like(like.read_value() if isinstance(like, Variable) else like)
        out.append(g)
    return nest.unflatten(treedef, out)


def unbroadcast(g, like):
    """``g`` summed over the axes NumPy broadcasting added to ``like``'s shape, and cast
    to its dtype (a float32 operand of a float64 result gets a float32 gradient)."""
    gshape, shape = g.shape, like.shape
    if gshape is not None and shape is not None and tuple(gshape) != tuple(shape):
        lead = len(gshape) - len(shape)
        axes = list(range(lead))
        for i, d in enumerate(shape):
            if d == 1 and gshape[lead + i] != 1:
                axes.append(lead + i)
        if axes and len(axes) == lead:
            g = gsum(g, axis=tuple(axes))   # leading axes only: one op, no reshape
        else:
            if axes:
                g = gsum(g, axis=tuple(axes), keepdims=True)
            if lead or len(g.shape) != len(shape):
                g = reshape(g, tuple(-1 if d is None else d for d in shape))
    if g.dtype != like.dtype:
        g = bind(CAST, g, dtype=np.dtype(like.dtype))
    return g


def _ones(t):
    """The seed ``ones`` for target ``t``: a foldable constant when its shape is known."""
    if t.shape is not None and None not in t.shape:
        return ones(t.shape, t.dtype)
    return ones_like(t)


def _accumulate(cts, t, g):
    key = id(t)
    prev = cts.get(key)
    cts[key] = g if prev is None else prev + g


def _sum(grads):
    total = None
    for g in grads:
        total = g if total is None else total + g
    return total


def _as_tensor(seed, like):
    t = seed if isinstance(seed, Tensor) else asarray(seed, dtype=like.dtype)
    if t.shape is not None and like.shape is not None and tuple(t.shape) != tuple(like.shape):
        raise ValueError(f"an output gradient of shape {tuple(t.shape)} was given for a "
                         f"target of shape {tuple(like.shape)}; they must match")
    return t


def _no_rule(rec) -> str:
    return (f"op {rec.op.name!r} has no gradient rule, so a gradient cannot flow through it"
            f"{rec.where}; wrap the computation in gc.stop_gradient if it should not be "
            "differentiated, or give it one with @gc.custom_gradient")
