"""``np.cov`` and ``np.corrcoef``, built from ``mean``/``sum``, subtraction, ``matmul``
and division (no op of their own: gradients, batching and compiled kernels are those of
the ops they use).

They follow NumPy's steps and dtypes: the data is converted to ``dtype`` (by default the
result type of the data and float64, so float32 data gives a float64 covariance), the
normalization is a multiplication by ``1 / fact``, and ``fact <= 0`` warns
(``RuntimeWarning: Degrees of freedom <= 0 for slice``) and divides by zero. Checks
NumPy makes on the *values* of ``fweights``/``aweights`` (integers, not negative, not
summing to zero) are made when those values are known while tracing (eagerly, or
constants); with traced weights they are not.
"""

from __future__ import annotations

import warnings

import numpy as np

from graphc import source_info
from graphc.ops.convert import asarray
from graphc.ops.creation import arange, zeros
from graphc.ops.indexing import take
from graphc.ops.join import concatenate
from graphc.ops.linalg import dot
from graphc.ops.reduce import cumsum, mean
from graphc.ops.reduce import sum as _sum
from graphc.ops.shape import reshape, shape, squeeze, transpose
from graphc.ops.shape_args import static_value
from graphc.ops.ufuncs import astype, clip, sqrt, where

_F64 = np.dtype(np.float64)


def _ndmin2(x):
    nd = len(x.shape)
    return reshape(x, (1,) * (2 - nd) + tuple(-1 if d is None else d for d in x.shape)) \
        if nd < 2 else x


def _no_complex(dtype, name):
    if np.dtype(dtype).kind == "c":
        raise NotImplementedError(f"gnp.{name} of complex data is not supported (graphc has "
                                  f"no complex conjugate op){source_info.where()}")


def _weights(w, name, samples):
    """NumPy's checks of ``fweights``/``aweights``: a float64 vector, one per sample."""
    w = asarray(w, dtype=_F64)
    if len(w.shape) > 1:
        raise RuntimeError(f"cannot handle multidimensional {name}")
    if len(w.shape) == 0 or (w.shape[0] is not None and samples is not None
                             and w.shape[0] != samples):
        raise RuntimeError(f"incompatible numbers of samples and {name}")
    known = static_value(w)
    if known is not None:
        if name == "fweights" and not np.all(known == np.around(known)):
            raise TypeError("fweights must be integer")
        if np.any(known < 0):
            raise ValueError(f"{name} cannot be negative")
    return w


def _known_scalar(t):
    v = static_value(t)
    return None if v is None else np.asarray(v)[()]


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *,
        dtype=None):
    """``np.cov``: the covariance matrix of the variables in the rows of ``m`` (columns
    when ``rowvar=False``), with ``y`` as more variables; ``ddof`` overrides ``bias``;
    ``fweights`` (integer frequencies) and ``aweights`` (observation weights) weight the
    samples. A single variable gives a 0-d result."""
    if ddof is not None and ddof != int(ddof):
        raise ValueError("ddof must be integer")
    m = asarray(m)
    if len(m.shape) > 2:
        raise ValueError("m has more than 2 dimensions")
    if y is not None:
        y = asarray(y)
        if len(y.shape) > 2:
            raise ValueError("y has more than 2 dimensions")
    if dtype is None:
        dtype = np.result_type(m.dtype, _F64) if y is None else \
            np.result_type(m.dtype, y.dtype, _F64)
    dtype = np.dtype(dtype)
    _no_complex(dtype, "cov")
    x = _ndmin2(astype(m, dtype))
    if not rowvar and len(m.shape) != 1:
        x = transpose(x)
    if x.shape[0] == 0:
        return zeros((0, 0), dtype=_F64)
    if y is not None:
        y2 = _ndmin2(astype(y, dtype))
        if not rowvar and y2.shape[0] != 1:
            y2 = transpose(y2)
        x = concatenate([x, y2], axis=0)
    if x.shape[0] is None:
        raise ValueError(
            "gnp.cov needs the number of variables (rows of m, or columns with "
            "rowvar=False) known while tracing: NumPy's result is 0-d for one variable; "
            f"give the gc.function an input_signature with that dim{source_info.where()}")
    if ddof is None:
        ddof = 1 if bias == 0 else 0
    ddof = int(ddof)
    samples = x.shape[1]
    w = aw = None
    if fweights is not None:
        w = _weights(fweights, "fweights", samples)
    if aweights is not None:
        aw = _weights(aweights, "aweights", samples)
        w = aw if w is None else w * aw

    if w is None:
        avg = mean(x, axis=1)
        if samples is None:
            fact = astype(shape(x, out_type=np.int64)[1], _F64) - ddof
        else:
            fact = samples - ddof
    else:
        rd = np.result_type(x.dtype, w.dtype, *(("f8",) if x.dtype.kind in "iub" else ()))
        w_sum = _sum(astype(w, rd))
        known = _known_scalar(w_sum)
        if known is not None and known == 0.0:
            raise ZeroDivisionError("Weights sum to zero, can't be normalized")
        avg = _sum(astype(x, rd) * astype(w, rd), axis=1) / w_sum
        if ddof == 0:
            fact = w_sum
        elif aw is None:
            fact = w_sum - ddof
        else:
            # NumPy sums w * aweights with Python's sum: one element after the other
            running = cumsum(w * aw)
            total = take(running, -1) if samples != 0 else 0.0
            fact = w_sum - ddof * total / w_sum
    fact = _checked_fact(fact)

    x = astype(x - reshape(avg, (-1, 1)), x.dtype)
    xt = transpose(x) if w is None else transpose(x * w)
    c = dot(x, xt)
    if isinstance(fact, float | int):
        scale = np.asarray(np.true_divide(1, fact))  # 1 / 0.0 warns and is inf, as NumPy's
    else:
        scale = 1 / fact
    c = astype(c * scale, c.dtype)
    return squeeze(c)


def _checked_fact(fact):
    """NumPy's ``fact <= 0`` rule: warn and use 0.0 (a warning needs a known ``fact``)."""
    known = fact if isinstance(fact, int) else _known_scalar(fact)
    if known is not None:
        if known <= 0:
            warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=3)
            return 0.0
        return fact
    return where(fact <= 0, 0.0, fact)


def _diagonal(c):
    n = c.shape[0]
    if n is not None:
        return reshape(c, (-1,))[::n + 1]
    size = shape(c, out_type=np.int64)[0]
    return take(reshape(c, (-1,)), arange(size) * (size + 1))


def corrcoef(x, y=None, rowvar=True, *, dtype=None):
    """``np.corrcoef``: the Pearson correlation coefficients, ``cov`` divided by the
    outer product of the standard deviations and clipped to ``[-1, 1]``."""
    c = cov(x, y, rowvar, dtype=dtype)
    if len(c.shape) == 0:
        return c / c  # one variable: 1, or nan for a zero/inf/nan variance
    stddev = sqrt(_diagonal(c))
    c = c / reshape(stddev, (-1, 1))
    c = c / reshape(stddev, (1, -1))
    return clip(c, -1, 1)
