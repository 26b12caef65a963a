"""``GradientTape.jacobian`` and ``GradientTape.batch_jacobian``.

A Jacobian is one pullback with a batched cotangent: the tape's backward walk, seeded
with one cotangent, is traced once and run by ``gc.vectorized_map`` over the one-hot
seeds (the rows of an identity, one per element of the target, or of ``target[0]`` for
``batch_jacobian``), so every row comes out of one batched computation (one set of
backward nodes inside a ``gc.function``, whatever the target's size). When some op of
the backward walk has no batching rule, a ``gc.errors.VectorizationWarning`` names them
and the Jacobian falls back to one backward walk per row, the rows stacked. Every row is
computed before a non-persistent tape releases its records. While another tape records
(a Jacobian that is itself differentiated), the per-row walks are used so that tape
sees every op.
"""

from __future__ import annotations

import math

import numpy as np

import graphc.numpy as gnp
from graphc import errors, nest, source_info
from graphc.core.tensor import Tensor
from graphc.errors import VectorizationWarning
from graphc.transforms import autodiff, jacobian_dynamic, recording
from graphc.transforms.autodiff import differentiable
from graphc.transforms.batching import BatchingRefused, vectorized_map
from graphc.transforms.recording import unrecorded
from graphc.variables import Variable


def jacobian(tape, target, sources, unconnected_gradients="none"):
    """``d target / d source`` for each source: shape ``target.shape + source.shape``."""
    target = _read(target)
    source_leaves, treedef = nest.flatten(sources)
    if _partly_known(target, source_leaves):   # sizes read at run time
        _static_rank(target, "target", "jacobian")
        out = jacobian_dynamic.jacobian_columns(tape, target, source_leaves,
                                                unconnected_gradients, _dynamic_pullbacks)
        return nest.unflatten(treedef, out)
    shape = _static_shape(target, "target", "jacobian")
    n = math.prod(shape)
    seeds = np.eye(n, dtype=target.dtype).reshape((n,) + shape)
    cols = _pullbacks(tape, target, source_leaves, seeds, unconnected_gradients, "jacobian")
    out = [_finish(col, leaf, unconnected_gradients, lambda s: shape + s)
           for col, leaf in zip(cols, source_leaves)]
    return nest.unflatten(treedef, out)


def batch_jacobian(tape, target, source, unconnected_gradients="none"):
    """Per-example Jacobians: ``target[b]`` with respect to ``source[b]`` for every ``b``,
    of shape ``(b,) + target.shape[1:] + source.shape[1:]``. Assumes example ``b`` of the
    target depends on example ``b`` of the source only (as TensorFlow's does)."""
    target = _read(target)
    if _partly_known(target, [source]):   # sizes read (and batch sizes checked) at run time
        tshape = _static_rank(target, "target", "batch_jacobian")
        sshape = _static_rank(source, "source", "batch_jacobian")
    else:
        tshape = _static_shape(target, "target", "batch_jacobian")
        sshape = _static_shape(source, "source", "batch_jacobian")
    if len(tshape) == 1 or len(sshape) == 1:  # as TensorFlow: no per-example scalars
        which = "target" if len(tshape) == 1 else "source"
        raise ValueError(
            f"batch_jacobian needs a {which} of rank 2 or more (a batch dimension 0 and "
            f"the example's dimensions), got shape {tshape if which == 'target' else sshape}"
            f"; reshape it to (batch, 1) for a scalar per example")
    if not tshape or not sshape or (None not in (tshape[0], sshape[0])
                                    and tshape[0] != sshape[0]):
        raise ValueError(f"batch_jacobian needs a batch dimension 0 shared by target and "
                         f"source; got target shape {tshape} and source shape {sshape}")
    if None in tshape or None in sshape:
        return jacobian_dynamic.batch_jacobian_column(
            tape, target, source, unconnected_gradients, _dynamic_pullbacks)
    inner = tshape[1:]
    m = math.prod(inner)
    # seed j: ones at element j of every example's target
    seeds = np.broadcast_to(np.eye(m, dtype=target.dtype)[:, None, :], (m, tshape[0], m))
    seeds = np.ascontiguousarray(seeds).reshape((m,) + tshape)
    (col,) = _pullbacks(tape, target, [source], seeds, unconnected_gradients,
                        "batch_jacobian")   # (m, b) + source.shape[1:]
    return _finish(col, source, unconnected_gradients,
                   lambda s: s[:1] + tuple(inner) + s[1:], examples_first=True)


