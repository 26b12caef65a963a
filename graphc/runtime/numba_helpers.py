"""Numba-compiled helpers that generated programs call (``H.pairwise_sum(row, zero)``).

Shared by both backends: generated CPU programs import it, and the CUDA backend's
``cuda/devmath.py`` hands it to kernels as the same ``H`` (its scalar helpers compile as
device functions). Only those import this module, so importing graphc never imports
Numba. The helpers are compiled once per process and dtype and cached on disk by Numba
(``cache=True``), so a new program does not pay for them again; a compiled program links
their code in, which is why ``cache.version_tag`` hashes this file's source: editing a
helper invalidates every cached program.

Reductions follow NumPy's order so float results match it bit for bit (see
``kernels_reduce``): ``pairwise_sum`` is NumPy's pairwise summation
(numpy/_core/src/umath/loops_utils.h.src, 8 accumulators, blocks of 128).
"""

from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir
from numba.core import cgutils
from numba.extending import intrinsic

_jit = numba.njit(cache=True, error_model="numpy", nogil=True)


@_jit
def _block(a, lo, n, zero):
    # one leaf of the pairwise tree (n <= 128); ``zero + a[i]`` casts to the accumulator
    if n < 8:
        res = zero
        for i in range(lo, lo + n):
            res += zero + a[i]
        return res
    r0 = zero + a[lo]
    r1 = zero + a[lo + 1]
    r2 = zero + a[lo + 2]
    r3 = zero + a[lo + 3]
    r4 = zero + a[lo + 4]
    r5 = zero + a[lo + 5]
    r6 = zero + a[lo + 6]
    r7 = zero + a[lo + 7]
    i = 8
    m = n - n % 8
    while i < m:
        j = lo + i
        r0 += a[j]
        r1 += a[j + 1]
        r2 += a[j + 2]
        r3 += a[j + 3]
        r4 += a[j + 4]
        r5 += a[j + 5]
        r6 += a[j + 6]
        r7 += a[j + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += zero + a[lo + i]
        i += 1
    return res


@_jit
def _pairwise(a, lo, n, zero):
    # NumPy's recursion ``f(lo, n) = f(lo, n2) + f(lo + n2, n - n2)`` (n2 = n/2 rounded
    # down to a multiple of 8, leaves of <= 128) run on an explicit stack: Numba cannot
    # reload a *recursive* function from its on-disk cache (LLVM aborts on an
    # unresolved symbol), and the partial sums still combine in the same tree order.
    if n <= 128:
        return _block(a, lo, n, zero)
    los = np.empty(64, np.int64)
    ns = np.empty(64, np.int64)
    left_done = np.zeros(64, np.bool_)
    partial = np.full(64, zero)
    sp = 0
    los[0] = lo
    ns[0] = n
    while True:
        k = ns[sp]
        if k > 128:  # descend into the left half
            k2 = k // 2
            k2 -= k2 % 8
            left_done[sp] = False
            los[sp + 1] = los[sp]
            ns[sp + 1] = k2
            sp += 1
            continue
        v = _block(a, los[sp], k, zero)
        while True:  # hand ``v`` up until some frame still needs its right half
            if sp == 0:
                return v
            sp -= 1
            if not left_done[sp]:
                left_done[sp] = True
                partial[sp] = v
                k2 = ns[sp] // 2
                k2 -= k2 % 8
                los[sp + 1] = los[sp] + k2
                ns[sp + 1] = ns[sp] - k2
                sp += 1
                break
            v = partial[sp] + v


@_jit
def pairwise_sum(a, zero, chunked):
    """Float sum of the 1-D contiguous ``a`` in ``type(zero)``, in NumPy's order.

    ``chunked``: the input is cast to a wider accumulator, which NumPy does through
    8192-element buffers summed one after the other.
    """
    n = a.shape[0]
    if not chunked or n <= 8192:
        return _pairwise(a, 0, n, zero)
    res = zero
    for s in range(0, n, 8192):
        res += _pairwise(a, s, min(8192, n - s), zero)
    return res


@_jit
def int_sum(a, zero):
    """Integer/bool sum with wraparound (any order gives the same bits)."""
    res = zero
    for i in range(a.shape[0]):
        res += a[i]
    return res


@_jit
def prod(a, one):
    res = one
    for i in range(a.shape[0]):
        res = res * a[i]
    return res


@_jit
def amax(a):
    """Integer max (the loop vectorizes as it is: ints have no NaN)."""
    res = a[0]
    for i in range(1, a.shape[0]):
        v = a[i]
        if v > res:
            res = v
    return res


@_jit
def amin(a):
    res = a[0]
    for i in range(1, a.shape[0]):
        v = a[i]
        if v < res:
            res = v
    return res


# Float max/min: a loop with NaN propagation (``v > r or v != v``) stays scalar, ~9x
# slower than np.max (measured, 1e5 float64), and LLVM vectorizes a float max reduction
# only in a function marked no-NaNs (an attribute lost when the helper is inlined into a
# program). So the max is taken over integer *keys*: a float's bits as a signed int,
# with the magnitude bits of negatives flipped, order exactly like the floats (-0.0 just
# below +0.0), and an integer max reduction vectorizes anywhere. NaNs are found in the
# same loop (an OR of ``v != v``) and then returned as NumPy does.
@intrinsic
def _fkey(typingctx, x):
    """The ordered integer key of a float (an involution: ``_fkey`` of the key's bits
    gives the float's bits back, see ``_funkey``)."""
    if x not in (numba.types.float32, numba.types.float64):
        return None
    ity = numba.types.int32 if x == numba.types.float32 else numba.types.int64

    def codegen(context, builder, signature, args):
        it = ir.IntType(ity.bitwidth)
        b = builder.bitcast(args[0], it)
        sign = builder.ashr(b, ir.Constant(it, ity.bitwidth - 1))
        return builder.xor(b, builder.and_(sign, ir.Constant(it, (1 << (ity.bitwidth - 1)) - 1)))

    return ity(x), codegen


@intrinsic
def _funkey(typingctx, k, like):
    """The float (of ``like``'s type) whose key is ``k``."""
    def codegen(context, builder, signature, args):
        it = args[0].type
        sign = builder.ashr(args[0], ir.Constant(it, it.width - 1))
        b = builder.xor(args[0], builder.and_(sign, ir.Constant(it, (1 << (it.width - 1)) - 1)))
        return builder.bitcast(b, context.get_value_type(like))

    return like(k, like), codegen


float_key, key_float = _fkey, _funkey  # for programs: fused max/min loops (kernels_reduce)


@_jit
def famax(a):
    """np.max of a non-empty 1-D float array: NaN if any element is NaN."""
    r = _fkey(a[0])
    bad = False
    for i in range(a.shape[0]):
        v = a[i]
        bad |= v != v
        k = _fkey(v)
        r = k if k > r else r
    if bad:
        for i in range(a.shape[0]):
            if a[i] != a[i]:
                return a[i]
    return _funkey(r, a[0])


@_jit
def famin(a):
    """np.min of a non-empty 1-D float array: NaN if any element is NaN."""
    r = _fkey(a[0])
    bad = False
    for i in range(a.shape[0]):
        v = a[i]
        bad |= v != v
        k = _fkey(v)
        r = k if k < r else r
    if bad:
        for i in range(a.shape[0]):
            if a[i] != a[i]:
                return a[i]
    return _funkey(r, a[0])


@_jit
def any_(a):
    for i in range(a.shape[0]):
        if a[i] != 0:
            return True
    return False


@_jit
def all_(a):
    for i in range(a.shape[0]):
        if a[i] == 0:
            return False
    return True


@_jit
def int_matmul(a, b, out):
    """``out = a @ b`` for 2-D integer arrays already in the result dtype (wraparound).

    i-k-j order keeps the inner loop contiguous so it vectorizes.
    """
    if a.shape[1] != b.shape[0]:
        raise ValueError("matmul: inner dimensions differ")
    out[:, :] = 0
    for i in range(a.shape[0]):
        for k in range(a.shape[1]):
            aik = a[i, k]
            for j in range(b.shape[1]):
                out[i, j] += aik * b[k, j]
    return out


@_jit
def ipow(a, b, one):
    """``a ** b`` for ints, ``b >= 0``, by squaring with wraparound (the low bits of a
    product do not depend on the order, so this equals NumPy's loop bit for bit).
    ``one`` is 1 in the result's type: with an untyped ``1`` Numba computes uint64
    powers in float64."""
    r = one
    while b != 0:
        if b & one:
            r = r * a
        a = a * a
        b = b >> one
    return r


@_jit
def ipow_checked(a, b, one):
    """``ipow`` for a signed exponent: a negative one raises NumPy's ValueError (the
    executor then reruns the interpreter, which reports it with the node and the user's
    line). Loops calling it stay serial (``kernels.parallel_safe``)."""
    if b < 0:
        raise ValueError("Integers to negative integer powers are not allowed.")
    return ipow(a, b, one)


@_jit
def clip(x, lo, hi):
    """np.clip: minimum(maximum(x, lo), hi), NaN-propagating."""
    t = x if (x >= lo or x != x) else lo
    return t if (t <= hi or t != t) else hi


# --------------------------------------------------------------------------- allocation
# A big result array is faulted in page by page on first write; with 4 KiB pages that
# costs about as much as the loop that fills it (2^24 float32: measured ~10 ms of a
# ~20 ms call). NumPy asks the kernel for transparent huge pages on arrays of 4 MiB and
# more (madvise MADV_HUGEPAGE); Numba's allocator does not, so programs do it here.
_MADV_HUGEPAGE = 14
_HUGE = 1 << 21


@intrinsic
def _madvise(typingctx, addr, length, advice):
    def codegen(context, builder, signature, args):
        i64, i32 = ir.IntType(64), ir.IntType(32)
        fnty = ir.FunctionType(i32, [ir.IntType(8).as_pointer(), i64, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "madvise")
        ptr = builder.inttoptr(args[0], ir.IntType(8).as_pointer())
        return builder.sext(builder.call(fn, [ptr, args[1], builder.trunc(args[2], i32)]),
                            i64)

    return numba.types.int64(addr, length, advice), codegen


@_jit
def hugepages(a):
    """Advise huge pages for the whole 2 MiB pages inside ``a``'s buffer (before it is
    first written); a no-op below 4 MiB, as in NumPy."""
    if a.nbytes < 4194304:
        return
    start = a.ctypes.data
    lo = (start + _HUGE - 1) // _HUGE * _HUGE
    hi = (start + a.nbytes) // _HUGE * _HUGE
    if hi > lo:
        _madvise(lo, hi - lo, _MADV_HUGEPAGE)


# the array/linalg and indexing helpers live in their own module (same ``H.`` namespace)
from graphc.runtime.numba_helpers_arrays import (  # noqa: E402, F401
    along3,
    argwhere,
    dot_1d,
    dot_contiguous,
    index_norm,
    mask_assign,
    mask_count,
    mask_take,
    pad_map,
    scatter_nd,
    sort_rows,
    take4,
    take_1d,
    take_assign,
    vecmat,
    vecmat_view,
)
from graphc.runtime.numba_helpers_blas import (  # noqa: E402, F401
    cholesky,
    det,
    dot,
    dot_into,
    eigh,
    lstsq,
    qr,
    slogdet,
    solve,
    svd,
)
from graphc.runtime.numba_helpers_complex import (  # noqa: E402, F401
    cabs,
    cdiv,
    cmul,
    cpow,
)

# the special functions' scalar helpers (graphc/ops/special_fns.py; same ``H.`` namespace)
from graphc.runtime.numba_helpers_special import (  # noqa: E402, F401
    bessel_i0,
    bessel_i0e,
    bessel_i1,
    bessel_i1e,
    digamma,
    erfinv,
    gamma,
    lgamma,
    ndtri,
    polygamma,
    zeta,
)
