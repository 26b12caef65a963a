"""``gnp.ufunc``, the type of graphc's elementwise functions (``isinstance(gnp.add,
gnp.ufunc)``), and the methods ``ufunc.reduce``, ``ufunc.accumulate`` and ``ufunc.at``
that ``graphc/ops/ufuncs.py`` attaches to each wrapper (with NumPy's ``nin``, ``nout``,
``nargs``, ``identity``, ``ntypes``, ``types``, ``signature``).

The wrappers stay plain functions (a call costs what it did); ``ufunc`` recognizes them by
a marker. The methods are compositions: ``add.reduce`` is ``sum`` (and ``multiply``,
``maximum``, ``minimum``, ``logical_and``, ``logical_or`` their reductions),
``add.accumulate`` ``cumsum`` (``multiply``: ``cumprod``); the other ufuncs fold the
operation along the axis, one application per element (the axis length must be known
while tracing). ``at`` writes in place as NumPy's unbuffered ``ufunc.at`` (eager tensors
or arrays).
"""

from __future__ import annotations

import numpy as np

from graphc import source_info
from graphc.core.tensor import Tensor
from graphc.ops import inplace as _inplace
from graphc.ops import reduce as _reduce
from graphc.ops.convert import asarray
from graphc.ops.creation import full
from graphc.ops.join import stack
from graphc.ops.shape import expand_dims, moveaxis


class _UfuncType(type):
    def __instancecheck__(cls, obj):
        return getattr(obj, "_graphc_ufunc_", False) is True


class ufunc(metaclass=_UfuncType):  # noqa: N801 - NumPy's name
    """``np.ufunc``: the type of graphc.numpy's elementwise functions (``gnp.add``,
    ``gnp.exp``, ...). Each has ``nin``, ``nout``, ``nargs``, ``identity``, ``ntypes``,
    ``types``, ``signature`` as NumPy's, and the binary ones the methods ``outer``,
    ``reduce``, ``accumulate`` and ``at``. Like NumPy's, it cannot be instantiated."""

    def __new__(cls, *args, **kwargs):
        raise TypeError("cannot create 'graphc.numpy.ufunc' instances")


_NOVALUE = np._NoValue
# the reductions and scans these ufuncs have as ops: (reduction, takes dtype=)
_FAST_REDUCE = {
    "add": (_reduce.sum, True), "multiply": (_reduce.prod, True),
    "maximum": (_reduce.max, False), "minimum": (_reduce.min, False),
    "logical_and": (_reduce.all, False), "logical_or": (_reduce.any, False),
}
_FAST_SCAN = {"add": _reduce.cumsum, "multiply": _reduce.cumprod}


def _axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, tuple) else (axis,)
    out = []
    for ax in axes:
        ax = int(ax)
        if not -ndim <= ax < ndim:
            raise np.exceptions.AxisError(ax, ndim)
        out.append(ax % ndim)
    if len(set(out)) != len(out):
        raise ValueError("duplicate value in 'axis'")
    return tuple(out)


def _length(a, ax, what):
    n = a.shape[ax]
    if n is None:
        raise ValueError(f"{what} folds the operation along axis {ax}, whose length is "
                         f"unknown while tracing{source_info.where()}; give that dim a "
                         "static size (or use the matching reduction, e.g. gnp.sum)")
    return n


def _fold_axis(fn, a, ax, start):
    """``fn`` applied left to right along ``ax`` (dropped), from ``start`` if given."""
    n = _length(a, ax, f"{fn.__name__}.reduce")
    a = moveaxis(a, ax, 0)
    r = start
    for i in range(n):
        r = a[i] if r is None else fn(r, a[i])
    return r


def _identity_start(fn, np_ufunc, a, ax, initial):
    """The value a fold starts from: ``initial``, or the identity for an empty axis."""
    if initial is _NOVALUE and a.shape[ax] != 0:
        return None
    value = np_ufunc.identity if initial is _NOVALUE else initial
    if value is None:
        raise ValueError(f"zero-size array to reduction operation {fn.__name__} which has "
                         "no identity")
    shape = tuple(d for i, d in enumerate(a.shape) if i != ax)
    return full(shape, value, dtype=a.dtype)


