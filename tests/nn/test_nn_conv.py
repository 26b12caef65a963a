"""gc.nn's convolutions against direct nested-loop convolutions written here: 1-D, 2-D and
3-D, strides, dilations, "SAME"/"VALID"/explicit padding, channels-first formats,
grouped filters, the transposes (against a scatter loop), depthwise/separable and the
depthwise backprops (against the tape's gradients), and the errors."""

import numpy as np
import pytest
from nn_helpers import check_grad, conv_loops, conv_transpose_loops, same, same_pads, traced

import graphc as gc

RNG = np.random.default_rng(4)


@pytest.mark.parametrize("strides,dilations,padding", [
    ((1, 1), (1, 1), "VALID"), ((2, 1), (1, 1), "SAME"), ((1, 1), (2, 1), "SAME"),
    ((3, 2), (1, 1), "VALID"), ((1, 2), (1, 1), [[0, 0], [1, 0], [2, 1], [0, 0]])])
def test_conv2d_against_loops(strides, dilations, padding):
    x = RNG.standard_normal((2, 7, 6, 3))
    w = RNG.standard_normal((3, 2, 3, 4))
    if padding == "SAME":
        pads = same_pads((7, 6), (3, 2), strides, dilations)
    elif padding == "VALID":
        pads = [(0, 0), (0, 0)]
    else:
        pads = [tuple(p) for p in padding[1:3]]
    want = conv_loops(x, w, strides, dilations, pads)
    same(gc.nn.conv2d(x, w, strides, padding, dilations=dilations), want, rtol=1e-12)
    same(traced(gc.nn.conv2d, x, w, strides=strides, padding=padding, dilations=dilations),
         want, rtol=1e-12)
    nchw = gc.nn.conv2d(x.transpose(0, 3, 1, 2), w, strides, padding
                        if isinstance(padding, str) else [[0, 0], [0, 0]] + padding[1:3],
                        data_format="NCHW", dilations=dilations)
    same(nchw, want.transpose(0, 3, 1, 2), rtol=1e-12)


def test_conv1d_conv3d_convolution_and_groups():
    x = RNG.standard_normal((2, 9, 4))
    w = RNG.standard_normal((3, 4, 2))
    want = conv_loops(x, w, [2], [1], same_pads([9], [3], [2]))
    same(gc.nn.conv1d(x, w, 2, "SAME"), want, rtol=1e-12)
    same(gc.nn.conv1d(x.transpose(0, 2, 1), w, 2, "SAME", data_format="NCW"),
         want.transpose(0, 2, 1), rtol=1e-12)
    same(gc.nn.convolution(x, w, strides=2, padding="SAME"), want, rtol=1e-12)
    x3 = RNG.standard_normal((1, 4, 5, 3, 2))
    w3 = RNG.standard_normal((2, 3, 2, 2, 3))
    want3 = conv_loops(x3, w3, [1, 2, 1], [1, 1, 2], [(0, 0)] * 3)
    same(gc.nn.conv3d(x3, w3, [1, 1, 2, 1, 1], "VALID", dilations=[1, 1, 1, 2, 1]), want3,
         rtol=1e-12)
    same(gc.nn.convolution(x3, w3, [1, 2, 1], "VALID", dilations=[1, 1, 2]), want3, rtol=1e-12)
    # input depth 4 = 2 groups of the filter's 2 in_channels
    wg = RNG.standard_normal((3, 2, 6))
    same(gc.nn.conv1d(x, wg, 1, "VALID"), conv_loops(x, wg, [1], [1], [(0, 0)], groups=2),
         rtol=1e-12)
    # leading batch dims
    xb = RNG.standard_normal((2, 3, 5, 5, 3))
    w2 = RNG.standard_normal((2, 2, 3, 2))
    same(gc.nn.conv2d(xb, w2, 1, "VALID"),
         conv_loops(xb.reshape(6, 5, 5, 3), w2, [1, 1], [1, 1], [(0, 0)] * 2).reshape(
             2, 3, 4, 4, 2), rtol=1e-12)
    same(gc.nn.atrous_conv2d(xb[0], w2, 2, "SAME"),
         conv_loops(xb[0], w2, [1, 1], [2, 2], same_pads((5, 5), (2, 2), (1, 1), (2, 2))),
         rtol=1e-12)


def test_conv_gradient_matches_finite_differences():
    w = RNG.standard_normal((2, 2, 2, 3))
    x = RNG.standard_normal((1, 4, 3, 2))
    check_grad(lambda t: gc.nn.conv2d(t, w, 2, "SAME"), x)
    check_grad(lambda t: gc.nn.conv2d(x, t, 1, "VALID", dilations=[1, 2]), w[:, :1])


@pytest.mark.parametrize("strides,dilations,padding,out", [
    ((2, 2), (1, 1), "SAME", (7, 6)), ((2, 3), (1, 1), "VALID", (8, 7)),
    ((1, 1), (2, 2), "SAME", (5, 6)), ((1, 1), (1, 1), "VALID", (5, 4))])
