"""``graphc.numpy`` (``gnp``): NumPy's names and signatures over graphc ops.

Every function here is a thin wrapper that calls ``bind`` on a registered op (declared
once in ``graphc/ops/``), so it runs eagerly on concrete values and records a node while
tracing. Arguments may be tensors, NumPy arrays or Python values; Python numbers are weak
(NEP 50). Results are ``gc.Tensor``; ``isinstance(t, gnp.ndarray)`` holds for them, and
``gnp.ndarray(shape, dtype)`` allocates as NumPy's constructor does (zero-filled).

It is the namespace itself, almost only ``from ... import`` blocks (one name per line, as
the formatter writes them) for NumPy's ~500 names; the code lives in ``graphc/ops/``.
"""

from __future__ import annotations

import numpy as _np

from graphc.config import experimental_enable_numpy_behavior  # noqa: F401
from graphc.dtypes import (  # noqa: F401  (dtype names are part of the namespace)
    bool_,
    complex64,
    complex128,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    result_type,
    uint8,
)
from graphc.ops import fft_namespace as fft  # noqa: F401  (gnp.fft)
from graphc.ops import linalg_namespace as linalg  # noqa: F401  (gnp.linalg)
from graphc.ops import ufuncs as _ufuncs
from graphc.ops.array_api import __array_api_version__, __array_namespace_info__
from graphc.ops.array_apply import (
    apply_along_axis,
    apply_over_axes,
    einsum_path,
    packbits,
    unpackbits,
)
from graphc.ops.closeness import allclose, array_equal, array_equiv, isclose
from graphc.ops.complex_parts import (
    angle,
    conj,
    conjugate,
    imag,
    iscomplex,
    isreal,
    real,
    real_if_close,
)
from graphc.ops.convert import array, asarray  # noqa: F401
from graphc.ops.creation import (  # noqa: F401
    arange,
    copy,
    empty,
    empty_like,
    eye,
    full,
    full_like,
    identity,
    linspace,
    ones,
    ones_like,
    zeros,
    zeros_like,
)
from graphc.ops.differences import diff, roll
from graphc.ops.gather import argwhere, nonzero  # noqa: F401
from graphc.ops.grids import c_, ix_, meshgrid, mgrid, ogrid, r_
from graphc.ops.histograms import (
    bincount,
    digitize,
    histogram,
    histogram_bin_edges,
    searchsorted,
)
from graphc.ops.histograms_nd import histogram2d, histogramdd  # noqa: F401
from graphc.ops.index_helpers import (
    diag_indices,
    diag_indices_from,
    fill_diagonal,
    flatnonzero,
    indices,
    mask_indices,
    ravel_multi_index,
    tril_indices,
    tril_indices_from,
    triu_indices,
    triu_indices_from,
    unravel_index,
)
from graphc.ops.indexing import take, take_along_axis  # noqa: F401
from graphc.ops.join import atleast_1d, atleast_2d, concatenate, hstack, split, stack, vstack
from graphc.ops.linalg import (  # noqa: F401
    dot,
    einsum,
    inner,
    matmul,
    outer,
    tensordot,
    trace,
    vdot,
)
from graphc.ops.manipulation import (
    array_split,
    atleast_3d,
    block,
    column_stack,
    diag,
    diagflat,
    diagonal,
    dsplit,
    dstack,
    fliplr,
    flipud,
    hsplit,
    rollaxis,
    rot90,
    row_stack,
    unstack,
    vsplit,
)
from graphc.ops.manipulation_edit import append, delete, insert, resize
from graphc.ops.math_compose import (
    bitwise_count,
    deg2rad,
    degrees,
    fabs,
    fix,
    float_power,
    frexp,
    gcd,
    heaviside,
    i0,
    isneginf,
    isposinf,
    lcm,
    modf,
    nan_to_num,
    rad2deg,
    radians,
    sinc,
    spacing,
)
from graphc.ops.math_extra import (
    copysign,
    fmod,
    ldexp,
    logaddexp,
    logaddexp2,
    nextafter,
    signbit,
)
from graphc.ops.nan_reductions import (
    average,
    count_nonzero,
    cumulative_prod,
    cumulative_sum,
    nanargmax,
    nanargmin,
    nancumprod,
    nancumsum,
    nanmax,
    nanmean,
    nanmin,
    nanprod,
    nanstd,
    nansum,
    nanvar,
    ptp,
)
from graphc.ops.ndarray_type import ndarray  # noqa: F401
from graphc.ops.numerics import ediff1d, gradient, interp, trapezoid, unwrap
from graphc.ops.numpy_aliases import (
    acos,
    acosh,
    asin,
    asinh,
    atan,
    atan2,
    atanh,
    bitwise_invert,
    bitwise_not,
    concat,
    matrix_transpose,
    permute_dims,
    pow,
)
from graphc.ops.numpy_conversions import (
    asanyarray,
    asarray_chkfinite,
    ascontiguousarray,
    asfortranarray,
    broadcast,
    broadcast_arrays,
    broadcast_shapes,
    copyto,
    from_dlpack,
    fromiter,
    index_exp,
    ndenumerate,
    ndindex,
    require,
    s_,
)
from graphc.ops.numpy_functional import fromfunction, frompyfunc, vectorize
from graphc.ops.numpy_types import (  # noqa: F811  (NumPy's scalar types replace graphc.dtypes')
    bool_,
    byte,
    can_cast,
    cdouble,
    complex64,
    complex128,
    complexfloating,
    csingle,
    double,
    dtype,
    euler_gamma,
    finfo,
    float16,
    float32,
    float64,
    floating,
    generic,
    half,
    iinfo,
    inexact,
    int8,
    int16,
    int32,
    int64,
    int_,
    intc,
    integer,
    intp,
    iscomplexobj,
    isdtype,
    isfortran,
    isrealobj,
    isscalar,
    issubdtype,
    iterable,
    long,
    longlong,
    may_share_memory,
    min_scalar_type,
    ndim,
    number,
    promote_types,
    shape,
    shares_memory,
    short,
    signedinteger,
    single,
    size,
    ubyte,
    uint,
    uint8,
    uint16,
    uint32,
    uint64,
    uintc,
    uintp,
    ulong,
    ulonglong,
    unsignedinteger,
    ushort,
)
from graphc.ops.polynomials import (
    poly,
    polyadd,
    polyder,
    polydiv,
    polyfit,
    polyint,
    polymul,
    polysub,
    polyval,
    roots,
)
from graphc.ops.products import convolve, correlate, cross, kron, matvec, vecdot, vecmat
from graphc.ops.quantiles import (
    median,
    nanmedian,
    nanpercentile,
    nanquantile,
    percentile,
    quantile,
)
from graphc.ops.random import numpy_random as random  # noqa: F401
from graphc.ops.reduce import (  # noqa: F401
    all,
    amax,
    amin,
    any,
    argmax,
    argmin,
    cumprod,
    cumsum,
    max,
    mean,
    min,
    prod,
    std,
    sum,
    var,
)
from graphc.ops.selection import (
    choose,
    compress,
    extract,
    piecewise,
    place,
    put,
    put_along_axis,
    putmask,
    select,
)
from graphc.ops.set_ops import (
    intersect1d,
    isin,
    setdiff1d,
    setxor1d,
    trim_zeros,
    union1d,
    unique,
    unique_all,
    unique_counts,
    unique_inverse,
    unique_values,
)
from graphc.ops.shape import (  # noqa: F401  (argsort, reshape, sort: at the end)
    broadcast_to,
    expand_dims,
    flip,
    moveaxis,
    pad,
    ravel,
    repeat,
    squeeze,
    swapaxes,
    tile,
    transpose,
)
from graphc.ops.sorting import argpartition, lexsort, partition, sort_complex
from graphc.ops.statistics import corrcoef, cov
from graphc.ops.tnp_names import complex_, flatten, float_  # noqa: F401
from graphc.ops.triangular import tri, tril, triu  # noqa: F401
from graphc.ops.ufunc_methods import ufunc
from graphc.ops.ufuncs import _BINARY, _UNARY, around, divmod, round, where  # astype, clip: end
from graphc.ops.windows import (
    bartlett,
    blackman,
    geomspace,
    hamming,
    hanning,
    kaiser,
    logspace,
    vander,
)

newaxis = None
pi = _np.pi
e = _np.e
inf = _np.inf
nan = _np.nan
bool = bool_  # noqa: A001  (NumPy's ``np.bool``)


# NumPy's elementwise functions (add, exp, equal, ..., round, clip, where, astype):
# graphc/ops/ufuncs.py
globals().update({_name: getattr(_ufuncs, _name) for _name in (*_UNARY, *_BINARY)})
del _ufuncs


# NumPy 2's Array API keywords (device=, copy=, correction=, stable=, descending=,
# min=/max=) on these functions: graphc/ops/array_api_keywords.py
from graphc.ops.array_api_keywords import (  # noqa: E402, F811
    arange,
    argsort,
    asarray,
    astype,
    clip,
    eye,
    from_dlpack,
    linspace,
    reshape,
    sort,
    std,
    var,
)
