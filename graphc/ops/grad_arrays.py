"""Gradient rules of the joins and splits, ``pad``, ``sort`` and the rearranging shape
ops (reshape, expand_dims, squeeze, transpose, flip); declared in
``join.py``, ``pad_tile.py`` and ``shape.py`` (the rule contract is in
``elementwise.py``'s gradients section; selections in ``segment.py``)."""

from __future__ import annotations

from graphc.core.registry import bind, get
from graphc.ops.segment import positions, scatter_back, selection  # noqa: F401 - for shape.py


def _np():
    from graphc import numpy as gnp

    return gnp


def _want(a) -> bool:
    from graphc.ops.elementwise import _want as want

    return want(a)


def concatenate_grad(cts, args, outs, axis=0):
    """Each input gets its own stretch of the cotangent along ``axis``."""
    nd = len(outs[0].shape)
    ax = axis % nd
    sizes = [a.shape[ax] for a in args]
    if None in sizes:
        raise NotImplementedError("the gradient of concatenate needs the inputs' sizes "
                                  "along the axis while tracing")
    bounds, at = [], 0
    for n in sizes[:-1]:
        at += n
        bounds.append(at)
    pieces = _np().split(cts[0], bounds, axis=ax)
    return tuple(p if _want(a) else None for p, a in zip(pieces, args))


def stack_grad(cts, args, outs, axis=0):
    gnp = _np()
    ax = axis % len(outs[0].shape)
    pieces = gnp.split(cts[0], len(args), axis=ax)
    return tuple(gnp.squeeze(p, axis=ax) if _want(a) else None for p, a in zip(pieces, args))


def split_grad(cts, args, outs, indices_or_sections, axis=0):
    """The pieces' cotangents joined back (the walk gives zeros for unused pieces)."""
    return (_np().concatenate(list(cts), axis=axis),)


def pad_grad(cts, args, outs, pad_width, mode="constant", constant_values=0):
    """A selection from ``x`` (see segment.py) whose padding stands at position -1; a
    constant given as a 0-d tensor operand receives the cotangent of the padding."""
    x, operands = args[0], list(args[1:])
    constant = operands.pop() if constant_values is None else None
    grads = [None] * len(args)
    if not (_want(x) or (constant is not None and _want(constant))):
        return tuple(grads)
    picks = bind(get("pad"), positions(x, "pad"), *operands, pad_width=pad_width, mode=mode,
                 constant_values=-1)
    if _want(x):
        grads[0] = scatter_back(x.shape, cts[0], picks)
    if constant is not None and _want(constant):
        if tuple(constant.shape) != ():
            raise NotImplementedError("the gradient of pad's constant is implemented for a "
                                      "single (0-d) constant")
        gnp = _np()
        grads[-1] = gnp.sum(gnp.where(picks < 0, cts[0], 0))
    return tuple(grads)


def sort_grad(cts, args, outs, axis=-1):
    """The sorted values are picked from ``x`` by its (stable) argsort."""
    gnp = _np()
    x = args[0]
    if not _want(x):
        return (None,)
    ids = positions(x, "sort")
    order = bind(get("argsort"), x, axis=axis)
    picks = gnp.take(ids, order) if axis is None else gnp.take_along_axis(ids, order, axis)
    return (scatter_back(x.shape, cts[0], picks),)


def reshape_grad(in_c_order):
    """``reshape``'s rule: ``in_c_order`` (the rearranging ops' shared rule) for C order;
    an order='F' reshape is undone by the same reshape in F order."""
    def grad(cts, args, outs, order="C", **attrs):
        if order == "C":
            return in_c_order(cts, args, outs, **attrs)
        x = args[0]
        if x.shape is None or None in x.shape:
            raise NotImplementedError("the gradient of an order='F' reshape needs the "
                                      "input's dims while tracing")
        back = bind(get("reshape"), cts[0], shape=tuple(x.shape), order=order)
        return (back,) + (None,) * (len(args) - 1)

    return grad


def back_to_shape(cts, args, outs, **_):
    """Ops that only rearrange: the cotangent reshaped to the input's shape (one dim
    unknown while tracing is inferred; several are read at run time)."""
    import numpy as np

    from graphc.ops.shape import shape

    dims = args[0].shape
    if dims is None:
        raise NotImplementedError("the gradient of a reshape of a tensor of unknown rank "
                                  "is not implemented yet")
    if sum(d is None for d in dims) > 1:
        return (_np().reshape(cts[0], shape(args[0], out_type=np.int64)),)
    return (_np().reshape(cts[0], tuple(-1 if d is None else d for d in dims)),)


def transpose_grad(cts, args, outs, axes=None, **_):
    import numpy as np

    inverse = None if axes is None else tuple(int(i) for i in np.argsort(axes))
    return (_np().transpose(cts[0], inverse),)


def flip_grad(cts, args, outs, axis=None, **_):
    return (bind(get("flip"), cts[0], axis=axis),)
