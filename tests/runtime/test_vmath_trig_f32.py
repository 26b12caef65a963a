"""float32 sin and cos in float32 lanes, with an exact second pass for large arguments.

``V.sin_f32_fast``/``cos_f32_fast`` (Cody-Waite in float32) are within 1 ULP up to
|x| = 65536 and wrong above; ``V.trig_big_f32`` flags those inputs. A float32 loop runs
the fast variants and the max of the guard; if any element was flagged it runs the whole
loop again with ``sin_f32``/``cos_f32`` (exact everywhere, and equal to the fast variants
up to 65536). Checked here: accuracy over a sweep that stays on the fast path, the second
pass (flat serial, flat prange and row loops), and that the fast loop has no float64 or
int64 vectors. The exhaustive check of every float32 up to 65536 is in docs/vmath.md.
"""

from __future__ import annotations

import re

import numba
import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.runtime import vmath as V
from graphc.runtime.cpu import numba_cpu
from tests.runtime.test_numba_vmath import ulp

F32 = np.float32
BIG = 65536.0


def _small_sweep():
    """Dense, near every 7th multiple of pi/2 (+-4 ULP), random bits, special values; all
    on the fast path (|x| <= 65536, inf, NaN)."""
    rng = np.random.default_rng(3)
    near = (np.arange(1, int(BIG / (np.pi / 2)), 7) * (np.pi / 2)).astype(F32).view(np.int32)
    near = np.concatenate([near + d for d in range(-4, 5)]).view(F32)
    bits = rng.integers(0, np.array(BIG, F32).view(np.int32), 200_000, dtype=np.int32)
    special = np.array([0.0, 2.0 ** -12, np.nextafter(F32(2.0 ** -12), F32(0)), 1e-30, 1e-45,
                        BIG, np.inf, np.nan, np.pi / 4, np.pi / 2, np.pi], F32)
    x = np.concatenate([np.linspace(-100, 100, 100_000, dtype=F32), near, bits.view(F32),
                        special])
    return np.concatenate([x, -x[len(x) // 2:]])


def _program(fn, *arrays):
    cf = gc.function(fn).get_concrete_function(*(gc.constant(a, dtype=a.dtype) for a in arrays))
    ex = numba_cpu.executor_for(cf.optimized_graph)
    assert ex.backend == "numba", ex.explain()
    return ex


def _check(y, x, fn):
    with np.errstate(all="ignore"):
        truth = fn(x.astype(np.float64)).astype(F32)
        ref = fn(x)
    for want, bound in ((truth, 1), (ref, 2)):  # docs/vmath.md
        err = ulp(y, want)
        k = int(np.argmax(err))
        assert err.max() <= bound, (x[k], y[k], want[k])
    np.testing.assert_array_equal(np.isnan(y), np.isnan(ref))
    zero = ref == 0
    np.testing.assert_array_equal(np.signbit(y[zero]), np.signbit(ref[zero]))


@pytest.fixture(scope="module")
def sin_cos(eager_compile):
    x = _small_sweep()
    ex = _program(lambda v: (gnp.sin(v), gnp.cos(v)), x)
    src = ex.program.source
    assert "V.sin_f32_fast(" in src and "V.cos_f32_fast(" in src and "V.trig_big_f32(" in src
    assert "V.sin_f32(" in src  # the second pass
    return ex, x


def test_fast_path_accuracy(sin_cos):
    ex, x = sin_cos
    with np.errstate(all="ignore"):
        s, c = ex([x])
    _check(s, x, np.sin)
    _check(c, x, np.cos)


def test_large_arguments_take_the_exact_pass(sin_cos):
    ex, x = sin_cos
    y = x.copy()
    y[[10, 5000, -3]] = [1e30, 7e5, -65536.0078125]  # the last: the float after 65536
    with np.errstate(all="ignore"):
        s, c = ex([y])
        s0, c0 = ex([x])
    _check(s, y, np.sin)
    _check(c, y, np.cos)
    small = np.abs(y) <= BIG  # the same values as on the fast path
    np.testing.assert_array_equal(s[small], s0[small])
    np.testing.assert_array_equal(c[small], c0[small])
    # the fast variant alone is wrong there: the second pass is what makes these right
    fast = numba.njit(lambda v: V.sin_f32_fast(v))
    assert ulp(np.array([fast(F32(1e30))], F32), np.array([np.sin(F32(1e30))]))[0] > 2


def test_second_pass_in_parallel_and_row_loops(eager_compile):
    """A prange loop (the guard is a max reduction) and a broadcasting row loop."""
    rng = np.random.default_rng(0)
    x = rng.uniform(-50, 50, 1 << 18).astype(F32)
    m = rng.uniform(-50, 50, (64, 100)).astype(F32)
    b = rng.uniform(-5, 5, 100).astype(F32)
    ex = _program(lambda u, v, w: (gnp.sin(u * 2.0) + gnp.cos(u), gnp.cos(v + w)), x, m, b)
    assert "numba.prange" in ex.program.source
    for big in (False, True):
        if big:
            x[[7, 70000]], m[3, 5] = (3e8, -1e35), 4e20
        s, r = ex([x, m, b])
        want = np.sin(x * F32(2)) + np.cos(x)
        np.testing.assert_allclose(s, want, rtol=0, atol=4e-7)
        _check(r, m + b, np.cos)


def test_fast_variants_run_in_float32_lanes():
    """The fast variants vectorize with float and int32 vectors only (16 lanes per
    512-bit vector): a float64 or int64 part would halve the lanes."""
    @numba.njit(error_model="numpy")
    def loop(a, o1, o2):
        V.prefer_wide_vectors()
        for i in range(a.shape[0]):
            o1[i] = V.sin_f32_fast(a[i]) + V.cos_f32_fast(a[i])
            o2[i] = max(o2[i], V.trig_big_f32(a[i]))

    loop.compile("void(float32[::1], float32[::1], int32[::1])")
    ir = "\n".join(loop.inspect_llvm().values())
    lanes = {int(n) for n in re.findall(r"<(\d+) x float>", ir)}
    assert lanes and max(lanes) >= 4, "the loop did not vectorize"
    assert not re.search(r"<\d+ x (double|i64)>", ir), "a 64-bit vector in the float32 loop"


def test_second_pass_with_unknown_shapes(eager_compile):
    """Unknown dims: the flat loop or the N-d one, chosen at run time, each with its pass."""
    fn = gc.function(lambda v: gnp.sin(v) + gnp.cos(v * 2.0),
                     input_signature=[gc.TensorSpec([None, None], np.float32)])
    ex = numba_cpu.executor_for(fn.get_concrete_function().optimized_graph)
    assert ex.backend == "numba", ex.explain()
    assert ex.program.source.count("V.sin_f32_fast(") == 2  # the flat and the N-d loop
    x = np.random.default_rng(1).uniform(-50, 50, (30, 40)).astype(F32)
    for big in (False, True):
        if big:
            x[3, 4], x[20, 1] = 3e9, -1e38
        for arg in (x, x[:, ::2]):  # contiguous: the flat loop; strided: the N-d one
            (got,) = ex([arg])
            np.testing.assert_allclose(got, np.sin(arg) + np.cos(arg * F32(2)), rtol=0,
                                       atol=4e-7)
