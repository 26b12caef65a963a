"""gc.TensorArray compiled by the Numba backend (graphc/runtime/cpu/kernels_tensor_array.py):
programs that grow, read, stack, gather and scatter an array inside tensor loops run
natively (backend "numba", no FallbackWarning) and give what NumPy by hand gives."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.errors import InvalidArgumentError
from graphc.runtime.cpu import numba_cpu

pytestmark = pytest.mark.usefixtures("eager_compile")


def _compiled(fn, *args):
    """Run ``gc.function(fn)`` on ``args``; assert that it ran as one Numba program."""
    f = gc.function(fn)
    with warnings.catch_warnings():
        warnings.simplefilter("error", numba_cpu.FallbackWarning)
        out = f(*args)
        runtime = f.get_concrete_function(*args).runtime
    assert runtime.backend == "numba", runtime.explain()
    return out


def prefix_sums(x):
    """Rows of running sums, collected in a growing array of unknown element shape."""
    ta = gc.TensorArray(gc.float64, size=0, dynamic_size=True)
    acc = x[0] * 0.0
    for i in gc.range(gc.shape(x)[0]):
        acc = acc + x[i]
        ta = ta.write(i, acc)
    return ta.stack(), ta.size()


def fibonacci(n):
    """TensorFlow's example: unstack two seeds, then read the last two each step."""
    ta = gc.TensorArray(gc.int64, size=0, dynamic_size=True)
    ta = ta.unstack(gnp.asarray([0, 1], dtype=gc.int64))
    for i in gc.range(2, n):
        ta = ta.write(i, ta.read(i - 1) + ta.read(i - 2))
    return ta.stack()


def gather_scatter(x, idx):
    """A fixed-size array: scatter rows of ``x`` to ``idx``, gather them back, concat."""
    ta = gc.TensorArray(gc.float32, size=6, element_shape=(2,))
    ta = ta.scatter(idx, x)
    k = 0
    total = ta.read(0) * 0
    while k < 6:
        total = total + ta.read(k)
        k += 1
    return ta.gather(idx), ta.concat(), total


def test_prefix_sums_grow_an_array_in_a_loop():
    x = np.arange(12.0).reshape(4, 3) - 5
    stacked, size = _compiled(prefix_sums, gc.constant(x))
    np.testing.assert_array_equal(stacked.numpy(), np.cumsum(x, axis=0))
    assert size.numpy() == 4


@pytest.mark.parametrize("n", [2, 3, 10])
def test_fibonacci_reads_what_it_wrote(n):
    want = [0, 1]
    for _ in range(2, n):
        want.append(want[-1] + want[-2])
    got = _compiled(fibonacci, gc.constant(np.int64(n)))
    np.testing.assert_array_equal(got.numpy(), np.asarray(want, np.int64))


def test_gather_scatter_concat_on_a_fixed_size_array():
    x = np.arange(8, dtype=np.float32).reshape(4, 2)
    idx = np.asarray([5, 0, 3, 2], np.int64)
    gathered, joined, total = _compiled(gather_scatter, gc.constant(x), gc.constant(idx))
    dense = np.zeros((6, 2), np.float32)  # unwritten elements read as zeros
    dense[idx] = x
    np.testing.assert_array_equal(gathered.numpy(), x)
    np.testing.assert_array_equal(joined.numpy(), dense.reshape(-1))
    np.testing.assert_array_equal(total.numpy(), dense.sum(axis=0))


def fill_fixed(n):
    ta = gc.TensorArray(gc.int32, size=3)
    for i in gc.range(n):
        ta = ta.write(i, gc.cast(i, gc.int32))
    return ta.stack()


def test_a_write_past_a_fixed_size_raises_when_the_program_runs():
    f = gc.function(fill_fixed)
    np.testing.assert_array_equal(f(gc.constant(np.int64(2))).numpy(), [0, 1, 0])
    assert f.get_concrete_function(gc.constant(np.int64(2))).runtime.backend == "numba"
    with pytest.raises(InvalidArgumentError, match="out of bounds.*dynamic_size"):
        f(gc.constant(np.int64(4)))


def skipping_writes(x):
    """Writes that skip rows and grow the array: the skipped rows stack as zeros."""
    ta = gc.TensorArray(gc.float64, size=0, dynamic_size=True)
    ta = ta.write(0, x)
    for i in gc.range(3):
        ta = ta.write(3 * i + 2, x * gc.cast(i + 2, gc.float64))  # rows 2, 5, 8
    ta = ta.scatter(gnp.asarray([13, 11], dtype=gc.int64), gnp.stack([x, -x]))
    return ta.stack()


def test_rows_a_write_skips_read_as_zeros():
    x = gc.constant(np.array([1.5, -2.0]))
    got = _compiled(skipping_writes, x).numpy()
    want = np.zeros((14, 2))
    want[0], want[2], want[5], want[8] = x.numpy(), 2 * x.numpy(), 3 * x.numpy(), 4 * x.numpy()
    want[13], want[11] = x.numpy(), -x.numpy()
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(gc.function(skipping_writes, backend="numpy")(x).numpy(), want)
