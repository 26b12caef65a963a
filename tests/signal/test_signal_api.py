"""gc.signal: the Fourier transforms with TensorFlow's rules (NumPy as the oracle), the
windows (NumPy/SciPy and TensorFlow's formulas), frame/overlap_and_add, stft and its
inverse, mdct and its inverse, dct/idct (SciPy), the mel matrix and MFCCs; eagerly,
inside gc.function, gradients, batching and what compiles."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.fft
import scipy.signal

import graphc as gc

sys.path.insert(0, str(Path(__file__).parents[1] / "tf_api"))
from tf_api_helpers import both, check_both, compiled, numeric_grad, same, tape_grad  # noqa: E402

S = gc.signal
RNG = np.random.default_rng(0)
SIG = RNG.standard_normal((2, 40)).astype(np.float32)
Z = (RNG.standard_normal((2, 3, 4)) + 1j * RNG.standard_normal((2, 3, 4))).astype(np.complex64)


def test_names():
    path = Path(__file__).parents[3] / "shared" / "api_targets" / "tf.signal.txt"
    if path.exists():
        names = [n for n in path.read_text().split("\n")[1:] if n.strip()]
        assert [n for n in names if not callable(getattr(S, n, None))] == []
    assert S.fftnd is gc.fftnd and S.rfftnd is gc.rfftnd


@pytest.mark.parametrize("name,ref", [
    ("fft", lambda z: np.fft.fft(z)), ("ifft", lambda z: np.fft.ifft(z)),
    ("fft2d", lambda z: np.fft.fft2(z)), ("ifft2d", lambda z: np.fft.ifft2(z)),
    ("fft3d", lambda z: np.fft.fftn(z, axes=(-3, -2, -1))),
    ("ifft3d", lambda z: np.fft.ifftn(z, axes=(-3, -2, -1)))])
def test_complex_transforms(name, ref):
    check_both(getattr(S, name), [Z], ref(Z).astype(np.complex64), rtol=1e-5, atol=1e-5)
    with pytest.raises(TypeError):
        getattr(S, name)(Z.real)


def test_real_transforms():
    x = SIG[:, :6]
    check_both(S.rfft, [x], np.fft.rfft(x).astype(np.complex64), rtol=1e-5, atol=1e-5)
    same(S.rfft(x, [8]), np.fft.rfft(x, 8).astype(np.complex64), rtol=1e-5, atol=1e-5)
    same(S.rfft(x, [4]), np.fft.rfft(x, 4).astype(np.complex64), rtol=1e-5, atol=1e-5)
    spec = np.fft.rfft(x).astype(np.complex64)
    check_both(S.irfft, [spec], np.fft.irfft(spec).astype(np.float32), rtol=1e-5, atol=1e-5)
    same(S.irfft(spec, [5]), np.fft.irfft(spec, 5).astype(np.float32), rtol=1e-5, atol=1e-5)
    x3 = RNG.standard_normal((2, 3, 4))
    same(S.rfft2d(x3), np.fft.rfft2(x3), rtol=1e-10)
    same(S.irfft2d(np.fft.rfft2(x3), [3, 4]), x3, rtol=1e-10)
    same(S.rfft3d(x3, [2, 3, 6]), np.fft.rfftn(x3, (2, 3, 6), axes=(0, 1, 2)), rtol=1e-10)
    same(S.irfft3d(np.fft.rfftn(x3)), np.fft.irfftn(np.fft.rfftn(x3)), rtol=1e-10)
    with pytest.raises(TypeError):
        S.rfft(Z)
    with pytest.raises(TypeError):
        S.irfft(x)
    with pytest.raises(ValueError):
        S.rfft(x, [4, 4])


def test_nd_transforms_and_shifts():
    same(S.fftnd(Z), np.fft.fftn(Z).astype(np.complex64), rtol=1e-5, atol=1e-5)
    same(S.fftnd(Z, fft_length=[2, 6], axes=[0, 2], norm="ortho"),
         np.fft.fftn(Z, (2, 6), (0, 2), norm="ortho").astype(np.complex64), rtol=1e-5,
         atol=1e-5)
    same(S.ifftnd(Z, axes=[-1]), np.fft.ifft(Z).astype(np.complex64), rtol=1e-5, atol=1e-5)
    x3 = RNG.standard_normal((2, 3, 4))
    same(S.rfftnd(x3, axes=[0, 1], norm="forward"),
         np.fft.rfftn(x3, axes=(0, 1), norm="forward"), rtol=1e-10)
    same(S.irfftnd(np.fft.rfftn(x3), fft_length=[2, 3, 4]), x3, rtol=1e-10)
    with pytest.raises(ValueError):
        S.fftnd(Z, norm="bad")
    check_both(S.fftshift, [np.arange(6)], np.fft.fftshift(np.arange(6)))
    same(S.ifftshift(np.arange(12).reshape(3, 4), axes=1),
         np.fft.ifftshift(np.arange(12).reshape(3, 4), axes=1))


def _tf_raised_cosine(n, periodic, a, b):
    if n == 1:
        return np.ones(1, np.float32)
    denom = np.float32(n + periodic * (1 - n % 2) - 1)
    return (np.float32(a) - np.float32(b) * np.cos(np.float32(2 * np.pi)
                                                   * np.arange(n, dtype=np.float32) / denom))


@pytest.mark.parametrize("n", [0, 1, 4, 5])
def test_windows(n):
    for periodic in (True, False):
        same(S.hann_window(n, periodic), _tf_raised_cosine(n, periodic, 0.5, 0.5))
        same(S.hamming_window(n, periodic, dtype=gc.float64),
             _tf_raised_cosine(n, periodic, 0.54, 0.46).astype(np.float64), atol=1e-6)
    if n:
        same(S.hann_window(n, False, gc.float64), scipy.signal.get_window("hann", n, False)
             if n % 2 or n == 1 else np.hanning(n), atol=1e-12)
        same(S.kaiser_window(n, 4.0, gc.float64), np.kaiser(n, 4.0), rtol=1e-12)
        arg = np.arange(n)
        same(S.vorbis_window(n, gc.float64),
             np.sin(np.pi / 2 * np.sin(np.pi / n * (arg + 0.5)) ** 2), rtol=1e-12)
    if n == 4:
        kbd = scipy.signal.windows.kaiser_bessel_derived(4, 12.0)
        same(S.kaiser_bessel_derived_window(4, 12.0, gc.float64), kbd, rtol=1e-10)
    with pytest.raises(ValueError, match="floating"):
        S.hann_window(4, dtype=gc.int32)


def test_frame_and_overlap_and_add():
    x = np.arange(10, dtype=np.int32)
    check_both(lambda v: S.frame(v, 4, 3), [x], np.stack([x[0:4], x[3:7], x[6:10]]))
    same(S.frame(x, 4, 3, pad_end=True, pad_value=-1),
         np.stack([x[0:4], x[3:7], x[6:10], np.array([9, -1, -1, -1], np.int32)]))
    y = np.arange(24, dtype=np.float32).reshape(2, 6, 2)
    same(S.frame(y, 3, 2, axis=1), np.stack([y[:, 0:3], y[:, 2:5]], 1))
    same(S.frame(x, 11, 1), np.zeros((0, 11), np.int32))
    frames = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    want = np.zeros((2, 8), np.float32)
    for f in range(3):
        want[:, 2 * f:2 * f + 4] += frames[:, f]
    check_both(lambda v: S.overlap_and_add(v, 2), [frames], want)


def test_stft_roundtrip_and_values():
    st = S.stft(SIG, 16, 4)
    assert st.shape == (2, 7, 9) and st.dtype == np.complex64
    win = _tf_raised_cosine(16, True, 0.5, 0.5)
    frames = np.stack([SIG[:, 4 * i:4 * i + 16] * win for i in range(7)], 1)
    same(st, np.fft.rfft(frames, 16).astype(np.complex64), rtol=1e-4, atol=1e-4)
    for got in both(lambda v: S.inverse_stft(S.stft(v, 16, 4, fft_length=32), 16, 4,
                                             fft_length=32,
                                             window_fn=S.inverse_stft_window_fn(4)), SIG):
        np.testing.assert_allclose(got.numpy()[:, 12:-12], SIG[:, 12:28], atol=1e-5)


@pytest.mark.parametrize("norm", [None, "ortho"])
def test_mdct_roundtrip(norm):
    for got in both(lambda v: S.inverse_mdct(S.mdct(v, 8, norm=norm), norm=norm), SIG):
        np.testing.assert_allclose(got.numpy()[:, 4:-4], SIG[:, 4:36], atol=1e-5)
    with pytest.raises(ValueError, match="multiple of 4"):
        S.mdct(SIG, 6)


@pytest.mark.parametrize("kind", [1, 2, 3, 4])
def test_dct(kind):
    x = RNG.standard_normal((3, 6))
    inverse = {1: 1, 2: 3, 3: 2, 4: 4}[kind]
    for norm in ([None] if kind == 1 else [None, "ortho"]):
        check_both(lambda v: S.dct(v, kind, norm=norm), [x],
                   scipy.fft.dct(x, kind, norm=norm), rtol=1e-10, atol=1e-12)
        same(S.idct(x, kind, norm=norm), scipy.fft.dct(x, inverse, norm=norm), rtol=1e-10,
             atol=1e-12)
    same(S.dct(x.astype(np.float32), kind, n=8), scipy.fft.dct(x, kind, n=8).astype(np.float32),
         rtol=1e-4, atol=1e-4)
    with pytest.raises(NotImplementedError):
        S.dct(x, kind, axis=0)
    if kind == 1:
        with pytest.raises(ValueError, match="Type-I"):
            S.dct(x, 1, norm="ortho")


def test_mel_and_mfcc():
    m = S.linear_to_mel_weight_matrix(4, 9, 8000, 100.0, 3000.0).numpy()
    mel = lambda f: 1127.0 * np.log1p(f / 700.0)  # noqa: E731
    freqs = np.linspace(0, 4000, 9)[1:]
    edges = np.linspace(mel(100.0), mel(3000.0), 6)
    lower = (mel(freqs)[:, None] - edges[None, :-2]) / (edges[1:-1] - edges[:-2])
    upper = (edges[None, 2:] - mel(freqs)[:, None]) / (edges[2:] - edges[1:-1])
    want = np.vstack([np.zeros((1, 4)), np.maximum(0, np.minimum(lower, upper))])
    assert m.dtype == np.float32 and m.shape == (9, 4)
    np.testing.assert_allclose(m, want, atol=1e-5)
    with pytest.raises(ValueError):
        S.linear_to_mel_weight_matrix(4, 9, 8000, 100.0, 5000.0)
    logmel = RNG.standard_normal((2, 5))
    check_both(S.mfccs_from_log_mel_spectrograms, [logmel],
               scipy.fft.dct(logmel, 2) / np.sqrt(10.0), rtol=1e-10)


def test_gradients_batching_compiled(monkeypatch, tmp_path):
    x = RNG.standard_normal((2, 8))
    for fn in (lambda t: S.dct(t, 2, norm="ortho") ** 2,
               lambda t: S.overlap_and_add(S.frame(t, 4, 2), 2) ** 2,
               lambda t: S.irfft(S.rfft(t) * np.complex128(2.0))):
        ref = lambda v, fn=fn: fn(gc.constant(v)).numpy().sum()  # noqa: E731
        np.testing.assert_allclose(tape_grad(fn, x), numeric_grad(ref, x), rtol=1e-5,
                                   atol=1e-7)
    got = gc.vectorized_map(lambda r: S.dct(S.frame(r, 4, 2), 4), x)
    same(got, np.stack([scipy.fft.dct(np.stack([r[0:4], r[2:6], r[4:8]]), 4) for r in x]),
         rtol=1e-10)

    def fn(v):
        return (S.dct(v, 2), S.frame(v, 4, 2), S.overlap_and_add(S.frame(v, 4, 2), 2),
                v * S.hann_window(8, dtype=gc.float64))

    out = compiled(monkeypatch, tmp_path, fn, x)
    same(out[0], scipy.fft.dct(x, 2), rtol=1e-10)
    same(out[2], np.concatenate([x[:, :2], 2 * x[:, 2:6], x[:, 6:]], 1), rtol=1e-12)
