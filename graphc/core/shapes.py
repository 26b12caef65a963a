"""Shape arithmetic shared by ``infer`` functions; dims may be ``None`` (unknown)."""

from __future__ import annotations

import operator

import numpy as np

from graphc.ir.graph import Aval


def broadcast_shapes(*shapes):
    """NumPy broadcasting over shapes whose dims may be ``None``.

    Raises ``ValueError`` naming both dims when two known dims cannot broadcast.
    """
    if any(s is None for s in shapes):
        return None
    ndim = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(ndim):
        dim = 1
        for s in shapes:
            k = i - (ndim - len(s))
            if k < 0:
                continue
            d = s[k]
            if d == 1:
                continue
            if dim == 1:
                dim = d
            elif d is None:
                continue
            elif dim is None:
                dim = d
            elif d != dim:
                raise ValueError(
                    "shapes " + " and ".join(_fmt(s) for s in shapes)
                    + f" cannot be broadcast together (dim {dim} vs {d})"
                )
        out.append(dim)
    return tuple(out)


def _fmt(shape):
    return "(" + ", ".join("?" if d is None else str(d) for d in shape) + ")"


def normalize_axis(axis: int, ndim: int) -> int:
    try:
        axis = operator.index(axis)
    except TypeError:
        raise TypeError(f"axis must be an int, got {type(axis).__name__}") from None
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for a tensor of rank {ndim}")
    return axis % ndim if ndim else 0


def normalize_axes(axis, ndim: int) -> tuple:
    """``None`` -> all axes; int or tuple -> sorted tuple of non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, tuple | list):
        axes = tuple(normalize_axis(a, ndim) for a in axis)
        if len(set(axes)) != len(axes):
            raise ValueError(f"repeated axis in {tuple(axis)}")
        return tuple(sorted(axes))
    return (normalize_axis(axis, ndim),)


def num_elements(shape):
    """Product of dims, or ``None`` if any is unknown."""
    n = 1
    for d in shape:
        if d is None:
            return None
        n *= d
    return n


def dummy(aval: Aval, fill=1) -> np.ndarray:
    """A tiny stand-in array of ``aval``'s dtype (all dims 1), to probe a ref's dtype."""
    return np.full((1,) * len(aval.shape), fill, dtype=aval.dtype)


def probe_dtype(ref, avals, **attrs) -> np.dtype:
    """The dtype ``ref`` returns for inputs of these dtypes (one source of dtype truth)."""
    return np.asarray(ref(*[dummy(a) for a in avals], **attrs)).dtype


def probe_infer(ref, avals, attrs, multiple=False):
    """Infer output avals by running ``ref`` on zero-stride stand-in arrays.

    Used only by ops whose shape rules are long to restate (einsum, tensordot, pad, ...).
    Unknown dims are probed at two sizes; output dims that differ between the probes are
    unknown. Stand-ins are ``np.broadcast_to`` views, so no memory is allocated for inputs.
    """

    def run(size):
        arrays = [
            np.broadcast_to(np.zeros((), a.dtype), tuple(size if d is None else d for d in a.shape))
            for a in avals
        ]
        out = ref(*arrays, **attrs)
        return [np.asarray(o) for o in out] if multiple else [np.asarray(out)]

    first = run(2)
    if all(None not in a.shape for a in avals):
        second = first
    else:
        second = run(3)
    outs = []
    for a, b in zip(first, second):
        shape = tuple(x if x == y else None for x, y in zip(a.shape, b.shape))
        outs.append(Aval(shape, a.dtype))
    return tuple(outs) if multiple else outs[0]