def _pullbacks(tape, target, sources, seeds, unconnected, api, rows=None):
    """The backward walk for every seed (dimension 0 of ``seeds``): for each source, a
    tensor ``(len(seeds),) + source.shape`` or None where the source is unconnected.
    ``rows``: the ``(batched, per_row)`` walks (default ``_batched``, ``_per_row``)."""
    batched, per_row = rows or (_batched, _per_row)
    if tape._used and not tape._persistent:
        raise RuntimeError(
            "GradientTape.jacobian can only be called once on a non-persistent tape, after "
            "no gradient call; create it with gc.GradientTape(persistent=True) to call it "
            "again")
    if unconnected not in ("none", "zero"):
        raise ValueError(f"unconnected_gradients must be 'none' or 'zero', got "
                         f"{unconnected!r}")
    tape._used = True
    try:
        with tape.stop_recording():
            if _other_tapes_record():
                # the batched walk reads the records' tensors as constants: an outer
                # tape would not see the Jacobian depend on them
                return per_row(tape, target, sources, seeds)
            try:
                return batched(tape, target, sources, seeds)
            except BatchingRefused as refused:
                count = (f"{len(seeds)} rows" if isinstance(seeds, np.ndarray)
                         else "rows counted at run time")
                errors.warn(
                    f"GradientTape.{api}{source_info.where()}: op(s) {', '.join(refused.ops)} "
                    "of the backward pass have no batching rule; one backward pass per "
                    f"row ({count})", VectorizationWarning)
            return per_row(tape, target, sources, seeds)
    finally:
        if not tape._persistent:
            tape.reset()   # release the records (and what they keep alive)


def _dynamic_pullbacks(tape, target, sources, seeds, unconnected, api):
    """``_pullbacks`` over seeds computed at run time (``jacobian_dynamic``)."""
    return _pullbacks(tape, target, sources, seeds, unconnected, api,
                      (jacobian_dynamic.batched_rows, jacobian_dynamic.looped_rows))


def _other_tapes_record() -> bool:
    return bool(recording.local.tapes)


def _batched(tape, target, sources, seeds):
    """One pullback traced on one seed and batched over all of them."""
    connected = []

    def pull(seed):
        grads = autodiff.backward(tape, target, list(sources), seed, "none")
        connected[:] = [g is not None for g in grads]
        # an unconnected source's placeholder: a scalar, broadcast and dropped
        return [gnp.zeros((), dtype=target.dtype) if g is None else g for g in grads]

    cols = vectorized_map(pull, seeds, fallback_to_while_loop=False)
    return [c if ok else None for c, ok in zip(cols, connected)]


def _per_row(tape, target, sources, seeds):
    """One backward walk per seed, the rows stacked (zeros for a row a connected source
    gets no cotangent in)."""
    rows = [[] for _ in sources]
    for seed in seeds:
        grads = autodiff.backward(tape, target, list(sources), seed, "none")
        for col, g in zip(rows, grads):
            col.append(g)
    out = []
    for col, source in zip(rows, sources):
        if all(r is None for r in col):
            out.append(None)
            continue
        with unrecorded():
            zero = gnp.zeros(_static_shape(source, "source", "jacobian"), dtype=source.dtype)
        out.append(gnp.stack([zero if r is None else r for r in col]))
    return out


def _finish(col, source, unconnected, layout, examples_first=False):
    """The Jacobian of one source, of shape ``layout(source.shape)``, from its stacked
    rows ``col`` (None: unconnected); ``examples_first``: ``col`` is ``(m, b, ...)``."""
    if not _takes_gradient(source):
        return None
    out_shape = layout(_static_shape(source, "source", "jacobian"))
    if col is not None:
        return gnp.reshape(gnp.moveaxis(col, 0, 1) if examples_first else col, out_shape)
    if unconnected == "none":
        return None
    with unrecorded():
        return gnp.zeros(out_shape, dtype=source.dtype)


def _takes_gradient(source) -> bool:
    return (isinstance(source, Tensor) or _is_variable(source)) and differentiable(source)


def _partly_known(target, sources) -> bool:
    """Whether the target or a tensor source has a known rank but some unknown dims."""
    return any(jacobian_dynamic.has_unknown_dims(t) for t in [target, *sources]
               if isinstance(t, Tensor) or _is_variable(t))


def _static_rank(t, what, api) -> tuple:
    """``t``'s shape, some dims possibly None; ``ValueError`` for an unknown rank."""
    if getattr(t, "shape", None) is None:
        _static_shape(t, what, api)   # raises
    return tuple(t.shape)


def _is_variable(x) -> bool:
    return isinstance(x, Variable)


def _read(x):
    return x.read_value() if _is_variable(x) else x


def _static_shape(t, what, api) -> tuple:
    shape = getattr(t, "shape", None)
    known = isinstance(t, Tensor) or _is_variable(t)
    if not known or shape is None or any(d is None for d in shape):
        raise ValueError(
            f"{api}: the {what} needs a fully known shape (got "
            f"{shape if known else 'a ' + type(t).__name__}); one "
            "backward pass per element is made, until gc.vectorized_map batches them")
    return tuple(shape)
