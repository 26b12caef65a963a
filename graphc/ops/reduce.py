"""Reductions and scans: sum, prod, mean, std, var, max, min, argmax, argmin, any, all,
cumsum, cumprod. ``axis`` is None, an int or a tuple; dtypes follow NumPy exactly (they
are probed from the NumPy implementation on a one-element stand-in). The gradient rules
are attached by ``reduce_grad.py``, the batching rules by ``reduce_batch.py``.
"""

from __future__ import annotations

import numpy as np

from graphc.core.attr_types import AXES, AXIS, BOOL, FLOAT, INT, OPT_DTYPE, one_of
from graphc.core.registry import NOT_DIFFERENTIABLE, OpDef, bind, register
from graphc.core.shapes import normalize_axes, normalize_axis, probe_dtype
from graphc.dtypes import as_dtype
from graphc.ir.graph import Aval
from graphc.ops import blocks
from graphc.ops.convert import convert_to_tensor
from graphc.ops.elementwise import CAST


def _reduced_shape(shape, axis, keepdims):
    axes = normalize_axes(axis, len(shape))
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _probe_0d(ref, x, **attrs):
    """The aval of a reduction of a 0-d input: NumPy's own answer on a 0-d stand-in.

    NumPy's rules there are irregular (``np.sum(s, axis=0)`` and ``axis=-1`` work, as does
    ``axis=()``; ``np.mean(s, axis=0)`` raises), and with no dims there is nothing
    unknown, so running the reference is exact (its errors are the op's errors).
    """
    out = np.asarray(ref(np.zeros((), x.dtype), **attrs))
    return Aval(out.shape, out.dtype)


def _reduction(name, fn, extra=None):
    """A reduction ``fn(x, axis=, keepdims=, **extra)``; ``extra``: more attrs' kinds."""

    def ref(x, axis=None, keepdims=False, **kw):
        return fn(x, axis=axis, keepdims=keepdims, **kw)

    def infer(x, axis=None, keepdims=False, **kw):
        # ddof does not change the dtype; probing one element with ddof=1 would warn.
        kw.pop("ddof", None)
        if not x.shape:
            return _probe_0d(ref, x, axis=axis, keepdims=keepdims, **kw)
        shape = _reduced_shape(x.shape, axis, keepdims)
        return Aval(shape, probe_dtype(ref, [x], keepdims=keepdims, **kw))

    return register(OpDef(name=name, infer=infer, ref=ref,
                          attrs={"axis": AXES, "keepdims": BOOL, **(extra or {})}))


SUM = _reduction("sum", np.sum, {"dtype": OPT_DTYPE})
PROD = _reduction("prod", np.prod, {"dtype": OPT_DTYPE})
MEAN = _reduction("mean", np.mean, {"dtype": OPT_DTYPE})
STD = _reduction("std", np.std, {"dtype": OPT_DTYPE, "ddof": one_of(INT, FLOAT)})
VAR = _reduction("var", np.var, {"dtype": OPT_DTYPE, "ddof": one_of(INT, FLOAT)})
MAX = _reduction("max", np.max)
MIN = _reduction("min", np.min)
ANY = _reduction("any", np.any)
ALL = _reduction("all", np.all)


def _arg_reduction(name, fn):
    def ref(x, axis=None, keepdims=False):
        return fn(x, axis=axis, keepdims=keepdims)

    def infer(x, axis=None, keepdims=False):
        if not x.shape:
            return _probe_0d(ref, x, axis=axis, keepdims=keepdims)
        if axis is None:
            shape = (1,) * len(x.shape) if keepdims else ()
        else:
            shape = _reduced_shape(x.shape, normalize_axis(axis, len(x.shape)), keepdims)
        return Aval(shape, np.dtype(np.intp))

    return register(OpDef(name=name, infer=infer, ref=ref,
                          attrs={"axis": AXIS, "keepdims": BOOL},
                          blocks=blocks.ARG_REDUCTION))


ARGMAX = _arg_reduction("argmax", np.argmax)
ARGMIN = _arg_reduction("argmin", np.argmin)


def _scan(name, fn):
    def ref(x, axis=None, dtype=None):
        return fn(x, axis=axis, dtype=dtype)

    def infer(x, axis=None, dtype=None):
        if not x.shape:
            return _probe_0d(ref, x, axis=axis, dtype=dtype)
        if axis is None:
            n = 1
            for d in x.shape:
                n = None if n is None or d is None else n * d
            shape = (n,)
        else:
            normalize_axis(axis, len(x.shape))
            shape = x.shape
        return Aval(shape, probe_dtype(ref, [x], dtype=dtype))

    return register(OpDef(name=name, infer=infer, ref=ref,
                          attrs={"axis": AXIS, "dtype": OPT_DTYPE}))


CUMSUM = _scan("cumsum", np.cumsum)
CUMPROD = _scan("cumprod", np.cumprod)

# how each runs on the blocks of a chunked array (graphc.dask; see ops/blocks.py)
for _op, _rule in ((SUM, blocks.SUM), (PROD, blocks.PROD), (MEAN, blocks.MEAN),
                   (VAR, blocks.VAR), (STD, blocks.STD),
                   (MAX, blocks.MAX), (MIN, blocks.MIN), (ANY, blocks.ANY), (ALL, blocks.ALL),
                   (CUMSUM, blocks.ALONG_AXIS), (CUMPROD, blocks.ALONG_AXIS)):
    _op.blocks = _rule


