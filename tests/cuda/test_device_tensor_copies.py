"""A tensor on the (simulated) GPU copies and pickles like a CPU tensor: the copy holds
the same values on the same device (pickle carries plain host arrays only)."""

import copy
import pickle

import numpy as np
import pytest

import graphc as gc

VALUES = np.array([[1.5, -0.0], [np.nan, 4.0]], np.float32)


@pytest.mark.parametrize("how", [copy.copy, copy.deepcopy,
                                 lambda t: pickle.loads(pickle.dumps(t))])
def test_copies_stay_on_the_device_with_the_same_values(how):
    with gc.device("cuda:0"):
        x = gc.constant(VALUES)
    y = how(x)
    assert y.device == "cuda:0" and y.dtype == np.float32 and y.shape == (2, 2)
    np.testing.assert_array_equal(y.numpy(), VALUES)
    np.testing.assert_array_equal((y * 2).numpy(), VALUES * 2)  # usable on the device
