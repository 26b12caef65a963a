"""``gc.math``: TensorFlow's ``tf.math`` names over graphc ops (docs/special.md, "gc.math").

The elementwise names are the ops of ``graphc/ops/elementwise.py`` with TensorFlow's
argument conversion (``_unary``/``_binary``); the special functions come from
``math_special.py``, the compositions from ``math_tf.py`` and ``math_segments.py``, and
a few from the op families that hold them for ``gc.nn`` (softmax, log_sigmoid,
l2_normalize, zero_fraction). ``sobol_sample`` is deliberately absent (docs/special.md).
"""

from __future__ import annotations

import numpy as np

from graphc.errors import InvalidArgumentError
from graphc.math_segments import (  # noqa: F401
    bincount,
    confusion_matrix,
    segment_max,
    segment_mean,
    segment_min,
    segment_prod,
    segment_sum,
    unsorted_segment_max,
    unsorted_segment_mean,
    unsorted_segment_min,
    unsorted_segment_prod,
    unsorted_segment_sqrt_n,
    unsorted_segment_sum,
)
from graphc.math_special import (  # noqa: F401
    bessel_i0,
    bessel_i0e,
    bessel_i1,
    bessel_i1e,
    betainc,
    digamma,
    erf,
    erfc,
    erfcinv,
    erfinv,
    igamma,
    igammac,
    lbeta,
    lgamma,
    ndtri,
    polygamma,
    xdivy,
    xlog1py,
    xlogy,
    zeta,
)
from graphc.math_tf import (  # noqa: F401
    accumulate_n,
    add_n,
    angle,
    count_nonzero,
    cumulative_logsumexp,
    divide_no_nan,
    in_top_k,
    invert_permutation,
    is_non_decreasing,
    is_strictly_increasing,
    multiply_no_nan,
    polyval,
    reciprocal_no_nan,
    reduce_euclidean_norm,
    reduce_logsumexp,
    reduce_std,
    reduce_variance,
    scalar_mul,
    squared_difference,
    top_k,
)
from graphc.math_tf import tf_argmin as argmin  # noqa: F401
from graphc.ops import elementwise as _ew
from graphc.ops import math_extra as _math_extra
from graphc.ops.complex_parts import conjugate as _conjugate
from graphc.ops.complex_parts import imag as _imag
from graphc.ops.complex_parts import real as _real
from graphc.ops.join import concatenate as _concatenate
from graphc.ops.nn_activations import log_sigmoid, softsign  # noqa: F401
from graphc.ops.nn_norm import l2_normalize, zero_fraction  # noqa: F401
from graphc.ops.nn_softmax import log_softmax, softmax  # noqa: F401
from graphc.ops.reduce import cumprod as _cumprod
from graphc.ops.reduce import cumsum as _cumsum
from graphc.ops.reduce import (  # noqa: F401
    reduce_all,
    reduce_any,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_prod,
    reduce_sum,
)
from graphc.ops.reduce import tf_argmax as argmax  # noqa: F401
from graphc.ops.shape import flip as _flip
from graphc.ops.tf_api_index import approx_top_k as _approx_top_k
from graphc.tf_api import (  # noqa: F401
    _binary,
    _tf_args,
    _unary,
    abs,
    add,
    divide,
    equal,
    exp,
    greater,
    greater_equal,
    less,
    less_equal,
    logical_and,
    logical_not,
    logical_or,
    maximum,
    minimum,
    multiply,
    negative,
    not_equal,
    pow,
    sqrt,
    subtract,
)

