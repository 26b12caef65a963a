"""LLVM loop interleaving for graphc's programs (``vmath_base.interleaved_loops``).

A fused transcendental loop is one long dependency chain per element; compiled inside
``interleaved_loops`` its vector loop works on ``INTERLEAVE`` independent vectors per
iteration (seen in the optimized LLVM IR as that many vector loads). The count is a
process-wide LLVM option, so after the block other Numba code must compile as before.
"""

from __future__ import annotations

import re

import numba
import numpy as np

from graphc.runtime import vmath as V
from graphc.runtime.vmath_base import INTERLEAVE, interleaved_loops

SIG = "void(float32[::1], float32[::1])"


def _tanh_loop():
    @numba.njit(error_model="numpy")
    def loop(a, o):
        V.prefer_wide_vectors()
        for i in range(a.shape[0]):
            o[i] = V.tanh_f32(a[i])

    loop.compile(SIG)
    return loop


def _vector_loads(dispatcher) -> int:
    ir = "\n".join(dispatcher.inspect_llvm().values())
    return len(re.findall(r"load <\d+ x float>", ir))


def test_interleaving_is_scoped_to_the_block():
    before = _tanh_loop()
    with interleaved_loops():
        inside = _tanh_loop()
    after = _tanh_loop()
    plain = _vector_loads(before)
    # the cost model unrolls this loop less than INTERLEAVE times on its own
    assert _vector_loads(inside) >= plain + INTERLEAVE - 1
    assert _vector_loads(after) == plain  # the option was reset: the cost model again
    a = np.linspace(-5, 5, 1000).astype(np.float32)  # the unrolled loop computes the same
    o1, o2 = np.empty_like(a), np.empty_like(a)
    before(a, o1)
    inside(a, o2)
    np.testing.assert_array_equal(o1, o2)


def test_the_option_is_reset_when_the_compile_fails():
    plain = _vector_loads(_tanh_loop())
    try:
        with interleaved_loops():
            raise ValueError("a failed compile")
    except ValueError:
        pass
    assert _vector_loads(_tanh_loop()) == plain
