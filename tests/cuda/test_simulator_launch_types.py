"""Under the simulator every launch checks its arrays' dtypes against the kernel's declared
signature (``target.kernel_decorator``): a GPU reinterprets a buffer of another dtype,
so concatenating int32 with int64 wrote int32 bits into an int64 result there (garbage)
while the simulator's Python assignment converted silently and the tests passed."""

import os

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.runtime.cuda import target

cuda = target.cuda()  # a global: the simulator swaps a kernel's global ``cuda`` at launch


@pytest.mark.skipif(os.environ.get("NUMBA_ENABLE_CUDASIM") == "0",
                    reason="the check is the simulator's (a GPU misreads instead)")
def test_a_launch_with_an_array_of_another_dtype_is_refused():
    @target.kernel_decorator()("void(int32[::1], int32[::1])")
    def copy(a, o):
        i = cuda.grid(1)
        if i < a.size:
            o[i] = a[i]

    src = cuda.to_device(np.arange(3, dtype=np.int32))
    ok = cuda.device_array(3, np.int32)
    copy[1, 4](src, ok)
    np.testing.assert_array_equal(ok.copy_to_host(), [0, 1, 2])
    with pytest.raises(TypeError, match=r"argument 1 is a int64 array, declared int32"):
        copy[1, 4](src, cuda.device_array(3, np.int64))


@pytest.mark.parametrize("op", ["concatenate", "stack"])
def test_joining_arrays_of_different_dtypes_converts_each_element(op):
    a = np.array([[-1], [0]], np.int32)
    b = np.array([[5], [2**40]], np.int64)
    join = getattr(gnp, op)
    with gc.device("GPU:0"):
        got = gc.function(lambda x, y: join([x, y], axis=1))(a, b)
    assert got.device == "cuda:0"
    want = getattr(np, op)([a, b], axis=1)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.numpy(), want)
