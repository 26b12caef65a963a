"""Sliding windows for ``gc.nn``'s convolutions and pools: TensorFlow's argument rules
(data formats, strides/dilations/ksize as an int or a list of 1, N or N+2 ints, "SAME"
/ "VALID" / explicit padding) and the patch extraction they share.

A window is gathered as one strided slice of the padded input per kernel offset, the
slices stacked on a new axis: ``(batch, out..., kernel offsets, channels)``. A
convolution contracts that with the filter (one ``matmul``), a pool reduces it. The
graph holds one slice per kernel offset (9 for a 3x3 kernel), independent of the input's
size, and every op used has its gradient, batching rule and Numba kernel. The same code
runs on NumPy arrays, for constants known while tracing (the counts of an average pool,
the flat positions ``max_pool_with_argmax`` returns).
"""

from __future__ import annotations

import itertools

import numpy as np

from graphc import source_info
from graphc.core.tensor import Tensor
from graphc.ops.creation import zeros_like
from graphc.ops.join import stack
from graphc.ops.pad_tile import pad
from graphc.ops.shape import reshape, transpose

CHANNELS_LAST = {1: "NWC", 2: "NHWC", 3: "NDHWC"}
CHANNELS_FIRST = {1: "NCW", 2: "NCHW", 3: "NCDHW"}


def channels_first(data_format, n: int, name: str) -> bool:
    """Whether ``data_format`` puts channels before the ``n`` spatial dims."""
    if data_format is None:
        return False
    fmt = str(data_format)
    if fmt == CHANNELS_LAST.get(n) or (fmt.startswith("N") and fmt.endswith("C")
                                       and len(fmt) == n + 2):
        return False
    if fmt == CHANNELS_FIRST.get(n) or (fmt.startswith("NC") and len(fmt) == n + 2):
        return True
    raise ValueError(f"{name}: data_format {fmt!r} is not valid for {n} spatial "
                     f"dimension(s) (expected {CHANNELS_LAST.get(n, 'N...C')!r} or "
                     f"{CHANNELS_FIRST.get(n, 'NC...')!r}){source_info.where()}")


def spatial_ints(value, n: int, cf: bool, what: str, name: str, default=1) -> list[int]:
    """``value`` (an int, or a list of 1, n or n+2 ints) as n spatial ints; in the n+2
    form the batch and channel entries must be 1."""
    if value is None:
        return [default] * n
    if isinstance(value, int | np.integer):
        vals = [int(value)]
    else:
        vals = [int(v) for v in np.asarray(value).reshape(-1)]
    if len(vals) == 1:
        vals = vals * n
    elif len(vals) == n + 2:
        outer = (vals[0], vals[1]) if cf else (vals[0], vals[-1])
        if outer != (1, 1):
            raise ValueError(f"{name}: {what} in the batch and depth dimensions must be 1, "
                             f"got {vals}{source_info.where()}")
        vals = vals[2:] if cf else vals[1:-1]
    elif len(vals) != n:
        raise ValueError(f"{name}: {what} must be an int or a list of 1, {n} or {n + 2} "
                         f"ints, got {vals}{source_info.where()}")
    if any(v < 1 for v in vals):
        raise ValueError(f"{name}: {what} must be positive, got {vals}{source_info.where()}")
    return vals


def to_channels_last(x, cf: bool):
    if not cf:
        return x
    r = len(x.shape)
    return transpose(x, (0,) + tuple(range(2, r)) + (1,))


def from_channels_last(y, cf: bool):
    if not cf:
        return y
    r = len(y.shape)
    return transpose(y, (0, r - 1) + tuple(range(1, r - 1)))


def static_spatial(x, n: int, name: str) -> list[int]:
    """The spatial sizes of channels-last ``x`` (all must be known while tracing)."""
    sizes = list(x.shape[1:1 + n])
    if None in sizes:
        raise ValueError(f"{name}: the spatial dimensions must be known while tracing, "
                         f"got shape {x.shape}{source_info.where()}")
    return sizes


