"""gc.nn's pools, max_pool_with_argmax, dilation2d/erosion2d and the block
rearrangements against NumPy loops written here; max pooling's gradient goes to the first
maximum of each window, as TensorFlow's MaxPoolGrad."""

import itertools

import numpy as np
import pytest
from nn_helpers import grad, pool_loops, same, same_pads, traced

import graphc as gc

RNG = np.random.default_rng(5)


@pytest.mark.parametrize("kind", ["MAX", "AVG"])
@pytest.mark.parametrize("ks,strides,padding", [
    ((2, 2), (2, 2), "VALID"), ((3, 2), (2, 1), "SAME"), ((3, 3), (1, 1), "SAME")])
def test_pool2d_against_loops(kind, ks, strides, padding):
    x = RNG.standard_normal((2, 5, 6, 3))
    pads = same_pads((5, 6), ks, strides) if padding == "SAME" else [(0, 0), (0, 0)]
    want = pool_loops(x, ks, strides, pads, kind)
    fn = gc.nn.max_pool2d if kind == "MAX" else gc.nn.avg_pool2d
    same(fn(x, ks, strides, padding), want, rtol=1e-14)
    same(traced(fn, x, ks, strides, padding), want, rtol=1e-14)
    generic = gc.nn.max_pool if kind == "MAX" else gc.nn.avg_pool
    same(generic(x.transpose(0, 3, 1, 2), ks, strides, padding, data_format="NCHW"),
         want.transpose(0, 3, 1, 2), rtol=1e-14)
    same(gc.nn.pool(x, ks, kind, strides, padding), want, rtol=1e-14)


def test_pool1d_3d_ints_and_explicit_padding():
    x = RNG.standard_normal((2, 7, 2))
    same(gc.nn.max_pool1d(x, 3, 2, "SAME"), pool_loops(x, [3], [2], same_pads([7], [3], [2]),
                                                        "MAX"))
    same(gc.nn.avg_pool1d(x, 2, 1, "VALID"), pool_loops(x, [2], [1], [(0, 0)], "AVG"),
         rtol=1e-14)
    x3 = RNG.standard_normal((1, 4, 5, 3, 2))
    same(gc.nn.max_pool3d(x3, 2, [1, 2, 2, 1, 1], "VALID"),
         pool_loops(x3, [2, 2, 2], [2, 2, 1], [(0, 0)] * 3, "MAX"))
    same(gc.nn.avg_pool3d(x3, [1, 2, 3, 2, 1], 1, "SAME"),
         pool_loops(x3, [2, 3, 2], [1, 1, 1], same_pads((4, 5, 3), (2, 3, 2), (1, 1, 1)),
                    "AVG"), rtol=1e-14)
    xi = RNG.integers(-50, 50, (1, 4, 4, 1)).astype(np.int32)
    got = gc.nn.max_pool2d(xi, 3, 2, "SAME")
    same(got, pool_loops(xi, [3, 3], [2, 2], same_pads((4, 4), (3, 3), (2, 2)), "MAX"))
    x2 = RNG.standard_normal((1, 4, 4, 1))
    same(gc.nn.max_pool2d(x2, 2, 2, [[0, 0], [1, 1], [0, 1], [0, 0]]),
         pool_loops(x2, [2, 2], [2, 2], [(1, 1), (0, 1)], "MAX"))
    with pytest.raises(ValueError, match="explicit"):
        gc.nn.avg_pool2d(x2, 2, 2, [[0, 0], [1, 1], [0, 1], [0, 0]])
    with pytest.raises(TypeError, match="float"):
        gc.nn.avg_pool2d(xi, 2, 2, "VALID")


def test_dilated_pool_counts_zero_padding():
    x = RNG.standard_normal((1, 6, 1)) + 5  # all positive: padded zeros lower the mean
    got = gc.nn.pool(x, [2], "AVG", padding="SAME", dilations=[2]).numpy()
    xp = np.pad(x, [(0, 0), (1, 1), (0, 0)])
    same(got, (xp[:, 0:6] + xp[:, 2:8]) / 2, rtol=1e-14)
    same(gc.nn.pool(x, [2], "MAX", padding="VALID", dilations=[3]),
         np.maximum(x[:, 0:3], x[:, 3:6]))
    with pytest.raises(ValueError, match="dilation_rate"):
        gc.nn.pool(x, [2], "MAX", strides=[2], dilations=[2])


