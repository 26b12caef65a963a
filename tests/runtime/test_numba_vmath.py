"""Accuracy of the vectorized math (graphc.runtime.vmath*) across the whole range.

Every function runs inside one compiled program (the way the backend uses them: the ops
map to ``V.<name>_f32``/``_f64`` in kernels.py), compiled once per cache directory, on
dense sweeps of the interesting range, a geometric sweep of every binade of both signs
(denormals included), random bit patterns (NaN payloads, infinities, huge and tiny
values) and a few ULP either side of each boundary (overflow, underflow, saturation).
References: the function in a wider type, rounded (float64 for float32 inputs, x87 long
double for float64), and NumPy's own ufunc. Bounds are the measured maxima (docs/vmath.md).
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from graphc.core import registry
from graphc.core.trace import TraceContext
from graphc.ir.graph import Aval
from graphc.runtime.cpu import numba_cpu

F32, F64 = np.dtype(np.float32), np.dtype(np.float64)
N = 300_000  # per sweep; each dtype and function gets ~4 N values

# name: (dense range float32, float64; boundaries float32, float64;
#        max ULP vs the wider reference float32, float64; max ULP vs NumPy float32, float64)
CASES = {
    "exp": ((-110, 95), (-750, 715), (88.72284, -87.33655, -103.97208, 0.0),
            (709.782712893384, -708.3964185322641, -745.1332191019411, 0.0), 1, 1, 3, 2),
    "sigmoid": ((-110, 110), (-750, 750), (0.0, 17.0, -88.0), (0.0, 37.0, -709.0),
                None, None, 4, 4),
    "softplus": ((-110, 110), (-750, 750), (0.0, 17.0, -88.0, -104.0, 1e-7),
                 (0.0, 37.0, -709.0, -745.0, 1e-17), 1, 1, 2, 2),
    "log": ((0, 4), (0, 4), (1.0, 0.0), (1.0, 0.0), 1, 1, 4, 1),
    "log1p": ((-1, 4), (-1, 4), (-1.0, 0.0, 2.0 ** -25, -(2.0 ** -25), 1.0),
              (-1.0, 0.0, 2.0 ** -54, 1.0, 2.0 ** 53), 1, 1, 2, 1),
    "expm1": ((-20, 90), (-50, 715), (88.72284, -17.32868, 0.0, 0.3465736),
              (709.782712893384, -37.42994775023705, 0.0, 0.34657359027997264), 1, 2, 3, 2),
    "tanh": ((-12, 12), (-25, 25), (9.010913, -9.010913, 0.0, 0.5493061),
             (19.061547465398498, 0.0, 0.5493061443340549), 2, 2, 3, 3),
    # boundaries: the float64 closest to a multiple of pi/2 (6381956970095103 2^797, y - n
    # ~ 2^-61: NumPy's cos is 8 ULP off there, ours 0), huge values, the |x| < 2^-12 /
    # 2^-27 shortcut; float32 up to 65536 in float32 lanes (test_vmath_trig_f32.py), 2 ULP
    # from NumPy's where each is 1 ULP off the other way
    "sin": ((-100, 100), (-100, 100), (2.0 ** -12, 3.4e38, 3.1415927, 1e7),
            (2.0 ** -27, 6381956970095103 * 2.0 ** 797, 3.141592653589793, 1e22), 1, 1, 2, 1),
    "cos": ((-100, 100), (-100, 100), (2.0 ** -12, 3.4e38, 1.5707964, 1e7),
            (2.0 ** -27, 6381956970095103 * 2.0 ** 797, 1.5707963267948966, 1e22), 1, 1, 2, 8),
    # float64 against libm's erf (correctly rounded in recent glibc; fdlibm's, < 1 ULP,
    # before), against SciPy's (3 ULP off libm's itself); the range switches of fdlibm
    "erf": ((-7, 7), (-7, 7), (0.84375, 1.25, 6.0, 2.857141, 2.0 ** -14),
            (0.84375, 1.25, 6.0, 2.857141494750976562, 2.0 ** -28, 2.0 ** -1015), 1, 1, 1, 3),
}


def ulp(a, b):
    """Distance in units in the last place (+0 and -0 are 0 apart; NaN to NaN is 0)."""
    itype = {4: np.int32, 8: np.int64}[a.dtype.itemsize]
    lo = np.iinfo(itype).min
    ia, ib = (np.asarray(x).view(itype) for x in (a, b))
    ia = np.where(ia < 0, lo - ia, ia)  # IEEE bits -> integers in the order of the floats
    ib = np.where(ib < 0, lo - ib, ib)
    d = (ia - ib).view(np.uint32 if itype is np.int32 else np.uint64)  # mod 2^bits
    d = np.minimum(d, -d).astype(np.float64)
    return np.where(np.isnan(a) & np.isnan(b), 0.0, d)


def inputs(dtype, dense, boundaries):
    """Dense + every binade (geometric, both signs) + random bits + boundaries +- 4 ULP."""
    info = np.finfo(dtype)
    bits = {4: np.int32, 8: np.int64}[dtype.itemsize]
    rng = np.random.default_rng(7)  # per call: the same values whichever tests run
    with np.errstate(all="ignore"):  # geomspace's power and nextafter(max) overflow
        geo = np.geomspace(info.smallest_subnormal, info.max, N // 2, dtype=np.float64)
        near = [v for b in boundaries + (info.tiny, info.smallest_subnormal, info.max)
                for v in _around(np.array(b, dtype))]
    near += [np.array(v, dtype) for v in (0.0, -0.0, np.inf, -np.inf, np.nan)]
    return np.concatenate([
        np.linspace(*dense, N, dtype=dtype),
        (np.arange(-N // 8, N // 8) * (np.pi / 2)).astype(dtype),  # near multiples of pi/2
        geo.astype(dtype), -geo.astype(dtype),
        rng.integers(np.iinfo(bits).min, np.iinfo(bits).max, N, dtype=bits).view(dtype),
        np.array(near, dtype), -np.array(near, dtype)])


def _around(v, k=4):
    out, lo, hi = [v], v, v
    for _ in range(k):
        lo, hi = np.nextafter(lo, -np.inf), np.nextafter(hi, np.inf)
        out += [lo, hi]
    return out


def reference(name, x, wide):
    with np.errstate(all="ignore"):
        if name == "sigmoid":
            return (1 / (1 + np.exp(-x.astype(wide)))).astype(x.dtype)
        if name == "softplus":
            return np.logaddexp(0, x.astype(wide)).astype(x.dtype)
        if name == "erf":  # truth: libm's float64 erf, rounded; "NumPy's": SciPy's
            if wide == x.dtype:
                from scipy import special
                return special.erf(x).astype(x.dtype)
            return np.vectorize(math.erf, otypes=[np.float64])(x.astype(np.float64)).astype(
                x.dtype)
        return getattr(np, name)(x.astype(wide)).astype(x.dtype)


@pytest.fixture(scope="module")
def results(eager_compile):
    """(name, dtype) -> (x, compiled result); one program per function (both dtypes):
    one program holding all of them compiled 4x slower than these together (40 s)."""
    done = {}

    def get(name, dtype):
        if (name, dtype) not in done:
            case = CASES[name]
            xs = [inputs(t, case[i], case[2 + i]) for i, t in enumerate((F32, F64))]
            with TraceContext(f"vmath_{name}") as ctx:
                outs = []
                for x in xs:  # static shapes: only the flat loop is generated
                    v = ctx.new_input(Aval(x.shape, x.dtype))
                    outs += ctx.add_node(registry.get(name), (v,), {}, (v.aval,))
                graph = ctx.finish(outs)
            ex = numba_cpu.executor_for(graph)
            assert ex.backend == "numba", ex.explain()
            assert f"V.{name}_f32(" in ex.program.source
            assert f"V.{name}_f64(" in ex.program.source
            with np.errstate(all="ignore"):
                ys = ex(xs)
            done[name, F32], done[name, F64] = zip(xs, ys)
        return done[name, dtype]

    return get


@pytest.mark.parametrize("dtype", [F32, F64], ids=["f32", "f64"])
@pytest.mark.parametrize("name", list(CASES))
def test_accuracy(results, name, dtype):
    x, y = results(name, dtype)
    assert y.dtype == dtype and y.shape == x.shape
    wide = np.float64 if dtype == F32 else np.longdouble
    truth = reference(name, x, wide)
    tol_truth, tol_np = CASES[name][4:6], CASES[name][6:8]
    i = dtype == F64
    if tol_truth[i] is not None:
        err = ulp(y, truth)
        k = int(np.argmax(err))
        assert err.max() <= tol_truth[i], (x[k], y[k], truth[k])
    with np.errstate(all="ignore"):
        ref = reference(name, x, dtype)  # NumPy's own ufunc in the same dtype
    err = ulp(y, ref)
    k = int(np.argmax(err))
    assert err.max() <= tol_np[i], (x[k], y[k], ref[k])
    # NaN exactly where NumPy has NaN, and the sign of every zero result as NumPy's
    np.testing.assert_array_equal(np.isnan(y), np.isnan(ref))
    zero = ref == 0
    np.testing.assert_array_equal(np.signbit(y[zero]), np.signbit(ref[zero]))


F32_LANES = ("tanh", "exp", "log1p", "log", "softplus")  # computed in float32 (docs/vmath.md)


def test_float32_functions_run_in_float32_lanes(tmp_path, monkeypatch):
    """A fused float32 loop of exp, tanh, log, log1p and softplus vectorizes with float vectors
    only: a float64 part would halve the lanes (16 float32 per 512-bit vector)."""
    monkeypatch.setenv("GRAPHC_CACHE_DIR", str(tmp_path))  # compiled here: IR at hand
    monkeypatch.setattr(numba_cpu.settings, "mode", "eager")
    monkeypatch.setattr(numba_cpu.cache, "_memory", type(numba_cpu.cache._memory)())
    with TraceContext("f32_lanes") as ctx:
        v = ctx.new_input(Aval((4096,), F32))
        y = v
        for name in F32_LANES:
            (y,) = ctx.add_node(registry.get(name), (y,), {}, (v.aval,))
        graph = ctx.finish([y])
    ex = numba_cpu.executor_for(graph)
    assert ex.backend == "numba", ex.explain()
    assert all(f"V.{name}_f32(" in ex.program.source for name in F32_LANES)
    dispatcher = numba_cpu.cache.lookup(ex.key)[0]
    ir = dispatcher.inspect_llvm(dispatcher.signatures[0])
    lanes = {int(n) for n in re.findall(r"<(\d+) x float>", ir)}
    assert lanes and max(lanes) >= 4, "the loop did not vectorize"
    assert not re.search(r"<\d+ x double>", ir), "a float64 vector in a float32 loop"
    x = np.linspace(-3, 3, 4096, dtype=np.float32)
    want = np.logaddexp(0, np.log(np.log1p(np.exp(np.tanh(x)))))  # softplus: (0.27, 0.84)
    np.testing.assert_allclose(ex([x])[0], want, rtol=1e-6, atol=1e-6)
