"""``gc.signal``'s framing and short-time transforms: ``frame``, ``overlap_and_add``,
``stft``, ``inverse_stft``, ``inverse_stft_window_fn``, ``mdct``, ``inverse_mdct``; built
from ``take`` (frames), ``unsorted_segment_sum`` (overlap-add), the windows, the
``fft`` op and the DCT matrices, following TensorFlow's steps. Frame lengths and steps
must be known while tracing."""

from __future__ import annotations

import numpy as np

from graphc.ops import join, reduce
from graphc.ops import shape as shape_ops
from graphc.ops.array_helpers import dims
from graphc.ops.indexing import take
from graphc.ops.pad_tile import pad
from graphc.ops.segment import unsorted_segment_sum
from graphc.ops.signal_dct import dct, idct
from graphc.ops.signal_fft import irfft, rfft
from graphc.ops.signal_windows import hann_window, vorbis_window
from graphc.ops.tf_api_shapes import _rank, tensor, value_of


def _static_int(v, what):
    known = value_of(v)
    if known is None or np.ndim(known):
        raise ValueError(f"{what} must be a scalar known while tracing")
    return int(known)


def frame(signal, frame_length, frame_step, pad_end=False, pad_value=0, axis=-1,
          name=None):
    """``tf.signal.frame``: the frames of ``frame_length`` samples every ``frame_step``
    along ``axis``, as a new ``[frames, frame_length]`` pair of dims there; with
    ``pad_end`` the end is padded with ``pad_value`` so every sample is in a frame."""
    x = tensor(signal)
    length = _static_int(frame_length, "frame: frame_length")
    step = _static_int(frame_step, "frame: frame_step")
    if length < 0 or step <= 0:
        raise ValueError("frame: frame_length must be >= 0 and frame_step > 0")
    nd = _rank(x, "frame")
    if nd == 0:
        raise ValueError("frame: signal must have rank >= 1")
    ax = int(axis) % nd
    n = x.shape[ax]
    if n is None:
        raise ValueError("frame: the framed axis's length must be known while tracing")
    if pad_end:
        count = -(-n // step)
        need = max((count - 1) * step + length - n, 0) if count else 0
        if need:
            widths = [[0, 0]] * nd
            widths[ax] = [0, need]
            x = pad(x, widths, constant_values=pad_value)
    else:
        count = max(0, 1 + (n - length) // step) if n >= length else 0
    idx = (np.arange(count)[:, None] * step + np.arange(length)[None, :]).astype(np.int64)
    if count == 0 or length == 0:
        shape = dims(x)
        return shape_ops.reshape(x[(slice(None),) * ax + (slice(0, 0),)],
                                 shape[:ax] + [count, length] + shape[ax + 1:])
    return take(x, idx, axis=ax)


def overlap_and_add(signal, frame_step, name=None):
    """``tf.signal.overlap_and_add``: frames ``[..., frames, frame_length]`` added
    back together ``frame_step`` apart: ``[..., (frames - 1) * step + frame_length]``."""
    x = tensor(signal)
    step = _static_int(frame_step, "overlap_and_add: frame_step")
    nd = _rank(x, "overlap_and_add")
    if nd < 2:
        raise ValueError("overlap_and_add: signal must have rank >= 2")
    frames, length = x.shape[-2], x.shape[-1]
    if frames is None or length is None:
        raise ValueError("overlap_and_add: the frame count and length must be known while "
                         "tracing")
    if step <= 0:
        raise ValueError("overlap_and_add: frame_step must be positive")
    out_len = max((frames - 1) * step + length, 0)
    ids = (np.arange(frames)[:, None] * step + np.arange(length)[None, :]).reshape(-1)
    lead = dims(x)[:-2]
    flat = shape_ops.reshape(x, lead + [frames * length])
    moved = shape_ops.moveaxis(flat, -1, 0)
    summed = unsorted_segment_sum(moved, ids.astype(np.int64), out_len)
    return shape_ops.moveaxis(summed, 0, -1)


def _fft_length(frame_length):
    return 1 << max(int(frame_length) - 1, 0).bit_length()


def stft(signals, frame_length, frame_step, fft_length=None, window_fn=hann_window,
         pad_end=False, name=None):
    """``tf.signal.stft``: the ``rfft`` (``fft_length``, default the smallest power of
    2 >= ``frame_length``) of each windowed frame: ``[..., frames, fft_length//2+1]``."""
    x = tensor(signals)
    if x.dtype not in (np.float32, np.float64):
        raise TypeError(f"stft: signals must be float32 or float64, got {x.dtype}")
    length = _static_int(frame_length, "stft: frame_length")
    n_fft = _fft_length(length) if fft_length is None else _static_int(fft_length,
                                                                       "stft: fft_length")
    framed = frame(x, length, frame_step, pad_end=pad_end)
    if window_fn is not None:
        framed = framed * window_fn(length, dtype=x.dtype)
    return rfft(framed, [n_fft])


def inverse_stft(stfts, frame_length, frame_step, fft_length=None,
                 window_fn=hann_window, name=None):
    """``tf.signal.inverse_stft``: each frame's ``irfft``, cut or zero-padded to
    ``frame_length``, windowed by ``window_fn`` (use :func:`inverse_stft_window_fn`
    for a perfect inverse) and overlap-added."""
    s = tensor(stfts)
    length = _static_int(frame_length, "inverse_stft: frame_length")
    n_fft = _fft_length(length) if fft_length is None else _static_int(
        fft_length, "inverse_stft: fft_length")
    real = irfft(s, [n_fft])
    have = real.shape[-1]
    if have > length:
        real = real[..., :length]
    elif have < length:
        real = pad(real, [[0, 0]] * (len(real.shape) - 1) + [[0, length - have]])
    if window_fn is not None:
        real = real * window_fn(length, dtype=real.dtype)
    return overlap_and_add(real, frame_step)


def inverse_stft_window_fn(frame_step, forward_window_fn=hann_window, name=None):
    """``tf.signal.inverse_stft_window_fn``: a window function for
    :func:`inverse_stft` that inverts :func:`stft` made with ``forward_window_fn``
    (the forward window over the overlapped sum of its squares)."""
    step = _static_int(frame_step, "inverse_stft_window_fn: frame_step")

    def inverse_stft_window_fn_inner(frame_length, dtype):
        length = _static_int(frame_length, "inverse_stft_window_fn: frame_length")
        forward = tensor(forward_window_fn(length, dtype=dtype))
        denom = forward * forward
        overlaps = -(-length // step)
        denom = pad(denom, [[0, overlaps * step - length]])
        denom = shape_ops.reshape(denom, (overlaps, step))
        denom = reduce.sum(denom, axis=0, keepdims=True)
        denom = shape_ops.reshape(join.concatenate([denom] * overlaps), (overlaps * step,))
        return forward / denom[:length]

    return inverse_stft_window_fn_inner


def mdct(signals, frame_length, window_fn=vorbis_window, pad_end=False, norm=None,
         name=None):
    """``tf.signal.mdct``: the modified DCT of frames of ``frame_length`` (a multiple
    of 4) every ``frame_length // 2`` samples: ``[..., frames, frame_length // 2]``."""
    x = tensor(signals)
    length = _static_int(frame_length, "mdct: frame_length")
    if length % 4:
        raise ValueError("The frame length must be a multiple of 4.")
    framed = frame(x, length, length // 2, pad_end=pad_end)
    if window_fn is not None:
        framed = framed * window_fn(length, dtype=framed.dtype)
    else:
        framed = framed * np.asarray(1.0 / np.sqrt(2.0), framed.dtype)
    q = length // 4
    a, b, c, d = (framed[..., i * q:(i + 1) * q] for i in range(4))
    first = -shape_ops.flip(c, -1) - d
    second = a - shape_ops.flip(b, -1)
    return dct(join.concatenate([first, second], axis=-1), type=4, norm=norm)


def inverse_mdct(mdcts, window_fn=vorbis_window, norm=None, name=None):
    """``tf.signal.inverse_mdct``: frames rebuilt from :func:`mdct` coefficients,
    windowed and overlap-added (with a Princen-Bradley window such as the default, the
    inverse of :func:`mdct` away from the ends)."""
    m = tensor(mdcts)
    half = m.shape[-1]
    if half is None:
        raise ValueError("inverse_mdct: the innermost dim must be known while tracing")
    out = idct(m, type=4, norm=norm)
    if norm is None:
        out = out * np.asarray(0.5 / half, out.dtype)
    h2 = half // 2
    lo, hi = out[..., :h2], out[..., h2:]
    real = join.concatenate([hi, -shape_ops.flip(hi, -1), -shape_ops.flip(lo, -1), -lo],
                            axis=-1)
    if window_fn is not None:
        real = real * window_fn(2 * half, dtype=real.dtype)
    else:
        real = real * np.asarray(1.0 / np.sqrt(2.0), real.dtype)
    return overlap_and_add(real, half)