def _axis(axis):
    if isinstance(axis, list):
        return tuple(axis)
    return axis


# ----------------------------------------------------------------------------- API
def sum(a, axis=None, dtype=None, keepdims=False):  # noqa: A001 - NumPy's name
    """``np.sum``."""
    return bind(SUM, a, axis=_axis(axis), keepdims=keepdims, dtype=as_dtype(dtype))


def prod(a, axis=None, dtype=None, keepdims=False):
    """``np.prod``."""
    return bind(PROD, a, axis=_axis(axis), keepdims=keepdims, dtype=as_dtype(dtype))


def mean(a, axis=None, dtype=None, keepdims=False):
    """``np.mean`` (integers average in float64, as NumPy)."""
    return bind(MEAN, a, axis=_axis(axis), keepdims=keepdims, dtype=as_dtype(dtype))


def std(a, axis=None, dtype=None, ddof=0, keepdims=False):
    """``np.std``."""
    return bind(STD, a, axis=_axis(axis), keepdims=keepdims, dtype=as_dtype(dtype), ddof=ddof)


def var(a, axis=None, dtype=None, ddof=0, keepdims=False):
    """``np.var``."""
    return bind(VAR, a, axis=_axis(axis), keepdims=keepdims, dtype=as_dtype(dtype), ddof=ddof)


def max(a, axis=None, keepdims=False):  # noqa: A001
    """``np.max``; empty input raises InvalidArgumentError."""
    return bind(MAX, a, axis=_axis(axis), keepdims=keepdims)


def min(a, axis=None, keepdims=False):  # noqa: A001
    """``np.min``; empty input raises InvalidArgumentError."""
    return bind(MIN, a, axis=_axis(axis), keepdims=keepdims)


amax = max
amin = min


def argmax(a, axis=None, keepdims=False):
    """``np.argmax`` (int64)."""
    return bind(ARGMAX, a, axis=axis, keepdims=keepdims)


def argmin(a, axis=None, keepdims=False):
    """``np.argmin`` (int64)."""
    return bind(ARGMIN, a, axis=axis, keepdims=keepdims)


def any(a, axis=None, keepdims=False):  # noqa: A001
    """``np.any``."""
    return bind(ANY, a, axis=_axis(axis), keepdims=keepdims)


def all(a, axis=None, keepdims=False):  # noqa: A001
    """``np.all``."""
    return bind(ALL, a, axis=_axis(axis), keepdims=keepdims)


def cumsum(a, axis=None, dtype=None):
    """``np.cumsum``."""
    return bind(CUMSUM, a, axis=axis, dtype=as_dtype(dtype))


def cumprod(a, axis=None, dtype=None):
    """``np.cumprod``."""
    return bind(CUMPROD, a, axis=axis, dtype=as_dtype(dtype))


# TensorFlow-style names ----------------------------------------------------------------
def reduce_sum(input_tensor, axis=None, keepdims=False, name=None):
    """``tf.reduce_sum``: keeps the input dtype (NumPy would widen int32 to int64)."""
    x = _tf_input(input_tensor)
    return bind(SUM, x, axis=_axis(axis), keepdims=keepdims, dtype=_keep(x))


def reduce_prod(input_tensor, axis=None, keepdims=False, name=None):
    """``tf.reduce_prod``: keeps the input dtype."""
    x = _tf_input(input_tensor)
    return bind(PROD, x, axis=_axis(axis), keepdims=keepdims, dtype=_keep(x))


def reduce_mean(input_tensor, axis=None, keepdims=False, name=None):
    """``tf.reduce_mean``: keeps the input dtype; integer means truncate, as TensorFlow."""
    x = _tf_input(input_tensor)
    return bind(MEAN, x, axis=_axis(axis), keepdims=keepdims, dtype=_keep(x))


def reduce_max(input_tensor, axis=None, keepdims=False, name=None):
    """``tf.reduce_max``."""
    return bind(MAX, _tf_input(input_tensor), axis=_axis(axis), keepdims=keepdims)


def reduce_min(input_tensor, axis=None, keepdims=False, name=None):
    """``tf.reduce_min``."""
    return bind(MIN, _tf_input(input_tensor), axis=_axis(axis), keepdims=keepdims)


def reduce_any(input_tensor, axis=None, keepdims=False, name=None):
    """``tf.reduce_any``."""
    return bind(ANY, _tf_input(input_tensor), axis=_axis(axis), keepdims=keepdims)


def reduce_all(input_tensor, axis=None, keepdims=False, name=None):
    """``tf.reduce_all``."""
    return bind(ALL, _tf_input(input_tensor), axis=_axis(axis), keepdims=keepdims)


def tf_argmax(input, axis=None, output_type=np.int64, name=None):  # noqa: A002
    """``tf.argmax``: ``axis=None`` means axis 0, as in TensorFlow."""
    out = bind(ARGMAX, _tf_input(input), axis=0 if axis is None else axis, keepdims=False)
    if np.dtype(output_type) != out.dtype:
        out = bind(CAST, out, dtype=np.dtype(output_type))
    return out


def _tf_input(x):
    return convert_to_tensor(x)


def _keep(x):
    dt = x.dtype
    return dt if dt.kind in "iufc" else None


# gradients: graphc/ops/reduce_grad.py; batching: graphc/ops/reduce_batch.py
ARGMAX.grad = ARGMIN.grad = ANY.grad = ALL.grad = NOT_DIFFERENTIABLE
