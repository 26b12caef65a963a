"""Building blocks of the vectorizable math (``vmath*.py``): bit casts, fused multiply-add.

Every function here compiles to one LLVM instruction that has a vector form, so loops
calling them still vectorize. ``cache.version_tag`` hashes every ``vmath*.py`` file,
because compiled programs inline this code and Numba's cache does not track it.
"""

from __future__ import annotations

import contextlib

import numba
from llvmlite import binding, ir
from numba.core import types
from numba.core.compiler_lock import global_compiler_lock
from numba.extending import intrinsic

# inline="always" inlines at Numba IR level, so LLVM sees one flat loop body to vectorize
jit = numba.njit(cache=True, error_model="numpy", nogil=True, inline="always")


def _bitcast(src, dst, dst_ir):
    """An intrinsic reinterpreting a ``src`` scalar's bits as a ``dst`` scalar."""

    @intrinsic
    def cast(typingctx, x):
        if x != src:
            return None

        def codegen(context, builder, signature, args):
            return builder.bitcast(args[0], dst_ir)

        return dst(src), codegen

    return cast


f64_from_bits = _bitcast(types.int64, types.float64, ir.DoubleType())
f32_from_bits = _bitcast(types.int32, types.float32, ir.FloatType())
bits_of_f64 = _bitcast(types.float64, types.int64, ir.IntType(64))
bits_of_f32 = _bitcast(types.float32, types.int32, ir.IntType(32))


@intrinsic
def fma(typingctx, a, b, c):
    """``a * b + c``, fused where the CPU has FMA (``llvm.fmuladd``), else two roundings.

    Numba never contracts ``a * b + c`` itself (that needs fastmath), and unfused Horner
    steps doubled the time of exp_f64 (3.5 ms -> 1.8 ms for 2^20 values with FMA).
    ``llvm.fma`` would always fuse but becomes a scalar libm call on CPUs without FMA;
    ``fmuladd`` never does. Both forms are within the error bounds of the callers.
    """
    if not (a == b == c and a in (types.float32, types.float64)):
        return None

    def codegen(context, builder, signature, args):
        t = args[0].type
        fn = builder.module.declare_intrinsic("llvm.fmuladd", [t], ir.FunctionType(t, [t] * 3))
        return builder.call(fn, args)

    return a(a, a, a), codegen


@intrinsic
def ldexp_f32(typingctx, x, n):
    """``x * 2**n`` for a float32 ``x`` and an int32 ``n``, rounded once (``llvm.ldexp``):
    one ``vscalefps`` in AVX-512 loops, denormal and infinite results included. Without
    AVX-512 LLVM calls libm's ``ldexpf`` per element, so callers use it only where
    ``HAS_SCALEF``."""
    if not (x == types.float32 and n == types.int32):
        return None

    def codegen(context, builder, signature, args):
        f, i = ir.FloatType(), ir.IntType(32)
        fn = builder.module.declare_intrinsic("llvm.ldexp", [f, i], ir.FunctionType(f, [f, i]))
        return builder.call(fn, args)

    return types.float32(types.float32, types.int32), codegen


@intrinsic
def rint_i32(typingctx, x):
    """``int32(rint(x))`` for a float32 in int32 range (``llvm.lrint``): one
    ``vcvtps2dq`` where ``np.int32(np.rint(x))`` took a rounding and a conversion; the
    float ``n`` then comes back from it, and that conversion is shared with ldexp's."""
    if x != types.float32:
        return None

    def codegen(context, builder, signature, args):
        f, i = ir.FloatType(), ir.IntType(32)
        fn = builder.module.declare_intrinsic("llvm.lrint", [i, f], ir.FunctionType(i, [f]))
        return builder.call(fn, args)

    return types.int32(types.float32), codegen


def _has_scalef() -> bool:
    return bool(binding.get_host_cpu_features().get("avx512f")) and \
        numba.config.CPU_NAME in (None, "host")


HAS_SCALEF = _has_scalef()


@intrinsic
def horner(typingctx, x, c):
    """``c[0] x^n + c[1] x^(n-1) + ... + c[n]`` for a constant tuple ``c`` of ``x``'s float
    type, as one chain of ``llvm.fmuladd`` (see :func:`fma`).

    An intrinsic, not a jitted loop: a loop indexing a tuple lowers to a switch over
    its elements per step, and as an ``inline="always"`` function it was one more
    Numba-level inline per call; ``exp_f64`` alone cost ~0.17 s of compile time per
    call site that way."""
    if not (x in (types.float32, types.float64) and isinstance(c, types.UniTuple)
            and c.dtype == x):
        return None
    n = c.count

    def codegen(context, builder, signature, args):
        xv, cv = args
        t = xv.type
        fn = builder.module.declare_intrinsic("llvm.fmuladd", [t], ir.FunctionType(t, [t] * 3))
        p = builder.extract_value(cv, 0)
        for i in range(1, n):
            p = builder.call(fn, [p, xv, builder.extract_value(cv, i)])
        return p

    return x(x, c), codegen


# LLVM's default tuning for recent Intel server CPUs (Skylake-X onward) vectorizes with
# 256-bit registers even where AVX-512 exists, to dodge the clock drop of early AVX-512
# parts. On the CPUs this was measured on (Sapphire/Emerald Rapids), 512-bit loops are
# faster: a fused float32 sigmoid over 2^20 values took 0.88 ms instead of 1.24 ms.
# Where the CPU has no 512-bit vectors the attribute changes nothing.
VECTOR_WIDTH = 512


@intrinsic
def prefer_wide_vectors(typingctx):
    """Ask LLVM to vectorize the *calling* function with ``VECTOR_WIDTH``-bit vectors.

    An intrinsic's code is generated inside its caller, so this sets the function
    attribute ``"prefer-vector-width"`` on the generated program itself (clang's
    ``-mprefer-vector-width``); it emits no instructions. llvmlite only accepts the
    keyword attributes it knows, hence ``set.add`` for this string attribute.
    """

    def codegen(context, builder, signature, args):
        set.add(builder.function.attributes, f'"prefer-vector-width"="{VECTOR_WIDTH}"')
        return context.get_dummy_value()

    return types.none(), codegen


# LLVM's loop vectorizer unrolls ("interleaves") a vector loop only when its cost model
# expects a gain, and it chose 1 for the fused transcendental loops: each iteration is one
# long dependency chain (exp's polynomial, then log1p's, each step waiting ~4 cycles for
# the one before), so the core sat waiting on latency. Four independent vectors per
# iteration keep its two FMA ports busy: the GELU*softplus chain (float32, 2^16 values,
# one thread) went from 1.88 to 1.40 ns per value, log1p(exp(-|x|)) from 1.23 to 0.88
# (2 gave 1.58 and 1.07, 8 no more than 4); loops of a few elements were not slower.
INTERLEAVE = 4


@contextlib.contextmanager
def interleaved_loops(count: int = INTERLEAVE):
    """Compile the programs of this block with LLVM's loop interleave count ``count``.

    LLVM reads the count from a process-wide option (``-force-vector-interleave``; 0,
    its default, means "the cost model decides"), so it is set only while Numba's
    compiler lock is held, around graphc's own compile, and reset to 0 afterwards:
    other Numba code in the process is compiled as before.
    """
    with global_compiler_lock:
        binding.set_option("graphc", f"-force-vector-interleave={count}")
        try:
            yield
        finally:
            binding.set_option("graphc", "-force-vector-interleave=0")
