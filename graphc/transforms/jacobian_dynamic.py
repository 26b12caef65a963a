"""Jacobians of tensors whose shapes are only partly known while tracing.

Inside a ``gc.function`` traced for ``gc.TensorSpec([None, None])`` the number of
elements of the target is known only when the function runs, so the one-hot seeds of
``graphc.transforms.jacobian`` cannot be a NumPy identity. Here they are computed in the
graph (``range(n) == range(n)[:, None]``, reshaped with the target's run-time shape),
the backward walk is traced once and batched over them by ``gc.vectorized_map`` (ops with
no batching rule run in its loop over the batch), and the result is reshaped to
``target.shape + source.shape`` read at run time (TensorFlow's pfor path). For
``batch_jacobian`` a batch size that differs between target and source is found when
the function runs: ``gc.errors.InvalidArgumentError``, as TensorFlow raises.
"""

from __future__ import annotations

import graphc.numpy as gnp
from graphc import debugging
from graphc.ops.creation import tf_range
from graphc.ops.shape import shape as tf_shape
from graphc.ops.tf_elementwise import cast
from graphc.tf_api import tf_zeros
from graphc.transforms import autodiff, recording
from graphc.transforms.batching import vectorized_map
from graphc.transforms.recording import unrecorded


def has_unknown_dims(t) -> bool:
    """Whether ``t`` has a known rank and some dimension unknown while tracing."""
    shape = getattr(t, "shape", None)
    return shape is not None and any(d is None for d in shape)


def _one_hot_rows(m, dtype):
    """The ``(m, m)`` identity for a run-time ``m``."""
    i = tf_range(m)
    return cast(gnp.equal(gnp.reshape(i, [-1, 1]), gnp.reshape(i, [1, -1])), dtype)


def _dims(t) -> list:
    """``t``'s dims: the known ones as ints, the others as 0-d tensors read at run time
    (a reshape to them keeps the known dims known while tracing)."""
    sizes = tf_shape(t)
    return [sizes[i] if d is None else d for i, d in enumerate(t.shape)]


def _count(dims):
    """The product of ``dims`` (ints and run-time scalars)."""
    out = 1
    for d in dims:
        out = out * d
    return out


def jacobian_columns(tape, target, sources, unconnected, pullbacks):
    """``d target / d source`` for each source of ``sources`` (``None`` where a source is
    unconnected and ``unconnected`` is ``'none'``), with shapes read at run time.
    ``pullbacks`` is ``graphc.transforms.jacobian._pullbacks``."""
    tshape = _dims(target)
    n = _count(tshape)
    seeds = gnp.reshape(_one_hot_rows(n, target.dtype), [n] + tshape)
    cols = pullbacks(tape, target, sources, seeds, unconnected, "jacobian")
    return [_finish(col, src, unconnected, lambda s: tshape + s)
            for col, src in zip(cols, sources)]


def batch_jacobian_column(tape, target, source, unconnected, pullbacks):
    """Per-example Jacobian of ``target`` (``(b,) + inner``) with respect to ``source``
    (``(b,) + rest``): ``(b,) + inner + rest``, shapes read at run time; the batch sizes
    are checked when the function runs."""
    tshape, sshape = _dims(target), _dims(source)
    debugging.assert_equal(
        tshape[0], sshape[0],
        message="Need first dimension of target shape and source shape to match "
                "(batch_jacobian: the batch sizes of target and source differ)")
    b, inner = tshape[:1], tshape[1:]
    m = _count(inner)
    # seed j: ones at element j of every example's target
    eye = gnp.reshape(_one_hot_rows(m, target.dtype), [m, 1, m])
    seeds = gnp.reshape(gnp.broadcast_to(eye, [m] + b + [m]), [m] + tshape)
    (col,) = pullbacks(tape, target, [source], seeds, unconnected, "batch_jacobian")
    if col is not None:
        col = gnp.moveaxis(col, 0, 1)   # (m, b, ...) -> (b, m, ...)
    return _finish(col, source, unconnected, lambda s: b + inner + s[1:])


def batched_rows(tape, target, sources, seeds):
    """The backward walk batched over run-time ``seeds`` (``BatchingRefused`` propagates
    to the caller, which then calls ``looped_rows``)."""
    return _vectorized(tape, target, sources, seeds, fallback=False)


def looped_rows(tape, target, sources, seeds):
    """As ``batched_rows``, the ops with no batching rule run in a loop over the seeds.
    While another tape records (which would not see the batched walk's dependencies):
    ``ValueError``."""
    if recording.local.tapes:
        raise ValueError(
            "GradientTape.jacobian of a target or source whose shape is unknown while "
            "tracing, while another tape records: not supported; give them known shapes")
    return _vectorized(tape, target, sources, seeds, fallback=True)


def _vectorized(tape, target, sources, seeds, fallback):
    connected = []

    def pull(seed):
        grads = autodiff.backward(tape, target, list(sources), seed, "none")
        connected[:] = [g is not None for g in grads]
        return [gnp.zeros((), dtype=target.dtype) if g is None else g for g in grads]

    cols = vectorized_map(pull, seeds, fallback_to_while_loop=fallback, warn=False)
    return [c if ok else None for c, ok in zip(cols, connected)]


def _finish(col, source, unconnected, layout):
    """One source's Jacobian of run-time shape ``layout(shape(source))``."""
    from graphc.transforms.jacobian import _read, _takes_gradient  # deferred: it imports us
    if not _takes_gradient(source):
        return None
    out_shape = layout(_dims(_read(source)))
    if col is not None:
        return gnp.reshape(col, out_shape)
    if unconnected == "none":
        return None
    with unrecorded():
        return tf_zeros(out_shape, dtype=source.dtype)
