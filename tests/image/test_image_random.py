"""gc.image's random augmentations: results are the deterministic op at a drawn
parameter, reproducible with gc.random.set_seed and an op seed, drawn afresh on every
call of a gc.function; TensorFlow's argument errors."""

import numpy as np
import pytest
from image_helpers import img, same

import graphc as gc

I = gc.image  # noqa: E741


def _which(got, x, flipped):
    if np.array_equal(got, x):
        return 0
    assert np.array_equal(got, flipped)
    return 1


def test_random_flips_pick_one_of_two_and_repeat_with_a_seed():
    x = img(3, 4, 2)
    seen = set()
    f = gc.function(lambda t: I.random_flip_left_right(t))
    for _ in range(12):
        seen.add(_which(f(x).numpy(), x, x[:, ::-1]))
    assert seen == {0, 1}
    xb = img(16, 2, 3, 1)
    got = I.random_flip_up_down(xb).numpy()
    picks = {_which(got[i], xb[i], xb[i, ::-1]) for i in range(16)}
    assert picks == {0, 1}
    gc.random.set_seed(7)
    a = I.random_flip_left_right(xb, seed=3).numpy()
    gc.random.set_seed(7)
    b = I.random_flip_left_right(xb, seed=3).numpy()
    same(a, b, rtol=0)


def test_random_brightness_and_contrast():
    x = img(2, 3, 4, 3)
    for fn in (I.random_brightness, gc.function(I.random_brightness)):
        d = fn(x, 0.2).numpy() - x
        assert np.ptp(d) < 1e-6 and abs(d.flat[0]) <= 0.2 + 1e-6
    m = x.mean(axis=(-3, -2), keepdims=True)
    got = I.random_contrast(x, 0.5, 1.5, seed=2).numpy()
    factor = (got - m) / (x - m)
    assert np.ptp(factor) < 1e-3 and 0.5 <= factor.flat[0] < 1.5
    with pytest.raises(ValueError, match="max_delta must be non-negative"):
        I.random_brightness(x, -0.1)
    with pytest.raises(ValueError, match="upper must be > lower"):
        I.random_contrast(x, 1.0, 0.5)
    with pytest.raises(ValueError, match="lower must be non-negative"):
        I.random_contrast(x, -1.0, 0.5)


def test_random_crop_is_a_window():
    x = np.arange(5 * 6 * 2, dtype=np.float32).reshape(5, 6, 2)
    seen = set()
    f = gc.function(lambda t: I.random_crop(t, [3, 2, 2]))
    for fn in (lambda t: I.random_crop(t, [3, 2, 2]), f):
        for _ in range(6):
            got = fn(x).numpy()
            i, j = np.argwhere(x == got[0, 0, 0])[0][:2]
            same(got, x[i:i + 3, j:j + 2], rtol=0)
            seen.add((int(i), int(j)))
    assert len(seen) > 1
    with pytest.raises(ValueError, match="Need value.shape >= size"):
        I.random_crop(x, [6, 2, 2])
    with pytest.raises(ValueError, match="rank"):
        I.random_crop(x, [2, 2])