def test_max_pool_gradient_goes_to_first_max():
    x = np.array([[1.0, 3.0, 3.0, 0.0], [2.0, 3.0, 1.0, 1.0]]).reshape(1, 2, 4, 1)
    g, w = grad(lambda t: gc.nn.max_pool2d(t, 2, 2, "VALID"), x)
    want = np.zeros_like(x)
    want[0, 0, 1, 0] = w[0, 0, 0, 0]
    want[0, 0, 2, 0] = w[0, 0, 1, 0]
    same(g, want)
    g, w = grad(lambda t: gc.nn.avg_pool2d(t, 2, 2, "VALID"), x)
    same(g, np.repeat(np.repeat(w, 2, 1), 2, 2) / 4)


def test_max_pool_with_argmax():
    x = RNG.standard_normal((2, 4, 5, 3))
    out, arg = gc.nn.max_pool_with_argmax(x, 2, 2, "SAME")
    same(out, pool_loops(x, [2, 2], [2, 2], same_pads((4, 5), (2, 2), (2, 2)), "MAX"))
    assert arg.dtype == np.int64
    flat = x.reshape(2, -1)
    for b, i, j, c in itertools.product(range(2), range(2), range(3), range(3)):
        a = arg.numpy()[b, i, j, c]
        assert a % 3 == c and flat[b, a] == out.numpy()[b, i, j, c]
    _, arg_b = gc.nn.max_pool_with_argmax(x, 2, 2, "SAME", include_batch_in_index=True,
                                          output_dtype=np.int32)
    assert arg_b.dtype == np.int32
    same(arg_b.numpy()[1] - arg.numpy()[1], np.full((2, 3, 3), 60))


def test_dilation2d_and_erosion2d():
    x = RNG.standard_normal((1, 5, 6, 2))
    f = RNG.standard_normal((2, 3, 2))
    got = gc.nn.dilation2d(x, f, [1, 1, 1, 1], "VALID", "NHWC", [1, 2, 1, 1]).numpy()
    want = np.full((1, 3, 4, 2), -np.inf)
    for i, j, dy, dx in itertools.product(range(3), range(4), range(2), range(3)):
        want[0, i, j] = np.maximum(want[0, i, j], x[0, i + 2 * dy, j + dx] + f[dy, dx])
    same(got, want, rtol=1e-14)
    got = gc.nn.erosion2d(x, f, [1, 1, 1, 1], "VALID", "NHWC", [1, 1, 1, 1]).numpy()
    want = np.full((1, 4, 4, 2), np.inf)
    for i, j, dy, dx in itertools.product(range(4), range(4), range(2), range(3)):
        want[0, i, j] = np.minimum(want[0, i, j], x[0, i + 1 - dy, j + 2 - dx] - f[dy, dx])
    same(got, want, rtol=1e-14)
    same_out = gc.nn.dilation2d(x, f, [1, 2, 2, 1], "SAME", "NHWC", [1, 1, 1, 1])
    assert same_out.shape == (1, 3, 3, 2)


def test_depth_space_and_batch_rearrangements():
    x = np.arange(2 * 4 * 6 * 3).reshape(2, 4, 6, 3)
    d = gc.nn.space_to_depth(x, 2).numpy()
    for b, i, j, di, dj, c in itertools.product(range(2), range(2), range(3), range(2),
                                                range(2), range(3)):
        assert d[b, i, j, (di * 2 + dj) * 3 + c] == x[b, 2 * i + di, 2 * j + dj, c]
    same(gc.nn.depth_to_space(d, 2), x)
    same(gc.nn.space_to_depth(x.transpose(0, 3, 1, 2), 2, "NCHW"), d.transpose(0, 3, 1, 2))
    with pytest.raises(ValueError, match="at least 2"):
        gc.nn.depth_to_space(d, 1)
    s = gc.nn.space_to_batch(x, [2, 3], [[0, 0], [0, 0]]).numpy()
    for i, j, b in itertools.product(range(2), range(3), range(2)):
        same(s[(i * 3 + j) * 2 + b], x[b, i::2, j::3])
    p = gc.nn.space_to_batch(x[:, :3, :5], [2, 2], [[1, 0], [0, 1]]).numpy()
    xp = np.pad(x[:, :3, :5], [(0, 0), (1, 0), (0, 1), (0, 0)])
    same(p[3 * 2 + 1], xp[1, 1::2, 1::2])


def test_with_space_to_batch_is_a_dilated_convolution():
    x = RNG.standard_normal((1, 7, 7, 2))
    w = RNG.standard_normal((3, 3, 2, 2))
    for padding in ("VALID", "SAME"):
        got = gc.nn.with_space_to_batch(
            x, [2, 2], padding, lambda inp, n, pad: gc.nn.conv2d(inp, w, 1, pad),
            filter_shape=[3, 3])
        same(got, gc.nn.conv2d(x, w, 1, padding, dilations=2), rtol=1e-12)
    same(gc.nn.with_space_to_batch(x, [1, 1], "SAME", lambda i, n, p: i * 2), x * 2)