def windows(sizes, ksize, strides, dilations, padding, n, cf, name):
    """TensorFlow's output sizes and ``(before, after)`` pads per spatial dim."""
    eff = [(k - 1) * d + 1 for k, d in zip(ksize, dilations)]
    if isinstance(padding, str):
        mode = padding.upper()
        if mode == "VALID":
            for i, e, s in zip(sizes, eff, strides):
                if i < e:
                    raise ValueError(f"{name}: computed output size would be negative "
                                     f"(input size {i}, effective filter size {e}, stride "
                                     f"{s}){source_info.where()}")
            return [(i - e) // s + 1 for i, e, s in zip(sizes, eff, strides)], [(0, 0)] * n
        if mode == "SAME":
            outs = [(i + s - 1) // s for i, s in zip(sizes, strides)]
            pads = []
            for i, o, e, s in zip(sizes, outs, eff, strides):
                total = max((o - 1) * s + e - i, 0)
                pads.append((total // 2, total - total // 2))
            return outs, pads
        raise ValueError(f"{name}: padding must be 'SAME', 'VALID' or a list of pairs, got "
                         f"{padding!r}{source_info.where()}")
    pairs = [tuple(int(v) for v in p) for p in np.asarray(padding).reshape(-1, 2)]
    if len(pairs) == n + 2:
        outer = (pairs[0], pairs[1]) if cf else (pairs[0], pairs[-1])
        if outer != ((0, 0), (0, 0)):
            raise ValueError(f"{name}: explicit padding of the batch and depth dimensions "
                             f"must be 0, got {pairs}{source_info.where()}")
        pairs = pairs[2:] if cf else pairs[1:-1]
    if len(pairs) != n or any(v < 0 for p in pairs for v in p):
        raise ValueError(f"{name}: explicit padding must hold {n + 2} non-negative pairs"
                         f"{source_info.where()}")
    outs = [(i + a + b - e) // s + 1 for i, (a, b), e, s in zip(sizes, pairs, eff, strides)]
    if any(o < 1 for o in outs):
        raise ValueError(f"{name}: computed output size would be negative{source_info.where()}")
    return outs, pairs


def patches(x, ksize, strides, dilations, pads, outs, pad_value=0):
    """``(batch, outs..., prod(ksize), channels)`` windows of channels-last ``x``; pads may
    be negative (a crop). ``x`` may be a Tensor or a NumPy array."""
    n = len(ksize)
    is_np = not isinstance(x, Tensor)
    crop = tuple(slice(max(-a, 0), (x.shape[1 + i] - max(-b, 0)))
                 for i, (a, b) in enumerate(pads))
    if any(a < 0 or b < 0 for a, b in pads):
        x = x[(slice(None),) + crop + (slice(None),)]
    widths = [(0, 0)] + [(max(a, 0), max(b, 0)) for a, b in pads] + [(0, 0)]
    if any(w != (0, 0) for w in widths):
        if is_np:
            x = np.pad(x, widths, constant_values=pad_value)
        else:
            x = pad(x, widths, constant_values=pad_value)
    cols = []
    for offs in itertools.product(*[range(k) for k in ksize]):
        key = tuple(slice(o * d, o * d + (m - 1) * s + 1, s)
                    for o, d, m, s in zip(offs, dilations, outs, strides))
        cols.append(x[(slice(None),) + key + (slice(None),)])
    if len(cols) == 1:
        return cols[0][(Ellipsis, None, slice(None))]
    return np.stack(cols, axis=n + 1) if is_np else stack(cols, axis=n + 1)


def flatten_batch(x, n: int):
    """``x`` with its leading batch dims (rank > n + 2) merged into one; the leading
    shape to restore (or None)."""
    extra = len(x.shape) - (n + 2)
    if extra <= 0:
        return x, None
    lead = x.shape[:extra + 1]
    return reshape(x, (-1,) + tuple(x.shape[extra + 1:])), lead


def restore_batch(y, lead):
    if lead is None:
        return y
    if None in lead:
        raise ValueError("leading batch dimensions must be known while tracing")
    return reshape(y, tuple(lead) + tuple(y.shape[1:]))


def dilate(x, strides):
    """Channels-last ``x`` with ``s - 1`` zeros between neighbours along each spatial
    dim (a stride-``s`` transposed convolution's input)."""
    for axis, s in enumerate(strides, start=1):
        if s == 1:
            continue
        shape = list(x.shape)
        length = shape[axis]
        z = zeros_like(x)
        parts = [x] + [z] * (s - 1)
        y = stack(parts, axis=axis + 1)
        merged = [(-1 if d is None else d) for d in shape]
        merged[axis] = length * s
        y = reshape(y, tuple(merged))
        x = y[(slice(None),) * axis + (slice(0, (length - 1) * s + 1),)]
    return x