def test_conv2d_transpose_against_scatter(strides, dilations, padding, out):
    w = RNG.standard_normal((3, 2, 3, 4))  # [kh, kw, out_channels, in_channels]
    if padding == "SAME":
        pads = same_pads(out, (3, 2), strides, dilations)
        o = [-(-s // st) for s, st in zip(out, strides)]
    else:
        pads = [(0, 0), (0, 0)]
        o = [(s - (k - 1) * d - 1) // st + 1 for s, k, d, st in zip(out, (3, 2), dilations,
                                                                    strides)]
    x = RNG.standard_normal((2, *o, 4))
    want = conv_transpose_loops(x, w, out, strides, dilations, pads)
    got = gc.nn.conv2d_transpose(x, w, (2, *out, 3), strides, padding, dilations=dilations)
    same(got, want, rtol=1e-12)
    same(gc.nn.conv_transpose(x, w, [2, *out, 3], strides, padding, dilations=dilations),
         want, rtol=1e-12)
    got = gc.nn.conv2d_transpose(x.transpose(0, 3, 1, 2), w, (2, 3, *out), strides, padding,
                                 data_format="NCHW", dilations=dilations)
    same(got, want.transpose(0, 3, 1, 2), rtol=1e-12)


def test_conv1d_3d_and_atrous_transposes():
    x = RNG.standard_normal((2, 4, 3))
    w = RNG.standard_normal((3, 2, 3))
    same(gc.nn.conv1d_transpose(x, w, [2, 8, 2], 2, "SAME"),
         conv_transpose_loops(x, w, [8], [2], [1], same_pads([8], [3], [2])), rtol=1e-12)
    x3 = RNG.standard_normal((1, 2, 3, 2, 2))
    w3 = RNG.standard_normal((2, 2, 2, 1, 2))
    same(gc.nn.conv3d_transpose(x3, w3, [1, 3, 4, 3, 1], 1, "VALID"),
         conv_transpose_loops(x3, w3, [3, 4, 3], [1, 1, 1], [1, 1, 1], [(0, 0)] * 3),
         rtol=1e-12)
    x2 = RNG.standard_normal((1, 5, 5, 2))
    w2 = RNG.standard_normal((3, 3, 1, 2))
    same(gc.nn.atrous_conv2d_transpose(x2, w2, [1, 5, 5, 1], 2, "SAME"),
         conv_transpose_loops(x2, w2, [5, 5], [1, 1], [2, 2],
                              same_pads((5, 5), (3, 3), (1, 1), (2, 2))), rtol=1e-12)
    with pytest.raises(ValueError, match="output_shape"):
        gc.nn.conv2d_transpose(x2, w2, [1, 9, 9, 1], 1, "SAME")


def _depthwise_loops(x, w, strides, dilations, pads):
    c, m = w.shape[2], w.shape[3]
    outs = [conv_loops(x[..., ci:ci + 1], w[:, :, ci:ci + 1, :], strides, dilations, pads)
            for ci in range(c)]
    return np.concatenate(outs, -1).reshape(*outs[0].shape[:3], c * m)


def test_depthwise_and_separable():
    x = RNG.standard_normal((2, 6, 5, 3))
    w = RNG.standard_normal((3, 2, 3, 2))
    want = _depthwise_loops(x, w, (2, 2), (1, 1), same_pads((6, 5), (3, 2), (2, 2)))
    same(gc.nn.depthwise_conv2d(x, w, [1, 2, 2, 1], "SAME"), want, rtol=1e-12)
    same(gc.nn.depthwise_conv2d(x.transpose(0, 3, 1, 2), w, [1, 1, 2, 2], "SAME",
                                data_format="NCHW"), want.transpose(0, 3, 1, 2), rtol=1e-12)
    want = _depthwise_loops(x, w, (1, 1), (2, 1), [(0, 0), (0, 0)])
    same(gc.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "VALID", dilations=[2, 1]), want,
         rtol=1e-12)
    with pytest.raises(ValueError, match="strides > 1"):
        gc.nn.depthwise_conv2d(x, w, [1, 2, 2, 1], "VALID", dilations=[2, 2])
    pw = RNG.standard_normal((1, 1, 6, 4))
    same(gc.nn.separable_conv2d(x, w, pw, [1, 1, 1, 1], "VALID", dilations=[2, 1]),
         want @ pw[0, 0], rtol=1e-12)


def test_depthwise_backprops_match_the_tape():
    x = RNG.standard_normal((2, 5, 6, 2))
    w = RNG.standard_normal((3, 3, 2, 2))
    for strides, padding in (([1, 2, 2, 1], "SAME"), ([1, 1, 1, 1], "VALID")):
        out = gc.nn.depthwise_conv2d(x, w, strides, padding)
        g = RNG.standard_normal(out.shape)
        xt, wt = gc.constant(x), gc.constant(w)
        with gc.GradientTape(persistent=True) as tape:
            tape.watch([xt, wt])
            loss = gc.reduce_sum(gc.nn.depthwise_conv2d(xt, wt, strides, padding) * g)
        dx, dw = tape.gradient(loss, [xt, wt])
        same(gc.nn.depthwise_conv2d_backprop_input(x.shape, w, g, strides, padding), dx,
             rtol=1e-12)
        same(gc.nn.depthwise_conv2d_backprop_filter(x, w.shape, g, strides, padding), dw,
             rtol=1e-12)


def test_conv_errors():
    x = np.ones((1, 3, 3, 2))
    with pytest.raises(ValueError, match="negative"):
        gc.nn.conv2d(x, np.ones((4, 4, 2, 1)), 1, "VALID")
    with pytest.raises(ValueError, match="divisible"):
        gc.nn.conv2d(x, np.ones((1, 1, 3, 1)), 1, "VALID")
    with pytest.raises(ValueError, match="data_format"):
        gc.nn.conv2d(x, np.ones((1, 1, 2, 1)), 1, "VALID", data_format="NWC")
    with pytest.raises(ValueError, match="batch and depth"):
        gc.nn.conv2d(x, np.ones((1, 1, 2, 1)), [2, 1, 1, 1], "VALID")
    with pytest.raises(ValueError, match="padding"):
        gc.nn.conv2d(x, np.ones((1, 1, 2, 1)), 1, "FULL")
    with pytest.raises(TypeError, match="dtype"):
        gc.nn.conv2d(x.astype(np.float32), np.ones((1, 1, 2, 1)), 1, "VALID")
