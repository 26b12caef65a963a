"""Gradient rules of the reductions and scans of ``reduce.py``, attached to the ops at the
end of this module (the contract: ``graphc/ops/elementwise.py``'s gradients section)."""

from __future__ import annotations

from graphc.core.shapes import normalize_axes
from graphc.ops import reduce
from graphc.ops.creation import ones, ones_like
from graphc.ops.indexing import take
from graphc.ops.join import concatenate
from graphc.ops.shape import flip, reshape
from graphc.ops.ufuncs import equal, where


def _kept(g, x, axis, keepdims):
    """``g`` (a reduction's cotangent) with the reduced axes back as size-1 dims."""
    if keepdims or x.shape is None:
        return g
    rank = len(x.shape)
    axes = range(rank) if axis is None else sorted(normalize_axes(axis, rank))
    return reshape(g, tuple(1 if i in set(axes) else (-1 if d is None else d)
                            for i, d in enumerate(x.shape))) if rank else g


def _count(x, axis):
    """How many elements each output of a reduction over ``axis`` of ``x`` combines (a
    tensor when some of those dims are unknown while tracing)."""
    axes = normalize_axes(axis, len(x.shape))
    dims = [x.shape[a] for a in axes]
    if None in dims:
        return reduce.sum(ones_like(x), axis=axis, keepdims=True)
    n = 1
    for d in dims:
        n *= d
    return n


def _sum_grad(cts, args, outs, axis=None, keepdims=False, dtype=None):
    return (_kept(cts[0], args[0], axis, keepdims) * _ones_shaped_like(args[0]),)


def _ones_shaped_like(x):
    """Ones in ``x``'s shape: a constant-foldable ``full`` when the shape is known while
    tracing (no dependence on ``x``), else ``ones_like``."""
    if x.shape is not None and None not in x.shape:
        return ones(x.shape, x.dtype)
    return ones_like(x)


def _mean_grad(cts, args, outs, axis=None, keepdims=False, dtype=None):
    return (_sum_grad(cts, args, outs, axis, keepdims)[0] / _count(args[0], axis),)


def _extreme_grad(cts, args, outs, axis=None, keepdims=False):
    """Shared among the elements equal to the max (min), as TensorFlow does."""
    x = args[0]
    hit = equal(x, _kept(outs[0], x, axis, keepdims))
    hit = hit.astype(x.dtype)
    ties = reduce.sum(hit, axis=axis, keepdims=True)
    return (_kept(cts[0], x, axis, keepdims) * hit / ties,)


def _var_grad(cts, args, outs, axis=None, keepdims=False, dtype=None, ddof=0):
    x = args[0]
    centered = x - reduce.mean(x, axis=axis, keepdims=True)
    return (_kept(cts[0], x, axis, keepdims) * 2 * centered / (_count(x, axis) - ddof),)


def _std_grad(cts, args, outs, axis=None, keepdims=False, dtype=None, ddof=0):
    """Through the variance; where the std is 0 (equal values) the gradient is taken
    as 0 (a subgradient; the std of one element is 0 whatever its value)."""
    std = outs[0]
    g = where(std == 0, 0, cts[0] / (2 * where(std == 0, 1, std)))
    return _var_grad([g], args, outs, axis, keepdims, dtype, ddof)


def _prod_grad(cts, args, outs, axis=None, keepdims=False, dtype=None):
    """prod / x where x != 0; with zeros, the product of the others (two passes of
    cumulative products), exact like TensorFlow's rule."""
    x = args[0]
    if axis is None:
        flat = reshape(x, (-1,))
        others = _others_product(flat, 0)
        return (reshape(others, x.shape) * _kept(cts[0], x, axis, keepdims),)
    axes = normalize_axes(axis, len(x.shape))
    if len(axes) != 1:
        raise NotImplementedError("the gradient of prod over several axes is not "
                                  "implemented; reduce one axis at a time")
    return (_others_product(x, axes[0]) * _kept(cts[0], x, axis, keepdims),)


def _others_product(x, axis):
    """For each element, the product of the other elements along ``axis``."""
    first = ones_like(take(x, [0], axis=axis))
    before = reduce.cumprod(concatenate([first, x], axis=axis), axis=axis)
    n = x.shape[axis]
    before = take(before, list(range(n)), axis=axis)
    rev = flip(x, axis=axis)
    after = reduce.cumprod(concatenate([first, rev], axis=axis), axis=axis)
    after = flip(take(after, list(range(n)), axis=axis), axis=axis)
    return before * after


def _cumsum_grad(cts, args, outs, axis=None, dtype=None):
    x, g = args[0], cts[0]
    if axis is None:
        return (reshape(flip(reduce.cumsum(flip(g, 0)), 0), x.shape),)
    return (flip(reduce.cumsum(flip(g, axis), axis=axis), axis),)


def _cumprod_grad(cts, args, outs, axis=None, dtype=None):
    """``d out_j / d x_i = out_j / x_i`` for ``i <= j``: a reversed cumulative sum of
    ``ct * out``, divided by ``x``. As TensorFlow's rule, this divides by ``x``: where
    ``x`` is 0 the gradient is not finite."""
    return (_cumsum_grad([cts[0] * outs[0]], args, outs, axis)[0] / args[0],)


reduce.SUM.grad = _sum_grad
reduce.MEAN.grad = _mean_grad
reduce.MAX.grad = reduce.MIN.grad = _extreme_grad
reduce.VAR.grad = _var_grad
reduce.STD.grad = _std_grad
reduce.PROD.grad = _prod_grad
reduce.CUMSUM.grad = _cumsum_grad
reduce.CUMPROD.grad = _cumprod_grad
