"""gc.image through the rest of graphc: a compiled (``jit_compile=True``) pipeline and
its gradient agree with the interpreter, tape gradients match finite differences, and
gc.vectorized_map matches a per-example loop."""

import numpy as np
import pytest
from image_helpers import check_grad, img, same

import graphc as gc
from graphc.runtime.cpu import numba_cpu, runners

I = gc.image  # noqa: E741
X = img(2, 5, 6, 3)


def pipeline(x):
    y = I.resize(x, [7, 8])
    y = I.adjust_contrast(y, 1.3)
    y = I.rgb_to_grayscale(y)
    e = I.sobel_edges(y)
    return gc.reduce_sum(e * e, axis=[1, 2, 3, 4]), I.flip_left_right(I.rgb_to_hsv(x))


def pipeline_grad(x):
    with gc.GradientTape() as tape:
        tape.watch(x)
        loss = gc.reduce_sum(pipeline(x)[0])
    return tape.gradient(loss, x)


@pytest.fixture
def compiled(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHC_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(numba_cpu.settings, "mode", "eager")
    monkeypatch.setattr(numba_cpu.settings, "worker", False)
    return monkeypatch


def test_pipeline_and_gradient_compile(compiled):
    want_e, want_h = pipeline(gc.constant(X))
    want_g = pipeline_grad(gc.constant(X))
    f = gc.function(pipeline, jit_compile=True)
    g = gc.function(pipeline_grad, jit_compile=True)
    with compiled.context() as mp:
        mp.setattr(runners, "run_graph", lambda *a: pytest.fail("ran on the interpreter"))
        got_e, got_h = f(X)
        got_g = g(gc.constant(X))
    assert f.get_concrete_function(X).runtime.backend == "numba"
    same(got_e, want_e.numpy(), rtol=1e-5, atol=1e-5)
    same(got_h, want_h.numpy(), rtol=1e-5, atol=1e-6)
    same(got_g, want_g.numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("fn", [
    lambda t: I.rgb_to_hsv(t),
    lambda t: I.hsv_to_rgb(t),
    lambda t: I.per_image_standardization(t),
    lambda t: I.resize(t, [5, 3]),
    lambda t: I.resize(t, [2, 5], method="bicubic"),
    lambda t: I.resize(t, [2, 2], method="area", antialias=True),
    lambda t: I.sobel_edges(t),
    lambda t: I.extract_patches(t, [1, 2, 2, 1], [1, 1, 2, 1], [1, 1, 1, 1], "SAME"),
    lambda t: I.crop_and_resize(t, np.array([[0.1, 0.2, 0.8, 0.9]]), np.array([0]), [3, 2]),
])
def test_gradients_match_finite_differences(fn):
    check_grad(fn, img(1, 3, 4, 3))


def test_float32_adjustment_gradients():
    """adjust_* compute float64 images in float32 (TensorFlow's working type)."""
    check_grad(lambda t: I.adjust_saturation(t, 0.7), img(1, 3, 4, 3), f32=True)
    check_grad(lambda t: I.adjust_hue(t, 0.1), img(1, 3, 4, 3), f32=True)
    check_grad(lambda t: I.adjust_contrast(t, 1.5), img(1, 3, 4, 3), f32=True)


def test_ssim_gradient_and_box_gradient():
    b = img(1, 11, 12, 1).astype(np.float64)
    check_grad(lambda t: I.ssim(t, gc.constant(b), 1.0), img(1, 11, 12, 1), rtol=1e-4)
    x = gc.constant(img(1, 4, 5, 1).astype(np.float64))
    check_grad(lambda bx: I.crop_and_resize(x, bx, np.array([0]), [2, 3]),
               np.array([[0.1, 0.15, 0.7, 0.8]]))


def test_vectorized_map_matches_a_loop():
    def per_image(im):
        y = I.resize(im, [4, 3], method="bicubic")
        return I.adjust_hue(y, 0.2), I.total_variation(y), I.psnr(im, im * 0.5, 1.0)

    got = gc.vectorized_map(per_image, X)
    for i in range(len(X)):
        want = per_image(gc.constant(X[i]))
        for g, w in zip(got, want):
            same(g[i], w.numpy(), rtol=1e-5, atol=1e-6)
