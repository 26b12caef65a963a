"""``GradientTape.jacobian`` and ``GradientTape.batch_jacobian``.

For now a Jacobian is one reverse pass per row: the tape's records are walked once for
each element of the target (each element of ``target[0]`` for ``batch_jacobian``),
seeded with a one-hot cotangent, and the rows are stacked. Every row is computed before
a non-persistent tape releases its records. Inside a ``gc.function`` each pass adds its
backward nodes to the graph, so the graph grows with the target's size; SPEC section 8's
``gc.vectorized_map`` will replace the loop by one batched pass once it exists.
"""

from __future__ import annotations

import math

import numpy as np

from graphc.tracer import nest
from graphc.tracer.tensor import Tensor


def jacobian(tape, target, sources, unconnected_gradients="none"):
    """``d target / d source`` for each source: shape ``target.shape + source.shape``."""
    target = _read(target)
    shape = _static_shape(target, "target", "jacobian")
    source_leaves, treedef = nest.flatten(sources)
    n = math.prod(shape)
    seeds = []
    for i in range(n):
        onehot = np.zeros(n, dtype=target.dtype)
        onehot[i] = 1
        seeds.append(onehot.reshape(shape))
    rows = _passes(tape, target, source_leaves, seeds, unconnected_gradients)
    out = [_stack(col, shape, leaf, unconnected_gradients, axis=0)
           for col, leaf in zip(rows, source_leaves)]
    return nest.unflatten(treedef, out)


def batch_jacobian(tape, target, source, unconnected_gradients="none"):
    """Per-example Jacobians: ``target[b]`` with respect to ``source[b]`` for every ``b``,
    of shape ``(b,) + target.shape[1:] + source.shape[1:]``. Assumes example ``b`` of the
    target depends on example ``b`` of the source only (as TensorFlow's does)."""
    target = _read(target)
    tshape = _static_shape(target, "target", "batch_jacobian")
    sshape = _static_shape(source, "source", "batch_jacobian")
    if not tshape or not sshape or tshape[0] != sshape[0]:
        raise ValueError(f"batch_jacobian needs a batch dimension 0 shared by target and "
                         f"source; got target shape {tshape} and source shape {sshape}")
    inner = tshape[1:]
    m = math.prod(inner)
    seeds = []
    for j in range(m):
        onehot = np.zeros((tshape[0], m), dtype=target.dtype)
        onehot[:, j] = 1
        seeds.append(onehot.reshape(tshape))
    (col,) = _passes(tape, target, [source], seeds, unconnected_gradients)
    return _stack(col, inner, source, unconnected_gradients, axis=1)


def _passes(tape, target, sources, seeds, unconnected):
    """One backward walk per seed; ``[[grad of source k for each seed] for each k]``."""
    from graphc.transforms import autodiff

    if tape._used and not tape._persistent:
        raise RuntimeError(
            "GradientTape.jacobian can only be called once on a non-persistent tape, after "
            "no gradient call; create it with gc.GradientTape(persistent=True) to call it "
            "again")
    if unconnected not in ("none", "zero"):
        raise ValueError(f"unconnected_gradients must be 'none' or 'zero', got "
                         f"{unconnected!r}")
    tape._used = True
    cols = [[] for _ in sources]
    try:
        with tape.stop_recording():
            for seed in seeds:
                grads = autodiff.backward(tape, target, list(sources), seed, "none")
                for col, g in zip(cols, grads):
                    col.append(g)
    finally:
        if not tape._persistent:
            tape.reset()   # release the records (and what they keep alive)
    return cols


def _stack(rows, lead, source, unconnected, axis):
    """Rows (one per target element) stacked into the Jacobian of one source."""
    import graphc.numpy as gnp
    from graphc.transforms.autodiff import differentiable
    from graphc.transforms.tape import unrecorded

    if not (isinstance(source, Tensor) or _is_variable(source)) or not differentiable(source):
        return None
    sshape = _static_shape(source, "source", "jacobian")
    out_shape = tuple(lead) + sshape if axis == 0 else sshape[:1] + tuple(lead) + sshape[1:]
    if all(r is None for r in rows):
        if rows and unconnected == "none":
            return None
        with unrecorded():
            return gnp.zeros(out_shape, dtype=source.dtype)
    if any(r is None for r in rows):
        with unrecorded():
            zero = gnp.zeros(sshape, dtype=source.dtype)
        rows = [zero if r is None else r for r in rows]
    if axis == 0:
        return gnp.reshape(gnp.stack(rows), out_shape)
    stacked = gnp.stack(rows, axis=1)   # (b, m) + source.shape[1:]
    return gnp.reshape(stacked, out_shape)


def _is_variable(x) -> bool:
    from graphc.variables import Variable

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
