"""gc.random draws whose shape is known only when the function runs (TensorFlow's
``tf.random.uniform(tf.shape(x))``, dropout's mask): the draw has the run-time shape and
the seeded values NumPy's generator gives; a shape with a ``None`` dim says what to pass."""

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp


@gc.function(input_signature=[gc.TensorSpec([None, 3], gc.float32)])
def dropout(x):
    keep = gc.random.uniform(gc.shape(x), seed=7) >= 0.5
    noise = gc.random.normal([gc.shape(x)[0], 2], mean=1.0, stddev=0.0)
    ints = gnp.random.randint(0, 4, size=gc.shape(x))
    return gnp.where(keep, x * 2.0, 0.0), noise, ints


@pytest.mark.parametrize("rows", [0, 1, 4])
def test_draws_take_the_run_time_shape(rows):
    x = np.arange(rows * 3, dtype=np.float32).reshape(rows, 3)
    gc.random.set_seed(3)
    out, noise, ints = dropout(x)
    gc.random.set_seed(3)
    want_keep = np.random.default_rng([3, 7]).uniform(0, 1, size=(rows, 3)) >= 0.5
    np.testing.assert_array_equal(out.numpy(), np.where(want_keep, x * 2, 0).astype(np.float32))
    np.testing.assert_array_equal(noise.numpy(), np.ones((rows, 2), np.float32))
    assert ints.shape == (rows, 3) and ints.dtype == np.int64
    assert ((ints.numpy() >= 0) & (ints.numpy() < 4)).all()


def test_a_none_dim_in_a_static_shape_says_what_to_pass():
    @gc.function(input_signature=[gc.TensorSpec([None, 3], gc.float32)])
    def bad(x):
        return gc.random.uniform(x.shape)

    with pytest.raises(TypeError, match=r"gc\.shape\(x\)"):
        bad(np.ones((2, 3), np.float32))