def make_reduce(fn, np_ufunc):
    """``fn.reduce`` for the binary ufunc wrapper ``fn`` (NumPy's ``np_ufunc``)."""
    name = fn.__name__

    def reduce(array, axis=0, dtype=None, out=None, keepdims=False, initial=_NOVALUE,
               where=True):
        if where is not True:
            raise NotImplementedError(f"{name}.reduce(where=...) is not supported")
        a = asarray(array)
        axes = _axes(axis, a.ndim)
        extra = {} if initial is _NOVALUE else {"initial": initial}
        with np.errstate(all="ignore"):  # NumPy's errors and dtype, on a stand-in
            want = np_ufunc.reduce(np.ones((1,) * a.ndim, a.dtype), axis=axes, dtype=dtype,
                                   keepdims=keepdims, **extra).dtype
        fast = _FAST_REDUCE.get(name)
        if fast is not None and initial is _NOVALUE:
            red, takes_dtype = fast
            kw = {"dtype": dtype} if takes_dtype else {}
            if not takes_dtype and dtype is not None:
                a = a.astype(dtype)
            r = red(a, axis=axes, keepdims=keepdims, **kw)
        else:
            if dtype is not None:
                a = a.astype(dtype)
            r = a
            for k, ax in enumerate(sorted(axes, reverse=True)):
                start = _identity_start(fn, np_ufunc, r, ax, initial if k == 0 else
                                        _NOVALUE)
                r = _fold_axis(fn, r, ax, start)
            if keepdims:
                r = expand_dims(r, tuple(sorted(axes)))
        if r.dtype != want:
            r = r.astype(want)
        if out is not None:
            return _inplace.into_out(out, r, f"{name}.reduce", None)
        return r

    reduce.__name__ = reduce.__qualname__ = f"{name}.reduce"
    reduce.__doc__ = (f"``np.{name}.reduce(array, axis=0, dtype=None, out=None, "
                      "keepdims=False, initial=<no value>)``: the operation applied along "
                      "``axis`` (an int, a tuple for reorderable ufuncs, ``None``: all).")
    return reduce


def make_accumulate(fn, np_ufunc):
    """``fn.accumulate``: the running results along one axis, in NumPy's dtype."""
    name = fn.__name__

    def accumulate(array, axis=0, dtype=None, out=None):
        a = asarray(array)
        if a.ndim == 0:
            raise TypeError("cannot accumulate on a scalar")
        (ax,) = _axes(axis, a.ndim)
        with np.errstate(all="ignore"):  # NumPy's errors and dtype, on a stand-in
            want = np_ufunc.accumulate(np.ones((1,), a.dtype), dtype=dtype).dtype
        scan = _FAST_SCAN.get(name)
        if scan is not None and want.kind != "b":
            r = scan(a, axis=ax, dtype=want)
        else:
            n = _length(a, ax, f"{name}.accumulate")
            m = moveaxis(a.astype(want), ax, 0)
            parts = []
            for i in range(n):
                parts.append(m[i] if i == 0 else fn(parts[-1], m[i]).astype(want))
            r = moveaxis(stack(parts, axis=0), 0, ax) if parts else a.astype(want)
        if out is not None:
            return _inplace.into_out(out, r, f"{name}.accumulate", None)
        return r

    accumulate.__name__ = accumulate.__qualname__ = f"{name}.accumulate"
    return accumulate


def make_at(fn, np_ufunc):
    """``fn.at(a, indices, b=None)``: ``a[indices] = fn(a[indices], b)`` unbuffered
    (repeated indices apply repeatedly), in place; returns ``None``."""
    name = fn.__name__

    def at(a, indices, b=None):
        def values(x):
            return _inplace.eager_operand(x) if isinstance(x, Tensor) else x

        idx = tuple(values(i) for i in indices) if isinstance(indices, tuple) else values(
            indices)
        args = () if b is None else (values(b),)
        if isinstance(a, np.ndarray):
            np_ufunc.at(a, idx, *args)
            return None
        if not isinstance(a, Tensor):
            raise TypeError(f"{name}.at: the first argument must be a tensor or an "
                            f"ndarray, not {type(a).__name__}")
        _inplace.check_writable(a, f"{name}.at")
        if a._np is None:
            raise NotImplementedError(
                f"{name}.at on a traced tensor is not supported{source_info.where()}; "
                "use gc.tensor_scatter_nd_update / unsorted_segment_sum, or call it "
                "outside gc.function")

        def compute(src):
            new = np.array(src.numpy(), copy=True)
            np_ufunc.at(new, idx, *args)
            return asarray(new)

        _inplace.write(a, compute)
        return None

    at.__name__ = at.__qualname__ = f"{name}.at"
    return at


def attach(fn, op, name, nin, outer=None):
    """Give the wrapper ``fn`` of elementwise ``op`` NumPy's ufunc attributes and
    methods, and mark it an instance of :class:`ufunc`."""
    np_ufunc = op.ref if isinstance(op.ref, np.ufunc) else getattr(np, name)
    fn._graphc_ufunc_ = True
    fn.nin, fn.nout = nin, np_ufunc.nout
    fn.nargs = nin + np_ufunc.nout
    fn.identity = np_ufunc.identity
    fn.ntypes, fn.types, fn.signature = np_ufunc.ntypes, np_ufunc.types, None
    fn.at = make_at(fn, np_ufunc)
    if nin == 2:
        fn.outer = outer
        fn.reduce = make_reduce(fn, np_ufunc)
        fn.accumulate = make_accumulate(fn, np_ufunc)
    return fn