log = _unary(_ew.LOG, "log")
log1p = _unary(_ew.LOG1P, "log1p")
expm1 = _unary(_ew.EXPM1, "expm1")
sigmoid = _unary(_ew.SIGMOID, "sigmoid")
softplus = _unary(_ew.SOFTPLUS, "softplus")
tanh = _unary(_ew.TANH, "tanh")
sin = _unary(_ew.SIN, "sin")
cos = _unary(_ew.COS, "cos")
tan = _unary(_ew.TAN, "tan")
asin = _unary(_ew.ARCSIN, "asin")
acos = _unary(_ew.ARCCOS, "acos")
atan = _unary(_ew.ARCTAN, "atan")
sinh = _unary(_ew.SINH, "sinh")
cosh = _unary(_ew.COSH, "cosh")
asinh = _unary(_ew.ARCSINH, "asinh")
acosh = _unary(_ew.ARCCOSH, "acosh")
atanh = _unary(_ew.ARCTANH, "atanh")
square = _unary(_ew.SQUARE, "square")
floor = _unary(_ew.FLOOR, "floor")
ceil = _unary(_ew.CEIL, "ceil")
round = _unary(_ew.RINT, "round")  # noqa: A001  (tf.math.round rounds half to even)
rint = _unary(_ew.RINT, "rint")
sign = _unary(_ew.SIGN, "sign")
reciprocal = _unary(_ew.RECIPROCAL, "reciprocal")
is_nan = _unary(_ew.ISNAN, "is_nan")
is_inf = _unary(_ew.ISINF, "is_inf")
is_finite = _unary(_ew.ISFINITE, "is_finite")
floordiv = _binary(_ew.FLOOR_DIVIDE, "floordiv")
floormod = _binary(_ew.REMAINDER, "floormod")
mod = _binary(_ew.REMAINDER, "mod")
truediv = _binary(_ew.TRUE_DIVIDE, "truediv")
atan2 = _binary(_ew.ARCTAN2, "atan2")
logical_xor = _binary(_ew.LOGICAL_XOR, "logical_xor")
nextafter = _binary(_math_extra.NEXTAFTER, "nextafter")


def rsqrt(x, name=None):
    """``tf.math.rsqrt``: 1 / sqrt(x)."""
    return 1 / sqrt(x)


def conj(x, name=None):
    """``tf.math.conj``: the complex conjugate (real inputs are returned unchanged)."""
    return _conjugate(*_tf_args(x))


def real(input, name=None):  # noqa: A002 - TensorFlow's argument name
    """``tf.math.real``: the real part (a real input is returned unchanged)."""
    return _real(*_tf_args(input))


def imag(input, name=None):  # noqa: A002
    """``tf.math.imag``: the imaginary part (zeros for a real input)."""
    return _imag(*_tf_args(input))


def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """``tf.math.cumsum``: along ``axis`` (0 by default), optionally ``exclusive`` (each
    sum leaves its own element out) and/or ``reverse`` (from the end)."""
    return _cum(_cumsum, 0, x, axis, exclusive, reverse)


def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    """``tf.math.cumprod``: as ``cumsum``, with products (exclusive starts at 1)."""
    return _cum(_cumprod, 1, x, axis, exclusive, reverse)


def _cum(fn, start, x, axis, exclusive, reverse):
    (x,) = _tf_args(x)
    rank = len(x.shape)
    if np.ndim(axis) != 0:
        raise InvalidArgumentError(f"cumsum/cumprod: axis must be a scalar, got {axis!r}")
    axis = int(axis)
    if rank and not -rank <= axis < rank:  # TensorFlow's check (NumPy's AxisError)
        raise InvalidArgumentError(f"cumsum/cumprod: expected the scan axis in the range "
                                   f"[{-rank}, {rank}), got {axis}")
    axis %= max(rank, 1)
    if reverse:
        x = _flip(x, axis)
    out = fn(x, axis=axis, dtype=x.dtype)
    if exclusive:  # [start, out[0], ..., out[n-1]] less its last: n values, 0 for n = 0
        first = np.full(tuple(1 if i == axis else d for i, d in enumerate(x.shape)),
                        start, x.dtype)
        key = (slice(None),) * axis + (slice(0, -1),)
        out = _concatenate([first, out], axis=axis)[key]
    return _flip(out, axis) if reverse else out


def approx_max_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True, name=None):
    """``tf.math.approx_max_k``: the ``k`` largest values along ``reduction_dimension``
    and their int32 indices (graphc's answer is exact)."""
    return _approx_top_k(operand, k, reduction_dimension, recall_target, True,
                         reduction_input_size_override, aggregate_to_topk)


def approx_min_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True, name=None):
    """``tf.math.approx_min_k``: the ``k`` smallest values and their int32 indices."""
    return _approx_top_k(operand, k, reduction_dimension, recall_target, False,
                         reduction_input_size_override, aggregate_to_topk)
