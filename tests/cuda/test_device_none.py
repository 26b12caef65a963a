"""``gc.device(None)`` clears the enclosing device scopes, as ``tf.device(None)`` does:
new tensors go to the CPU, work runs where its tensors are."""

import numpy as np

import graphc as gc
import graphc.numpy as gnp


@gc.function
def twice(x):
    return x * 2.0


def test_none_clears_the_gpu_scope_until_it_ends():
    with gc.device("cuda:0"):
        on_gpu = gnp.ones(2)
        with gc.device(None):
            made = gnp.ones(2)
            from_gpu = gnp.sin(on_gpu)  # where its operand is
            called = twice(np.arange(2.0))
        after = gnp.ones(2)
    assert made.device == "cpu:0" and called.device == "cpu:0"
    assert from_gpu.device == "cuda:0" and after.device == "cuda:0"
    np.testing.assert_allclose(from_gpu.numpy(), np.sin(np.ones(2)))
    np.testing.assert_array_equal(called.numpy(), [0.0, 2.0])
