"""Accuracy of the vectorized exp/sigmoid (graphc.runtime.vmath) across the whole range.

They run inside one compiled program (the way the backend uses them) on dense sweeps of
the finite range plus random bit patterns (NaN payloads, infinities, denormals, huge and
tiny values). References: exp in a wider type rounded (float64 for float32 inputs,
x87 long double for float64) and NumPy's own np.exp.
"""

from __future__ import annotations

import os
import tempfile

import numpy as np
import pytest

from graphc.ops import registry
from graphc.runtime import numba_cpu
from graphc.tracer.ir import Aval
from graphc.tracer.trace import TraceContext

CACHE_DIR = os.path.join(tempfile.gettempdir(), f"graphc-test-cache-{os.getuid()}")
RNG = np.random.default_rng(7)


def ulp(a, b):
    """Distance in units in the last place; NaN against NaN is 0."""
    itype = {4: np.int32, 8: np.int64}[a.dtype.itemsize]
    lo = np.iinfo(itype).min
    ia, ib = (np.asarray(x).view(itype).astype(object if itype is np.int64 else np.int64)
              for x in (a, b))
    ia = np.where(ia < 0, lo - ia, ia)
    ib = np.where(ib < 0, lo - ib, ib)
    d = np.abs(ia - ib).astype(np.float64)
    return np.where(np.isnan(a) & np.isnan(b), 0.0, d)


def sweep(dtype, lo, hi, n):
    bits = {4: np.int32, 8: np.int64}[np.dtype(dtype).itemsize]
    info = np.iinfo(bits)
    random_bits = RNG.integers(info.min, info.max, n // 4, dtype=bits).view(dtype)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0,
                        np.finfo(dtype).tiny, np.finfo(dtype).smallest_subnormal,
                        np.finfo(dtype).max, -np.finfo(dtype).max], dtype)
    return np.concatenate([np.linspace(lo, hi, n, dtype=dtype), random_bits, special])


@pytest.fixture(scope="module")
def program():
    mp = pytest.MonkeyPatch()
    mp.setenv("GRAPHC_CACHE_DIR", CACHE_DIR)
    mp.setattr(numba_cpu.settings, "mode", "eager")
    with TraceContext("vmath") as ctx:
        xs = [ctx.new_input(Aval((None,), np.dtype(t))) for t in (np.float32, np.float64)]
        outs = []
        for x in xs:
            for name in ("exp", "sigmoid"):
                (y,) = ctx.add_node(registry.get(name), (x,), {}, (x.aval,))
                outs.append(y)
        graph = ctx.finish(outs)
    ex = numba_cpu.executor_for(graph)
    mp.undo()
    assert ex.backend == "numba", ex.explain()
    assert "V.exp_f32" in ex.program.source and "V.sigmoid_f64" in ex.program.source
    x32 = sweep(np.float32, -110, 95, 1_000_000)
    x64 = sweep(np.float64, -750, 715, 1_000_000)
    with np.errstate(all="ignore"):
        e32, s32, e64, s64 = ex([x32, x64])
    return x32, x64, e32, s32, e64, s64


def test_exp_float32(program):
    x32, _, e32, *_ = program
    with np.errstate(all="ignore"):
        truth = np.exp(x32.astype(np.float64)).astype(np.float32)
        assert ulp(e32, truth).max() <= 1
        assert ulp(e32, np.exp(x32)).max() <= 3  # NumPy's own is up to 2 ULP off


def test_exp_float64(program):
    _, x64, _, _, e64, _ = program
    with np.errstate(all="ignore"):
        truth = np.exp(x64.astype(np.longdouble)).astype(np.float64)
        assert ulp(e64, truth).max() <= 2
        assert ulp(e64, np.exp(x64)).max() <= 3


def test_sigmoid(program):
    x32, x64, _, s32, _, s64 = program
    with np.errstate(all="ignore"):
        ref32 = 1 / (1 + np.exp(-x32))
        ref64 = 1 / (1 + np.exp(-x64))
    assert ulp(s32, ref32).max() <= 4
    assert ulp(s64, ref64).max() <= 4
    assert np.isnan(s32[np.isnan(x32)]).all() and np.isnan(s64[np.isnan(x64)]).all()
